/**
 * Fact cubes (functions/core/reports/storage/cube.ts): null-aware rollups with sorted rows, the compact storage encoding
 * (stable across measures added later), partitions, and facts back from a full-day cube.
 */
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CHANNEL_BASIC, familyDims } from '../../functions/core/reports/catalog/families';
import {
  emptySums,
  MEASURE_INDEX,
  MEASURES,
  type Measure,
  type Value,
} from '../../functions/core/reports/catalog/metrics';
import { factOrder } from '../../functions/core/reports/ingest/report-file';
import {
  type Cube,
  type FactRow,
  FULL_DAY,
  factsOfDay,
  partition,
  rollup,
  VARIANTS,
  VIDEO_BUCKETS,
  videoBucket,
} from '../../functions/core/reports/storage/cube';
import {
  asCube,
  attributesSize,
  type CubeAttributes,
  concatCubes,
  decodeCube,
  encodeCube,
  measureAttribute,
  projectionOf,
  rowsWhere,
  type StoredCube,
} from '../../functions/core/reports/storage/cube-codec';
import { gather } from '../../functions/core/reports/storage/units';

/** A stored cube back as rows, to compare with what rollup computed. */
const decode = (item: Readonly<CubeAttributes>) => asCube(decodeCube(item));

const compareFacts = factOrder(CHANNEL_BASIC);

interface FactKey {
  day?: string;
  video?: string;
  country?: string;
  subscribedStatus?: string;
  liveOrOnDemand?: string;
}

/** A channel_basic fact with the given measures set (all others null). */
function fact(key: FactKey, measures: Partial<Record<Measure, Value>> = {}): FactRow {
  const sums = emptySums();
  for (const [m, v] of Object.entries(measures)) sums[MEASURE_INDEX[m as Measure]] = v as Value;
  const { day, ...dims } = {
    day: '2026-03-05',
    video: 'v1',
    country: 'US',
    subscribedStatus: 'SUBSCRIBED',
    liveOrOnDemand: 'ON_DEMAND',
    creatorContentType: 'UNSPECIFIED',
    youtubeProduct: 'UNKNOWN',
    ...key,
  };
  return { day, dims, sums };
}

/** null for unknown, whether stored as null or (in a numeric view) as NaN. */
const norm = (v: Value | undefined) => (v === null || v === undefined || Number.isNaN(v) ? null : v);
const get = (sums: ArrayLike<Value> | undefined, m: Measure) => (sums ? norm(sums[MEASURE_INDEX[m]]) : undefined);

const FACTS: FactRow[] = [
  fact({ video: 'v2', country: 'US' }, { views: 10, likes: 1, engagedViews: null, watchMinutes: 0.1 }),
  fact({ video: 'v1', country: 'GB' }, { views: 5, likes: null, engagedViews: 4, watchMinutes: 0.2 }),
  fact({ video: 'v1', country: 'US', subscribedStatus: 'UNSUBSCRIBED' }, { views: 7, watchMinutes: 0.3 }),
  fact({ video: '', country: 'ZZ' }, { subscribersGained: 3 }),
  fact({ video: 'v2', country: 'GB', day: '2026-03-06' }, { views: 1, likes: 0, engagedViews: 1 }),
];

