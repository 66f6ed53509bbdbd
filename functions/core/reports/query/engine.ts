/**
 * Answers one cube query from the fact cubes, in three stages: planFacts (pure) says which Query ranges and block keys
 * to read, readFacts reads them, answerFacts (pure) filters, groups, sums and sorts what was read. The date range
 * splits into whole months plus edge days; for each the planner picks the cheapest cube variant that holds every
 * dimension the query groups or filters by, so a channel-level report reads one item per month and one per edge day
 * whatever the number of videos. report-plan.ts decides when a fact plan is read (beside the directory's reads).
 */
import type { FamilyShape as FamilyDef } from '../catalog/family-shapes';
import {
  MEASURE_INDEX,
  MEASURES,
  METRICS,
  type Measure,
  type MetricName,
  MONEY_MEASURES,
  measuresFor,
  type Value,
} from '../catalog/metrics';
import {
  blockCover,
  type CubeVariant,
  cardinality,
  daysIn,
  type GrainDim,
  monthAt,
  monthIndex,
  VIDEO_BUCKETS,
  variantsOf,
  videoBucket,
} from '../storage/cube';
import { type CubeColumns, concatCubes, type KeyColumn, type StoredCube } from '../storage/cube-codec';
import type { CubeAddress, FactRepository, HeadedCube, PeriodCube, ReadStats } from '../storage/fact-repository';
import { isHeadedGrain } from '../storage/heads';
import { notSupported, type SortKey } from './report-request';
import { decideTop, type TopPiece, type TopPlan, topOf } from './top-heads';

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
const lastDayOf = (month: string): string => `${month}-${daysIn(month)}`;

const nextMonth = (month: string) => monthAt(monthIndex(month) + 1);
const previousMonth = (month: string) => monthAt(monthIndex(month) - 1);

