/**
 * Ranked heads of the by-video cubes (docs/reports-storage.md, "Top videos: ranked heads"). A top 10 of a year read
 * every video's row of the year's blocks: linear in the channel's videos, 60 MB at a million. A by-video cube of
 * HEAD_FROM_TIMES × HEAD_ROWS rows or more (a region's month: REGIONAL_HEAD_FROM) is therefore stored headed: its rows
 * in chunks 1…n (as any large cube's), and at the period's key, where a cube's first chunk goes, its **head**: the
 * rows among the HEAD_ROWS best by each HEADED measure, whole (every measure), and per measure the HEAD_ROWS-th best
 * value, the **threshold**: no video outside the head has more there. A top-N sorted by one of those measures reads
 * the heads of its pieces (a year: three blocks, or a region's twelve months) and adds up what they know; when the
 * best N's least possible totals beat every other video's greatest possible total, the heads decide
 * (query/top-heads.ts), else the pieces are read whole. The head is the cube's first item, written last like every
 * first chunk, so it is always the head of the chunks it names.
 */
import { MEASURE_INDEX, type Measure } from '../catalog/metrics';
import { videoBucket } from './cube';
import { concatUnits, permute, type UnitCube } from './units';

/** Rows a head keeps per headed measure: a top-N may ask for up to this many rows (maxResults and startIndex). */
export const HEAD_ROWS = 250;
/**
 * A cube is headed from this many times its head's rows per measure: a head holds at most that many rows per headed
 * measure (they mostly overlap: the most watched videos are the most viewed), and below this reading it whole costs
 * little more.
 */
export const HEAD_FROM_TIMES = 8;
/**
 * The measures top videos may be sorted by (the catalog's report 26: views, redViews, estimatedMinutesWatched,
 * estimatedRedMinutesWatched, subscribersGained, subscribersLost), counts that never go below zero. Revenue, also a
 * sort of that report, can (adjustments), and a head's bounds assume no piece takes from a total.
 */
export const HEADED: readonly Measure[] = [
  'views',
  'redViews',
  'watchMinutes',
  'redWatchMinutes',
  'subscribersGained',
  'subscribersLost',
];
export const HEADED_INDEX: readonly number[] = HEADED.map((m) => MEASURE_INDEX[m]);

/**
 * A regional cube (`vk`, `vs`, `vn`: a partition per region, one row per video, a cube per month) is headed from
 * this many rows. Its pieces are months, so a year is twelve heads, and a winner missing from one (a video published
 * since) costs that month's row chunk: below this a month is a chunk or two and reading it whole costs no more. At a
 * million videos a region's month is tens of chunks, and its head decides the top N from a few hundred rows.
 */
export const REGIONAL_HEAD_FROM = 100_000;

/** How heads are sized: rows kept per measure, and the rows from which a regional cube is headed (tests: fewer). */
export interface HeadSizes {
  readonly rows?: number;
  readonly regionalFrom?: number;
}

/**
 * How a cube writer heads a cube: the headed measures' positions in its measures, the rows kept per measure, and the
 * rows from which a cube is headed.
 */
export interface HeadSettings {
  readonly columns: readonly number[];
  readonly rows: number;
  readonly from: number;
}

const REGION_PARTITIONS: ReadonlySet<string> = new Set(['continent', 'subContinent', 'country']);

/**
 * Whether a variant's cubes are headed: by video and nothing else (a content owner's also by channel), flat or a
 * partition per region (a region's rows are its videos'; a partition per video bucket is not a ranking).
 */
export const isHeadedGrain = (grain: readonly string[], partitionBy: string | undefined): boolean =>
  (partitionBy === undefined || REGION_PARTITIONS.has(partitionBy)) &&
  grain.includes('video') &&
  grain.every((d) => d === 'video' || d === 'channel');

/** A value for ranking: null (NaN) below every number. */
const rank = (v: number) => (Number.isNaN(v) ? Number.NEGATIVE_INFINITY : v);

/**
 * The rows of `cube` among the `k` best by each of `columns` (positions in cube.sums), ascending: for each column the
 * rows above its k-th best value, then rows equal to it in row order until k are taken.
 */
export function headRowIndices(cube: UnitCube, columns: readonly number[], k = HEAD_ROWS): number[] {
  if (cube.size <= k) return Array.from({ length: cube.size }, (_, i) => i);
  const keep = new Uint8Array(cube.size);
  for (const j of columns) {
    const values = cube.sums[j] as Float64Array;
    const sorted = values.map(rank).sort();
    const kth = sorted[cube.size - k] as number;
    let taken = 0;
    for (let i = 0; i < cube.size; i++) {
      if (rank(values[i] as number) <= kth) continue;
      keep[i] = 1;
      taken++;
    }
    for (let i = 0; i < cube.size && taken < k; i++) {
      if (rank(values[i] as number) !== kth) continue;
      keep[i] = 1;
      taken++;
    }
  }
  const out: number[] = [];
  for (let i = 0; i < cube.size; i++) if (keep[i]) out.push(i);
  return out;
}