describe('rollup', () => {
  it('groups by the grain and sums every measure', () => {
    const cube = rollup(FACTS, ['video']);
    expect(cube.grain).toEqual(['video']);
    expect(cube.rows.map((r) => r.key)).toEqual([[''], ['v1'], ['v2']]);
    const [channel, v1, v2] = cube.rows.map((r) => r.sums);
    expect(get(v1, 'views')).toBe(12);
    expect(get(v2, 'views')).toBe(11);
    expect(get(v1, 'watchMinutes')).toBeCloseTo(0.5, 12);
    expect(get(channel, 'subscribersGained')).toBe(3);
    expect(get(channel, 'views')).toBeNull();
  });

  it('is null-aware: null only when every input is null, otherwise the sum of the known values', () => {
    const [, v1, v2] = rollup(FACTS, ['video']).rows.map((r) => r.sums);
    expect(get(v1, 'likes')).toBeNull(); // null + null
    expect(get(v1, 'engagedViews')).toBe(4); // 4 + null
    expect(get(v2, 'likes')).toBe(1); // 1 + 0
    expect(get(v2, 'engagedViews')).toBe(1); // null + 1
    expect(get(v2, 'comments')).toBeNull();
    // 0 is a value, not "unknown"
    const zero = rollup([fact({}, { views: 0 })], []).rows[0]?.sums;
    expect(get(zero, 'views')).toBe(0);
  });

  it('the empty grain gives one total row; no facts give no rows', () => {
    const total = rollup(FACTS, []);
    expect(total.rows).toHaveLength(1);
    expect(total.rows[0]?.key).toEqual([]);
    expect(get(total.rows[0]?.sums, 'views')).toBe(23);
    expect(rollup([], ['video']).rows).toEqual([]);
    expect(rollup([], []).rows).toEqual([]);
  });

  it('sorts rows by key, column by column, by code unit', () => {
    const cube = rollup(FACTS, ['country', 'video', 'day']);
    expect(cube.rows.map((r) => r.key)).toEqual([
      ['GB', 'v1', '2026-03-05'],
      ['GB', 'v2', '2026-03-06'],
      ['US', 'v1', '2026-03-05'],
      ['US', 'v2', '2026-03-05'],
      ['ZZ', '', '2026-03-05'],
    ]);
    const odd = rollup(
      [fact({ video: 'b' }), fact({ video: 'B' }), fact({ video: 'a' }), fact({ video: '10' }), fact({ video: '9' })],
      ['video'],
    );
    expect(odd.rows.map((r) => r.key[0])).toEqual(['10', '9', 'B', 'a', 'b']);
  });

  it('does not change its input facts', () => {
    const copy = structuredClone(FACTS);
    rollup(FACTS, ['video']);
    rollup(FACTS, []);
    expect(FACTS).toEqual(copy);
  });

  it('the same facts in the same order give identical floats, whatever the batching', () => {
    const many = Array.from({ length: 200 }, (_, i) =>
      fact({ video: `v${i % 7}`, country: i % 3 ? 'US' : 'GB' }, { watchMinutes: 0.1 + i / 3 }),
    );
    expect(rollup(many, ['video'])).toEqual(rollup([...many], ['video']));
  });

  it('every variant grain is made of grain dimensions', () => {
    for (const v of VARIANTS) for (const d of v.grain) expect(['day', ...familyDims(CHANNEL_BASIC)]).toContain(d);
    expect(FULL_DAY.name).toBe('f');
    expect(FULL_DAY.periods).toEqual(['day']);
  });
});

/** The row-major form of earlier releases (float64 measures by name, keys joined by U+0001), for the legacy reader. */
function legacyEncode(cube: Cube): Uint8Array {
  const keys = Buffer.from(cube.rows.map((r) => r.key.join('\u0001')).join('\u0001'), 'utf8');
  const head = Buffer.from(JSON.stringify({ g: cube.grain, m: MEASURES, n: cube.rows.length, k: keys.length }));
  const values = new Float64Array(cube.rows.length * MEASURES.length);
  cube.rows.forEach((r, i) => {
    MEASURES.forEach((_, j) => {
      const v = r.sums[j];
      values[i * MEASURES.length + j] = v === null || v === undefined ? Number.NaN : v;
    });
  });
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32LE(head.length);
  const used = 4 + head.length + keys.length;
  const pad = Buffer.alloc((8 - (used % 8)) % 8);
  return deflateRawSync(Buffer.concat([prefix, head, keys, pad, Buffer.from(values.buffer)]));
}

/** A cube as plain data: sums as arrays with null for "unknown" (storage may hand back views with NaN for null). */
const plain = (cube: Cube) => ({
  grain: [...cube.grain],
  rows: cube.rows.map((r) => ({ key: [...r.key], sums: Array.from(r.sums as ArrayLike<Value>, norm) })),
});

/**
 * Runs `fn` while MEASURES lists `names`: simulates a writer from before (or after) a measure change, whatever the
 * storage format is. The list is restored afterwards.
 */
function withMeasures<T>(names: readonly string[], fn: () => T): T {
  const live = MEASURES as unknown as string[];
  const saved = [...live];
  live.splice(0, live.length, ...names);
  try {
    return fn();
  } finally {
    live.splice(0, live.length, ...saved);
  }
}

