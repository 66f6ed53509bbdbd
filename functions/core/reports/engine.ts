/**
 * Answers one report from the fact cubes. The date range splits into whole months plus edge days; for each the
 * planner picks the cheapest cube variant that holds every dimension the query groups or filters by, so a
 * channel-level report reads one item per month and one per edge day whatever the number of videos.
 */
import { type CubeVariant, type GrainDim, VARIANTS, VIDEO_BUCKETS, videoBucket } from './cube';
import type { CubeAddress, FactRepository, PeriodCube, ReadStats } from './fact-repository';
import {
  addInto,
  emptySums,
  MEASURE_INDEX,
  MEASURES,
  METRICS,
  type MetricName,
  measuresFor,
  type Sums,
  type Value,
} from './metrics';
import type { SortKey } from './report-request';

export type QueryDim = 'day' | 'month' | 'video' | 'country' | 'subscribedStatus' | 'liveOrOnDemand';

export interface CubeQuery {
  readonly family: string;
  readonly channel: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly dimensions: readonly QueryDim[];
  readonly metrics: readonly MetricName[];
  readonly filters: {
    readonly country?: ReadonlySet<string>;
    /** The geographic filter as given (it selects region partitions; `country` holds its countries). */
    readonly region?: { readonly kind: 'continent' | 'subContinent' | 'country'; readonly code: string };
    readonly subscribedStatus?: string;
    readonly liveOrOnDemand?: string;
    readonly video?: ReadonlySet<string>;
  };
  readonly sort: readonly SortKey[];
  readonly startIndex: number;
  readonly maxResults?: number;
}

export interface ColumnHeader {
  name: string;
  columnType: 'DIMENSION' | 'METRIC';
  dataType: 'STRING' | 'INTEGER' | 'FLOAT';
}

export interface ResultTable {
  kind: 'youtubeAnalytics#resultTable';
  columnHeaders: ColumnHeader[];
  rows?: (string | Value)[][];
}

/** Whole months inside [start, end] and the edge-day ranges around them. */
export function splitRange(start: string, end: string) {
  const months: string[] = [];
  const lastDay = (m: string) => {
    const [y, mo] = m.split('-').map(Number) as [number, number];
    return new Date(Date.UTC(y, mo, 0)).toISOString().slice(0, 10);
  };
  const addMonths = (m: string, n: number) => {
    const [y, mo] = m.split('-').map(Number) as [number, number];
    return new Date(Date.UTC(y, mo - 1 + n, 1)).toISOString().slice(0, 7);
  };
  const first = start.endsWith('-01') ? start.slice(0, 7) : addMonths(start.slice(0, 7), 1);
  for (let m = first; lastDay(m) <= end; m = addMonths(m, 1)) months.push(m);
  const edges: [string, string][] = [];
  if (months.length === 0) edges.push([start, end]);
  else {
    const firstDay = `${months[0]}-01`;
    if (start < firstDay)
      edges.push([start, new Date(Date.parse(`${firstDay}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10)]);
    const after = new Date(Date.parse(`${lastDay(months[months.length - 1] as string)}T00:00:00Z`) + 86_400_000)
      .toISOString()
      .slice(0, 10);
    if (after <= end) edges.push([after, end]);
  }
  return { months, edges };
}

/** Typical cardinalities, to rank variants by the rows they would read. */
const CARDINALITY: Record<GrainDim, number> = {
  day: 30,
  video: 1000,
  country: 40,
  subscribedStatus: 2,
  liveOrOnDemand: 2,
};

function neededDims(q: CubeQuery): Set<GrainDim> {
  const needed = new Set<GrainDim>();
  for (const d of q.dimensions) if (d !== 'month') needed.add(d);
  if (q.filters.country) needed.add('country');
  if (q.filters.subscribedStatus) needed.add('subscribedStatus');
  if (q.filters.liveOrOnDemand) needed.add('liveOrOnDemand');
  if (q.filters.video) needed.add('video');
  return needed;
}

interface Choice {
  variant: CubeVariant;
  partitions: readonly (string | undefined)[];
}

export function chooseVariant(q: CubeQuery, period: 'day' | 'month'): Choice {
  const needed = neededDims(q);
  if (period === 'day') needed.delete('day');
  let best: (Choice & { cost: number }) | undefined;
  for (const variant of VARIANTS) {
    if (!variant.periods.includes(period)) continue;
    // A region partition holds just that region: its rows need not carry the country.
    const regional = variant.partitionBy !== undefined && variant.partitionBy !== 'videoBucket';
    const has = new Set<string>([...variant.grain, ...(regional ? ['country'] : [])]);
    if (![...needed].every((d) => has.has(d))) continue;
    let partitions: (string | undefined)[] = [undefined];
    let share = 1;
    if (regional) {
      if (q.filters.region?.kind !== variant.partitionBy || q.dimensions.includes('country')) continue;
      partitions = [q.filters.region.code];
    } else if (variant.partitionBy === 'videoBucket') {
      if (!q.filters.video) continue;
      partitions = [...new Set([...q.filters.video].map(videoBucket))].sort();
      share = 1 / VIDEO_BUCKETS;
    }
    const rows = variant.grain
      .filter((d) => !(period === 'day' && d === 'day'))
      .reduce((n, d) => n * CARDINALITY[d], share);
    const cost = rows * partitions.length;
    if (!best || cost < best.cost) best = { variant, partitions, cost };
  }
  if (!best) throw new Error(`no cube variant answers ${[...needed].join(',')} by ${period}`);
  return best;
}

async function inParallel<T>(tasks: (() => Promise<T>)[], limit = 16): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, tasks.length) }, async () => {
      while (next < tasks.length) {
        const i = next++;
        results[i] = await (tasks[i] as () => Promise<T>)();
      }
    }),
  );
  return results;
}

interface Read {
  /** The cubes are a region partition: every row is inside the geographic filter already. */
  regional?: boolean;
  cubes: PeriodCube[];
}

export async function runCubeQuery(repo: FactRepository, q: CubeQuery, stats: ReadStats): Promise<ResultTable> {
  const { months, edges } = splitRange(q.startDate, q.endDate);
  const tasks: (() => Promise<Read>)[] = [];
  const address = (variant: CubeVariant, partition?: string): CubeAddress => ({
    family: q.family,
    channel: q.channel,
    variant: variant.name,
    ...(partition === undefined ? {} : { partition }),
  });
  if (months.length > 0) {
    const { variant, partitions } = chooseVariant(q, 'month');
    for (const p of partitions) {
      tasks.push(async () => ({
        ...(variant.partitionBy && variant.partitionBy !== 'videoBucket' ? { regional: true } : {}),
        cubes: await repo.read(address(variant, p), `M#${months[0]}`, `M#${months[months.length - 1]}`, stats),
      }));
    }
  }
  if (edges.length > 0) {
    const { variant } = chooseVariant(q, 'day');
    for (const [from, to] of edges) {
      tasks.push(async () => ({ cubes: await repo.read(address(variant), `D#${from}`, `D#${to}`, stats) }));
    }
  }
  const reads = await inParallel(tasks);
  return tabulate(q, aggregate(q, reads));
}

