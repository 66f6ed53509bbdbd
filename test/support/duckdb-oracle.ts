/**
 * An independent oracle for reports.query: the raw channel_basic CSV rows of a fixture loaded into an in-memory
 * DuckDB table, and each report request translated into one SQL statement. It shares no code with the service's
 * cubes, planner or metric computations (it reads only the geo table, which is data).
 *
 * Semantics implemented (api-contract.md §A.1, §A.3, and the metric definitions of the service's docs):
 * - Rows: the facts with startDate <= day <= endDate.
 * - Filters: `country`, `subscribedStatus`, `liveOrOnDemand` are equality; `continent` / `subContinent` mean
 *   country IN countriesIn(...) (UN M.49, geo.ts); `video` and `group` mean video IN (the listed ids / the group's
 *   videos). When `video` is a dimension or a filter, channel-level rows (empty video_id) are excluded.
 * - Grouping: by the dimensions; `day` as 'YYYY-MM-DD', `month` as 'YYYY-MM'.
 * - Metrics (SQL NULL semantics: a sum is NULL only when every input is NULL; a column a file's version lacks, or
 *   an empty cell, is NULL):
 *   - counts: SUM(column);
 *   - estimatedMinutesWatched = ROUND(SUM(minutes)); estimatedRedMinutesWatched = ROUND(SUM(red_minutes));
 *   - averageViewDuration = ROUND(SUM(minutes) * 60 / SUM(views));
 *   - averageViewPercentage = SUM(pct * views) / SUM(views);
 *   - annotationClickThroughRate = clicks / clickable; annotationCloseRate = closes / closable;
 *     cardClickRate = card clicks / card impressions; cardTeaserClickRate = teaser clicks / teaser impressions;
 *   - every ratio is NULL when its numerator or denominator sum is NULL, else 0 when the denominator is 0.
 * - With no dimensions there is exactly one row; when no fact matches, every metric in it is 0.
 * - Order: the sort keys (descending when prefixed '-'), NULLs last in both directions, then every dimension
 *   ascending; then OFFSET startIndex - 1 and LIMIT maxResults.
 * - Columns: dimensions in request order, then metrics in request order. Dimensions are STRING; ratios and
 *   percentages FLOAT; every other metric INTEGER.
 *
 * compareWithOracle() states the comparison: same columnHeaders; `rows` absent exactly when the oracle has no
 * rows; rows equal in order; dimension cells equal as strings; INTEGER metrics exactly equal (a value whose
 * unrounded form is a .5 tie within floating-point error may round either way); FLOAT metrics within 1e-9
 * relative (1e-12 absolute near 0).
 */
import { type DuckDBConnection, DuckDBInstance, dateValue } from '@duckdb/node-api';
import { countriesIn } from '../../functions/core/reports/geo';
import type { RawRow } from './report-fixtures';

export interface OracleRequest {
  readonly startDate: string;
  readonly endDate: string;
  readonly dimensions: readonly string[];
  readonly metrics: readonly string[];
  readonly filters: readonly { readonly name: string; readonly values: readonly string[] }[];
  readonly sort: readonly { readonly name: string; readonly descending: boolean }[];
  readonly startIndex?: number;
  readonly maxResults?: number;
  /** Videos of each group id a `group` filter may name. */
  readonly groups?: Readonly<Record<string, readonly string[]>>;
}

export interface OracleHeader {
  name: string;
  columnType: 'DIMENSION' | 'METRIC';
  dataType: 'STRING' | 'INTEGER' | 'FLOAT';
}

export type Cell = string | number | null;

export interface OracleResult {
  columnHeaders: OracleHeader[];
  rows: Cell[][];
  /** For rounded INTEGER metrics, the value before rounding (same shape as rows; undefined elsewhere). */
  unrounded: (number | null | undefined)[][];
  sql: string;
}

/** CSV column → facts column. */
const MEASURE_COLUMNS: readonly (readonly [csv: string, col: string])[] = [
  ['views', 'views'],
  ['engaged_views', 'engaged'],
  ['red_views', 'red_views'],
  ['comments', 'comments'],
  ['likes', 'likes'],
  ['dislikes', 'dislikes'],
  ['shares', 'shares'],
  ['videos_added_to_playlists', 'added'],
  ['videos_removed_from_playlists', 'removed'],
  ['watch_time_minutes', 'minutes'],
  ['red_watch_time_minutes', 'red_minutes'],
  ['average_view_duration_percentage', 'pct'],
  ['annotation_impressions', 'ann_impr'],
  ['annotation_clickable_impressions', 'ann_clickable'],
  ['annotation_closable_impressions', 'ann_closable'],
  ['annotation_clicks', 'ann_clicks'],
  ['annotation_closes', 'ann_closes'],
  ['card_impressions', 'card_impr'],
  ['card_clicks', 'card_clicks'],
  ['card_teaser_impressions', 'teaser_impr'],
  ['card_teaser_clicks', 'teaser_clicks'],
  ['subscribers_gained', 'subs_gained'],
  ['subscribers_lost', 'subs_lost'],
];

