/**
 * Fact cubes: pre-aggregated rollups of the daily facts, written at ingest so a report's cost depends on its date
 * range and answer size, not on how many videos or raw rows exist. A cube holds rows keyed by its grain
 * dimensions with the additive measures of metrics.ts; it is stored per period (a day or a month) and, for some
 * variants, per partition value (one video, one country). The planner picks the cheapest variant that can answer.
 */

import { type FamilyShape as FamilyDef, familyDims } from '../catalog/family-shapes';
import { COUNTRY_REGIONS } from '../catalog/geo';
import { addInto, emptySums, type StoredSums, type Sums } from '../catalog/metrics';
import { rowsOf, type StoredCube } from './cube-codec';

/** A dimension facts are keyed by: an Analytics dimension name such as `video` or `insightTrafficSourceType`. */
export type GrainDim = string;

/** Typical cardinalities, to rank grains by the rows they hold (unlisted dimensions: 10). */
const CARDINALITY: Readonly<Record<string, number>> = {
  day: 30,
  video: 1000,
  playlist: 50,
  channel: 5,
  country: 40,
  province: 50,
  subscribedStatus: 2,
  liveOrOnDemand: 2,
  claimedStatus: 2,
  uploaderType: 2,
  creatorContentType: 2,
  youtubeProduct: 2,
  insightTrafficSourceDetail: 300,
  insightPlaybackLocationDetail: 100,
  operatingSystem: 15,
  sharingService: 30,
};
export const cardinality = (d: GrainDim) => CARDINALITY[d] ?? 10;

/** How a partitioned variant splits a period: one item per geographic region, or per bucket of videos. */
export type PartitionKind = 'continent' | 'subContinent' | 'country' | 'videoBucket';
/** The partition kinds that are regions of countries. */
export type RegionKind = Exclude<PartitionKind, 'videoBucket'>;

export interface CubeVariant {
  /** Short, stable name: part of the storage key. */
  readonly name: string;
  /** Dimensions kept in the rows (for day-period items `day` is implicit). */
  readonly grain: readonly GrainDim[];
  /** One item per partition value (per period). */
  readonly partitionBy?: PartitionKind;
  /** `block`: also stored per block of months (BLOCK_MONTHS), so long ranges read a few items, not one a month. */
  readonly periods: readonly ('day' | 'month' | 'block')[];
}

/**
 * Lengths of the month blocks, longest first. A block of n months starts at a month whose index (year × 12 +
 * month − 1) is a multiple of n, so any range of whole months is covered by at most two blocks of each length plus
 * a few single months (blockCover).
 */
export const BLOCK_MONTHS = [16, 8, 4, 2] as const;

/** A month (YYYY-MM) as a number that counts months, and back. */
export const monthIndex = (month: string) => Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1;
export const monthAt = (index: number) =>
  `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;

/** A block's period key: `B<months>#<first month>`. */
export const blockPeriod = (months: number, first: string) => `B${months}#${first}`;

/** Days in a month (YYYY-MM), by the Gregorian rules (plain arithmetic: this runs for every month of a range). */
export function daysIn(month: string): number {
  const y = Number(month.slice(0, 4));
  const mo = Number(month.slice(5, 7));
  if (mo === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return mo === 4 || mo === 6 || mo === 9 || mo === 11 ? 30 : 31;
}

/** The months of a block period, in order. */
export function blockMonths(period: string): string[] {
  const [head, first] = period.split('#') as [string, string];
  const start = monthIndex(first);
  return Array.from({ length: Number(head.slice(1)) }, (_, i) => monthAt(start + i));
}

/**
 * Consecutive months (in order) as the fewest pieces, left to right: at each month the longest block that starts
 * there and fits, else the month itself. Each piece is a period: `B<n>#<month>` or `M#<month>`.
 */
export function blockCover(months: readonly string[]): string[] {
  const out: string[] = [];
  if (months.length === 0) return out;
  const last = monthIndex(months[months.length - 1] as string);
  for (let i = monthIndex(months[0] as string); i <= last; ) {
    const n = BLOCK_MONTHS.find((len) => i % len === 0 && i + len - 1 <= last);
    out.push(n ? blockPeriod(n, monthAt(i)) : `M#${monthAt(i)}`);
    i += n ?? 1;
  }
  return out;
}

/** Every block (of every length) holding one of `months`. */
export function blocksHolding(months: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const month of months) {
    const i = monthIndex(month);
    for (const n of BLOCK_MONTHS) out.add(blockPeriod(n, monthAt(i - (i % n))));
  }
  return [...out].sort();
}

