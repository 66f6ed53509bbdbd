/**
 * Fact cubes: pre-aggregated rollups of the daily facts, written at ingest so a report's cost depends on its date
 * range and answer size, not on how many videos or raw rows exist. A cube holds rows keyed by its grain
 * dimensions with the additive measures of metrics.ts; it is stored per period (a day or a month) and, for some
 * variants, per partition value (one video, one country). The planner picks the cheapest variant that can answer.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { type FamilyDef, familyDims } from './families';
import { COUNTRY_REGIONS } from './geo';
import { addInto, emptySums, MEASURES, type StoredSums, type Sums } from './metrics';

/** A dimension facts are keyed by: an Analytics dimension name such as `video` or `insightTrafficSourceType`. */
export type GrainDim = string;

/** How a partitioned variant splits a period: one item per geographic region, or per bucket of videos. */
export type PartitionKind = 'continent' | 'subContinent' | 'country' | 'videoBucket';

export interface CubeVariant {
  /** Short, stable name: part of the storage key. */
  readonly name: string;
  /** Dimensions kept in the rows (for day-period items `day` is implicit). */
  readonly grain: readonly GrainDim[];
  /** One item per partition value (per period). */
  readonly partitionBy?: PartitionKind;
  readonly periods: readonly ('day' | 'month')[];
}

/** Videos are spread over this many buckets, so per-video data costs a few items a month, not one per video. */
export const VIDEO_BUCKETS = 256;

/** FNV-1a of the id, as a fixed-width bucket name. */
export function videoBucket(video: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < video.length; i++) h = Math.imul(h ^ video.charCodeAt(i), 0x01000193);
  return `b${String((h >>> 0) % VIDEO_BUCKETS).padStart(3, '0')}`;
}

/** The partition a fact belongs to ('' for none: a country outside every region, a channel-level row). */
export function partitionValue(kind: PartitionKind, f: FactRow): string {
  const video = f.dims.video ?? '';
  if (kind === 'videoBucket') return video === '' ? '' : videoBucket(video);
  const country = f.dims.country ?? '';
  if (kind === 'country') return country;
  return COUNTRY_REGIONS[country]?.[kind] ?? '';
}

/** channel_basic's slicing dimensions (the extension columns are one value per video, so they add few rows). */
const GEO = ['country', 'subscribedStatus', 'liveOrOnDemand', 'creatorContentType', 'youtubeProduct'] as const;

/** The channel_basic variants, smallest first. `f` (the full day) is the source of all others. */
export const VARIANTS: readonly CubeVariant[] = [
  { name: 't', grain: [], periods: ['day'] },
  { name: 'd', grain: ['day'], periods: ['month'] },
  { name: 'g', grain: [...GEO], periods: ['day', 'month'] },
  { name: 'gd', grain: ['day', ...GEO], periods: ['month'] },
  { name: 'v', grain: ['video'], periods: ['day', 'month'] },
  // Top videos of a region: per video, summed over the region's countries.
  { name: 'vk', grain: ['video'], partitionBy: 'continent', periods: ['month'] },
  { name: 'vs', grain: ['video'], partitionBy: 'subContinent', periods: ['month'] },
  { name: 'vn', grain: ['video'], partitionBy: 'country', periods: ['month'] },
  // Top videos by subscribed status or live/on-demand, over a month.
  { name: 'vg', grain: ['video', ...GEO], periods: ['month'] },
  { name: 'vb', grain: ['video', 'day', ...GEO], partitionBy: 'videoBucket', periods: ['month'] },
  { name: 'f', grain: ['video', ...GEO], periods: ['day'] },
];

export const FULL_DAY: CubeVariant = VARIANTS.find((v) => v.name === 'f') as CubeVariant;

const variantCache = new Map<string, readonly CubeVariant[]>();

/**
 * The variants written for a family. channel_basic keeps its tuned set; every other family gets the same shapes
 * over its own dimensions: totals, by day, by its slicing dimensions (`g`), by video, by video and slices, per
 * bucket of videos with days, and the full day. Content-owner families keep `channel` (and the claim attributes) in
 * every grain, so data of a channel from before it was linked can always be told apart.
 */