describe('encodeCube / decodeCube', () => {
  it('round-trips keys, numbers, floats and nulls exactly', () => {
    const cube = rollup(
      [
        ...FACTS,
        fact({ video: 'v"q,\n' }, { views: 1e15, watchMinutes: Math.PI, viewPercentageWeighted: 97.26 * 40 }),
        fact({ video: 'ünï 🎬' }, { views: 3, likes: 0 }),
      ],
      ['video', 'country', 'subscribedStatus', 'liveOrOnDemand'],
    );
    const back = decode(encodeCube(cube));
    expect(plain(back)).toEqual(plain(cube));
    expect(get(back.rows.find((r) => r.key[0] === 'v"q,\n')?.sums, 'watchMinutes')).toBe(Math.PI);
    expect(get(back.rows.find((r) => r.key[0] === 'ünï 🎬')?.sums, 'likes')).toBe(0);
    expect(get(back.rows.find((r) => r.key[0] === 'ünï 🎬')?.sums, 'comments')).toBeNull();
    // and again: encoding what was decoded gives the same cube
    expect(plain(decode(encodeCube(back)))).toEqual(plain(cube));
  });

  it('round-trips an empty cube, the empty grain and an empty key', () => {
    const empty: Cube = { grain: ['video'], rows: [] };
    expect(plain(decode(encodeCube(empty)))).toEqual(plain(empty));
    const total = rollup(FACTS, []);
    expect(plain(decode(encodeCube(total)))).toEqual(plain(total));
    const channelRow = rollup([fact({ video: '' }, { subscribersGained: 1 })], ['video', 'country']);
    expect(plain(decode(encodeCube(channelRow)))).toEqual(plain(channelRow));
  });

  it('stores measures by name: a cube written before a measure existed decodes it as null', () => {
    const dropped: Measure = 'engagedViews';
    const older = MEASURES.filter((m) => m !== dropped);
    const legacy: Cube = {
      grain: ['video'],
      rows: [
        { key: ['v1'], sums: older.map((_, i) => i + 1) },
        { key: ['v2'], sums: older.map(() => null) },
      ],
    };
    const cube = decode(withMeasures(older, () => encodeCube(legacy)));
    expect(cube.grain).toEqual(['video']);
    expect(cube.rows.map((r) => [...r.key])).toEqual([['v1'], ['v2']]);
    const v1 = cube.rows[0]?.sums;
    expect(v1).toHaveLength(MEASURES.length);
    expect(get(v1, dropped)).toBeNull();
    older.forEach((m, i) => {
      expect(get(v1, m), m).toBe(i + 1);
    });
    for (const m of MEASURES) expect(get(cube.rows[1]?.sums, m), m).toBeNull();
  });

  it('decodes measures stored in another order, and ignores measures it no longer knows', () => {
    const stored = ['retiredMeasure', ...[...MEASURES].reverse()];
    const values = stored.map((_, i) => i * 10);
    const cube = decode(
      withMeasures(stored, () => encodeCube({ grain: ['country'], rows: [{ key: ['US'], sums: values }] })),
    );
    expect(cube.rows.map((r) => [...r.key])).toEqual([['US']]);
    for (const m of MEASURES) expect(get(cube.rows[0]?.sums, m), m).toBe(values[stored.indexOf(m)]);
  });

  it('is compact: a thousand rows take a few bytes each', () => {
    const many = Array.from({ length: 1000 }, (_, i) => fact({ video: `video${i}` }, { views: i, likes: i % 7 }));
    const attributes = encodeCube(rollup(many, ['video']));
    // two measures, each a byte or two a row, and the ids
    expect(attributesSize(attributes)).toBeLessThan(1000 * 8);
    expect(Object.keys(attributes).sort()).toEqual(['h', 'k_video', 'm_likes', 'm_views']);
  });

  it('stores every kind of column: constants, integers (negative, large, null), floats, and -0 as itself', () => {
    const rows = [
      { key: ['a'], sums: MEASURES.map(() => null) as Value[] },
      { key: ['b'], sums: MEASURES.map(() => null) as Value[] },
      { key: ['c'], sums: MEASURES.map(() => null) as Value[] },
    ];
    const set = (m: Measure, values: Value[]) => {
      values.forEach((v, i) => {
        (rows[i]?.sums as Value[])[MEASURE_INDEX[m]] = v;
      });
    };
    set('views', [7, 7, 7]); // a constant
    set('likes', [-3, 2 ** 50, null]); // integers with a null
    set('comments', [2 ** 52, 1, 0]); // too large for a varint: float64
    set('watchMinutes', [0.1 + 0.2, null, 1e-300]);
    set('shares', [-0, 0, 1]);
    set('dislikes', [null, 5, null]);
    const cube: Cube = { grain: ['video'], rows };
    const back = decode(encodeCube(cube));
    expect(plain(back)).toEqual(plain(cube));
    expect(Object.is(back.rows[0]?.sums[MEASURE_INDEX.shares], -0)).toBe(true);
    expect(encodeCube(cube)[measureAttribute('views')]?.length).toBe(9);
  });

  it('stores decimal sums as their decimal: exact for the decimals exports hold, a few bytes a row', () => {
    const column = (values: Value[]) => {
      const rows = values.map((v, i) => ({
        key: [`v${i}`],
        sums: MEASURES.map((m) => (m === 'watchMinutes' ? v : null)),
      }));
      const attributes = encodeCube({ grain: ['video'], rows });
      const back = decode(attributes).rows.map((r) => get(r.sums, 'watchMinutes'));
      return { back, bytes: attributes[measureAttribute('watchMinutes')]?.length ?? 0 };
    };
    // Sums of two-place and six-place decimals, with the noise binary floating point adds.
    const sums = [0.1 + 0.2, 321.09 + 1e-13, 0.304106 + 0.457089, 12.5, -7.25, null, 0];
    const { back, bytes } = column(sums);
    expect(back).toEqual([0.3, 321.09, 0.761195, 12.5, -7.25, null, 0]);
    expect(bytes).toBeLessThan(sums.length * 8);
    // As many places as the values need; values the decimal cannot hold keep every bit (float64).
    expect(column([0.123456789, 1]).back).toEqual([0.123456789, 1]);
    expect(column([0.1234567891, 1]).back).toEqual([0.1234567891, 1]);
    expect(column([Math.PI, 0.5]).back).toEqual([Math.PI, 0.5]);
    expect(column([1e-300, 0.5]).back).toEqual([1e-300, 0.5]);
    // A value differing from its decimal by more than summing noise is not that decimal.
    expect(column([0.3 + 1e-9, 1]).back).toEqual([0.3 + 1e-9, 1]);
    // A thousand revenues of cents: about two bytes each, where float64 takes eight.
    const cents = Array.from({ length: 1000 }, (_, i) => (i * 37) / 100 + 0.1 + 0.2);
    const big = column(cents);
    expect(big.back).toEqual(cents.map((c) => Math.round(c * 100) / 100));
    expect(big.bytes).toBeLessThan(1000 * 3);
  });

  it('reads only the columns projected: other dimensions leave the grain, other measures are null', () => {
    const cube = rollup(FACTS, ['video', 'country', 'subscribedStatus']);
    const all = encodeCube(cube);
    const wanted = projectionOf({ dims: ['day', 'country'], measures: ['views', 'likes'] });
    const item = Object.fromEntries(Object.entries(all).filter(([name]) => wanted.includes(name)));
    const back = decode(item);
    expect(back.grain).toEqual(['country']);
    expect(back.rows.map((r) => r.key)).toEqual(cube.rows.map((r) => [r.key[1]]));
    back.rows.forEach((r, i) => {
      expect(get(r.sums, 'views')).toBe(get(cube.rows[i]?.sums, 'views'));
      expect(get(r.sums, 'likes')).toBe(get(cube.rows[i]?.sums, 'likes'));
      expect(get(r.sums, 'watchMinutes')).toBeNull();
    });
  });

  it('puts chunks of one period together: values shared by both chunks keep meaning the same', () => {
    const cube = rollup(FACTS, ['video', 'country']);
    const [a, b] = [cube.rows.slice(0, 2), cube.rows.slice(2)].map((rows) => decodeCube(encodeCube({ ...cube, rows })));
    const both = concatCubes(a as StoredCube, b as StoredCube);
    expect(both.size).toBe(cube.rows.length);
    expect(plain(asCube(both))).toEqual(plain(cube));
  });

  it('rowsWhere keeps the rows whose value passes, in order, and hands back the cube itself when every value does', () => {
    const cube = rollup(FACTS, ['video', 'country']);
    const stored = decodeCube(encodeCube(cube));
    const usOnly = rowsWhere(stored, 'country', (country) => country === 'US');
    expect(plain(asCube(usOnly))).toEqual(plain({ ...cube, rows: cube.rows.filter((r) => r.key[1] === 'US') }));
    expect(usOnly.size).toBe(2);
    expect(usOnly.keys.map((k) => k.codes.constructor)).toEqual([Uint32Array, Uint32Array]);
    expect(rowsWhere(stored, 'video', () => false).size).toBe(0);
    expect(rowsWhere(stored, 'video', () => true)).toBe(stored);
    expect(() => rowsWhere(stored, 'day', () => true)).toThrow(/day in the grain/);
  });

  it('gather picks values by position into an array of the same type', () => {
    const picked = gather(new Float64Array([0.5, 1.5, Number.NaN, -2]), [3, 0, 0, 2]);
    expect(picked).toBeInstanceOf(Float64Array);
    expect([...picked]).toEqual([-2, 0.5, 0.5, Number.NaN]);
    const signs = gather(new Int8Array([1, -1, 1]), new Uint32Array([1, 1]));
    expect(signs).toBeInstanceOf(Int8Array);
    expect([...signs]).toEqual([-1, -1]);
  });

  it('decodes the row-major form earlier releases stored (one deflated `cube` attribute)', () => {
    const cube = rollup(FACTS, ['video', 'country']);
    const back = decode({ cube: legacyEncode(cube), h: 'ignored when the legacy attribute is there' });
    expect(plain(back)).toEqual(plain(cube));
  });
});