/** Whole months inside [start, end] and the edge-day ranges around them. */
export function splitRange(start: string, end: string) {
  const months: string[] = [];
  // By month number: as text, the month after 9999-12 ("10000-01") sorts before every date, and a range ending
  // in 9999-12 would never end.
  const last = monthIndex(end.slice(0, 7)) - (lastDayOf(end.slice(0, 7)) === end ? 0 : 1);
  const first = monthIndex(start.slice(0, 7)) + (start.endsWith('-01') ? 0 : 1);
  for (let i = first; i <= last; i++) months.push(monthAt(i));
  const edges: [string, string][] = [];
  if (months.length === 0) edges.push([start, end]);
  else {
    const firstMonth = months[0] as string;
    const lastMonth = months[months.length - 1] as string;
    if (start < `${firstMonth}-01`) edges.push([start, lastDayOf(previousMonth(firstMonth))]);
    if (lastDayOf(lastMonth) < end) edges.push([`${nextMonth(lastMonth)}-01`, end]);
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

export interface Read {
  /** The cubes are a region partition: every row is inside the geographic filter already. */
  regional?: boolean;
  /** Only these videos' rows count: the winners a top-N's heads decided (top-heads.ts). */
  videos?: ReadonlySet<string>;
  /** Month items read for some of their days: only rows of these days (inclusive) count, by period. */
  days?: ReadonlyMap<string, readonly [string, string]>;
  cubes: PeriodCube[];
}

/** An edge range this long is read from its month's day-grain item (one item) rather than day by day. */
const EDGE_DAYS_VIA_MONTH = 4;

const dayCount = (from: string, to: string) => Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000) + 1;

/** Plan, read and answer one cube query in a row: for a query whose owner, links and rates are all known. */
export async function runCubeQuery(repo: FactRepository, q: CubeQuery, stats: ReadStats): Promise<ResultTable> {
  return answerFacts(q, await readFacts(repo, planFacts(q), stats));
}

/** One Query: a variant (and partition) over a range of periods, some months of which count only some days. */
export interface Planned {
  variant: CubeVariant;
  partition?: string;
  from: string;
  to: string;
  days?: Map<string, readonly [string, string]>;
  /** The Query of the whole months: an edge month next to them can join it. */
  whole?: boolean;
}

/** What answers one source of a query: its family's Queries and the columns they read. Plain data: plans compare. */
export interface SourcePlan {
  family: string;
  owner: string;
  queries: Planned[];
  columns: CubeColumns;
  /** A top-N its pieces' heads may answer (top-heads.ts): blocks and days are read by key, as heads. */
  top?: TopPlan;
}

/**
 * Every Query range and block key a cube query reads, per source: plain data, so a plan made on a guess (an owner, no
 * link date inside the range) can be compared with the plan of the query as it turned out (isDeepStrictEqual).
 */
export type FactPlan = readonly SourcePlan[];

/** What a fact plan read: per source, per planned Query, its cubes. Plain data, the input of answerFacts. */
export type FactReads = readonly (readonly Read[])[];

/** Each source of the query (sources share no measure: the service refuses such queries) and its plan. */
const partsOf = (q: CubeQuery): CubeQuery[] =>
  (q.sources ?? [{ family: q.family, metrics: q.metrics }]).map((s) => ({
    ...q,
    family: s.family,
    metrics: s.metrics,
  }));

/** The plan of a cube query (pure): what to read. Throws notSupported when no stored cube answers it. */
export const planFacts = (q: CubeQuery): FactPlan => partsOf(q).map(planSource);

/** The answer to a cube query from what its plan read (pure): rows filtered, grouped, summed, sorted, paged. */
export function answerFacts(q: CubeQuery, reads: FactReads): ResultTable {
  const out = new Map<string, Group>();
  // Each source sums only its own metrics' measures.
  const parts = partsOf(q);
  const needed = parts.map((part) => measuresFor(part.metrics));
  const slots = sumSlots(needed.flat());
  parts.forEach((part, i) => {
    aggregate(part, reads[i] as readonly Read[], needed[i] as number[], slots, out);
  });
  return tabulate(q, out, slots);
}

function planSource(q: CubeQuery): SourcePlan {
  const { months, edges } = splitRange(q.startDate, q.endDate);
  const planned: Planned[] = [];
  const monthly = months.length > 0 ? chooseVariant(q, 'month') : undefined;
  if (months.length > 0 && !monthly) {
    // No month rollup holds this combination (top videos by day for a currency or a link date): read the days.
    edges.push([`${months[0]}-01`, lastDayOf(months[months.length - 1] as string)]);
  }
  if (monthly) {
    // Variants kept per block of months read the blocks a range covers (by key, see fetchPlan) and Query the months
    // between (unless the answer is by month: a block does not know its months apart).
    const pieces =
      monthly.variant.periods.includes('block') && !q.dimensions.includes('month') ? blockCover(months) : [];
    if (pieces.some((p) => p.startsWith('B'))) {
      for (const partition of monthly.partitions) {
        for (const piece of pieces) {
          const last = planned[planned.length - 1];
          if (piece.startsWith('M#') && last?.to.startsWith('M#') && last.partition === partition) last.to = piece;
          else
            planned.push({
              variant: monthly.variant,
              ...(partition === undefined ? {} : { partition }),
              from: piece,
              to: piece,
            });
        }
      }
    } else {
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
  // A top-N of by-video cubes (flat or a region's partition, no days counted apart): blocks, days and a region's
  // months may be read as their heads.
  const top = topOf({ ...q, restricted: restricted(q, planned.length > 0 && planned.every(isRegionalRead)) });
  const headed =
    top !== undefined && planned.every((p) => !p.days && isHeadedGrain(p.variant.grain, p.variant.partitionBy));
  return {
    family: q.family.code,
    owner: q.owner,
    queries: planned,
    // Only the columns the rows are filtered, grouped and summed by (`day` always: edge days and money need it).
    columns: {
      dims: [...new Set(['day', ...neededDims(q)])],
      measures: measuresFor(q.metrics).map((i) => MEASURES[i] as Measure),
    },
    ...(headed ? { top } : {}),
  };
}

/** A read of a region's own partition: its rows are the region's, the geographic filter met by what is read. */
const isRegionalRead = (p: Planned) => p.variant.partitionBy !== undefined && p.variant.partitionBy !== 'videoBucket';

/**
 * Whether anything but a video's own rows decides the answer: a filter, a currency, a link date, joined families.
 * `inRegion`: every read is the region's partition, so the geographic filter restricts nothing more.
 */
const restricted = (q: CubeQuery, inRegion: boolean) =>
  q.rate !== undefined ||
  linkInRange(q) ||
  (q.sources?.length ?? 1) > 1 ||
  (!inRegion && (q.filters.country !== undefined || q.filters.region !== undefined)) ||
  q.filters.video !== undefined ||
  Object.keys(q.filters.values ?? {}).length > 0;

/**
 * Reads a fact plan, each source's reads in the plan's order: the blocks of a variant and partition by key (they
 * join whatever else is read by key in the same turn, see key-reader.ts), the Query ranges concurrently.
 */
export function readFacts(repo: FactRepository, plan: FactPlan, stats: ReadStats): Promise<Read[][]> {
  return Promise.all(
    plan.map(({ family, owner, queries, columns, top }) => {
      const addressOf = (p: Planned): CubeAddress => ({
        family,
        channel: owner,
        variant: p.variant.name,
        ...(p.partition === undefined ? {} : { partition: p.partition }),
      });
      if (top) return readTop(repo, top, queries, addressOf, columns, stats);
      // Blocks are single periods apart from each other: those of one variant and partition in one request, by key.
      // No block where its months may hold data (stored before blocks existed, or holding an open month): the
      // blocks from their months.
      const byKey = new Map<string, Promise<Map<string, StoredCube>>>();
      for (const [key, { first, periods }] of byAddress(queries, (p) => (p.from.startsWith('B') ? [p.from] : []))) {
        const read = repo.readPeriods(addressOf(first), periods, stats, columns).then(async (found) => {
          const missing = periods.filter((period) => !found.has(period));
          if (missing.length === 0) return found;
          return new Map([...found, ...(await repo.readAsBlocks(addressOf(first), missing, stats, columns))]);
        });
        read.catch(() => undefined); // awaited by each block's task below
        byKey.set(key, read);
      }
      return inParallel(
        queries.map((p) => async () => {
          let cubes: PeriodCube[];
          if (p.from.startsWith('B')) {
            const cube = (await byKey.get(addressKey(p)))?.get(p.from);
            cubes = cube ? [{ period: p.from, cube }] : [];
          } else {
            cubes = await repo.read(addressOf(p), p.from, p.to, stats, columns);
          }
          return {
            ...(p.variant.partitionBy && p.variant.partitionBy !== 'videoBucket' ? { regional: true } : {}),
            ...(p.days ? { days: p.days } : {}),
            cubes,
          };
        }),
      );
    }),
  );
}

const addressKey = (p: Planned) => `${p.variant.name}|${p.partition ?? ''}`;

/** Planned reads by variant and partition (`addressKey`), with the periods each reads by key; reads of none left out. */
function byAddress(
  queries: readonly Planned[],
  periodsOf: (p: Planned) => readonly string[],
): Map<string, { first: Planned; periods: string[] }> {
  const out = new Map<string, { first: Planned; periods: string[] }>();
  for (const p of queries) {
    const periods = periodsOf(p);
    if (periods.length === 0) continue;
    const entry = out.get(addressKey(p)) ?? { first: p, periods: [] };
    entry.periods.push(...periods);
    out.set(addressKey(p), entry);
  }
  return out;
}

/** The months `from` … `to` (`M#yyyy-mm` sort keys), as sort keys. */
function monthsBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let i = monthIndex(from.slice(2)); i <= monthIndex(to.slice(2)); i++) out.push(`M#${monthAt(i)}`);
  return out;
}

/** The days `from` … `to` (`D#yyyy-mm-dd` sort keys), as sort keys. */
function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(from.slice(2)); t <= Date.parse(to.slice(2)); t += 86_400_000)
    out.push(`D#${new Date(t).toISOString().slice(0, 10)}`);
  return out;
}

