/**
 * What the channel and content-owner parts of the reports benchmark share: the query shape, the date-range
 * arithmetic the item bounds are derived from, and the comparison of an API answer with DuckDB's.
 */
import { splitRange } from '../functions/core/reports/query/engine';

export type DateRange = readonly [string, string];

/** Who runs a query: the channel owner (channel==MINE) or the content-owner manager (monetary scope too). */
export type BenchCaller = 'channel' | 'contentOwner';

export interface BenchQuery {
  name: string;
  /** reports.query parameters besides `ids` (set from `caller`). */
  params: Record<string, string>;
  caller: BenchCaller;
  /** `ids` for the content-owner caller. */
  ids?: string;
  /** The same report in DuckDB over the raw CSV rows: same columns, same order. */
  sql: string;
  /** Most items the storage design may read for it. */
  bound: number;
}

/** Whole months and edge days of a range, as the planner splits it. */
export function span(r: DateRange): { months: number; edgeDays: number } {
  const { months, edges } = splitRange(r[0], r[1]);
  const edgeDays = edges.reduce((n, [a, b]) => n + (Date.parse(b) - Date.parse(a)) / 86_400_000 + 1, 0);
  return { months: months.length, edgeDays };
}

/**
 * A channel-level read (no video grain): one item per whole month (a month cube may need a second chunk below the
 * item-size limit, so 2) and one per edge day.
 */
export const channelLevelBound = (r: DateRange) => 2 * span(r).months + span(r).edgeDays;

/**
 * Videos one item of a by-video cube holds at least, every measure of the family stored (docs/reports-storage.md,
 * "What a report reads"): a larger cube is split into chunks, each an item read.
 */
export const VIDEOS_PER_ITEM = 4_000;

/** Items of one by-video cube of `videos` videos. */
export const videoItems = (videos: number) => Math.max(1, Math.ceil(videos / VIDEOS_PER_ITEM));

/** Top videos (video grain, no filter but an entity's): one cube per month and per edge day, each in chunks. */
export const topVideosBound = (r: DateRange, videos: number) =>
  (span(r).months + span(r).edgeDays) * videoItems(videos);

/** Top videos of a region: its partition's cube per month, and per edge day the full day (every country's rows). */
export const regionTopVideosBound = (r: DateRange, countries: number, videos: number) =>
  span(r).months * videoItems(videos) + span(r).edgeDays * videoItems(videos * countries);

/**
 * `video==` / `group==` filters of `n` of `videos` videos, read from `vd`/`vb` (one item per day and group of 4 video
 * buckets): per day of the range, the items of the groups the videos fall in (at most n, at most all 64), each
 * holding videos / 64 of the channel's videos. (Without the day, the planner may read `v` instead: fewer items.)
 */
export const perVideoBound = (r: DateRange, n: number, videos: number) =>
  ((Date.parse(r[1]) - Date.parse(r[0])) / 86_400_000 + 1) * Math.min(n, 64) * videoItems(videos / 64);

/** Whether a query is channel level: no video grain (no video dimension, no video or group filter). */
export const isChannelLevel = (q: BenchQuery) =>
  !`${q.params.dimensions ?? ''},${q.params.filters ?? ''}`.split(/[,;=]/).some((t) => t === 'video' || t === 'group');

export const between = (r: DateRange, column = 'day') => `${column} BETWEEN DATE '${r[0]}' AND DATE '${r[1]}'`;

export const sqlIn = (values: Iterable<string>) => `(${[...values].map((v) => `'${v}'`).join(',')})`;

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] as number;
};

type Cell = string | number | null;

const cell = (v: unknown): Cell =>
  v === null || v === undefined
    ? null
    : typeof v === 'bigint'
      ? Number(v)
      : typeof v === 'number' || typeof v === 'string'
        ? v
        : String(v);

/**
 * Where the API's rows differ from DuckDB's, or undefined when they agree: same number of rows, strings equal,
 * numbers within 1e-6 relative (floating-point sums run in different orders).
 */
export function rowsDiffer(api: readonly unknown[][], duck: readonly unknown[][]): string | undefined {
  if (api.length !== duck.length) return `rows ${api.length} vs ${duck.length}`;
  for (let i = 0; i < api.length; i++) {
    const a = (api[i] as unknown[]).map(cell);
    const d = (duck[i] as unknown[]).map(cell);
    if (a.length !== d.length) return `row ${i + 1}: ${a.length} vs ${d.length} columns`;
    for (let j = 0; j < a.length; j++) {
      const x = a[j] as Cell;
      const y = d[j] as Cell;
      if (x === y) continue;
      if (typeof x === 'number' && typeof y === 'number') {
        const scale = Math.max(Math.abs(x), Math.abs(y));
        if (Math.abs(x - y) <= 1e-6 * scale + 1e-9) continue;
      }
      return `row ${i + 1} col ${j + 1}: ${JSON.stringify(x)} vs ${JSON.stringify(y)}`;
    }
  }
  return undefined;
}
