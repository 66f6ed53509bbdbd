/**
 * Answers one report from the fact cubes. The date range splits into whole months plus edge days; for each the
 * planner picks the cheapest cube variant that holds every dimension the query groups or filters by, so a
 * channel-level report reads one item per month and one per edge day whatever the number of videos.
 */
import { type CubeVariant, cardinality, type GrainDim, VIDEO_BUCKETS, variantsOf, videoBucket } from './cube';
import type { CubeColumns } from './cube-codec';
import type { FactRepository, PeriodCube, ReadStats } from './fact-repository';
import type { FamilyDef } from './families';
import {
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
  /** Month items read for some of their days: only rows of these days (inclusive) count, by period. */
  days?: ReadonlyMap<string, readonly [string, string]>;
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

/** One Query: a variant (and partition) over a range of periods, some months of which count only some days. */
interface Planned {
  variant: CubeVariant;
  partition?: string;
  from: string;
  to: string;
  days?: Map<string, readonly [string, string]>;
  /** The Query of the whole months: an edge month next to them can join it. */
  whole?: boolean;
}

async function readCubes(repo: FactRepository, q: CubeQuery, stats: ReadStats): Promise<Read[]> {
  const { months, edges } = splitRange(q.startDate, q.endDate);
  const planned: Planned[] = [];
  const monthly = months.length > 0 ? chooseVariant(q, 'month') : undefined;
  if (months.length > 0 && !monthly) {
    // No month rollup holds this combination (top videos by day for a currency or a link date): read the days.
    edges.push([`${months[0]}-01`, lastDayOf(months[months.length - 1] as string)]);
  }
  if (monthly) {
    for (const partition of monthly.partitions) {
      planned.push({
        variant: monthly.variant,
        ...(partition === undefined ? {} : { partition }),
        from: `M#${months[0]}`,
        to: `M#${months[months.length - 1]}`,
        whole: true,
      });
    }
  }
  // A long edge (part of a month) reads that month's item with days in its rows, keeping only the edge's days; when
  // that is the variant the whole months use, the edge month joins their Query (it is next to them).
  const withDay = chooseVariant({ ...q, dimensions: [...q.dimensions, 'day'] }, 'month');
  const byDay: [string, string][] = [];
  for (const [from, to] of edges) {
    const days = dayCount(from, to);
    if (!withDay || withDay.partitions.length * EDGE_DAYS_VIA_MONTH > days || from.slice(0, 7) !== to.slice(0, 7)) {
      byDay.push([from, to]);
      continue;
    }
    const month = `M#${from.slice(0, 7)}`;
    for (const partition of withDay.partitions) {
      const joins = planned.find((p) => p.whole && p.variant === withDay.variant && p.partition === partition);
      const read = joins ?? {
        variant: withDay.variant,
        ...(partition === undefined ? {} : { partition }),
        from: month,
        to: month,
      };
      if (!joins) planned.push(read);
      if (month < read.from) read.from = month;
      if (month > read.to) read.to = month;
      read.days ??= new Map();
      read.days.set(month, [from, to]);
    }
  }
  if (byDay.length > 0) {
    const daily = chooseVariant(q, 'day');
    // The full-day variant holds every dimension of the family; a query needing more was refused before.
    if (!daily) throw notSupported(`${q.family.type} cannot answer this combination`);
    for (const [from, to] of byDay) planned.push({ variant: daily.variant, from: `D#${from}`, to: `D#${to}` });
  }
  // Only the columns the rows are filtered, grouped and summed by (`day` always: edge days and money need it).
  const columns: CubeColumns = {
    dims: [...new Set(['day', ...neededDims(q)])],
    measures: measuresFor(q.metrics).map((i) => MEASURES[i] as Measure),
  };
  return inParallel(
    planned.map((p) => async () => ({
      ...(p.variant.partitionBy && p.variant.partitionBy !== 'videoBucket' ? { regional: true } : {}),
      ...(p.days ? { days: p.days } : {}),
      cubes: await repo.read(
        {
          family: q.family.code,
          channel: q.owner,
          variant: p.variant.name,
          ...(p.partition === undefined ? {} : { partition: p.partition }),
        },
        p.from,
        p.to,
        stats,
        columns,
      ),
    })),
  );
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
  const moneyAt = new Set(q.rate ? needed.filter((i) => MONEY_MEASURES.has(MEASURES[i] as Measure)) : []);
  const valueFilters = Object.entries(f.values ?? {});
  const cutByLink = linkInRange(q);
  const rates = new Map<string, number>();
  const rateOf = (day: string) => {
    let rate = rates.get(day);
    if (rate === undefined) {
      rate = (q.rate as (day: string) => number)(day);
      rates.set(day, rate);
    }
    return rate;
  };
  for (const read of reads) {
    for (const { period, cube } of read.cubes) {
      const n = cube.size;
      const periodDay = period.startsWith('D#') ? period.slice(2) : undefined;
      const periodMonth = periodDay ? periodDay.slice(0, 7) : period.slice(2);
      // Columns once per cube (undefined: not in the grain, the value is ''); the loop below runs for every row.
      const column = (d: GrainDim) => {
        const c = cube.grain.indexOf(d);
        return c >= 0 ? (cube.keys[c] as readonly string[]) : undefined;
      };
      const dayColumn = column('day');
      const dayOf = (i: number) => (dayColumn ? (dayColumn[i] as string) : (periodDay as string));
      const countryColumn = f.country && !read.regional ? column('country') : undefined;
      const videoColumn = usesVideo ? column('video') : undefined;
      const channelColumn = cutByLink ? column('channel') : undefined;
      const filterColumns = valueFilters.map(([d, allowed]) => ({ values: column(d), allowed }));
      const cells: ((i: number) => string)[] = q.dimensions.map((d) => {
        if (d === 'month') return dayColumn ? (i) => (dayColumn[i] as string).slice(0, 7) : () => periodMonth;
        if (d === 'day') return dayOf;
        const values = column(d);
        return values ? (i) => values[i] as string : () => '';
      });
      const single = cells.length === 1 ? (cells[0] as (i: number) => string) : undefined;
      const measureColumns = needed.map((j) => ({ j, values: cube.measures[j], money: moneyAt.has(j) }));
      const days = read.days?.get(period);
      rows: for (let i = 0; i < n; i++) {
        if (days) {
          const day = dayOf(i);
          if (day < days[0] || day > days[1]) continue;
        }
        if (f.country && !read.regional && !f.country.has(countryColumn ? (countryColumn[i] as string) : '')) continue;
        for (const { values, allowed } of filterColumns)
          if (!allowed.has(values ? (values[i] as string) : '')) continue rows;
        if (usesVideo) {
          const video = videoColumn ? (videoColumn[i] as string) : '';
          if (video === '' || (f.video && !f.video.has(video))) continue;
        }
        if (cutByLink) {
          const since = q.channelSince?.get(channelColumn ? (channelColumn[i] as string) : '');
          if (since !== undefined && dayOf(i) < since) continue;
        }
        const id = single ? single(i) : cells.map((cell) => cell(i)).join('\u0000');
        let acc = out.get(id);
        if (!acc) {
          acc = { key: cells.map((cell) => cell(i)), sums: emptySums() };
          out.set(id, acc);
        }
        const sums = acc.sums;
        for (const { j, values, money } of measureColumns) {
          if (!values) continue;
          const v = values[i] as number;
          if (Number.isNaN(v)) continue;
          // Money is converted with the rate of its own day, before any summing.
          const x = money ? v * rateOf(dayOf(i)) : v;
          const t = sums[j] as Value;
          sums[j] = t === null ? x : t + x;
        }
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