/** Videos are spread over this many buckets, so per-video data costs a few items a month, not one per video. */
export const VIDEO_BUCKETS = 256;

/** FNV-1a of the id, as a fixed-width bucket name. */
export function videoBucket(video: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < video.length; i++) h = Math.imul(h ^ video.charCodeAt(i), 0x01000193);
  return `b${String((h >>> 0) % VIDEO_BUCKETS).padStart(3, '0')}`;
}

/**
 * The by-bucket variants are stored per group of buckets, not per bucket, so loading a day writes a few group items
 * rather than 256 bucket items, while a report still reads only its bucket's attribute: `vb` (every fact) in 16
 * groups of 16 buckets, `vd` (by video and day, small) in 64 groups of 4. DynamoDB reads (and bills) whole items, so
 * a `video==` report reading `vd` pays for its group: V / 64 videos' rows a day (4 groups of 64 buckets, each a month
 * to an item, made one video over a year 39 items of 300 KB at 10,000 videos).
 */
export const bucketsPerGroup = (variant: string): number => (variant === 'vd' ? 4 : 16);

/** The group (`g00`, …) of a bucket (`b000` … `b255`) for a variant. */
export const groupOfBucket = (variant: string, bucket: string): string =>
  `g${String(Math.floor(Number(bucket.slice(1)) / bucketsPerGroup(variant))).padStart(2, '0')}`;

/** The partition a fact belongs to ('' for none: a country outside every region, a channel-level row). */
export function partitionValue(kind: PartitionKind, f: FactRow): string {
  const video = f.dims.video ?? '';
  if (kind === 'videoBucket') return video === '' ? '' : videoBucket(video);
  return regionOf(kind, f.dims.country ?? '');
}

/** The region of a kind a country lies in: itself, its sub-continent or its continent ('' for none). */
export function regionOf(kind: RegionKind, country: string): string {
  return kind === 'country' ? country : (COUNTRY_REGIONS[country]?.[kind] ?? '');
}

/** channel_basic's slicing dimensions (the extension columns are one value per video, so they add few rows). */
const GEO = ['country', 'subscribedStatus', 'liveOrOnDemand', 'creatorContentType', 'youtubeProduct'] as const;

/** The channel_basic variants, smallest first. `f` (the full day) is the source of all others. */
export const VARIANTS: readonly CubeVariant[] = [
  { name: 't', grain: [], periods: ['day'] },
  { name: 'd', grain: ['day'], periods: ['month'] },
  { name: 'g', grain: [...GEO], periods: ['day', 'month', 'block'] },
  { name: 'gd', grain: ['day', ...GEO], periods: ['month'] },
  { name: 'v', grain: ['video'], periods: ['day', 'month', 'block'] },
  // Top videos of a region: per video, summed over the region's countries.
  { name: 'vk', grain: ['video'], partitionBy: 'continent', periods: ['month'] },
  { name: 'vs', grain: ['video'], partitionBy: 'subContinent', periods: ['month'] },
  { name: 'vn', grain: ['video'], partitionBy: 'country', periods: ['month'] },
  // Top videos by subscribed status or live/on-demand, over a month.
  { name: 'vg', grain: ['video', ...GEO], periods: ['month'] },
  // One or a few videos day by day: per bucket of videos, with and without the slices.
  { name: 'vd', grain: ['video', 'day'], partitionBy: 'videoBucket', periods: ['month'] },
  { name: 'vb', grain: ['video', 'day', ...GEO], partitionBy: 'videoBucket', periods: ['month'] },
  { name: 'f', grain: ['video', ...GEO], periods: ['day'] },
];

export const FULL_DAY: CubeVariant = VARIANTS.find((v) => v.name === 'f') as CubeVariant;

const variantCache = new Map<string, readonly CubeVariant[]>();

