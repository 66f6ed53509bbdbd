/**
 * Differential test of reports.query: seeded random VALID queries of the supported channel reports (#1, #3, #5,
 * #8, #10, #26) go through real HTTP to the local API (DynamoDB Local, the real ingest, planner and cubes) and
 * are compared with an independent DuckDB oracle over the raw CSV rows (test/support/duckdb-oracle.ts states the
 * semantics and the comparison). Plus targeted cases: empty ranges, the a2-only engagedViews null, group filters.
 *
 * REPORTS_DIFF_SEED=<n> replays another query sequence; REPORTS_DIFF_QUERIES=<n> changes how many are run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL_REPORTS } from '../../functions/core/reports/catalog';
import { CHANNEL_BASIC, familyMeasures } from '../../functions/core/reports/families';
import { CONTINENTS, SUB_CONTINENTS } from '../../functions/core/reports/geo';
import { isSupportedMetric, METRICS } from '../../functions/core/reports/metrics';
import { compareWithOracle, createOracle, type Oracle, type OracleRequest } from '../support/duckdb-oracle';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { createReportFixture, type ReportFixture } from '../support/report-fixtures';

const SEED = Number(process.env.REPORTS_DIFF_SEED ?? 424242);
const QUERIES = Number(process.env.REPORTS_DIFF_QUERIES ?? 360);
const IN_FLIGHT = 8;

let api: LocalApi;
let fx: ReportFixture;
let oracle: Oracle;
let token: string;
/** Group id → its videos (for the oracle). */
const groups: Record<string, string[]> = {};
let mainGroup = '';

/** mulberry32: a small seeded generator, independent of the export generator's streams. */
class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** Integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  /** k distinct items in random order. */
  sample<T>(items: readonly T[], k: number): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
    }
    return copy.slice(0, Math.min(k, copy.length));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Dates

const DAY_MS = 86_400_000;
const toMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
const fromMs = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const addDays = (day: string, n: number) => fromMs(toMs(day) + n * DAY_MS);
const monthStart = (day: string) => `${day.slice(0, 7)}-01`;
const monthEnd = (day: string) => {
  const [y, m] = day.split('-').map(Number) as [number, number];
  return fromMs(Date.UTC(y, m, 0));
};
const addMonths = (day: string, n: number) => {
  const [y, m] = day.split('-').map(Number) as [number, number];
  return fromMs(Date.UTC(y, m - 1 + n, 1));
};