/**
 * A top-N's reads (top-heads.ts): blocks and days by key, each as its head when it has one; month ranges whole.
 * The heads decide the winners, or name the pieces to read whole first; the reads come back restricted to the
 * winners, each of whose rows is then in every piece.
 */
async function readTop(
  repo: FactRepository,
  top: TopPlan,
  queries: readonly Planned[],
  addressOf: (p: Planned) => CubeAddress,
  columns: CubeColumns,
  stats: ReadStats,
): Promise<Read[]> {
  // A region's months are read by key (a year is twelve); a month's first item is its head when it has one.
  const regional = queries.some(isRegionalRead);
  const byKeyOf = (p: Planned) =>
    p.from.startsWith('B')
      ? [p.from]
      : p.from.startsWith('D#')
        ? daysBetween(p.from, p.to)
        : regional && p.from.startsWith('M#')
          ? monthsBetween(p.from, p.to)
          : [];
  const byKey = byAddress(queries, byKeyOf);
  // Month ranges of flat cubes (a Query each): read whole.
  const whole = queries.filter((p) => byKeyOf(p).length === 0);
  const pieces: { period: string; read: HeadedCube }[] = [];
  await Promise.all([
    ...[...byKey.values()].map(async ({ first, periods }) => {
      const found = regional
        ? await repo.readMonthHeads(addressOf(first), periods, stats, columns)
        : await repo.readHeads(addressOf(first), periods, stats, columns);
      // No block where its months may hold data (stored before blocks existed, or holding an open month).
      const missing = periods.filter((period) => period.startsWith('B') && !found.has(period));
      const rebuilt =
        missing.length === 0 ? undefined : await repo.readAsBlocks(addressOf(first), missing, stats, columns);
      for (const period of periods) {
        const cube = rebuilt?.get(period);
        const read = found.get(period) ?? (cube && { cube });
        if (read) pieces.push({ period, read });
      }
    }),
    ...whole.map(async (p) => {
      for (const c of await repo.read(addressOf(p), p.from, p.to, stats, columns))
        pieces.push({ period: c.period, read: { cube: c.cube } });
    }),
  ]);
  // In period order: the same reads always add up in the same order.
  pieces.sort((x, y) => (x.period < y.period ? -1 : x.period > y.period ? 1 : 0));
  for (;;) {
    const decision = decideTop(
      top,
      pieces.map(({ read }): TopPiece => read),
    );
    if ('winners' in decision) {
      const cubes = pieces.map(({ period, read }) => ({ period, cube: 'cube' in read ? read.cube : read.head }));
      return [
        { cubes, ...(decision.winners ? { videos: decision.winners } : {}), ...(regional ? { regional: true } : {}) },
      ];
    }
    if ('readWhole' in decision) {
      await Promise.all(
        decision.readWhole.map(async (i) => {
          const piece = pieces[i] as (typeof pieces)[number];
          if (!('cube' in piece.read)) piece.read = { cube: await piece.read.whole(stats) };
        }),
      );
      continue;
    }
    // The missing winners' rows join the head (none of them is a head row there), known exactly from now on.
    await Promise.all(
      decision.readRows.map(async ({ piece: i, videos }) => {
        const piece = pieces[i] as (typeof pieces)[number];
        const read = piece.read;
        if ('cube' in read) return;
        const rows = await read.rowsOf(videos, stats);
        piece.read = {
          ...read,
          head: concatCubes(read.head, rows),
          exact: new Set([...(read.exact ?? []), ...videos]),
        };
      }),
    );
  }
}