const LIVE: Readonly<Record<string, string>> = { live: 'LIVE', on_demand: 'ON_DEMAND' };
const SUBSCRIBED: Readonly<Record<string, string>> = {
  subscribed: 'SUBSCRIBED',
  not_subscribed: 'UNSUBSCRIBED',
  unsubscribed: 'UNSUBSCRIBED',
};

const sum = (col: string) => `SUM(${col})`;
const ratio = (num: string, den: string) =>
  `(CASE WHEN (${num}) IS NULL OR (${den}) IS NULL THEN NULL WHEN (${den}) = 0 THEN 0 ELSE (${num}) / (${den}) END)`;

interface MetricSql {
  readonly sql: string;
  readonly dataType: 'INTEGER' | 'FLOAT';
  /** The expression before rounding, for rounded INTEGER metrics. */
  readonly unrounded?: string;
}

const count = (col: string): MetricSql => ({ sql: sum(col), dataType: 'INTEGER' });
const rounded = (expr: string): MetricSql => ({ sql: `ROUND(${expr})`, dataType: 'INTEGER', unrounded: expr });
const float = (expr: string): MetricSql => ({ sql: expr, dataType: 'FLOAT' });

export const ORACLE_METRICS: Readonly<Record<string, MetricSql>> = {
  views: count('views'),
  engagedViews: count('engaged'),
  redViews: count('red_views'),
  comments: count('comments'),
  likes: count('likes'),
  dislikes: count('dislikes'),
  shares: count('shares'),
  videosAddedToPlaylists: count('added'),
  videosRemovedFromPlaylists: count('removed'),
  estimatedMinutesWatched: rounded(sum('minutes')),
  estimatedRedMinutesWatched: rounded(sum('red_minutes')),
  averageViewDuration: rounded(ratio(`${sum('minutes')} * 60`, sum('views'))),
  averageViewPercentage: float(ratio(sum('pct * views'), sum('views'))),
  annotationImpressions: count('ann_impr'),
  annotationClickableImpressions: count('ann_clickable'),
  annotationClosableImpressions: count('ann_closable'),
  annotationClicks: count('ann_clicks'),
  annotationCloses: count('ann_closes'),
  annotationClickThroughRate: float(ratio(sum('ann_clicks'), sum('ann_clickable'))),
  annotationCloseRate: float(ratio(sum('ann_closes'), sum('ann_closable'))),
  cardImpressions: count('card_impr'),
  cardClicks: count('card_clicks'),
  cardTeaserImpressions: count('teaser_impr'),
  cardTeaserClicks: count('teaser_clicks'),
  cardClickRate: float(ratio(sum('card_clicks'), sum('card_impr'))),
  cardTeaserClickRate: float(ratio(sum('teaser_clicks'), sum('teaser_impr'))),
  subscribersGained: count('subs_gained'),
  subscribersLost: count('subs_lost'),
};

const DIMENSION_SQL: Readonly<Record<string, string>> = {
  day: `strftime(day, '%Y-%m-%d')`,
  month: `strftime(day, '%Y-%m')`,
  video: 'video',
  country: 'country',
  subscribedStatus: 'sub',
  liveOrOnDemand: 'live',
};

const lit = (s: string) => `'${s.replaceAll("'", "''")}'`;
const inList = (col: string, values: Iterable<string>) => {
  const list = [...values];
  return list.length === 0 ? 'FALSE' : `${col} IN (${list.map(lit).join(', ')})`;
};

const DAY_MS = 86_400_000;
function epochDays(yyyymmdd: string): number {
  const ms = Date.UTC(Number(yyyymmdd.slice(0, 4)), Number(yyyymmdd.slice(4, 6)) - 1, Number(yyyymmdd.slice(6, 8)));
  return Math.round(ms / DAY_MS);
}

export interface Oracle {
  query(req: OracleRequest): Promise<OracleResult>;
  close(): void;
}