/** A random [start, end] in, around and partly outside the data window. */
function randomRange(rnd: Random, forMonth: boolean): [string, string] {
  const first = fx.days[0] as string;
  const last = fx.days[fx.days.length - 1] as string;
  const span = Math.round((toMs(last) - toMs(first)) / DAY_MS);
  const anyDay = () => addDays(first, rnd.between(-20, span + 20));
  if (forMonth && rnd.chance(0.7)) {
    // Whole months (as the docs recommend for month), from before the window to after it.
    const from = addMonths(first, rnd.between(-2, 3));
    const to = monthEnd(addMonths(from, rnd.between(0, 3)));
    return [from, to];
  }
  switch (rnd.int(8)) {
    case 0: {
      const d = rnd.chance(0.3) ? rnd.pick([first, last, addDays(first, -1), addDays(last, 1)]) : anyDay();
      return [d, d];
    }
    case 1: {
      const m = addMonths(first, rnd.between(-1, 4));
      return [m, monthEnd(m)];
    }
    case 2: {
      const m = addMonths(first, rnd.between(-1, 3));
      return [m, monthEnd(addMonths(m, rnd.between(1, 3)))];
    }
    case 3: {
      // Partial months at both ends.
      const a = addDays(monthStart(anyDay()), rnd.between(1, 25));
      const b = addDays(addMonths(a, rnd.between(1, 3)), rnd.between(-5, 5));
      return a <= b ? [a, b] : [b, a];
    }
    case 4:
      return [addDays(first, -rnd.between(0, 40)), addDays(last, rnd.between(0, 40))];
    case 5: {
      // Short ranges inside one month or across a month boundary.
      const a = anyDay();
      return [a, addDays(a, rnd.between(1, 12))];
    }
    case 6:
      // Entirely outside the data.
      return rnd.chance(0.5)
        ? [addDays(first, -rnd.between(30, 90)), addDays(first, -rnd.between(1, 29))]
        : [addDays(last, rnd.between(1, 20)), addDays(last, rnd.between(21, 60))];
    default: {
      const a = anyDay();
      const b = anyDay();
      return a <= b ? [a, b] : [b, a];
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Queries

interface Query {
  readonly report: string;
  readonly params: Record<string, string>;
  readonly request: OracleRequest;
}

function reportDef(id: string) {
  const def = CHANNEL_REPORTS.find((r) => r.id === id);
  if (!def) throw new Error(`no report #${id} in the catalog`);
  // The catalog lists all of a report's metrics (revenue too); draw from those channel_basic exports carry.
  const carried = familyMeasures(CHANNEL_BASIC);
  const supported = (names: readonly string[]) =>
    names.filter((m) => isSupportedMetric(m) && METRICS[m].uses.every((u) => carried.has(u)));
  return {
    ...def,
    metrics: supported(def.metrics),
    sort: def.sort && { descendingBy: supported(def.sort.descendingBy) },
  };
}

type Filter = { name: string; values: string[] };

function geoFilter(rnd: Random, allowCountry: boolean): Filter | undefined {
  const roll = rnd.int(allowCountry ? 6 : 4);
  if (roll === 0) return { name: 'continent', values: [rnd.pick(CONTINENTS)] };
  if (roll === 1) return { name: 'subContinent', values: [rnd.pick(SUB_CONTINENTS)] };
  if (roll >= 4) {
    // Mostly countries of the data (ZZ included); sometimes a valid one with no data.
    return { name: 'country', values: [rnd.chance(0.9) ? rnd.pick(fx.countries) : rnd.pick(['FI', 'KE', 'CL'])] };
  }
  return undefined;
}

function videoOrGroupFilter(rnd: Random): Filter | undefined {
  const roll = rnd.int(6);
  if (roll <= 1) return { name: 'video', values: rnd.sample(fx.videoIds, rnd.between(1, 30)) };
  if (roll === 2) {
    const ids = Object.keys(groups);
    return { name: 'group', values: [rnd.chance(0.7) ? mainGroup : rnd.pick(ids)] };
  }
  return undefined;
}

function randomMetrics(rnd: Random, allowed: readonly string[], must?: string): string[] {
  const k = rnd.chance(0.1) ? allowed.length : rnd.between(1, Math.min(8, allowed.length));
  const metrics = rnd.sample(allowed, k);
  if (must && !metrics.includes(must)) metrics.splice(rnd.int(metrics.length + 1), 0, must);
  return metrics;
}

function randomSort(rnd: Random, dims: readonly string[], metrics: readonly string[]) {
  if (rnd.chance(0.35)) return [];
  return rnd.sample([...dims, ...metrics], rnd.between(1, 2)).map((name) => ({ name, descending: rnd.chance(0.5) }));
}

function randomQuery(rnd: Random): Query {
  const report = rnd.pick(['1', '3', '3', '5', '8', '8', '10', '10', '26', '26']);
  const def = reportDef(report);
  let dims: string[] = [];
  const filters: Filter[] = [];
  const add = (f: Filter | undefined) => {
    if (f) filters.push(f);
  };
  const timeDim = (p: number) => (rnd.chance(p) ? [rnd.pick(['day', 'month'])] : []);
  let sort: { name: string; descending: boolean }[] | undefined;
  let maxResults: number | undefined;
  let startIndex: number | undefined;
  let metrics: string[];

  switch (report) {
    case '1':
      add(geoFilter(rnd, true));
      add(videoOrGroupFilter(rnd));
      break;
    case '3':
      dims = timeDim(1);
      add(geoFilter(rnd, true));
      add(videoOrGroupFilter(rnd));
      break;
    case '5': {
      dims = ['country'];
      const roll = rnd.int(3);
      if (roll === 0) add({ name: 'continent', values: [rnd.pick(CONTINENTS)] });
      if (roll === 1) add({ name: 'subContinent', values: [rnd.pick(SUB_CONTINENTS)] });
      add(videoOrGroupFilter(rnd));
      break;
    }
    case '8':
      dims = rnd.sample([...(rnd.chance(0.6) ? ['subscribedStatus'] : []), ...timeDim(0.6)], 2);
      add(geoFilter(rnd, true));
      add(videoOrGroupFilter(rnd));
      if (rnd.chance(0.3)) add({ name: 'subscribedStatus', values: [rnd.pick(['SUBSCRIBED', 'UNSUBSCRIBED'])] });
      break;
    case '10':
      dims = rnd.sample(
        [
          ...(rnd.chance(0.6) ? ['liveOrOnDemand'] : []),
          ...(rnd.chance(0.4) ? ['subscribedStatus'] : []),
          ...timeDim(0.5),
        ],
        3,
      );
      add(geoFilter(rnd, true));
      add(videoOrGroupFilter(rnd));
      if (rnd.chance(0.3)) add({ name: 'liveOrOnDemand', values: [rnd.pick(['LIVE', 'ON_DEMAND'])] });
      if (rnd.chance(0.3)) add({ name: 'subscribedStatus', values: [rnd.pick(['SUBSCRIBED', 'UNSUBSCRIBED'])] });
      break;
    default: {
      // #26 top videos
      dims = ['video'];
      add(geoFilter(rnd, true));
      const by = rnd.pick(def.sort?.descendingBy ?? ['views']);
      sort = [{ name: by, descending: true }];
      metrics = randomMetrics(rnd, def.metrics, by);
      maxResults = rnd.chance(0.3) ? rnd.between(1, 10) : rnd.between(1, 200);
      if (rnd.chance(0.3)) startIndex = rnd.between(1, 200 - maxResults + 1);
      break;
    }
  }
  metrics ??= randomMetrics(rnd, def.metrics);
  sort ??= randomSort(rnd, dims, metrics);
  if (report !== '26' && rnd.chance(0.15)) {
    startIndex = rnd.between(1, 20);
    maxResults = rnd.between(1, 50);
  } else if (report !== '26' && rnd.chance(0.05)) {
    maxResults = rnd.between(1, 5);
  }
  const [startDate, endDate] = randomRange(rnd, dims.includes('month'));
  const params: Record<string, string> = {
    ids: rnd.chance(0.5) ? 'channel==MINE' : `channel==${fx.channel}`,
    startDate,
    endDate,
    metrics: metrics.join(','),
  };
  if (dims.length > 0) params.dimensions = dims.join(',');
  if (filters.length > 0) params.filters = filters.map((f) => `${f.name}==${f.values.join(',')}`).join(';');
  if (sort.length > 0) params.sort = sort.map((k) => `${k.descending ? '-' : ''}${k.name}`).join(',');
  if (maxResults !== undefined) params.maxResults = String(maxResults);
  if (startIndex !== undefined) params.startIndex = String(startIndex);
  return {
    report,
    params,
    request: {
      startDate,
      endDate,
      dimensions: dims,
      metrics,
      filters,
      sort,
      ...(startIndex !== undefined ? { startIndex } : {}),
      ...(maxResults !== undefined ? { maxResults } : {}),
      groups,
    },
  };
}

const queryString = (params: Record<string, string>) => new URLSearchParams(params).toString();

/** Runs the query through HTTP and the oracle: the difference as text (or undefined), and what the oracle saw. */
async function check(q: Query): Promise<{ problem: string | undefined; rows: number; nulls: boolean }> {
  const res = await api.call(`/v2/reports?${queryString(q.params)}`, { token });
  const expected = await oracle.query(q.request);
  const seen = { rows: expected.rows.length, nulls: expected.rows.some((r) => r.includes(null)) };
  if (res.status !== 200) return { problem: `HTTP ${res.status}: ${JSON.stringify(res.body).slice(0, 400)}`, ...seen };
  return { problem: compareWithOracle(res.body, expected), ...seen };
}

async function report(params: Record<string, string>) {
  const res = await api.call(`/v2/reports?${queryString({ ids: 'channel==MINE', ...params })}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

// ---------------------------------------------------------------------------------------------------------------

beforeAll(async () => {
  api = await startLocalApi();
  fx = await createReportFixture({ videos: 60, days: 95, start: '2026-03-17', a2Days: 20 });
  oracle = await createOracle(fx.rawRows);
  token = await api.token(fx.sub, ['video-analytics.readonly']);

  // Groups of the user's channel, made through the API.
  const manage = await api.token(fx.sub, ['video-platform']);
  const makeGroup = async (title: string, videos: string[]) => {
    const g = await api.call('/v2/groups', {
      token: manage,
      method: 'POST',
      body: JSON.stringify({ snippet: { title }, contentDetails: { itemType: 'youtube#video' } }),
    });
    expect(g.status, JSON.stringify(g.body)).toBe(200);
    const id = g.body.id as string;
    for (const video of videos) {
      const item = await api.call('/v2/groupItems', {
        token: manage,
        method: 'POST',
        body: JSON.stringify({ groupId: id, resource: { kind: 'youtube#video', id: video } }),
      });
      expect(item.status, JSON.stringify(item.body)).toBe(200);
    }
    groups[id] = videos;
    return id;
  };
  const rnd = new Random(SEED ^ 0x5eed);
  mainGroup = await makeGroup('differential: twelve videos', rnd.sample(fx.videoIds, 12));
  await makeGroup('differential: one video', rnd.sample(fx.videoIds, 1));
}, 120_000);

afterAll(async () => {
  oracle?.close();
  await api?.close();
});

describe('reports.query against a DuckDB oracle', () => {
  it(`agrees on ${QUERIES} seeded random valid queries (seed ${SEED})`, async () => {
    const rnd = new Random(SEED);
    const queries = Array.from({ length: QUERIES }, () => randomQuery(rnd));
    const mismatches: { report: string; query: string; problem: string }[] = [];
    const seen = { withRows: 0, multiRow: 0, withNulls: 0 };
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < queries.length) {
          const q = queries[next++] as Query;
          const { problem, rows, nulls } = await check(q);
          if (rows > 0) seen.withRows++;
          if (rows > 1) seen.multiRow++;
          if (nulls) seen.withNulls++;
          if (problem) mismatches.push({ report: q.report, query: queryString(q.params), problem });
        }
      }),
    );
    const byReport = new Map<string, number>();
    for (const q of queries) byReport.set(q.report, (byReport.get(q.report) ?? 0) + 1);
    expect(mismatches.length, JSON.stringify(mismatches.slice(0, 5), null, 2)).toBe(0);
    expect(mismatches).toEqual([]);
    // The generator covers every report and yields mostly non-trivial answers.
    expect(byReport.size).toBe(6);
    expect(seen.withRows).toBeGreaterThan(QUERIES * 0.5);
    expect(seen.multiRow).toBeGreaterThan(QUERIES * 0.25);
    expect(seen.withNulls).toBeGreaterThan(0);
  }, 120_000);

  it('a range with no data: no dimensions give one row of zeros, the day report omits rows', async () => {
    const metrics = 'views,engagedViews,likes,estimatedMinutesWatched,averageViewDuration,averageViewPercentage';
    const range = { startDate: '2025-01-01', endDate: '2025-01-31' };
    const none = await report({ ...range, metrics });
    expect(none.rows).toEqual([[0, 0, 0, 0, 0, 0]]);

    const byDay = await report({ ...range, metrics, dimensions: 'day', sort: 'day' });
    expect(byDay.columnHeaders.map((h: { name: string }) => h.name)).toEqual(['day', ...metrics.split(',')]);
    expect(Object.hasOwn(byDay, 'rows')).toBe(false);
  });

  it('engagedViews over a range of a2 days only is null (the column does not exist there), views is not', async () => {
    const a2 = fx.a2Days;
    const range = { startDate: a2[0] as string, endDate: a2[a2.length - 1] as string };
    const total = await report({ ...range, metrics: 'engagedViews,views' });
    expect(total.rows).toHaveLength(1);
    expect(total.rows[0][0]).toBeNull();
    expect(total.rows[0][1]).toBeGreaterThan(0);

    const byDay = await report({ ...range, metrics: 'engagedViews,views', dimensions: 'day', sort: 'day' });
    expect(byDay.rows.length).toBeGreaterThan(0);
    for (const row of byDay.rows) expect(row[1]).toBeNull();

    // One more day takes in an a3 day: engagedViews becomes a number.
    const wider = await report({ ...range, endDate: addDays(range.endDate, 1), metrics: 'engagedViews' });
    expect(typeof wider.rows[0][0]).toBe('number');
  });

  it('a group filter answers exactly like the equivalent video== filter', async () => {
    const videos = groups[mainGroup] as string[];
    const cases: Record<string, string>[] = [
      { startDate: '2026-03-01', endDate: '2026-07-31', metrics: 'views,likes,averageViewPercentage' },
      { startDate: '2026-03-20', endDate: '2026-05-10', metrics: 'views,estimatedMinutesWatched', dimensions: 'day' },
      { startDate: '2026-03-01', endDate: '2026-06-30', metrics: 'views,subscribersGained', dimensions: 'month' },
      {
        startDate: '2026-04-02',
        endDate: '2026-06-11',
        metrics: 'views,averageViewDuration',
        dimensions: 'country',
        sort: '-views',
      },
    ];
    for (const params of cases) {
      const byGroup = await report({ ...params, filters: `group==${mainGroup}` });
      const byVideo = await report({ ...params, filters: `video==${videos.join(',')}` });
      expect(byGroup.rows, JSON.stringify(params)).toBeDefined();
      expect(byGroup).toEqual(byVideo);
    }
  });
});