/** One row of the answer: its dimension values and its measure sums (NaN: null, no row had a value), by SumSlots. */
type Group = { key: string[]; sums: number[] };

/**
 * Where each measure sits in a group's sums: only the measures the answer uses get a slot (`of`, by measure index;
 * -1 for the others). A top 10 over a year groups every video it reads, so a slot for each of the 42 measures made
 * most of a report's garbage.
 */
interface SumSlots {
  readonly count: number;
  readonly of: Int16Array;
}

function sumSlots(measures: readonly number[]): SumSlots {
  const of = new Int16Array(MEASURES.length).fill(-1);
  let count = 0;
  for (const m of measures) if ((of[m] as number) < 0) of[m] = count++;
  return { count, of };
}

/** A group's sums, all null (NaN). A plain array: a typed array per group costs several times more to allocate. */
const noSums = (slots: SumSlots): number[] => new Array<number>(slots.count).fill(Number.NaN);

/**
 * Adds the rows of `reads` that pass the filters into `out`, grouped by the query's dimensions. Filters, groups and
 * rates are decided once per distinct value of a column (its dictionary), so the loop over rows only indexes arrays.
 */
function aggregate(
  q: CubeQuery,
  reads: readonly Read[],
  needed: readonly number[],
  slots: SumSlots,
  out: Map<string, Group>,
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
  /** The group of row `i` (met first in this cube): by its cell alone when there is one dimension, no key made. */
  const groupOf = (dims: readonly GroupColumn[], i: number): Group => {
    const one = dims.length === 1 ? cellAt(dims[0] as GroupColumn, i) : undefined;
    const key = one === undefined ? dims.map((d) => cellAt(d, i)) : undefined;
    const id = one ?? (key as string[]).join('\u0000');
    let group = out.get(id);
    if (!group) {
      group = { key: key ?? [id], sums: noSums(slots) };
      out.set(id, group);
    }
    return group;
  };
  for (const read of reads) {
    for (const { period, cube } of read.cubes) {
      const n = cube.size;
      const periodDay = period.startsWith('D#') ? period.slice(2) : undefined;
      const periodMonth = periodDay ? periodDay.slice(0, 7) : period.slice(2);
      // A dimension not in the grain has the value '' in every row (or the period's day or month).
      const column = (d: GrainDim): KeyColumn | undefined => cube.keys[cube.grain.indexOf(d)];
      const dayColumn = column('day');
      // Row filters, as a yes/no per value of a column; a filter no value passes drops the cube, one every value
      // passes needs no look at the rows.
      const checks: { codes: Uint32Array; pass: Uint8Array }[] = [];
      const check = (col: KeyColumn | undefined, constant: string, test: (value: string) => boolean): boolean => {
        if (!col) return test(constant);
        const pass = new Uint8Array(col.values.length);
        let passing = 0;
        col.values.forEach((v, code) => {
          if (test(v)) {
            pass[code] = 1;
            passing++;
          }
        });
        if (passing < col.values.length) checks.push({ codes: col.codes, pass });
        return passing > 0;
      };
      const days = read.days?.get(period);
      let kept = true;
      if (days) kept &&= check(dayColumn, periodDay ?? '', (d) => d >= days[0] && d <= days[1]);
      if (f.country && !read.regional) kept &&= check(column('country'), '', (v) => f.country?.has(v) === true);
      for (const [d, allowed] of valueFilters) kept &&= check(column(d), '', (v) => allowed.has(v));
      const only = read.videos;
      if (usesVideo)
        kept &&= check(column('video'), '', (v) => v !== '' && (!f.video || f.video.has(v)) && (!only || only.has(v)));
      if (!kept || n === 0) continue;
      // Channels counted only from their link date: the row's channel and day together decide.
      const channelColumn = cutByLink ? column('channel') : undefined;
      const sinceOf = cutByLink ? (channelColumn?.values ?? ['']).map((c) => q.channelSince?.get(c)) : undefined;
      const dayOf = (i: number) =>
        dayColumn ? (dayColumn.values[dayColumn.codes[i] as number] as string) : (periodDay as string);
      // Group columns: codes and the cell of each code; a dimension constant over the cube has no codes.
      const dims = q.dimensions.map((d): GroupColumn => {
        if (d === 'month' || d === 'day') {
          if (!dayColumn) return { cells: [d === 'month' ? periodMonth : (periodDay as string)] };
          return {
            codes: dayColumn.codes,
            cells: d === 'month' ? dayColumn.values.map((v) => v.slice(0, 7)) : dayColumn.values,
          };
        }
        const col = column(d);
        return col ? { codes: col.codes, cells: col.values } : { cells: [''] };
      });
      const groupAt = groupIndex(dims, n, (i) => groupOf(dims, i));
      const dayRates =
        moneyAt.size === 0
          ? undefined
          : dayColumn
            ? Float64Array.from(dayColumn.values, rateOf)
            : Float64Array.of(rateOf(periodDay as string));
      const dayCodes = dayColumn?.codes;
      const measureColumns = needed
        .map((j) => ({ values: cube.measures[j], at: slots.of[j] as number, money: moneyAt.has(j) }))
        .filter((m): m is { values: Float64Array; at: number; money: boolean } => m.values !== undefined);
      rows: for (let i = 0; i < n; i++) {
        for (let c = 0; c < checks.length; c++) {
          const { codes, pass } = checks[c] as (typeof checks)[number];
          if (pass[codes[i] as number] === 0) continue rows;
        }
        if (sinceOf) {
          const since = sinceOf[channelColumn ? (channelColumn.codes[i] as number) : 0];
          if (since !== undefined && dayOf(i) < since) continue;
        }
        const sums = groupAt(i).sums;
        for (let m = 0; m < measureColumns.length; m++) {
          const { values, at, money } = measureColumns[m] as (typeof measureColumns)[number];
          const v = values[i] as number;
          if (Number.isNaN(v)) continue;
          // Money is converted with the rate of its own day, before any summing.
          const x = money ? v * ((dayRates as Float64Array)[dayCodes ? (dayCodes[i] as number) : 0] as number) : v;
          const t = sums[at] as number;
          sums[at] = Number.isNaN(t) ? x : t + x;
        }
      }
    }
  }
}

