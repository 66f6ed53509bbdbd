/**
 * Ranked heads (storage/heads.ts) and the top-N they decide (query/top-heads.ts), on cubes through the real codec:
 * a head keeps every row above its thresholds, and the winners the heads pick (reading pieces whole where they
 * say so) give the top N a full read gives, row for row, for heavy-tailed, flat and tied worlds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MEASURE_INDEX, METRICS, type Measure, type MetricName } from '../../functions/core/reports/catalog/metrics';
import { decideTop, type TopPiece, topOf } from '../../functions/core/reports/query/top-heads';
import { concatCubes, decodeCube, rowsWhere, type StoredCube } from '../../functions/core/reports/storage/cube-codec';
import { chunkHeader } from '../../functions/core/reports/storage/fact-repository';
import { CubeWriter } from '../../functions/core/reports/storage/fact-writer';
import {
  ChunkIndexBuilder,
  chunksHolding,
  compareVideos,
  HEAD_ROWS,
  HeadBuilder,
  type HeadSettings,
  headRowIndices,
  headSettings,
  REGIONAL_HEAD_FROM,
} from '../../functions/core/reports/storage/heads';
import { encodeUnitCube } from '../../functions/core/reports/storage/unit-codec';
import {
  Dicts,
  sortCanonical,
  type UnitCube,
  UnitCubeBuilder,
  unitsOf,
} from '../../functions/core/reports/storage/units';

const MEASURES = ['views', 'subscribersGained', 'watchMinutes'] as const satisfies readonly Measure[];
const POSITIONS = MEASURES.map((m) => MEASURE_INDEX[m]).sort((a, b) => a - b);

type Row = { video: string; views: number; subscribersGained: number; watchMinutes: number | null };

function unitCube(rows: readonly Row[], dicts: Dicts): UnitCube {
  const b = new UnitCubeBuilder(['video'], dicts, POSITIONS);
  for (const r of rows) {
    const i = b.add([r.video]);
    for (const m of MEASURES) {
      const v = r[m];
      b.addUnits(i, POSITIONS.indexOf(MEASURE_INDEX[m]), v === null ? Number.NaN : unitsOf(v));
    }
  }
  return b.build();
}

const stored = (cube: UnitCube, extra: Record<string, unknown> = {}): StoredCube =>
  decodeCube(encodeUnitCube(cube, extra));

/** A piece as the repository gives it: whole, or (headed) its head through the codec and its thresholds. */
function piece(rows: readonly Row[], k: number | undefined): { read: TopPiece; full: StoredCube } {
  const dicts = new Dicts();
  const cube = unitCube(rows, dicts);
  const full = stored(cube);
  const settings = headSettings(['video'], undefined, POSITIONS, k === undefined ? {} : { rows: k });
  if (k === undefined || !settings) return { read: { cube: full }, full };
  const builder = new HeadBuilder(settings);
  // In two blocks, as CubeWriter streams a large cube.
  const half = Math.floor(cube.size / 2);
  const slice = (from: number, to: number) => unitCube(rows.slice(from, to), dicts);
  if (half > 0) builder.add(slice(0, half));
  builder.add(slice(half, rows.length));
  const { head, thresholds } = builder.finish();
  return { read: { head: stored(head), thresholds }, full };
}

/** The top n of `cubes` by `metric` (nulls last, ties by video), each row [video, metric values…]. */
function topOfCubes(
  cubes: readonly StoredCube[],
  metrics: readonly MetricName[],
  metric: MetricName,
  n: number,
  only?: ReadonlySet<string>,
) {
  const sums = new Map<string, number[]>();
  for (const cube of cubes) {
    const column = cube.keys[0];
    if (!column) continue;
    for (let i = 0; i < cube.size; i++) {
      const video = column.values[column.codes[i] as number] as string;
      if (only && !only.has(video)) continue;
      const s = sums.get(video) ?? MEASURES.map(() => Number.NaN);
      MEASURES.forEach((m, j) => {
        // A cube stores no column for a measure null in every row: absent, as a null, adds nothing (SQL's sum).
        const v = cube.measures[MEASURE_INDEX[m]]?.[i];
        if (v !== undefined && !Number.isNaN(v)) s[j] = Number.isNaN(s[j] as number) ? v : (s[j] as number) + v;
      });
      sums.set(video, s);
    }
  }
  const value = (s: number[], name: MetricName) =>
    METRICS[name].compute((m) => {
      const v = s[MEASURES.indexOf(m as (typeof MEASURES)[number])] as number;
      return Number.isNaN(v) ? null : v;
    });
  const rows = [...sums].map(([video, s]) => ({
    video,
    key: value(s, metric),
    cells: metrics.map((m) => value(s, m)),
  }));
  rows.sort((a, b) => {
    if (a.key !== b.key) return a.key === null ? 1 : b.key === null ? -1 : b.key - a.key;
    return a.video < b.video ? -1 : a.video > b.video ? 1 : 0;
  });
  return rows.slice(0, n).map((r) => [r.video, ...r.cells.map((c) => (c === null ? null : Math.round(c * 1e6) / 1e6))]);
}

