/**
 * The report planner (functions/core/reports/query/engine.ts): date ranges split into whole months and edge days, the
 * cube variant chosen per period, and the item-count targets as assertions on plans. Plans are checked two ways:
 * from chooseVariant directly, and by running runCubeQuery against a recording repository that holds one item
 * for every period (so the count is what the engine really reads, not a re-derivation of it).
 */
import { describe, expect, it } from 'vitest';
import { CHANNEL_BASIC, FAMILY_BY_CODE } from '../../functions/core/reports/catalog/families';
import { countriesIn } from '../../functions/core/reports/catalog/geo';
import type { MetricName } from '../../functions/core/reports/catalog/metrics';
import { matchReport } from '../../functions/core/reports/catalog/report-matcher';
import {
  type CubeQuery,
  chooseVariant,
  firstInOrder,
  type QueryDim,
  runCubeQuery,
  splitRange,
} from '../../functions/core/reports/query/engine';
import type { Filter, ReportRequest, SortKey } from '../../functions/core/reports/query/report-request';
import { blockMonths, VARIANTS } from '../../functions/core/reports/storage/cube';
import type { StoredCube } from '../../functions/core/reports/storage/cube-codec';
import {
  type CubeAddress,
  type FactRepository,
  newReadStats,
  type PeriodCube,
  type ReadStats,
} from '../../functions/core/reports/storage/fact-repository';
import { addCubes } from '../../functions/core/reports/storage/month-pieces';

const DAY_MS = 86_400_000;
const toMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
const fromMs = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const daysBetween = (from: string, to: string) => Math.round((toMs(to) - toMs(from)) / DAY_MS) + 1;
const eachDay = (from: string, to: string) =>
  Array.from({ length: daysBetween(from, to) }, (_, i) => fromMs(toMs(from) + i * DAY_MS));
const monthDays = (month: string) => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return eachDay(`${month}-01`, fromMs(Date.UTC(y, m, 0)));
};

// ---------------------------------------------------------------------------------------------------------------