/** A dimension of the answer in one cube: the cell of each code, and each row's code (none: one cell for all). */
type GroupColumn = { codes?: Uint32Array; cells: readonly string[] };

const cellAt = (c: GroupColumn, i: number): string => c.cells[c.codes ? (c.codes[i] as number) : 0] as string;

/**
 * The group of row `i` of a cube: each combination of the varying columns' codes is looked up once (`make` gets the
 * first row of it). Combinations are numbered mixed-radix and kept in an array when there are few of them (always,
 * with one varying column), else in a map; past 2^52 they are joined as text.
 */
function groupIndex(columns: readonly GroupColumn[], rows: number, make: (i: number) => Group) {
  const varying = columns.filter((c) => c.codes !== undefined) as { codes: Uint32Array; cells: readonly string[] }[];
  const combinations = varying.reduce((a, c) => a * c.cells.length, 1);
  if (varying.length <= 1 || combinations <= Math.max(4096, 4 * rows)) {
    const slots: (Group | undefined)[] = new Array(combinations);
    const only = varying.length === 1 ? varying[0]?.codes : undefined;
    return (i: number): Group => {
      let id = 0;
      if (only) id = only[i] as number;
      else for (const c of varying) id = id * c.cells.length + (c.codes[i] as number);
      let group = slots[id];
      if (!group) {
        group = make(i);
        slots[id] = group;
      }
      return group;
    };
  }
  const numeric = combinations <= 2 ** 52;
  const map = new Map<number | string, Group>();
  return (i: number): Group => {
    let id: number | string = 0;
    if (numeric) for (const c of varying) id = id * c.cells.length + (c.codes[i] as number);
    else id = varying.map((c) => c.codes[i]).join(',');
    let group = map.get(id);
    if (!group) {
      group = make(i);
      map.set(id, group);
    }
    return group;
  };
}