/**
 * Families that also keep videos day by day without their slices (`vd`): the basic ones, which answer most
 * one-video day-by-day reports. The others answer those from `vb` (it has the slices too), saving a few hundred
 * items a month at ingest.
 */
const DAILY_BY_VIDEO: ReadonlySet<string> = new Set(['OB', 'PB']);

/**
 * The variants written for a family. channel_basic keeps its tuned set; every other family gets the same shapes
 * over its own dimensions: totals, by day, by its slicing dimensions (`g`), by video, by video and slices, per
 * bucket of videos with days (the basic families also without the slices), and the full day. Content-owner families keep `channel` (and the claim attributes) in
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
    { name: 'g', grain: [...pre, ...slices], periods: ['day', 'month', 'block'] },
    { name: 'gd', grain: [...pre, 'day', ...slices], periods: ['month'] },
    { name: 'v', grain: [...pre, 'video'], periods: ['day', 'month', 'block'] },
    { name: 'vg', grain: [...pre, 'video', ...slices], periods: ['month'] },
    ...(DAILY_BY_VIDEO.has(family.code)
      ? [
          {
            name: 'vd',
            grain: [...pre, 'video', 'day'],
            partitionBy: 'videoBucket' as const,
            periods: ['month' as const],
          },
        ]
      : []),
    { name: 'vb', grain: [...pre, 'video', 'day', ...slices], partitionBy: 'videoBucket', periods: ['month'] },
    { name: 'f', grain: [...pre, 'video', ...slices], periods: ['day'] },
  ];
  variantCache.set(family.code, variants);
  return variants;
}

/**
 * How a variant is stored. `flat`: one cube per period (day items, month items without `day`, blocks). `byDay`: a
 * month variant with `day` in its grain (d, gd): one segment per day, several days to an item, so loading a day sets
 * one attribute of the month's item. `daily` (vd, vb: by video and day, per bucket of videos): one item per group of
 * buckets and day, each bucket an attribute, so loading a day writes that day's items and nothing else (an item
 * holding a month's days grows with the month, and DynamoDB bills an update by the whole item); a month loaded whole
 * (a batch) is one item per group instead, its days in each bucket's attribute (ingest/by-day-items.ts). A month
 * reads its items in one Query.
 */
export type VariantLayout = 'flat' | 'byDay' | 'daily';

export const layoutOf = (v: CubeVariant): VariantLayout => {
  if (v.partitionBy === 'videoBucket') return 'daily';
  return v.periods.includes('month') && v.grain.includes('day') ? 'byDay' : 'flat';
};

/** The full-day variant of a family: the source of all others, and what a reload reads back. */
export const fullDayOf = (family: FamilyDef): CubeVariant =>
  variantsOf(family).find((v) => v.name === 'f') as CubeVariant;

/** The month cube of a family at the full-day grain (`vg`): the root the other month cubes are rolled up from. */
export function rootVariantOf(family: FamilyDef): CubeVariant | undefined {
  const full = fullDayOf(family).grain;
  return variantsOf(family).find(
    (v) =>
      layoutOf(v) === 'flat' &&
      v.periods.includes('month') &&
      v.grain.length === full.length &&
      v.grain.every((d, i) => d === full[i]),
  );
}

/** One row of a cube: grain values in the variant's grain order, and the measure sums. */
export interface CubeRow {
  readonly key: readonly string[];
  readonly sums: StoredSums;
}

export interface Cube {
  readonly grain: readonly GrainDim[];
  readonly rows: readonly CubeRow[];
  /** The measure positions rows may hold (a family's); absent: any. Storage looks only at these. */
  readonly measures?: readonly number[];
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
  const rows = [...byKey.values()].sort((a, b) => compareKeys(a.key, b.key));
  return only ? { grain, rows, measures: only } : { grain, rows };
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

/** Facts back from a full-day (`f`) cube of `day`. */
export function factsOfDay(day: string, cube: Cube | StoredCube): FactRow[] {
  const rows = 'rows' in cube ? cube.rows : rowsOf(cube);
  return rows.map((r) => ({
    day,
    dims: Object.fromEntries(cube.grain.map((d, i) => [d, r.key[i] as string])),
    sums: r.sums,
  }));
}