describe('heads', () => {
  it('keep every row above each measure threshold, at most k per measure', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(50), fc.nat(20), fc.option(fc.nat(3000))), { minLength: 1, maxLength: 80 }),
        fc.integer({ min: 1, max: 12 }),
        (cells, k) => {
          const rows = cells.map(([views, subscribersGained, minutes], i) => ({
            video: `v${i}`,
            views,
            subscribersGained,
            watchMinutes: minutes === null ? null : minutes / 7,
          }));
          const cube = unitCube(rows, new Dicts());
          const settings = headSettings(['video'], undefined, POSITIONS, { rows: k }) as HeadSettings;
          const kept = new Set(headRowIndices(cube, settings.columns, k));
          const builder = new HeadBuilder(settings);
          builder.add(cube);
          const { thresholds } = builder.finish();
          for (const j of settings.columns) {
            const name = Object.keys(thresholds).find((m) => MEASURE_INDEX[m as Measure] === cube.measures[j]);
            const t = thresholds[name as string] as number;
            const column = cube.sums[j] as Float64Array;
            let inHead = 0;
            for (let i = 0; i < cube.size; i++) {
              const v = column[i] as number;
              if (!kept.has(i)) expect(Number.isNaN(v) ? 0 : v).toBeLessThanOrEqual(t);
              if (!Number.isNaN(v) && v > t) inHead++;
            }
            expect(inHead).toBeLessThanOrEqual(k);
          }
          expect(kept.size).toBeLessThanOrEqual(k * settings.columns.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("are kept for by-video grains, flat or a region's, and only for measures the family has", () => {
    expect(headSettings(['video'], undefined, POSITIONS)).toMatchObject({ rows: HEAD_ROWS, from: 8 * HEAD_ROWS });
    expect(headSettings(['channel', 'video'], undefined, POSITIONS)).toBeDefined();
    expect(headSettings(['video', 'country'], undefined, POSITIONS)).toBeUndefined();
    expect(headSettings(['video'], 'videoBucket', POSITIONS)).toBeUndefined();
    expect(headSettings(['day'], undefined, POSITIONS)).toBeUndefined();
    expect(headSettings(['video'], undefined, [MEASURE_INDEX.estimatedRevenue])).toBeUndefined();
    // A region's months are headed from REGIONAL_HEAD_FROM rows (a year is twelve of them), whatever the head's rows.
    for (const region of ['continent', 'subContinent', 'country'])
      expect(headSettings(['video'], region, POSITIONS, { rows: 4 })).toMatchObject({
        rows: 4,
        from: REGIONAL_HEAD_FROM,
      });
    expect(headSettings(['video'], 'continent', POSITIONS, { regionalFrom: 32 })?.from).toBe(32);
  });
});

describe('topOf', () => {
  const base = {
    dimensions: ['video'],
    metrics: ['views', 'subscribersGained'] as MetricName[],
    sort: [{ name: 'views', descending: true }],
    startIndex: 1,
    maxResults: 10,
    restricted: false,
  };
  it('takes top videos sorted down by a headed measure (rounded too), within the head', () => {
    expect(topOf(base)).toEqual({ metric: 'views', measure: 'views', n: 10 });
    expect(topOf({ ...base, sort: [{ name: 'estimatedMinutesWatched', descending: true }] })).toEqual({
      metric: 'estimatedMinutesWatched',
      measure: 'watchMinutes',
      n: 10,
    });
    expect(topOf({ ...base, startIndex: HEAD_ROWS - 9, maxResults: 10 })?.n).toBe(HEAD_ROWS);
  });
  it('leaves everything else to a full read', () => {
    expect(topOf({ ...base, sort: [{ name: 'views', descending: false }] })).toBeUndefined();
    expect(topOf({ ...base, sort: [{ name: 'averageViewDuration', descending: true }] })).toBeUndefined();
    expect(topOf({ ...base, sort: [{ name: 'dislikes', descending: true }] })).toBeUndefined();
    expect(topOf({ ...base, dimensions: ['video', 'day'] })).toBeUndefined();
    expect(topOf({ ...base, restricted: true })).toBeUndefined();
    expect(topOf({ ...base, maxResults: undefined })).toBeUndefined();
    expect(topOf({ ...base, startIndex: HEAD_ROWS - 8, maxResults: 10 })).toBeUndefined();
  });
});

describe('decideTop', () => {
  /** Runs the heads' loop as engine.ts readTop does; returns the answer and how many heads were read whole. */
  function answer(pieces: { read: TopPiece; full: StoredCube }[], metric: MetricName, n: number) {
    const plan = topOf({
      dimensions: ['video'],
      metrics: [metric],
      sort: [{ name: metric, descending: true }],
      startIndex: 1,
      maxResults: n,
      restricted: false,
    });
    if (!plan) throw new Error('not a top-N');
    const reads = pieces.map((p) => p.read);
    let readWhole = 0;
    let rowsRead = 0;
    for (;;) {
      const d = decideTop(plan, reads);
      if ('winners' in d) {
        const cubes = reads.map((r) => ('cube' in r ? r.cube : r.head));
        return {
          rows: topOfCubes(cubes, ['views', 'subscribersGained', 'estimatedMinutesWatched'], metric, n, d.winners),
          readWhole,
          rowsRead,
        };
      }
      if ('readWhole' in d) {
        for (const i of d.readWhole) {
          reads[i] = { cube: (pieces[i] as { full: StoredCube }).full };
          readWhole++;
        }
        continue;
      }
      // As the repository's rowsOf: the videos' rows of the whole piece, joined to its head.
      expect(d.readRows.length).toBeGreaterThan(0);
      for (const { piece: i, videos } of d.readRows) {
        const read = reads[i] as TopPiece;
        if ('cube' in read) throw new Error('rows asked of a whole piece');
        const wanted = new Set(videos);
        expect([...wanted].some((v) => read.exact?.has(v))).toBe(false);
        const rows = rowsWhere((pieces[i] as { full: StoredCube }).full, 'video', (v) => wanted.has(v));
        reads[i] = { ...read, head: concatCubes(read.head, rows), exact: new Set([...(read.exact ?? []), ...videos]) };
        rowsRead++;
      }
    }
  }

  const world = fc.record({
    videos: fc.integer({ min: 1, max: 60 }),
    pieces: fc.array(
      fc.record({
        k: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
        seed: fc.nat(),
        share: fc.double({ min: 0.2, max: 1, noNaN: true }),
      }),
      { minLength: 1, maxLength: 5 },
    ),
    shape: fc.constantFrom('heavy', 'flat', 'ties'),
    metric: fc.constantFrom<MetricName>('views', 'subscribersGained', 'estimatedMinutesWatched'),
    n: fc.integer({ min: 1, max: 12 }),
  });

  it('gives the top N a full read gives, whatever the distribution (heads read whole where needed)', () => {
    fc.assert(
      fc.property(world, ({ videos, pieces, shape, metric, n }) => {
        const made = pieces.map(({ k, seed, share }) => {
          let x = seed || 1;
          const rnd = () => {
            x = (x * 1103515245 + 12345) % 2147483648;
            return x / 2147483648;
          };
          const rows: Row[] = [];
          for (let v = 0; v < videos; v++) {
            if (rnd() > share) continue;
            const base = shape === 'heavy' ? 10_000 / (v + 1) ** 1.3 : shape === 'flat' ? 100 : 10 * (v % 3);
            const views = Math.floor(base * (shape === 'ties' ? 1 : 0.5 + rnd()));
            rows.push({
              video: `vid${String(v).padStart(3, '0')}`,
              views,
              subscribersGained: Math.floor(views / 20 + rnd() * 3),
              watchMinutes: rnd() < 0.05 ? null : Math.round(views * 3.7 * 1e6 * rnd()) / 1e6,
            });
          }
          return piece(rows, k);
        });
        const expected = topOfCubes(
          made.map((p) => p.full),
          ['views', 'subscribersGained', 'estimatedMinutesWatched'],
          metric,
          n,
        );
        expect(answer(made, metric, n).rows).toEqual(expected);
      }),
      { numRuns: 400 },
    );
  });

  it('decides from the heads alone on a heavy-tailed channel: no piece is read whole', () => {
    const made = [1, 2, 3].map((p) => {
      const rows: Row[] = Array.from({ length: 400 }, (_, v) => {
        const views = Math.floor((100_000 * (0.8 + 0.05 * p)) / (v + 1) ** 1.2);
        return {
          video: `vid${String(v).padStart(3, '0')}`,
          views,
          subscribersGained: Math.floor(views / 30),
          watchMinutes: views * 2,
        };
      });
      return piece(rows, 20);
    });
    const got = answer(made, 'views', 10);
    expect(got.readWhole).toBe(0);
    expect(got.rows).toEqual(
      topOfCubes(
        made.map((p) => p.full),
        ['views', 'subscribersGained', 'estimatedMinutesWatched'],
        'views',
        10,
      ),
    );
  });
});

describe('chunk index', () => {
  const ids = (n: number, seed: number) =>
    Array.from({ length: n }, (_, i) => `v${((i * 7919 + seed) % 100_003).toString(36).padStart(5, '0')}`);

  it('names the chunk holding each video, and for a missing video the chunk it would sort into', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.nat(),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 12 }),
        (n, seed, sizes) => {
          const sorted = [...new Set(ids(n, seed))].sort(compareVideos);
          const chunks: string[][] = [];
          for (let at = 0, c = 0; at < sorted.length; c++) {
            const size = sizes[c % sizes.length] as number;
            chunks.push(sorted.slice(at, at + size));
            at += size;
          }
          const index = chunks.map((c) => c[0] as string);
          chunks.forEach((chunk, c) => {
            for (const video of chunk) expect(chunksHolding(index, video)).toEqual([c + 1]);
          });
          for (const video of ids(20, seed + 1).map((v) => `${v}x`)) {
            const found = chunksHolding(index, video);
            expect(found.length).toBeLessThanOrEqual(1);
            const at = sorted.findIndex((v) => compareVideos(v, video) > 0);
            const before = at < 0 ? sorted.length : at; // videos sorting before the missing one
            expect(found).toEqual(
              before === 0 ? [] : [chunks.findIndex((c) => c.includes(sorted[before - 1] as string)) + 1],
            );
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  async function written(rows: readonly Row[]) {
    const dicts = new Dicts();
    const settings = headSettings(['video'], undefined, POSITIONS, { rows: 10 }) as HeadSettings;
    const chunks = new Map<number, StoredCube>();
    const writer = new CubeWriter(
      ['video'],
      dicts,
      POSITIONS,
      'g1',
      async (i, attributes) => {
        chunks.set(i, decodeCube(attributes));
      },
      settings,
    );
    await writer.append(unitCube(rows, dicts));
    const { first } = await writer.finish();
    return { header: chunkHeader(first), chunks };
  }

  const manyRows = (n: number): Row[] =>
    ids(n, 3).map((video, i) => ({
      video,
      views: (i * 2_654_435_761) % 1_000_003,
      subscribersGained: i % 97,
      watchMinutes: ((i * 40_503) % 9_999_991) / 1000,
    }));

  it('a headed cube of several chunks written in the canonical order indexes them; each video is where it says', async () => {
    const dicts = new Dicts();
    const rows = manyRows(60_000);
    const order = sortCanonical(unitCube(rows, dicts));
    const video = dicts.of('video').values;
    const byVideo = new Map(rows.map((r) => [r.video, r]));
    const sorted = Array.from(order.keys[0] as Int32Array, (code) => byVideo.get(video[code] as string) as Row);
    const { header, chunks } = await written(sorted);
    expect(header.chunks).toBeGreaterThan(2);
    expect(header.head).toBeDefined();
    expect(header.index?.length).toBe(header.chunks - 1);
    for (const [i, cube] of chunks) {
      const column = cube.keys[0] as { values: readonly string[]; codes: Uint32Array };
      for (let r = 0; r < cube.size; r += 97) {
        expect(chunksHolding(header.index ?? [], column.values[column.codes[r] as number] as string)).toEqual([i]);
      }
    }
  });

  it('a video whose rows span two chunks gets no index (it would name one of them)', () => {
    const dicts = new Dicts();
    const chunk = (cells: readonly [string, string][]) => {
      const b = new UnitCubeBuilder(['video', 'country'], dicts, POSITIONS);
      for (const cell of cells) b.addUnits(b.add(cell), 0, 1);
      return sortCanonical(b.build());
    };
    const [a, b] = ['va', 'vb'].sort(compareVideos) as [string, string];
    const whole = new ChunkIndexBuilder();
    whole.add(chunk([[a, 'DE']]));
    whole.add(chunk([[b, 'DE']]));
    expect(whole.finish()).toEqual([a, b]);
    const spanning = new ChunkIndexBuilder();
    spanning.add(chunk([[a, 'DE']]));
    spanning.add(
      chunk([
        [a, 'FR'],
        [b, 'DE'],
      ]),
    );
    expect(spanning.finish()).toBeUndefined();
  });

  it('rows out of the canonical order get no index (the head then reads its cube whole)', async () => {
    const { header } = await written(manyRows(60_000));
    expect(header.chunks).toBeGreaterThan(2);
    expect(header.head).toBeDefined();
    expect(header.index).toBeUndefined();
  });
});