export function variantsOf(family: FamilyDef): readonly CubeVariant[] {
  if (family.code === 'CB') return VARIANTS;
  const cached = variantCache.get(family.code);
  if (cached) return cached;
  const dims = familyDims(family);
  // Content owners: the channel (for link dates) and the claim attributes every query filters by are properties of a
  // video, so keeping them in every grain adds few rows and lets totals and top videos use the small variants.
  const pre = ['channel', 'claimedStatus', 'uploaderType'].filter((d) => dims.includes(d));
  const slices = dims.filter((d) => d !== 'video' && !pre.includes(d));
  const variants: CubeVariant[] = [
    { name: 't', grain: pre, periods: ['day'] },
    { name: 'd', grain: [...pre, 'day'], periods: ['month'] },
    { name: 'g', grain: [...pre, ...slices], periods: ['day', 'month'] },
    { name: 'gd', grain: [...pre, 'day', ...slices], periods: ['month'] },
    { name: 'v', grain: [...pre, 'video'], periods: ['day', 'month'] },
    { name: 'vg', grain: [...pre, 'video', ...slices], periods: ['month'] },
    { name: 'vb', grain: [...pre, 'video', 'day', ...slices], partitionBy: 'videoBucket', periods: ['month'] },
    { name: 'f', grain: [...pre, 'video', ...slices], periods: ['day'] },
  ];
  variantCache.set(family.code, variants);
  return variants;
}

/** The full-day variant of a family: the source of all others, and what a reload reads back. */
export const fullDayOf = (family: FamilyDef): CubeVariant =>
  variantsOf(family).find((v) => v.name === 'f') as CubeVariant;

/** One row of a cube: grain values in the variant's grain order, and the measure sums. */
export interface CubeRow {
  readonly key: readonly string[];
  readonly sums: StoredSums;
}

export interface Cube {
  readonly grain: readonly GrainDim[];
  readonly rows: readonly CubeRow[];
}

/** A fact at the finest grain of its family: one day and one value of each of the family's dimensions. */
export interface FactRow {
  readonly day: string;
  readonly dims: Readonly<Record<string, string>>;
  readonly sums: StoredSums;
}

const compareKeys = (a: readonly string[], b: readonly string[]) => {
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
};

/**
 * Aggregates facts into rows keyed by `grain`, rows sorted by key; `only` limits the sums to a family's measures. Facts must come in a deterministic order
 * (day, then key) so that floating-point sums are the same however often and in whatever batches data is loaded.
 */
export function rollup(facts: Iterable<FactRow>, grain: readonly GrainDim[], only?: readonly number[]): Cube {
  const byKey = new Map<string, { key: string[]; sums: Sums }>();
  const cellOf = (f: FactRow, d: GrainDim) => (d === 'day' ? f.day : (f.dims[d] ?? ''));
  for (const f of facts) {
    // The id first, the key array only for a new row: this runs for every fact of every variant at ingest.
    let id = '';
    for (let i = 0; i < grain.length; i++)
      id += i === 0 ? cellOf(f, grain[i] as string) : `\u0000${cellOf(f, grain[i] as string)}`;
    let row = byKey.get(id);
    if (!row) {
      row = { key: grain.map((d) => cellOf(f, d)), sums: emptySums() };
      byKey.set(id, row);
    }
    addInto(row.sums, f.sums, only);
  }
  return { grain, rows: [...byKey.values()].sort((a, b) => compareKeys(a.key, b.key)) };
}

/** Groups facts by partition (for partitioned variants), keeping their order; facts of no partition are left out. */
export function partition(facts: readonly FactRow[], kind: PartitionKind): Map<string, FactRow[]> {
  const parts = new Map<string, FactRow[]>();
  for (const f of facts) {
    const value = partitionValue(kind, f);
    if (value === '') continue;
    const list = parts.get(value);
    if (list) list.push(f);
    else parts.set(value, [f]);
  }
  return parts;
}