/** The k-th best value of a column (micro-units), 0 when fewer rows have a value: no row outside a head has more. */
export function threshold(values: Float64Array, k = HEAD_ROWS): number {
  const sorted = values.map(rank).sort();
  const kth = sorted.length >= k ? (sorted[sorted.length - k] as number) : Number.NEGATIVE_INFINITY;
  return kth === Number.NEGATIVE_INFINITY ? 0 : Math.max(0, kth);
}

/**
 * A cube's head built a block of rows at a time (CubeWriter streams a cube in blocks): the best rows of the blocks
 * seen, kept to the best of them (the best k of a union are among the union of each part's best k).
 */
export class HeadBuilder {
  private candidates: UnitCube | undefined;
  constructor(private readonly settings: HeadSettings) {}

  add(block: UnitCube): void {
    const { columns, rows } = this.settings;
    const best = permute(block, headRowIndices(block, columns, rows));
    const all = this.candidates ? concatUnits([this.candidates, best]) : best;
    this.candidates = permute(all, headRowIndices(all, columns, rows));
  }

  /** The head's rows (in the order they came) and each headed measure's threshold, by measure name. */
  finish(): { head: UnitCube; thresholds: Record<string, number> } {
    const head = this.candidates as UnitCube;
    const thresholds: Record<string, number> = {};
    for (const j of this.settings.columns) {
      const name = HEADED[HEADED_INDEX.indexOf(head.measures[j] as number)] as string;
      thresholds[name] = threshold(head.sums[j] as Float64Array, this.settings.rows);
    }
    return { head, thresholds };
  }
}

/**
 * How a variant's cubes are headed (undefined: not headed): the headed measures among `measures` (a cube's
 * MEASURE_INDEX list), the rows kept per measure, and from how many rows (HEAD_FROM_TIMES × those, or for a regional
 * variant REGIONAL_HEAD_FROM).
 */
export function headSettings(
  grain: readonly string[],
  partitionBy: string | undefined,
  measures: readonly number[],
  sizes: HeadSizes = {},
): HeadSettings | undefined {
  const rows = sizes.rows ?? HEAD_ROWS;
  const columns = HEADED_INDEX.map((m) => measures.indexOf(m)).filter((j) => j >= 0);
  if (!isHeadedGrain(grain, partitionBy) || columns.length === 0) return undefined;
  const from = partitionBy === undefined ? HEAD_FROM_TIMES * rows : (sizes.regionalFrom ?? REGIONAL_HEAD_FROM);
  return { columns, rows, from };
}

/** Two videos in the canonical row order (units.ts): by bucket number (the empty video first), then code units. */
export function compareVideos(a: string, b: string): number {
  const bucket = (v: string) => (v === '' ? -1 : Number(videoBucket(v).slice(1)));
  return bucket(a) - bucket(b) || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * The row chunk (1…n) of a headed cube that holds `video`'s rows, from its chunk index (each row chunk's first video;
 * no video's rows span two chunks): the last chunk whose first video is not after it. None when the video sorts
 * before every row.
 */
export function chunksHolding(index: readonly string[], video: string): number[] {
  let at = 0;
  while (at < index.length && compareVideos(index[at] as string, video) <= 0) at++;
  return at === 0 ? [] : [at];
}

/**
 * A headed cube's chunk index built as its row chunks are made: each chunk's first video, so a top-N missing a winner
 * in a head reads only the chunks that may hold it (≤ one per winner and head, whatever the channel's videos), not the
 * cube. Undefined (read the cube whole) when the rows did not come in the canonical order, or a video's rows span
 * two chunks.
 */
export class ChunkIndexBuilder {
  private readonly firsts: string[] = [];
  private lastBucket = Number.NEGATIVE_INFINITY;
  private lastVideo: string | undefined;
  private ordered = true;

  add(chunk: UnitCube): void {
    const v = chunk.grain.indexOf('video');
    if (v < 0 || chunk.size === 0) {
      this.ordered = false;
      return;
    }
    const dict = chunk.dicts.of('video');
    const buckets = dict.buckets();
    const codes = chunk.keys[v] as Int32Array;
    const first = dict.values[codes[0] as number] as string;
    // A video whose rows span two chunks: the index could name only one of them.
    if (first === this.lastVideo) this.ordered = false;
    this.firsts.push(first);
    for (let i = 0; i < chunk.size && this.ordered; i++) {
      const code = codes[i] as number;
      const bucket = buckets[code] as number;
      const video = dict.values[code] as string;
      this.ordered = bucket > this.lastBucket || (bucket === this.lastBucket && video >= (this.lastVideo as string));
      this.lastBucket = bucket;
      this.lastVideo = video;
    }
  }

  finish(): string[] | undefined {
    return this.ordered ? this.firsts : undefined;
  }
}