function aggregate(q: CubeQuery, reads: readonly Read[]): Map<string, { key: string[]; sums: Sums }> {
  const out = new Map<string, { key: string[]; sums: Sums }>();
  const f = q.filters;
  const usesVideo = q.dimensions.includes('video') || f.video !== undefined;
  const needed = measuresFor(q.metrics);
  for (const read of reads) {
    for (const { period, cube } of read.cubes) {
      const periodDay = period.startsWith('D#') ? period.slice(2) : undefined;
      const periodMonth = periodDay ? periodDay.slice(0, 7) : period.slice(2);
      const at = (d: GrainDim) => cube.grain.indexOf(d);
      const value = (row: readonly string[], d: GrainDim): string | undefined => {
        const i = at(d);
        if (i >= 0) return row[i];
        return d === 'day' ? periodDay : undefined;
      };
      for (const row of cube.rows) {
        const get = (d: GrainDim) => value(row.key, d) as string;
        if (f.country && !read.regional && !f.country.has(get('country'))) continue;
        if (f.subscribedStatus && get('subscribedStatus') !== f.subscribedStatus) continue;
        if (f.liveOrOnDemand && get('liveOrOnDemand') !== f.liveOrOnDemand) continue;
        if (usesVideo) {
          const video = get('video');
          if (video === '' || (f.video && !f.video.has(video))) continue;
        }
        const key = q.dimensions.map((d) => {
          if (d === 'month')
            return (periodDay === undefined && at('day') < 0 ? periodMonth : get('day').slice(0, 7)) as string;
          return get(d);
        });
        const id = key.join('\u0000');
        let acc = out.get(id);
        if (!acc) {
          acc = { key, sums: emptySums() };
          out.set(id, acc);
        }
        addInto(acc.sums, row.sums, needed);
      }
    }
  }
  return out;
}

function tabulate(q: CubeQuery, groups: Map<string, { key: string[]; sums: Sums }>): ResultTable {
  const columnHeaders: ColumnHeader[] = [
    ...q.dimensions.map((name) => ({ name, columnType: 'DIMENSION' as const, dataType: 'STRING' as const })),
    ...q.metrics.map((name) => ({ name, columnType: 'METRIC' as const, dataType: METRICS[name].dataType })),
  ];
  // With no dimensions there is always exactly one row: zeros when nothing matched.
  if (q.dimensions.length === 0 && groups.size === 0) groups.set('', { key: [], sums: MEASURES.map(() => 0) });
  let rows = [...groups.values()].map(({ key, sums }) => {
    const s = (m: (typeof MEASURES)[number]) => sums[MEASURE_INDEX[m]] as Value;
    return [...key, ...q.metrics.map((m) => METRICS[m].compute(s))] as (string | Value)[];
  });
  const indexOf = (name: string) =>
    q.dimensions.includes(name as QueryDim)
      ? q.dimensions.indexOf(name as QueryDim)
      : q.dimensions.length + q.metrics.indexOf(name as MetricName);
  const keys = [
    ...q.sort.map((k) => ({ i: indexOf(k.name), desc: k.descending })),
    ...q.dimensions.map((_, i) => ({ i, desc: false })), // ties: dimensions ascending, so the order is stable
  ];
  rows.sort((a, b) => {
    for (const { i, desc } of keys) {
      const c = compareCells(a[i] ?? null, b[i] ?? null, desc);
      if (c !== 0) return c;
    }
    return 0;
  });
  rows = rows.slice(q.startIndex - 1, q.maxResults === undefined ? undefined : q.startIndex - 1 + q.maxResults);
  return { kind: 'youtubeAnalytics#resultTable', columnHeaders, ...(rows.length > 0 ? { rows } : {}) };
}

/** Nulls last in either direction; strings by code unit, numbers numerically. */
function compareCells(a: string | Value, b: string | Value, desc: boolean): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  const c = a < b ? -1 : 1;
  return desc ? -c : c;
}