/** Loads the raw rows into DuckDB (with the appender) and returns the oracle. */
export async function createOracle(rawRows: readonly RawRow[]): Promise<Oracle> {
  const instance = await DuckDBInstance.create(':memory:');
  const con: DuckDBConnection = await instance.connect();
  const measureCols = MEASURE_COLUMNS.map(([, col]) => `${col} DOUBLE`).join(', ');
  await con.run(
    `CREATE TABLE facts(day DATE, video VARCHAR, country VARCHAR, sub VARCHAR, live VARCHAR, ${measureCols})`,
  );
  const appender = await con.createAppender('facts');
  for (const r of rawRows) {
    const field = (name: string) => (r[name] ?? '').trim();
    const live = LIVE[field('live_or_on_demand').toLowerCase()];
    const sub = SUBSCRIBED[field('subscribed_status').toLowerCase()];
    if (!live || !sub) throw new Error(`oracle: unexpected dimension values in ${JSON.stringify(r)}`);
    appender.appendDate(dateValue(epochDays(field('date').replace(/\.0+$/, ''))));
    appender.appendVarchar(field('video_id'));
    appender.appendVarchar(field('country_code').toUpperCase());
    appender.appendVarchar(sub);
    appender.appendVarchar(live);
    for (const [csv] of MEASURE_COLUMNS) {
      const raw = r[csv]?.trim();
      if (raw === undefined || raw === '') appender.appendNull();
      else appender.appendDouble(Number(raw));
    }
    appender.endRow();
  }
  appender.closeSync();

  return {
    async query(req) {
      const sql = toSql(req);
      const reader = await con.runAndReadAll(sql);
      const d = req.dimensions.length;
      const m = req.metrics.length;
      const rows: Cell[][] = [];
      const unrounded: (number | null | undefined)[][] = [];
      for (const values of reader.getRows()) {
        const cell = (v: unknown): Cell =>
          v === null || v === undefined ? null : typeof v === 'bigint' ? Number(v) : (v as string | number);
        rows.push(values.slice(0, d + m).map(cell));
        const extra = values.slice(d + m);
        unrounded.push(
          req.metrics.map((name, i) => {
            const at = roundedIndex(req.metrics, i);
            return ORACLE_METRICS[name]?.unrounded && at >= 0 ? (cell(extra[at]) as number | null) : undefined;
          }),
        );
      }
      return {
        columnHeaders: [
          ...req.dimensions.map((name) => ({ name, columnType: 'DIMENSION' as const, dataType: 'STRING' as const })),
          ...req.metrics.map((name) => ({
            name,
            columnType: 'METRIC' as const,
            dataType: metricSql(name).dataType,
          })),
        ],
        rows,
        unrounded: unrounded.map((u) => [...req.dimensions.map(() => undefined), ...u]),
        sql,
      };
    },
    close() {
      con.closeSync();
      instance.closeSync();
    },
  };
}

function metricSql(name: string): MetricSql {
  const def = ORACLE_METRICS[name];
  if (!def) throw new Error(`oracle: no definition for metric ${name}`);
  return def;
}

/** Position of metric i among the rounded metrics of the request (-1 when not rounded). */
function roundedIndex(metrics: readonly string[], i: number): number {
  if (!ORACLE_METRICS[metrics[i] as string]?.unrounded) return -1;
  return metrics.slice(0, i).filter((n) => ORACLE_METRICS[n]?.unrounded).length;
}

export function toSql(req: OracleRequest): string {
  const where = [`day BETWEEN DATE ${lit(req.startDate)} AND DATE ${lit(req.endDate)}`];
  let usesVideo = req.dimensions.includes('video');
  for (const f of req.filters) {
    const v = f.values[0] as string;
    switch (f.name) {
      case 'country':
        where.push(`country = ${lit(v)}`);
        break;
      case 'continent':
        where.push(inList('country', countriesIn({ continent: v })));
        break;
      case 'subContinent':
        where.push(inList('country', countriesIn({ subContinent: v })));
        break;
      case 'subscribedStatus':
        where.push(`sub = ${lit(v)}`);
        break;
      case 'liveOrOnDemand':
        where.push(`live = ${lit(v)}`);
        break;
      case 'video':
        usesVideo = true;
        where.push(inList('video', f.values));
        break;
      case 'group': {
        const videos = req.groups?.[v];
        if (!videos) throw new Error(`oracle: unknown group ${v}`);
        usesVideo = true;
        where.push(inList('video', videos));
        break;
      }
      default:
        throw new Error(`oracle: unsupported filter ${f.name}`);
    }
  }
  if (usesVideo) where.push(`video <> ''`);

  const noDims = req.dimensions.length === 0;
  // With no dimensions the aggregate always yields one row; when nothing matched, every metric is 0.
  const guard = (expr: string) => (noDims ? `(CASE WHEN COUNT(*) = 0 THEN 0 ELSE ${expr} END)` : expr);
  const select: string[] = [];
  req.dimensions.forEach((name, i) => {
    const expr = DIMENSION_SQL[name];
    if (!expr) throw new Error(`oracle: unsupported dimension ${name}`);
    select.push(`${expr} AS d${i}`);
  });
  req.metrics.forEach((name, i) => {
    select.push(`CAST(${guard(metricSql(name).sql)} AS DOUBLE) AS m${i}`);
  });
  let r = 0;
  for (const name of req.metrics) {
    const un = metricSql(name).unrounded;
    if (un) select.push(`CAST(${guard(un)} AS DOUBLE) AS r${r++}`);
  }
  const alias = (name: string) => {
    const di = req.dimensions.indexOf(name);
    if (di >= 0) return `d${di}`;
    const mi = req.metrics.indexOf(name);
    if (mi >= 0) return `m${mi}`;
    throw new Error(`oracle: sort key ${name} is not in the query`);
  };
  const order = [
    ...req.sort.map((k) => `${alias(k.name)} ${k.descending ? 'DESC' : 'ASC'} NULLS LAST`),
    ...req.dimensions.map((_, i) => `d${i} ASC NULLS LAST`),
  ];
  const inner = [
    `SELECT ${select.join(', ')} FROM facts WHERE ${where.join(' AND ')}`,
    noDims ? '' : `GROUP BY ${req.dimensions.map((_, i) => `d${i}`).join(', ')}`,
  ].join(' ');
  const outer = [`SELECT * FROM (${inner}) AS t`];
  if (order.length > 0) outer.push(`ORDER BY ${order.join(', ')}`);
  if (req.maxResults !== undefined) outer.push(`LIMIT ${req.maxResults}`);
  outer.push(`OFFSET ${(req.startIndex ?? 1) - 1}`);
  return outer.join(' ');
}