/**
 * Storage form, deflated: a JSON header (grain, measure names, row count, key text length), the row keys as one
 * text (fields joined by U+0001), and the measures as little-endian float64 (NaN for null), row-major. Decoding
 * is a view over the bytes, so reading a cube costs little more than inflating it.
 */
export function encodeCube(cube: Cube): Uint8Array {
  const keys = Buffer.from(cube.rows.map((r) => r.key.join(SEP)).join(SEP), 'utf8');
  // Only the measures some row has: a family's cubes carry its own measures, not every family's.
  const stored = MEASURES.map((_, j) => j).filter((j) =>
    cube.rows.some((r) => r.sums[j] !== null && r.sums[j] !== undefined && !Number.isNaN(r.sums[j])),
  );
  const names = stored.map((j) => MEASURES[j]);
  const head = Buffer.from(JSON.stringify({ g: cube.grain, m: names, n: cube.rows.length, k: keys.length }));
  const values = new Float64Array(cube.rows.length * stored.length);
  cube.rows.forEach((r, i) => {
    stored.forEach((j, at) => {
      const v = r.sums[j];
      values[i * stored.length + at] = v === null || v === undefined ? Number.NaN : v;
    });
  });
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32LE(head.length);
  // Pad so the float64 block starts 8-byte aligned in the inflated buffer.
  const used = 4 + head.length + keys.length;
  const pad = Buffer.alloc((8 - (used % 8)) % 8);
  return deflateRawSync(Buffer.concat([prefix, head, keys, pad, Buffer.from(values.buffer)]));
}

const SEP = '\u0001';

export function decodeCube(bytes: Uint8Array): Cube {
  const raw = inflateRawSync(bytes);
  const headLength = raw.readUInt32LE(0);
  const head = JSON.parse(raw.subarray(4, 4 + headLength).toString('utf8')) as {
    g: GrainDim[];
    m: string[];
    n: number;
    k: number;
  };
  const keyStart = 4 + headLength;
  const fields =
    head.k > 0
      ? raw
          .subarray(keyStart, keyStart + head.k)
          .toString('utf8')
          .split(SEP)
      : [];
  const used = keyStart + head.k;
  const valueStart = used + ((8 - (used % 8)) % 8);
  const aligned = (raw.byteOffset + valueStart) % 8 === 0 ? raw : Buffer.from(raw);
  const values = new Float64Array(aligned.buffer, aligned.byteOffset + valueStart, head.n * head.m.length);
  const width = head.m.length;
  const k = head.g.length;
  // Measures are stored by name, so cubes written before a measure was added still decode (as null).
  const sameOrder = width === MEASURES.length && head.m.every((m, i) => m === MEASURES[i]);
  // A family stores only its own measures: spread them into one block of all measures (NaN for the others), so
  // each row is a view as in the full layout and decoding allocates one buffer, not an array per row.
  let block = values;
  if (!sameOrder) {
    const at = head.m.map((m) => MEASURES.indexOf(m as (typeof MEASURES)[number]));
    block = new Float64Array(head.n * MEASURES.length).fill(Number.NaN);
    for (let i = 0; i < head.n; i++) {
      for (let j = 0; j < width; j++) {
        const to = at[j] as number;
        if (to >= 0) block[i * MEASURES.length + to] = values[i * width + j] as number;
      }
    }
  }
  const stride = MEASURES.length;
  const rows: CubeRow[] = new Array(head.n);
  for (let i = 0; i < head.n; i++) {
    const key = k === 0 ? [] : fields.slice(i * k, i * k + k);
    rows[i] = { key, sums: block.subarray(i * stride, (i + 1) * stride) };
  }
  return { grain: head.g, rows };
}

/** Facts back from a full-day (`f`) cube of `day`. */
export function factsOfDay(day: string, cube: Cube): FactRow[] {
  return cube.rows.map((r) => ({
    day,
    dims: Object.fromEntries(cube.grain.map((d, i) => [d, r.key[i] as string])),
    sums: r.sums,
  }));
}