describe('splitRange', () => {
  it('agrees with a day-by-day walk over random ranges, leap years and year ends included', () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const base = toMs('1999-11-01');
    for (let n = 0; n < 400; n++) {
      const start = fromMs(base + Math.floor(next() * 40_000) * DAY_MS);
      const end = fromMs(toMs(start) + Math.floor(next() * 500) * DAY_MS);
      // The reference: whole months are those whose every day is inside; edges are the rest, in runs.
      const days = eachDay(start, end);
      const whole = [...new Set(days.map((d) => d.slice(0, 7)))].filter((m) =>
        monthDays(m).every((d) => d >= start && d <= end),
      );
      const loose = days.filter((d) => !whole.includes(d.slice(0, 7)));
      const runs: [string, string][] = [];
      for (const d of loose) {
        const last = runs[runs.length - 1];
        if (last && toMs(d) - toMs(last[1]) === DAY_MS) last[1] = d;
        else runs.push([d, d]);
      }
      expect(splitRange(start, end), `${start}..${end}`).toEqual({ months: whole, edges: runs });
    }
    expect(splitRange('2100-02-01', '2100-02-28').months).toEqual(['2100-02']);
    expect(splitRange('2000-02-01', '2000-02-28').months).toEqual([]);
  });

  it('ends at the last valid day, 9999-12-31 (the month after 9999-12 sorts before every date as text)', () => {
    // Once an endless loop: the process died of an array past V8's size limit, a 5xx for any such range.
    const { months, edges } = splitRange('2026-03-17', '9999-12-31');
    expect(months.length).toBe((9999 - 2026) * 12 + 9);
    expect([months[0], months[months.length - 1]]).toEqual(['2026-04', '9999-12']);
    expect(edges).toEqual([['2026-03-17', '2026-03-31']]);
    expect(splitRange('9999-12-05', '9999-12-31')).toEqual({ months: [], edges: [['9999-12-05', '9999-12-31']] });
    expect(splitRange('9999-11-01', '9999-12-30')).toEqual({
      months: ['9999-11'],
      edges: [['9999-12-01', '9999-12-30']],
    });
    expect(splitRange('0000-01-01', '0000-02-29').months).toEqual(['0000-01', '0000-02']);
  });

  it('whole months only', () => {
    expect(splitRange('2026-03-01', '2026-05-31')).toEqual({ months: ['2026-03', '2026-04', '2026-05'], edges: [] });
  });

  it('partial months at both edges', () => {
    expect(splitRange('2026-03-17', '2026-06-11')).toEqual({
      months: ['2026-04', '2026-05'],
      edges: [
        ['2026-03-17', '2026-03-31'],
        ['2026-06-01', '2026-06-11'],
      ],
    });
  });

  it('a partial month at one edge only', () => {
    expect(splitRange('2026-03-01', '2026-04-03')).toEqual({
      months: ['2026-03'],
      edges: [['2026-04-01', '2026-04-03']],
    });
    expect(splitRange('2026-02-27', '2026-03-31')).toEqual({
      months: ['2026-03'],
      edges: [['2026-02-27', '2026-02-28']],
    });
  });

  it('a range inside one month is all edge', () => {
    expect(splitRange('2026-03-05', '2026-03-20')).toEqual({ months: [], edges: [['2026-03-05', '2026-03-20']] });
    expect(splitRange('2026-03-01', '2026-03-30')).toEqual({ months: [], edges: [['2026-03-01', '2026-03-30']] });
    expect(splitRange('2026-03-02', '2026-03-31')).toEqual({ months: [], edges: [['2026-03-02', '2026-03-31']] });
    expect(splitRange('2026-03-09', '2026-03-09')).toEqual({ months: [], edges: [['2026-03-09', '2026-03-09']] });
  });

  it('from the 1st to the end of the same month is one whole month', () => {
    for (const [start, end] of [
      ['2026-01-01', '2026-01-31'],
      ['2026-02-01', '2026-02-28'],
      ['2026-04-01', '2026-04-30'],
      ['2026-12-01', '2026-12-31'],
    ] as const) {
      expect(splitRange(start, end)).toEqual({ months: [start.slice(0, 7)], edges: [] });
    }
  });

  it('leap years: February 2028 ends on the 29th, 2100 is not a leap year', () => {
    expect(splitRange('2028-02-01', '2028-02-29')).toEqual({ months: ['2028-02'], edges: [] });
    expect(splitRange('2028-02-01', '2028-02-28')).toEqual({ months: [], edges: [['2028-02-01', '2028-02-28']] });
    expect(splitRange('2028-01-15', '2028-03-01')).toEqual({
      months: ['2028-02'],
      edges: [
        ['2028-01-15', '2028-01-31'],
        ['2028-03-01', '2028-03-01'],
      ],
    });
    expect(splitRange('2028-02-29', '2028-03-31')).toEqual({
      months: ['2028-03'],
      edges: [['2028-02-29', '2028-02-29']],
    });
    expect(splitRange('2100-02-01', '2100-02-28')).toEqual({ months: ['2100-02'], edges: [] });
    expect(splitRange('2000-02-01', '2000-02-28').months).toEqual([]);
  });

  it('across a year boundary', () => {
    expect(splitRange('2025-12-15', '2026-01-31')).toEqual({
      months: ['2026-01'],
      edges: [['2025-12-15', '2025-12-31']],
    });
    expect(splitRange('2025-11-01', '2026-02-28').months).toEqual(['2025-11', '2025-12', '2026-01', '2026-02']);
    // no whole month in between: one edge range over two months
    expect(splitRange('2025-12-31', '2026-01-01')).toEqual({ months: [], edges: [['2025-12-31', '2026-01-01']] });
  });

  it('covers every day of any range exactly once (exhaustive over 2027-12 … 2028-04)', () => {
    const days = eachDay('2027-12-01', '2028-04-30');
    for (let i = 0; i < days.length; i += 3) {
      for (let j = i; j < days.length; j += 2) {
        const start = days[i] as string;
        const end = days[j] as string;
        const { months, edges } = splitRange(start, end);
        const covered = [...months.flatMap(monthDays), ...edges.flatMap(([a, b]) => eachDay(a, b))].sort();
        expect(covered, `${start}..${end}`).toEqual(eachDay(start, end));
        expect(edges.length, `${start}..${end}`).toBeLessThanOrEqual(2);
        // months are whole and consecutive, edges lie outside them
        for (const [a, b] of edges) expect(a <= b, `${start}..${end}`).toBe(true);
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------

const query = (q: Partial<CubeQuery> = {}): CubeQuery => ({
  family: CHANNEL_BASIC,
  owner: 'UCplan',
  startDate: '2026-03-01',
  endDate: '2026-04-30',
  dimensions: [],
  metrics: ['views'],
  filters: {},
  sort: [],
  startIndex: 1,
  ...q,
});

/**
 * A geographic filter as queryReport hands it to the engine: the countries it stands for, plus the filter as
 * given (newer planners pick region partitions by it; older ones ignore it).
 */
const geo = (kind: 'country' | 'continent' | 'subContinent', code: string): CubeQuery['filters'] =>
  ({
    country: kind === 'country' ? new Set([code]) : countriesIn({ [kind]: code }),
    region: { kind, code },
  }) as CubeQuery['filters'];

/** chooseVariant, which must find a variant here. */
function choose(q: CubeQuery, period: 'day' | 'month') {
  const c = chooseVariant(q, period);
  if (!c) throw new Error(`no variant for ${JSON.stringify(q.dimensions)} by ${period}`);
  return c;
}

const videos = (n: number) => new Set(Array.from({ length: n }, (_, i) => `v${String(i).padStart(4, '0')}`));

describe('chooseVariant', () => {
  it('a channel-level month query reads a non-partitioned variant (d or g)', () => {
    const c = choose(query(), 'month');
    expect(['d', 'g']).toContain(c.variant.name);
    expect(c.partitions).toEqual([undefined]);
    expect(choose(query({ dimensions: ['month'] }), 'month').variant.name).toMatch(/^[dg]$/);
  });

  it('the day dimension without geo → d for months; t (the day totals) for single days', () => {
    const q = query({ dimensions: ['day'] });
    expect(choose(q, 'month')).toMatchObject({ variant: { name: 'd' }, partitions: [undefined] });
    expect(choose(q, 'day').variant.name).toBe('t');
  });

  it('geo dimensions or filters with day → gd for months', () => {
    expect(choose(query({ dimensions: ['day', 'subscribedStatus'] }), 'month').variant.name).toBe('gd');
    expect(choose(query({ dimensions: ['day'], filters: geo('country', 'US') }), 'month').variant.name).toBe('gd');
    expect(choose(query({ dimensions: ['country'] }), 'month').variant.name).toBe('g');
    expect(choose(query({ dimensions: ['country'] }), 'day').variant.name).toBe('g');
  });

  it('the video dimension without a geo filter → v', () => {
    const q = query({ dimensions: ['video'], sort: [{ name: 'views', descending: true }], maxResults: 10 });
    expect(choose(q, 'month')).toMatchObject({ variant: { name: 'v' }, partitions: [undefined] });
    expect(choose(q, 'day').variant.name).toBe('v');
  });

  // The brief names this variant `vc` (video × country); a newer planner keeps one partition per region filter
  // instead (`vn` country, `vs` sub-continent, `vk` continent). Either way: one item per month.
  it('the video dimension with a geo filter → a video × country variant, one item per month (f for single days)', () => {
    for (const filters of [geo('country', 'US'), geo('continent', '150'), geo('subContinent', '155')]) {
      const q = query({ dimensions: ['video'], filters });
      const c = choose(q, 'month');
      const label = JSON.stringify((filters as { region?: unknown }).region);
      expect(['vc', 'vn', 'vs', 'vk'], label).toContain(c.variant.name);
      expect(c.variant.grain, label).toContain('video');
      expect(c.variant.grain.includes('country') || c.variant.partitionBy !== undefined, label).toBe(true);
      expect(c.partitions, label).toHaveLength(1);
      expect(choose(q, 'day')).toMatchObject({ variant: { name: 'f' }, partitions: [undefined] });
    }
    const us = choose(query({ dimensions: ['video'], filters: geo('country', 'US') }), 'month');
    if (us.variant.partitionBy !== undefined) expect(us.partitions).toEqual(['US']);
  });

  // The brief names this variant `pd` (one item per video); the working tree now spreads videos over buckets
  // (`vb`). Either way: a per-video(-bucket) partition, exactly one of them for one video.
  it('a one-video filter with day → a video-partitioned variant with one partition', () => {
    const q = query({ dimensions: ['day'], filters: { video: new Set(['abc']) } });
    const c = choose(q, 'month');
    expect(['video', 'videoBucket']).toContain(String(c.variant.partitionBy));
    expect(c.variant.grain).toContain('day');
    expect(c.partitions).toHaveLength(1);
    expect(c.partitions[0]).toBeDefined();
    expect(choose(q, 'day').variant.name).toBe('v');
  });

  it('a one-video filter with geo dimensions → still one item per month', () => {
    for (const dimensions of [['country'], ['subscribedStatus'], ['day', 'liveOrOnDemand']] as QueryDim[][]) {
      const c = choose(query({ dimensions, filters: { video: new Set(['abc']) } }), 'month');
      expect(c.partitions, JSON.stringify(dimensions)).toHaveLength(1);
      expect(c.variant.grain, JSON.stringify(dimensions)).toEqual(expect.arrayContaining(dimensions));
    }
  });

  it('a 200-video filter without geo dimensions → v (cheaper than 200 partitions)', () => {
    const filters = { video: videos(200) };
    expect(choose(query({ filters }), 'month')).toMatchObject({
      variant: { name: 'v' },
      partitions: [undefined],
    });
    expect(choose(query({ dimensions: ['month'], filters }), 'month').variant.name).toBe('v');
  });

  it('video partitions are sorted and distinct, at most one per requested video', () => {
    for (const n of [2, 40, 500]) {
      const byVideo = choose(query({ dimensions: ['day'], filters: { video: videos(n) } }), 'month');
      expect(byVideo.variant.partitionBy).toBeDefined();
      expect(byVideo.partitions.length).toBeGreaterThan(0);
      expect(byVideo.partitions.length).toBeLessThanOrEqual(n);
      expect([...byVideo.partitions]).toEqual([...new Set(byVideo.partitions)].sort());
    }
  });

  it('every query the catalog accepts has a plan, and the plan holds everything the query needs', () => {
    const dimSets: QueryDim[][] = [
      [],
      ['day'],
      ['month'],
      ['video'],
      ['country'],
      ['subscribedStatus'],
      ['subscribedStatus', 'day'],
      ['subscribedStatus', 'month'],
      ['liveOrOnDemand'],
      ['liveOrOnDemand', 'day'],
      ['liveOrOnDemand', 'subscribedStatus', 'month'],
    ];
    /** Each filter set as the API names it and as the engine gets it. */
    const filterSets: [Filter[], CubeQuery['filters']][] = [
      [[], {}],
      [[{ name: 'country', values: ['US'] }], geo('country', 'US')],
      [[{ name: 'continent', values: ['150'] }], geo('continent', '150')],
      [[{ name: 'subContinent', values: ['155'] }], geo('subContinent', '155')],
      [[{ name: 'video', values: ['v0001'] }], { video: new Set(['v0001']) }],
      [[{ name: 'video', values: [...videos(30)] }], { video: videos(30) }],
      [
        [{ name: 'subscribedStatus', values: ['SUBSCRIBED'] }],
        { values: { subscribedStatus: new Set(['SUBSCRIBED']) } },
      ],
      [[{ name: 'liveOrOnDemand', values: ['LIVE'] }], { values: { liveOrOnDemand: new Set(['LIVE']) } }],
      [
        [
          { name: 'subscribedStatus', values: ['SUBSCRIBED'] },
          { name: 'liveOrOnDemand', values: ['LIVE'] },
        ],
        { values: { subscribedStatus: new Set(['SUBSCRIBED']), liveOrOnDemand: new Set(['LIVE']) } },
      ],
      [
        [
          { name: 'country', values: ['FR'] },
          { name: 'video', values: ['v0001', 'v0002'] },
        ],
        { ...geo('country', 'FR'), video: new Set(['v0001', 'v0002']) },
      ],
    ];
    let supported = 0;
    for (const dimensions of dimSets) {
      for (const [apiFilters, filters] of filterSets) {
        const top = dimensions.includes('video');
        const req: ReportRequest = {
          ids: { type: 'channel', id: 'UCplan' },
          startDate: '2026-03-01',
          endDate: '2026-04-30',
          metrics: ['views'],
          dimensions,
          filters: apiFilters,
          sort: top ? [{ name: 'views', descending: true }] : [],
          ...(top ? { maxResults: 10 } : {}),
          startIndex: 1,
          includeHistoricalChannelData: false,
        };
        try {
          matchReport(req);
        } catch {
          continue; // not a supported report: no plan is owed
        }
        supported++;
        const q = query({ dimensions, filters, sort: req.sort });
        for (const period of ['month', 'day'] as const) {
          const label = `${JSON.stringify(dimensions)} ${JSON.stringify(apiFilters.map((f) => f.name))} ${period}`;
          const { variant, partitions } = choose(q, period);
          expect(variant.periods, label).toContain(period);
          // a region partition carries the country; a per-video partition (an older design) its video
          const by = variant.partitionBy === undefined ? undefined : String(variant.partitionBy);
          const carried = by === undefined || by === 'videoBucket' ? [] : by === 'video' ? ['video'] : ['country'];
          const has = new Set<string>([...variant.grain, ...carried]);
          if (period === 'day') has.add('day');
          for (const d of dimensions) if (d !== 'month') expect(has.has(d), `${label}: ${d}`).toBe(true);
          for (const f of [...Object.keys(filters), ...Object.keys(filters.values ?? {})]) {
            if (f !== 'region' && f !== 'values') expect(has.has(f), `${label}: filter ${f}`).toBe(true);
          }
          if (!variant.partitionBy) expect(partitions, label).toEqual([undefined]);
          // single days are never partitioned: the engine reads one item per edge day
          if (period === 'day') expect(variant.partitionBy, label).toBeUndefined();
        }
      }
    }
    expect(supported).toBeGreaterThan(40);
    expect(VARIANTS.filter((v) => v.partitionBy && v.periods.includes('day'))).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Item-count targets, on what runCubeQuery really reads.

/** An address's cube with no rows. */
function emptyCube(address: CubeAddress): StoredCube {
  const variant = VARIANTS.find((v) => v.name === address.variant);
  if (!variant) throw new Error(`unknown variant ${address.variant}`);
  return {
    grain: variant.grain,
    size: 0,
    keys: variant.grain.map(() => ({ values: [], codes: new Uint32Array(0) })),
    measures: [],
  };
}

/** A repository that stores one (empty) item for every period of every address, and records the reads. */
function recordingRepository() {
  const reads: { address: CubeAddress; from: string; to: string; items: number }[] = [];
  let batches = 0;
  const repo = {
    async read(address: CubeAddress, fromSk: string, toSk: string, stats: ReadStats): Promise<PeriodCube[]> {
      const cube = emptyCube(address);
      const periods: string[] = [];
      if (fromSk.startsWith('B')) {
        if (fromSk !== toSk) throw new Error(`a block is read on its own, not ${fromSk}..${toSk}`);
        periods.push(fromSk);
      } else if (fromSk.startsWith('M#')) {
        for (let m = fromSk.slice(2); m <= toSk.slice(2); ) {
          periods.push(`M#${m}`);
          const [y, mo] = m.split('-').map(Number) as [number, number];
          m = new Date(Date.UTC(y, mo, 1)).toISOString().slice(0, 7);
        }
      } else {
        for (const d of eachDay(fromSk.slice(2), toSk.slice(2))) periods.push(`D#${d}`);
      }
      stats.queries++;
      stats.items += periods.length;
      reads.push({ address, from: fromSk, to: toSk, items: periods.length });
      return periods.map((period) => ({ period, cube }));
    },
    /** Blocks by key: one request for all, recorded as one read per block. */
    async readPeriods(address: CubeAddress, periods: readonly string[], stats: ReadStats) {
      const out = new Map<string, StoredCube>();
      for (const period of periods) {
        if (!period.startsWith('B')) throw new Error(`only blocks are read by key, not ${period}`);
        const [cube] = await repo.read(address, period, period, newReadStats());
        out.set(period, (cube as PeriodCube).cube);
      }
      stats.queries++;
      stats.items += periods.length;
      batches++;
      return out;
    },
    /** A top-N's blocks and days by key (query/top-heads.ts), all in one request; every cube whole (no heads). */
    async readHeads(address: CubeAddress, periods: readonly string[], stats: ReadStats) {
      const out = new Map<string, { cube: StoredCube }>();
      const cube = emptyCube(address);
      for (const period of periods) out.set(period, { cube });
      stats.queries++;
      stats.items += periods.length;
      reads.push({ address, from: periods[0] as string, to: periods.at(-1) as string, items: periods.length });
      batches++;
      return out;
    },
  };
  // A region's months by key (and their marks) for a top-N: recorded as readHeads records its periods.
  const withMonths = { ...repo, readMonthHeads: repo.readHeads };
  return { repo: withMonths as unknown as FactRepository, reads, batches: () => batches };
}

async function plan(q: CubeQuery) {
  const { repo, reads } = recordingRepository();
  const stats = newReadStats();
  await runCubeQuery(repo, q, stats);
  const { months, edges } = splitRange(q.startDate, q.endDate);
  const edgeDays = edges.reduce((n, [a, b]) => n + daysBetween(a, b), 0);
  return { items: stats.items, queries: stats.queries, months: months.length, edgeDays, reads };
}

const RANGES: [string, string][] = [
  ['2026-03-01', '2026-03-31'],
  ['2026-03-01', '2026-08-31'],
  ['2026-03-17', '2026-06-11'],
  ['2026-03-04', '2026-03-19'],
  ['2025-11-29', '2026-02-02'],
  ['2026-01-01', '2026-12-31'],
];

const TOP: Pick<CubeQuery, 'dimensions' | 'sort' | 'maxResults'> = {
  dimensions: ['video'],
  sort: [{ name: 'views', descending: true } satisfies SortKey],
  maxResults: 10,
};

describe('combinations no month rollup holds', () => {
  const family = FAMILY_BY_CODE.get('OB') as CubeQuery['family'];
  const revenue = FAMILY_BY_CODE.get('XV') as CubeQuery['family'];

  it('content-owner top videos over a link date: the months are read as days (one item per day), not refused', async () => {
    const q = query({
      ...TOP,
      family,
      startDate: '2025-12-01',
      endDate: '2026-02-28',
      channelSince: new Map([['UCx', '2026-01-01']]),
    });
    expect(chooseVariant(q, 'month')).toBeUndefined();
    const p = await plan(q);
    expect(p.items).toBe(daysBetween('2025-12-01', '2026-02-28'));
    expect(p.reads.every((r) => r.from.startsWith('D#'))).toBe(true);
  });

  it('a link date before the range needs no days: month items as usual (here one block of the two months)', async () => {
    const q = query({ ...TOP, family, channelSince: new Map([['UCx', '2025-06-01']]) });
    expect(chooseVariant(q, 'month')).toBeDefined();
    expect((await plan(q)).items).toBe(1);
  });

  it('top videos by revenue converted to a currency: the days are read, each converted with its own rate', async () => {
    const q = query({
      dimensions: ['video'],
      metrics: ['estimatedRevenue'],
      sort: [{ name: 'estimatedRevenue', descending: true }],
      maxResults: 10,
      family: revenue,
      rate: () => 2,
    });
    expect((await plan(q)).items).toBe(daysBetween(q.startDate, q.endDate));
    // without a currency the month rollups answer (March and April: one block)
    const { rate: _rate, ...usd } = q;
    expect((await plan(usd)).items).toBe(1);
  });
});

describe('blocks of months', () => {
  const top = (startDate: string, endDate: string, more: Partial<CubeQuery> = {}) =>
    query({ startDate, endDate, dimensions: ['video'], sort: [{ name: 'views', descending: true }], ...more });

  it('top videos over a year of whole months: two-, eight- and two-month blocks, in one request', async () => {
    const { items, reads, queries } = await plan(top('2025-11-01', '2026-10-31'));
    expect(queries).toBe(1);
    expect(reads.map((r) => [r.address.variant, r.from, r.to])).toEqual([
      ['v', 'B2#2025-11', 'B2#2025-11'],
      ['v', 'B8#2026-01', 'B8#2026-01'],
      ['v', 'B2#2026-09', 'B2#2026-09'],
    ]);
    expect(items).toBe(3);
  });

  it('months no block fits are read as one range of months between the blocks', async () => {
    const { reads, queries } = await plan(top('2026-01-01', '2026-07-31'));
    expect(queries).toBe(2); // the blocks by key, the month by its range
    expect(reads.map((r) => [r.from, r.to]).sort()).toEqual([
      ['B2#2026-05', 'B2#2026-05'],
      ['B4#2026-01', 'B4#2026-01'],
      ['M#2026-07', 'M#2026-07'],
    ]);
    expect((await plan(top('2026-02-01', '2026-02-28'))).reads.map((r) => r.from)).toEqual(['M#2026-02']);
  });

  it('a block not stored (facts loaded before blocks existed) is read as its months', async () => {
    const { repo, reads } = recordingRepository();
    const noBlocks = {
      read: (address: CubeAddress, from: string, to: string, stats: ReadStats, columns?: unknown) =>
        from.startsWith('B') ? Promise.resolve([]) : repo.read(address, from, to, stats, columns as never),
      readPeriods: async () => new Map(),
      // As the repository does: each block's months, added up.
      readAsBlocks: async (address: CubeAddress, blocks: string[], stats: ReadStats, columns?: unknown) => {
        const out = new Map<string, StoredCube>();
        for (const block of blocks) {
          const months = blockMonths(block);
          const cubes = await repo.read(address, `M#${months[0]}`, `M#${months.at(-1)}`, stats, columns as never);
          if (cubes.length > 0) out.set(block, addCubes(cubes.map((c) => c.cube)));
        }
        return out;
      },
    } as unknown as FactRepository;
    const stats = newReadStats();
    await runCubeQuery(noBlocks, top('2025-11-01', '2026-10-31'), stats);
    expect(reads.map((r) => [r.from, r.to])).toEqual([
      ['M#2025-11', 'M#2025-12'],
      ['M#2026-01', 'M#2026-08'],
      ['M#2026-09', 'M#2026-10'],
    ]);
    expect(stats.items).toBe(12);
  });

  it('ten years of top videos read at most two blocks of each length and a few months, not 120 items', async () => {
    const { items } = await plan(top('2016-03-01', '2026-02-28'));
    expect(items).toBeLessThanOrEqual(2 * 4 + 6);
  });

  it('by month, by day, or with edge days inside a block range: months and days as before', async () => {
    const byMonth = await plan(top('2025-11-01', '2026-10-31', { dimensions: ['month'], sort: [] }));
    expect(byMonth.reads.every((r) => r.from.startsWith('M#'))).toBe(true);
    const edges = await plan(top('2025-10-20', '2026-11-03'));
    expect(edges.reads.filter((r) => r.from.startsWith('B')).map((r) => r.from)).toEqual([
      'B2#2025-11',
      'B8#2026-01',
      'B2#2026-09',
    ]);
    expect(edges.items).toBe(3 + edges.edgeDays);
  });
});

describe('item-count targets', () => {
  const channelLevel: [string, Partial<CubeQuery>][] = [
    ['no dimensions', {}],
    ['day', { dimensions: ['day'] }],
    ['month', { dimensions: ['month'] }],
    ['country', { dimensions: ['country'], sort: [{ name: 'views', descending: true }] }],
    ['subscribedStatus', { dimensions: ['subscribedStatus'] }],
    ['subscribedStatus,day', { dimensions: ['subscribedStatus', 'day'] }],
    ['liveOrOnDemand,month', { dimensions: ['liveOrOnDemand', 'month'] }],
    ['day, country filter', { dimensions: ['day'], filters: geo('country', 'US') }],
    ['month, continent filter', { dimensions: ['month'], filters: geo('continent', '150') }],
    ['no dimensions, subContinent filter', { filters: geo('subContinent', '155') }],
    ['day, liveOrOnDemand filter', { dimensions: ['day'], filters: { values: { liveOrOnDemand: new Set(['LIVE']) } } }],
  ];

  it.each(channelLevel)('channel level (%s): ≤ 2 items per month + 1 per edge day', async (_name, q) => {
    for (const [startDate, endDate] of RANGES) {
      const p = await plan(query({ ...q, startDate, endDate }));
      expect(p.items, `${startDate}..${endDate}`).toBeLessThanOrEqual(2 * p.months + p.edgeDays);
    }
  });

  it('channel level: a 2-month report reads exactly 2 items; shifted by 3 days, 1 + 1 for the long edge + 3 days', async () => {
    const whole = await plan(query({ dimensions: ['month'], startDate: '2026-05-01', endDate: '2026-06-30' }));
    expect(whole.items).toBe(2);
    const shifted = await plan(query({ dimensions: ['month'], startDate: '2026-05-04', endDate: '2026-07-03' }));
    expect(shifted.edgeDays).toBe(28 + 3);
    // May 4–31 comes from May's by-day item; July 1–3 is short enough to read day by day.
    expect(shifted.items).toBe(1 + 1 + 3);
    expect(shifted.reads.filter((r) => r.from === 'M#2026-05').map((r) => r.address.variant)).toEqual(['d']);
  });

  it.each([1, 2, 5, 50, 200, 500])('video== with %i video(s): ≤ (months + edge days) × videos', async (n) => {
    const filters = { video: videos(n) };
    const shapes: Partial<CubeQuery>[] = [
      {},
      { dimensions: ['day'] },
      { dimensions: ['month'] },
      { dimensions: ['country'] },
      { dimensions: ['subscribedStatus', 'day'] },
      { dimensions: ['liveOrOnDemand'] },
      { dimensions: ['month'], filters: { ...filters, ...geo('country', 'FR') } },
      { dimensions: ['day'], filters: { ...filters, ...geo('subContinent', '155') } },
    ];
    for (const shape of shapes) {
      for (const [startDate, endDate] of RANGES) {
        const p = await plan(query({ filters, ...shape, startDate, endDate }));
        const label = `${JSON.stringify(shape.dimensions ?? [])} ${startDate}..${endDate}`;
        expect(p.items, label).toBeLessThanOrEqual((p.months + p.edgeDays) * n);
        // and never more than the whole range at the finest partitioned grain
        expect(p.items, label).toBeGreaterThan(0);
      }
    }
  });

  it('video== with one video reads one item per month, and one per long edge', async () => {
    for (const dimensions of [[], ['day'], ['month'], ['country']] as QueryDim[][]) {
      const p = await plan(
        query({ dimensions, filters: { video: videos(1) }, startDate: '2026-03-17', endDate: '2026-06-11' }),
      );
      // March 17–31 and June 1–11 are long edges: each is read from its month's item with days.
      expect(p.items, JSON.stringify(dimensions)).toBe(p.months + 2);
    }
  });

  it('top videos (also with a country, continent or sub-continent filter): ≤ months + edge days', async () => {
    const geoFilters = [{}, geo('country', 'US'), geo('continent', '150'), geo('subContinent', '155')];
    for (const [startDate, endDate] of RANGES) {
      for (const filters of geoFilters) {
        const p = await plan(query({ ...TOP, filters, startDate, endDate }));
        const label = `${filters.country?.size ?? 0} countries ${startDate}..${endDate}`;
        expect(p.items, label).toBeLessThanOrEqual(p.months + p.edgeDays);
      }
    }
  });

  it('edge days read each day range with one query, whatever the variant', async () => {
    const p = await plan(query({ dimensions: ['video'], startDate: '2026-03-17', endDate: '2026-06-11' }));
    const dayReads = p.reads.filter((r) => r.from.startsWith('D#'));
    expect(dayReads.map((r) => [r.from, r.to])).toEqual([
      ['D#2026-03-17', 'D#2026-03-31'],
      ['D#2026-06-01', 'D#2026-06-11'],
    ]);
    const monthReads = p.reads.filter((r) => r.from.startsWith('M#'));
    expect(monthReads.map((r) => [r.address.variant, r.from, r.to])).toEqual([['v', 'M#2026-04', 'M#2026-05']]);
  });

  it('a top-N by a headed measure reads its edge days by key, as heads, in one request; its months whole', async () => {
    const p = await plan(query({ ...TOP, startDate: '2026-03-17', endDate: '2026-06-11' }));
    const dayReads = p.reads.filter((r) => r.from.startsWith('D#'));
    expect(dayReads.map((r) => [r.from, r.to, r.items])).toEqual([['D#2026-03-17', 'D#2026-06-11', 26]]);
    const monthReads = p.reads.filter((r) => r.from.startsWith('M#'));
    expect(monthReads.map((r) => [r.address.variant, r.from, r.to])).toEqual([['v', 'M#2026-04', 'M#2026-05']]);
  });

  it('a range inside one month: a long one reads the month item with days, a short one the days', async () => {
    const long = await plan(query({ dimensions: ['day'], startDate: '2026-03-04', endDate: '2026-03-19' }));
    expect(long.reads.map((r) => [r.from, r.address.variant])).toEqual([['M#2026-03', 'd']]);
    expect(long.items).toBe(1);
    const short = await plan(query({ dimensions: ['day'], startDate: '2026-03-04', endDate: '2026-03-06' }));
    expect(short.reads.every((r) => r.from.startsWith('D#'))).toBe(true);
    expect(short.items).toBe(3);
  });
});

describe('runCubeQuery on no data', () => {
  it('no dimensions: one row of zeros, typed headers; with dimensions: no rows at all', async () => {
    const { repo } = recordingRepository();
    const metrics: MetricName[] = ['views', 'averageViewPercentage', 'estimatedMinutesWatched'];
    const none = await runCubeQuery(repo, query({ metrics }), newReadStats());
    expect(none).toEqual({
      kind: 'youtubeAnalytics#resultTable',
      columnHeaders: [
        { name: 'views', columnType: 'METRIC', dataType: 'INTEGER' },
        { name: 'averageViewPercentage', columnType: 'METRIC', dataType: 'FLOAT' },
        { name: 'estimatedMinutesWatched', columnType: 'METRIC', dataType: 'INTEGER' },
      ],
      rows: [[0, 0, 0]],
    });
    const byDay = await runCubeQuery(repo, query({ metrics, dimensions: ['day'] }), newReadStats());
    expect(byDay.columnHeaders[0]).toEqual({ name: 'day', columnType: 'DIMENSION', dataType: 'STRING' });
    expect(Object.hasOwn(byDay, 'rows')).toBe(false);
  });
});

describe('firstInOrder (the top rows without sorting them all)', () => {
  // Rows as the engine orders them: a metric descending with many ties and nulls, then a unique id ascending.
  type Row = [string, number | null];
  const order = (a: Row, b: Row) => {
    const [x, y] = [a[1], b[1]];
    if (x !== y) return x === null ? 1 : y === null ? -1 : y - x;
    return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
  };
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };

  it('gives the rows a full sort gives, for every n, over random rows with ties and nulls', () => {
    for (let round = 0; round < 200; round++) {
      const size = Math.floor(random() * 300);
      const rows: Row[] = Array.from({ length: size }, (_, i) => [
        `v${String(i).padStart(4, '0')}`,
        random() < 0.1 ? null : Math.floor(random() * 20),
      ]);
      rows.sort(() => random() - 0.5);
      const sorted = [...rows].sort(order);
      for (const n of [0, 1, 3, 10, 25, size - 1, size, size + 5]) {
        if (n < 0) continue;
        expect(firstInOrder([...rows], n, order), `size ${size}, n ${n}`).toEqual(sorted.slice(0, n));
      }
    }
  });

  it('compares about once per row for a top 10 of 500 (a full sort takes about 9 per row)', () => {
    const rows: Row[] = Array.from({ length: 500 }, (_, i) => [`v${i}`, Math.floor(random() * 1000)]);
    let comparisons = 0;
    const counted = (a: Row, b: Row) => {
      comparisons++;
      return order(a, b);
    };
    firstInOrder(rows, 10, counted);
    expect(comparisons).toBeLessThan(1000);
  });
});