describe('partition', () => {
  it('by country: one list per country, keeping the facts’ order', () => {
    const parts = partition(FACTS, 'country');
    expect([...parts.keys()]).toEqual(['US', 'GB', 'ZZ']);
    expect(parts.get('US')).toEqual([FACTS[0], FACTS[2]]);
    expect(parts.get('GB')).toEqual([FACTS[1], FACTS[4]]);
    expect(parts.get('ZZ')).toEqual([FACTS[3]]);
    expect(partition([], 'country').size).toBe(0);
  });

  it('by video bucket: all facts of a video land in the one bucket of that video', () => {
    const many = Array.from({ length: 300 }, (_, i) =>
      fact({ video: `vid${i % 100}`, country: i < 150 ? 'US' : 'GB' }),
    );
    const parts = partition(many, 'videoBucket');
    expect(parts.size).toBeGreaterThan(1);
    expect(parts.size).toBeLessThanOrEqual(VIDEO_BUCKETS);
    const bucketOf = new Map<string, string>();
    for (const [bucket, facts] of parts) {
      expect(bucket).toBe(videoBucket(facts[0]?.dims.video as string));
      for (const f of facts) {
        expect(bucketOf.get(f.dims.video as string) ?? bucket, f.dims.video).toBe(bucket);
        bucketOf.set(f.dims.video as string, bucket);
      }
      // order kept
      expect(facts).toEqual(many.filter((f) => videoBucket(f.dims.video as string) === bucket));
    }
    expect(bucketOf.size).toBe(100);
    expect(videoBucket('abc')).toBe(videoBucket('abc'));
    expect(videoBucket('abc')).toMatch(/^b\d{3}$/);
  });

  it('a rollup of each partition, put together, equals the rollup of all facts', () => {
    const whole = rollup(FACTS, ['country', 'video']);
    const pieces = [...partition(FACTS, 'country').values()].flatMap((p) => rollup(p, ['country', 'video']).rows);
    const byKey = (a: { key: readonly string[] }, b: { key: readonly string[] }) =>
      a.key[0] === b.key[0]
        ? (a.key[1] as string) < (b.key[1] as string)
          ? -1
          : 1
        : (a.key[0] as string) < (b.key[0] as string)
          ? -1
          : 1;
    expect(pieces.sort(byKey)).toEqual(whole.rows);
  });
});