function tabulate(q: CubeQuery, groups: Map<string, Group>, slots: SumSlots): ResultTable {
  const columnHeaders: ColumnHeader[] = [
    ...q.dimensions.map((name) => ({ name, columnType: 'DIMENSION' as const, dataType: 'STRING' as const })),
    ...q.metrics.map((name) => ({ name, columnType: 'METRIC' as const, dataType: METRICS[name].dataType })),
  ];
  // With no dimensions there is always exactly one row: zeros when nothing matched.
  if (q.dimensions.length === 0 && groups.size === 0)
    groups.set('', { key: [], sums: new Array<number>(slots.count).fill(0) });
  // One reader of the current group's sums for every metric of every row (no function made per row).
  let sums: number[] = [];
  const s = (m: (typeof MEASURES)[number]): Value => {
    const at = slots.of[MEASURE_INDEX[m]] as number;
    const v = at < 0 ? Number.NaN : (sums[at] as number);
    return Number.isNaN(v) ? null : v;
  };
  const computed: (string | Value)[][] = [];
  for (const group of groups.values()) {
    sums = group.sums;
    const row: (string | Value)[] = [...group.key];
    for (const m of q.metrics) row.push(METRICS[m].compute(s));
    computed.push(row);
  }
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
  const order = (a: (string | Value)[], b: (string | Value)[]): number => {
    for (const { i, desc } of keys) {
      const c = compareCells(a[i] ?? null, b[i] ?? null, desc);
      if (c !== 0) return c;
    }
    return 0;
  };
  const end = q.maxResults === undefined ? rows.length : q.startIndex - 1 + q.maxResults;
  rows = firstInOrder(rows, end, order).slice(q.startIndex - 1, end);
  return { kind: 'youtubeAnalytics#resultTable', columnHeaders, ...(rows.length > 0 ? { rows } : {}) };
}

/**
 * The first `n` rows in order. A top 10 of 500 videos keeps the 10 best seen so far (about one comparison per row)
 * instead of sorting all 500. The order is total (ties broken by every dimension), so both ways give the same rows.
 */
export function firstInOrder<T>(rows: T[], n: number, order: (a: T, b: T) => number): T[] {
  if (n <= 0) return [];
  if (n * 8 >= rows.length) return rows.sort(order).slice(0, n);
  const best: T[] = [];
  for (const row of rows) {
    if (best.length === n && order(row, best[n - 1] as T) >= 0) continue;
    let lo = 0;
    let hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (order(row, best[mid] as T) < 0) hi = mid;
      else lo = mid + 1;
    }
    best.splice(lo, 0, row);
    if (best.length > n) best.pop();
  }
  return best;
}

/** Nulls last in either direction; strings by code unit, numbers numerically. */
function compareCells(a: string | Value, b: string | Value, desc: boolean): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  const c = a < b ? -1 : 1;
  return desc ? -c : c;
}
