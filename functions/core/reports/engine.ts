/**
 * Answers one report from the fact cubes. The date range splits into whole months plus edge days; for each the
 * planner picks the cheapest cube variant that holds every dimension the query groups or filters by, so a
 * channel-level report reads one item per month and one per edge day whatever the number of videos.
 */
import { type CubeVariant, type GrainDim, VIDEO_BUCKETS, variantsOf, videoBucket } from './cube';
import type { CubeAddress, FactRepository, PeriodCube, ReadStats } from './fact-repository';
import type { FamilyDef } from './families';
import {
  addInto,
  emptySums,
  MEASURE_INDEX,
  MEASURES,
  METRICS,
  type Measure,
  type MetricName,
  MONEY_MEASURES,
  measuresFor,
  type Sums,
  type Value,
} from './metrics';
import { notSupported, type SortKey } from './report-request';

/** A query dimension: `day`, `month`, or a dimension of the family's facts. */
export type QueryDim = string;

/** Some of a query's metrics, answered from one family's facts. */
export interface MetricSource {
  readonly family: FamilyDef;
  readonly metrics: readonly MetricName[];
}

export interface CubeQuery {
  readonly family: FamilyDef;
  /**
   * When metrics come from several families (a content owner's views and revenue): each family answers its own
   * metrics and the rows are joined on their dimension values. Numbers are never added across families.
   */
  readonly sources?: readonly MetricSource[];
  /** Whose facts: the channel of a channel report, the content owner of a content-owner report. */
  readonly owner: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly dimensions: readonly QueryDim[];
  readonly metrics: readonly MetricName[];
  readonly filters: {
    readonly country?: ReadonlySet<string>;
    /** The geographic filter as given (it selects region partitions; `country` holds its countries). */
    readonly region?: { readonly kind: 'continent' | 'subContinent' | 'country'; readonly code: string };
    readonly video?: ReadonlySet<string>;
    /** Any other dimension filter: the row's value must be one of these. */
    readonly values?: Readonly<Record<string, ReadonlySet<string>>>;
  };
  /**
   * Content owners without includeHistoricalChannelData: the day each linked channel's data counts from (its link
   * date); that channel's rows before it are left out. Channels not listed (claimed videos of others) all count.
   */
  readonly channelSince?: ReadonlyMap<string, string>;
  /** `currency=`: units of the currency per USD on a day; money measures are converted row by row, by day. */
  readonly rate?: (day: string) => number;
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

/** The last day (YYYY-MM-DD) of a month (YYYY-MM). */
function lastDayOf(month: string): string {
  const [y, mo] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, mo, 0)).toISOString().slice(0, 10);
}

/** Whole months inside [start, end] and the edge-day ranges around them. */
export function splitRange(start: string, end: string) {
  const months: string[] = [];
  const lastDay = lastDayOf;
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

/** Typical cardinalities, to rank variants by the rows they would read (unlisted dimensions: 10). */
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
const cardinality = (d: GrainDim) => CARDINALITY[d] ?? 10;

/** Whether rows must carry their day: money converted day by day, or channels counted only from a link date. */
function needsDay(q: CubeQuery): boolean {
  const converting =
    q.rate !== undefined && measuresFor(q.metrics).some((i) => MONEY_MEASURES.has(MEASURES[i] as Measure));
  return converting || linkInRange(q);
}

/** Whether a channel's link date falls after the start: only then do rows need their channel and day. */
const linkInRange = (q: CubeQuery) => [...(q.channelSince?.values() ?? [])].some((since) => since > q.startDate);

function neededDims(q: CubeQuery): Set<GrainDim> {
  const needed = new Set<GrainDim>();
  for (const d of q.dimensions) needed.add(d === 'month' && needsDay(q) ? 'day' : d);
  needed.delete('month');
  if (q.filters.country) needed.add('country');
  if (q.filters.video) needed.add('video');
  for (const d of Object.keys(q.filters.values ?? {})) needed.add(d);
  if (linkInRange(q)) needed.add('channel');
  if (needsDay(q)) needed.add('day');
  return needed;
}

interface Choice {
  variant: CubeVariant;
  partitions: readonly (string | undefined)[];
}

/** The cheapest variant of the query's family that answers it for a period, or undefined when none does. */
export function chooseVariant(q: CubeQuery, period: 'day' | 'month'): Choice | undefined {
  const needed = neededDims(q);
  if (period === 'day') needed.delete('day');
  let best: (Choice & { cost: number }) | undefined;
  for (const variant of variantsOf(q.family)) {
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
      .reduce((n, d) => n * cardinality(d), share);
    const cost = rows * partitions.length;
    if (!best || cost < best.cost) best = { variant, partitions, cost };
  }
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
  /** A month item read for some of its days: only rows of these days (inclusive) count. */
  days?: readonly [string, string];
  cubes: PeriodCube[];
}

/** An edge range this long is read from its month's day-grain item (one item) rather than day by day. */
const EDGE_DAYS_VIA_MONTH = 4;

const dayCount = (from: string, to: string) => Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000) + 1;