const plainFacts = (facts: readonly FactRow[]) =>
  facts.map((f) => ({ ...f, sums: Array.from(f.sums as ArrayLike<Value>, norm) }));

describe('factsOfDay', () => {
  it('gives back the facts of a full-day cube, also after encoding', () => {
    const day = FACTS.filter((f) => f.day === '2026-03-05');
    const cube = rollup(day, FULL_DAY.grain);
    const sorted = [...day].sort(compareFacts);
    expect(sorted.map((f) => f.dims.video)).toEqual(['', 'v1', 'v1', 'v2']);
    expect(plainFacts(factsOfDay('2026-03-05', cube))).toEqual(plainFacts(sorted));
    expect(plainFacts(factsOfDay('2026-03-05', decode(encodeCube(cube))))).toEqual(plainFacts(sorted));
  });

  it('reads the grain by name, whatever its order', () => {
    const f = fact(
      { video: 'vx', country: 'FR', subscribedStatus: 'UNSUBSCRIBED', liveOrOnDemand: 'LIVE' },
      { views: 2 },
    );
    const cube = rollup(
      [f],
      ['liveOrOnDemand', 'youtubeProduct', 'country', 'video', 'creatorContentType', 'subscribedStatus'],
    );
    expect(plainFacts(factsOfDay('2026-03-05', cube))).toEqual(plainFacts([f]));
  });

  it('an empty day gives no facts', () => {
    expect(factsOfDay('2026-03-05', rollup([], FULL_DAY.grain))).toEqual([]);
  });
});