const FLOAT_REL = 1e-9;
const FLOAT_ABS = 1e-12;

function floatClose(a: number, b: number): boolean {
  const diff = Math.abs(a - b);
  return diff <= FLOAT_ABS || diff <= FLOAT_REL * Math.max(Math.abs(a), Math.abs(b));
}

/** True when `raw` sits on a .5 rounding tie within floating-point error (either rounding is then right). */
function nearTie(raw: number): boolean {
  const frac = raw - Math.floor(raw);
  return Math.abs(frac - 0.5) <= 1e-9 * Math.max(1, Math.abs(raw));
}

/**
 * Compares an API answer (the parsed JSON body) with the oracle's result. Returns the first difference as text,
 * or undefined when they agree.
 */
export function compareWithOracle(body: any, expected: OracleResult): string | undefined {
  if (body?.kind !== 'youtubeAnalytics#resultTable') return `kind is ${JSON.stringify(body?.kind)}`;
  const headers = JSON.stringify(body.columnHeaders);
  if (headers !== JSON.stringify(expected.columnHeaders)) {
    return `columnHeaders ${headers} != expected ${JSON.stringify(expected.columnHeaders)}`;
  }
  const hasRows = Object.hasOwn(body, 'rows');
  if (expected.rows.length === 0) {
    return hasRows ? `expected no rows (rows omitted), got rows ${JSON.stringify(body.rows).slice(0, 300)}` : undefined;
  }
  if (!hasRows) return `rows omitted, expected ${expected.rows.length} rows, first ${JSON.stringify(expected.rows[0])}`;
  const rows = body.rows as unknown[][];
  if (!Array.isArray(rows)) return `rows is not an array`;
  if (rows.length !== expected.rows.length) {
    const show = (rs: unknown[][]) => JSON.stringify(rs.slice(0, 3));
    return `${rows.length} rows != expected ${expected.rows.length}; first got ${show(rows)} expected ${show(expected.rows)}`;
  }
  for (let i = 0; i < rows.length; i++) {
    const got = rows[i] as unknown[];
    const want = expected.rows[i] as Cell[];
    const where = () => `row ${i}: got ${JSON.stringify(got)} expected ${JSON.stringify(want)}`;
    if (!Array.isArray(got) || got.length !== want.length) return `${where()} (row width)`;
    for (let j = 0; j < want.length; j++) {
      const header = expected.columnHeaders[j] as OracleHeader;
      const g = got[j];
      const w = want[j] as Cell;
      const bad = () => `${where()} (column ${header.name})`;
      if (header.dataType === 'STRING') {
        if (g !== w) return bad();
        continue;
      }
      if (w === null || g === null) {
        if (g !== w) return bad();
        continue;
      }
      if (typeof g !== 'number' || typeof w !== 'number') return bad();
      if (header.dataType === 'INTEGER') {
        if (!Number.isInteger(g)) return `${bad()}: not an integer`;
        if (g === w) continue;
        const raw = expected.unrounded[i]?.[j];
        if (typeof raw === 'number' && nearTie(raw) && (g === Math.floor(raw) || g === Math.ceil(raw))) continue;
        return bad();
      }
      if (!floatClose(g, w)) return bad();
    }
  }
  return undefined;
}