export async function runCubeQuery(repo: FactRepository, q: CubeQuery, stats: ReadStats): Promise<ResultTable> {
  const sources = q.sources ?? [{ family: q.family, metrics: q.metrics }];
  const out = new Map<string, { key: string[]; sums: Sums }>();
  // Sources share no measure (the service refuses such queries), so each sums only its own metrics' measures.
  const parts = await Promise.all(
    sources.map(async (source) => {
      const part: CubeQuery = { ...q, family: source.family, metrics: source.metrics };
      return { part, measures: measuresFor(source.metrics), reads: await readCubes(repo, part, stats) };
    }),
  );
  for (const { part, measures, reads } of parts) aggregate(part, reads, measures, out);
  return tabulate(q, out);
}

async function readCubes(repo: FactRepository, q: CubeQuery, stats: ReadStats): Promise<Read[]> {
  const { months, edges } = splitRange(q.startDate, q.endDate);
  const tasks: (() => Promise<Read>)[] = [];
  const address = (variant: CubeVariant, partition?: string): CubeAddress => ({
    family: q.family.code,
    channel: q.owner,
    variant: variant.name,
    ...(partition === undefined ? {} : { partition }),
  });
  const monthly = months.length > 0 ? chooseVariant(q, 'month') : undefined;
  if (months.length > 0 && !monthly) {
    // No month rollup holds this combination (top videos by day for a currency or a link date): read the days.
    edges.push([`${months[0]}-01`, lastDayOf(months[months.length - 1] as string)]);
  }
  if (monthly) {
    const { variant, partitions } = monthly;
    for (const p of partitions) {
      tasks.push(async () => ({
        ...(variant.partitionBy && variant.partitionBy !== 'videoBucket' ? { regional: true } : {}),
        cubes: await repo.read(address(variant, p), `M#${months[0]}`, `M#${months[months.length - 1]}`, stats),
      }));
    }
  }
  // A long edge (part of a month) reads that month's item with days in its rows, keeping only the edge's days.
  const withDay = chooseVariant({ ...q, dimensions: [...q.dimensions, 'day'] }, 'month');
  const byDay: [string, string][] = [];
  for (const [from, to] of edges) {
    const days = dayCount(from, to);
    if (!withDay || withDay.partitions.length * EDGE_DAYS_VIA_MONTH > days || from.slice(0, 7) !== to.slice(0, 7)) {
      byDay.push([from, to]);
      continue;
    }
    for (const p of withDay.partitions) {
      const month = `M#${from.slice(0, 7)}`;
      tasks.push(async () => ({
        days: [from, to],
        cubes: await repo.read(address(withDay.variant, p), month, month, stats),
      }));
    }
  }
  if (byDay.length > 0) {
    const daily = chooseVariant(q, 'day');
    // The full-day variant holds every dimension of the family; a query needing more was refused before.
    if (!daily) throw notSupported(`${q.family.type} cannot answer this combination`);
    const { variant } = daily;
    for (const [from, to] of byDay) {
      tasks.push(async () => ({ cubes: await repo.read(address(variant), `D#${from}`, `D#${to}`, stats) }));
    }
  }
  return inParallel(tasks);
}

