/**
 * Fact cubes: pre-aggregated rollups of the daily facts, written at ingest so a report's cost depends on its date
 * range and answer size, not on how many videos or raw rows exist. A cube holds rows keyed by its grain
 * dimensions with the additive measures of metrics.ts; it is stored per period (a day or a month) and, for some
 * variants, per partition value (one video, one country). The planner picks the cheapest variant that can answer.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { addInto, emptySums, MEASURES, type Sums, type Value } from './metrics';

/** The dimensions facts are kept at (the finest grain of the channel-basic export). */
export const GRAIN_DIMS = ['day', 'video', 'country', 'subscribedStatus', 'liveOrOnDemand'] as const;
export type GrainDim = (typeof GRAIN_DIMS)[number];

/** How a partitioned variant splits a period: one item per country, or per bucket of videos. */
export type PartitionKind = 'country' | 'videoBucket';

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
export const VIDEO_BUCKETS = 64;

/** FNV-1a of the id, as a fixed-width bucket name. */
export function videoBucket(video: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < video.length; i++) h = Math.imul(h ^ video.charCodeAt(i), 0x01000193);
  return `b${String((h >>> 0) % VIDEO_BUCKETS).padStart(2, '0')}`;
}

/** The partition a fact belongs to. */
export const partitionValue = (kind: PartitionKind, f: FactRow): string =>
  kind === 'country' ? f.country : videoBucket(f.video);

const GEO = ['country', 'subscribedStatus', 'liveOrOnDemand'] as const;

/** The variants written for each channel, smallest first. `f` (the full day) is the source of all others. */
export const VARIANTS: readonly CubeVariant[] = [
  { name: 'd', grain: ['day'], periods: ['month'] },
  { name: 'g', grain: [...GEO], periods: ['day', 'month'] },
  { name: 'gd', grain: ['day', ...GEO], periods: ['month'] },
  { name: 'v', grain: ['video'], periods: ['day', 'month'] },
  { name: 'vc', grain: ['video', 'country'], periods: ['month'] },
  { name: 'vb', grain: ['video', 'day', ...GEO], partitionBy: 'videoBucket', periods: ['month'] },
  { name: 'f', grain: ['video', ...GEO], periods: ['day'] },
];

export const FULL_DAY: CubeVariant = VARIANTS.find((v) => v.name === 'f') as CubeVariant;

/** One row of a cube: grain values in the variant's grain order, and the measure sums. */
export interface CubeRow {
  readonly key: readonly string[];
  readonly sums: Sums;
}

export interface Cube {
  readonly grain: readonly GrainDim[];
  readonly rows: readonly CubeRow[];
}

/** A fact at the finest grain: one (day, video, country, subscribedStatus, liveOrOnDemand). */
export interface FactRow {
  readonly day: string;
  readonly video: string;
  readonly country: string;
  readonly subscribedStatus: string;
  readonly liveOrOnDemand: string;
  readonly sums: Sums;
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
 * Aggregates facts into rows keyed by `grain`, rows sorted by key. Facts must come in a deterministic order
 * (day, then key) so that floating-point sums are the same however often and in whatever batches data is loaded.
 */
export function rollup(facts: Iterable<FactRow>, grain: readonly GrainDim[]): Cube {
  const byKey = new Map<string, { key: string[]; sums: Sums }>();
  for (const f of facts) {
    const key = grain.map((d) => f[d]);
    const id = key.join('\u0000');
    let row = byKey.get(id);
    if (!row) {
      row = { key, sums: emptySums() };
      byKey.set(id, row);
    }
    addInto(row.sums, f.sums);
  }
  return { grain, rows: [...byKey.values()].sort((a, b) => compareKeys(a.key, b.key)) };
}

/** Groups facts by partition (for partitioned variants), keeping their order. */
export function partition(facts: readonly FactRow[], kind: PartitionKind): Map<string, FactRow[]> {
  const parts = new Map<string, FactRow[]>();
  for (const f of facts) {
    const value = partitionValue(kind, f);
    const list = parts.get(value);
    if (list) list.push(f);
    else parts.set(value, [f]);
  }
  return parts;
}

/** Compact storage form: deflated JSON of [grain, measure names, rows as [...key, ...sums]]. */
export function encodeCube(cube: Cube): Uint8Array {
  const rows = cube.rows.map((r) => [...r.key, ...r.sums]);
  return deflateRawSync(Buffer.from(JSON.stringify([cube.grain, MEASURES, rows])));
}

export function decodeCube(bytes: Uint8Array): Cube {
  const [grain, measures, rows] = JSON.parse(inflateRawSync(bytes).toString('utf8')) as [
    GrainDim[],
    string[],
    (string | Value)[][],
  ];
  // Measures are stored by name, so cubes written before a measure was added still decode correctly.
  const index = MEASURES.map((m) => measures.indexOf(m));
  const k = grain.length;
  return {
    grain,
    rows: rows.map((r) => ({
      key: r.slice(0, k) as string[],
      sums: index.map((i) => (i < 0 ? null : ((r[k + i] as Value) ?? null))),
    })),
  };
}

/** Facts back from a full-day (`f`) cube of `day`. */
export function factsOfDay(day: string, cube: Cube): FactRow[] {
  const at = (name: GrainDim) => cube.grain.indexOf(name);
  const [iv, ic, is, il] = [at('video'), at('country'), at('subscribedStatus'), at('liveOrOnDemand')];
  return cube.rows.map((r) => ({
    day,
    video: r.key[iv] as string,
    country: r.key[ic] as string,
    subscribedStatus: r.key[is] as string,
    liveOrOnDemand: r.key[il] as string,
    sums: r.sums,
  }));
}