/** Adds the rows of `reads` that pass the filters into `out`, grouped by the query's dimensions. */
function aggregate(
  q: CubeQuery,
  reads: readonly Read[],
  needed: readonly number[],
  out: Map<string, { key: string[]; sums: Sums }>,
): void {
  const f = q.filters;
  const usesVideo = q.dimensions.includes('video') || f.video !== undefined;
  const money = q.rate ? needed.filter((i) => MONEY_MEASURES.has(MEASURES[i] as Measure)) : [];
  const valueFilters = Object.entries(f.values ?? {});
  const cutByLink = linkInRange(q);
  const rates = new Map<string, number>();
  const converted: Sums = emptySums();
  for (const read of reads) {
    for (const { period, cube } of read.cubes) {
      const periodDay = period.startsWith('D#') ? period.slice(2) : undefined;
      const periodMonth = periodDay ? periodDay.slice(0, 7) : period.slice(2);
      // Column positions once per cube (-1: not in the grain); the loop below runs for every row.
      const at = (d: GrainDim) => cube.grain.indexOf(d);
      const iDay = at('day');
      const iCountry = f.country && !read.regional ? at('country') : -1;
      const iVideo = usesVideo ? at('video') : -1;
      const iChannel = cutByLink ? at('channel') : -1;
      const filterCols = valueFilters.map(([d, allowed]) => ({ i: at(d), allowed }));
      // -2: the month (of the row's day, or of the period); -3: the day of a day item; -1: not in the grain.
      const dims = q.dimensions.map((d) => (d === 'month' ? -2 : d === 'day' && iDay < 0 ? -3 : at(d)));
      const month = (key: readonly string[]) =>
        iDay >= 0 ? (key[iDay] as string).slice(0, 7) : (periodDay?.slice(0, 7) ?? periodMonth);
      const cellOf = (key: readonly string[], i: number): string =>
        i >= 0 ? (key[i] as string) : i === -2 ? month(key) : i === -3 ? (periodDay as string) : '';
      const dayOf = (key: readonly string[]) => (iDay >= 0 ? (key[iDay] as string) : (periodDay as string));
      const single = dims.length === 1 ? (dims[0] as number) : undefined;
      rows: for (const row of cube.rows) {
        const key = row.key;
        if (read.days) {
          const day = dayOf(key);
          if (day < read.days[0] || day > read.days[1]) continue;
        }
        if (f.country && !read.regional && !f.country.has(iCountry >= 0 ? (key[iCountry] as string) : '')) continue;
        for (const { i, allowed } of filterCols) if (!allowed.has(i >= 0 ? (key[i] as string) : '')) continue rows;
        if (usesVideo) {
          const video = iVideo >= 0 ? (key[iVideo] as string) : '';
          if (video === '' || (f.video && !f.video.has(video))) continue;
        }
        if (cutByLink) {
          const since = q.channelSince?.get(iChannel >= 0 ? (key[iChannel] as string) : '');
          if (since !== undefined && dayOf(key) < since) continue;
        }
        const id = single !== undefined ? cellOf(key, single) : dims.map((i) => cellOf(key, i)).join('\u0000');
        let acc = out.get(id);
        if (!acc) {
          acc = { key: dims.map((i) => cellOf(key, i)), sums: emptySums() };
          out.set(id, acc);
        }
        let sums = row.sums;
        if (money.length > 0) {
          // Money is converted with the rate of its own day, before any summing.
          const day = dayOf(key);
          let rate = rates.get(day);
          if (rate === undefined) {
            rate = (q.rate as (day: string) => number)(day);
            rates.set(day, rate);
          }
          for (const i of needed) converted[i] = row.sums[i] as Value;
          for (const i of money) {
            const v = row.sums[i] as Value;
            converted[i] = v === null || Number.isNaN(v) ? null : v * rate;
          }
          sums = converted;
        }
        addInto(acc.sums, sums, needed);
      }
    }
  }
}

function tabulate(q: CubeQuery, groups: Map<string, { key: string[]; sums: Sums }>): ResultTable {
  const columnHeaders: ColumnHeader[] = [
    ...q.dimensions.map((name) => ({ name, columnType: 'DIMENSION' as const, dataType: 'STRING' as const })),
    ...q.metrics.map((name) => ({ name, columnType: 'METRIC' as const, dataType: METRICS[name].dataType })),
  ];
  // With no dimensions there is always exactly one row: zeros when nothing matched.
  if (q.dimensions.length === 0 && groups.size === 0) groups.set('', { key: [], sums: MEASURES.map(() => 0) });
  const computed = [...groups.values()].map(({ key, sums }) => {
    const s = (m: (typeof MEASURES)[number]) => sums[MEASURE_INDEX[m]] as Value;
    return [...key, ...q.metrics.map((m) => METRICS[m].compute(s))] as (string | Value)[];
  });
  // Shares of the whole answer (viewerPercentage): each row's part of the total, in percent.
  q.metrics.forEach((m, j) => {
    if (!('normalized' in METRICS[m])) return;
    const at = q.dimensions.length + j;
    const total = computed.reduce((t, r) => t + ((r[at] as Value) ?? 0), 0);
    for (const r of computed) {
      const v = r[at] as Value;
      r[at] = v === null ? null : total === 0 ? 0 : (v * 100) / total;
    }
  });
  let rows = computed;
  const indexOf = (name: string) =>
    q.dimensions.includes(name)
      ? q.dimensions.indexOf(name)
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
