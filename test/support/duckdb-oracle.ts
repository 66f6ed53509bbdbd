/**
 * An independent oracle for reports.query: the raw rows of every queryable report family (kinds video, playlist,
 * revenue and ad of functions/core/reports/catalog/families.ts) loaded into in-memory DuckDB tables, one per family, with the
 * exchange rates and the content owners' channel link dates; each request is translated into one SQL statement. It
 * shares no code with the service's ingest, cubes, planner, engine or metric computations: it reads only data tables
 * (the families' columns and measures, the code tables, the geo regions), and maps every cell itself.
 *
 * Semantics implemented (api-contract.md §A.1, §A.3, README "reports.query", functions/core/reports/catalog/metrics.ts and
 * report-service.ts as the spec):
 * - Rows: the facts of the owner (`channel==X`: the rows of X's channel files; `contentOwner==X`: the rows of X's
 *   content-owner files) with startDate <= day <= endDate.
 * - Cells: dimension columns mapped to Analytics values (numeric codes through the code tables, unknown well-formed
 *   codes to the dimension's catch-all value; subscribed/not_subscribed → SUBSCRIBED/UNSUBSCRIBED; AGE_18_24 →
 *   age18-24; …); an extension column a file lacks takes the family's `missing` value (UNSPECIFIED, UNKNOWN). A metric
 *   column a file lacks, or an empty cell, is NULL; averages are stored weighted by the row's views.
 * - Which family answers: a playlist request (the playlist dimension or filter, or a group filter with a playlist
 *   metric) reads playlist families, any other request video, revenue or ad families, of the owner's kind (channel or
 *   content owner). A family must hold every dimension the request groups or filters by (continent / subContinent
 *   need country; group, day and month need nothing). Metrics are assigned greedily: the family covering most of the
 *   remaining metrics; ties go to a bulk report type before an extension layout (versions x1), then to the fewest
 *   dimension columns, then to catalogue order (FAMILIES). When metrics come
 *   from several families, their grouped rows are FULL OUTER JOINed on the dimension values (never added): a row
 *   present in one family only has NULL for the other family's metrics.
 * - Filters: equality (or IN for id lists); continent / subContinent mean country IN countriesIn(...); `group` means
 *   its items' ids on the video, playlist or channel column (an empty group: video, or playlist in a playlist
 *   request). When `video` is a dimension or a filter (a group of videos included), rows with an empty video_id are
 *   left out.
 * - Content owners without includeHistoricalChannelData=true: rows of a linked channel before its link date are left
 *   out; channels without a link always count.
 * - currency=X (X not USD): every money measure (revenue, gross revenue) of a row is multiplied by the rate of the
 *   row's day before summing: the latest rate on or before the day, or the first rate when the day precedes them all.
 * - Grouping: by the dimensions; `day` as 'YYYY-MM-DD', `month` as 'YYYY-MM'.
 * - Metrics (SQL NULL semantics: a sum is NULL only when every input is NULL):
 *   - counts: SUM(column); playlistViews = SUM(views) of the playlist family;
 *   - estimatedMinutesWatched, estimatedRedMinutesWatched, playlistEstimatedMinutesWatched = ROUND(SUM(minutes));
 *   - averageViewDuration, playlistAverageViewDuration = ROUND(SUM(minutes) * 60 / SUM(views));
 *   - averageViewPercentage = SUM(pct × views) / SUM(views); audienceWatchRatio, relativeRetentionPerformance alike;
 *   - click rates = clicks / impressions; videoThumbnailImpressionsClickRate = SUM(ctr × impressions) / SUM(impressions)
 *     (the reach reports); viewsPerPlaylistStart = views / starts; averageTimeInPlaylist = minutes /
 *     starts; cpm = 1000 × gross / adImpressions; playbackBasedCpm = 1000 × gross / monetizedPlaybacks;
 *   - playlistSaves = SUM(added) − SUM(removed) (NULL only when both are NULL);
 *   - money (estimatedRevenue, estimatedAdRevenue, grossRevenue, estimatedRedPartnerRevenue): SUM, converted;
 *   - every ratio is NULL when its numerator or denominator is NULL, else 0 when the denominator is 0;
 *   - viewerPercentage = 100 × the row's SUM(views_percentage) / the total of that over every row of the answer
 *     (before paging); 0 when the total is 0.
 * - With no dimensions there is exactly one row; when no fact of any family matches, every metric in it is 0.
 * - Order: the sort keys (descending when prefixed '-'), NULLs last in both directions, then every dimension
 *   ascending; then OFFSET startIndex - 1 and LIMIT maxResults.
 * - Columns: dimensions in request order, then metrics in request order. Dimensions are STRING; ratios, money and
 *   percentages FLOAT; every other metric INTEGER.
 *
 * - Precision: the service stores every number of a file to six decimal places (rounded half up from its text, see
 *   docs/reports-storage.md), and a weighted column times the row's views to six places too: the oracle sums the same
 *   rounded values, so a share of many tiny percentages compares within 1e-9 (not within the rounding of each row).
 *
 * compareWithOracle() states the comparison: same columnHeaders; `rows` absent exactly when the oracle has no
 * rows; rows equal in order; dimension cells equal as strings; INTEGER metrics exactly equal (a value whose
 * unrounded form is a .5 tie within floating-point error may round either way); FLOAT metrics within 1e-9
 * relative (1e-12 absolute near 0). Rows whose FLOAT sort keys are equal within that tolerance may come in either
 * order (which one is larger depends on the last bits of a sum), also across the page's edge.
 */
import { type DuckDBConnection, DuckDBInstance, dateValue } from '@duckdb/node-api';
import { FAMILIES, type FamilyDef } from '../../functions/core/reports/catalog/families';
import { countriesIn } from '../../functions/core/reports/catalog/geo';
import {
  AD_TYPES,
  AGE_GROUPS,
  ANALYTICS_VALUES,
  DEVICE_TYPES,
  GENDERS,
  LIVE_OR_ON_DEMAND,
  OPERATING_SYSTEMS,
  PLAYBACK_LOCATION_TYPES,
  SHARING_SERVICES,
  SUBSCRIBED_STATUS,
  TRAFFIC_SOURCE_TYPES,
} from '../../functions/core/reports/ingest/code-tables';
import type { ExchangeRate, RawRow, ReportFile } from './report-fixtures';

export interface OracleFilter {
  readonly name: string;
  readonly values: readonly string[];
}

/** What a group stands for: its item kind (undefined for an empty, kind-free group) and its items' ids. */
export interface OracleGroup {
  readonly kind?: 'youtube#video' | 'youtube#playlist' | 'youtube#channel';
  readonly ids: readonly string[];
}

export interface OracleRequest {
  /** Whose rows; absent: every row loaded, as a channel report (single-channel fixtures). */
  readonly ids?: { readonly type: 'channel' | 'contentOwner'; readonly id: string };
  readonly startDate: string;
  readonly endDate: string;
  readonly dimensions: readonly string[];
  readonly metrics: readonly string[];
  readonly filters: readonly OracleFilter[];
  readonly sort: readonly { readonly name: string; readonly descending: boolean }[];
  readonly startIndex?: number;
  readonly maxResults?: number;
  readonly currency?: string;
  readonly includeHistoricalChannelData?: boolean;
  /** Each group id a `group` filter may name: its videos (a list) or its kind and items. */
  readonly groups?: Readonly<Record<string, readonly string[] | OracleGroup>>;
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
  /** The whole sorted answer (before paging), the page's offset in it, and the sort keys' column indexes. */
  all?: Cell[][];
  offset?: number;
  sortColumns?: number[];
  /** The families that answered, in the order their metrics were assigned. */
  sources: { family: string; metrics: string[] }[];
  sql: string;
}

/** The request cannot be answered from any family (the service answers 400 "not supported"). */
export class OracleUnanswerable extends Error {}

export interface OracleInput {
  readonly files: readonly ReportFile[];
  readonly rates?: readonly ExchangeRate[];
  readonly links?: readonly {
    readonly contentOwner: string;
    readonly channelId: string;
    readonly linkedSince: string;
  }[];
}

export interface Oracle {
  query(req: OracleRequest): Promise<OracleResult>;
  /** The families that would answer (throws OracleUnanswerable). */
  plan(req: OracleRequest): { family: FamilyDef; metrics: string[] }[];
  /**
   * Distinct values of a dimension in an owner's rows of the given families (every family holding it when omitted),
   * the most frequent first.
   */
  values(owner: string, dim: string, families?: readonly string[]): Promise<string[]>;
  /** Rows loaded per family code for an owner. */
  rowCounts(owner: string): Promise<Record<string, number>>;
  close(): void;
}

// ---------------------------------------------------------------------------------------------------------------
// Cells: CSV column → Analytics value, by this file's own mapping

type Parse = (raw: string) => string | undefined;

const integerCode = (raw: string) => {
  const m = /^(\d+)(?:\.0+)?$/.exec(raw.trim());
  return m ? String(Number(m[1])) : undefined;
};
/** A numeric code; a well-formed code no table names goes to the dimension's catch-all value. */
const code =
  (table: Readonly<Record<string, string>>, catchAll: string): Parse =>
  (raw) => {
    const key = integerCode(raw);
    if (key === undefined) return undefined;
    return Object.hasOwn(table, key) ? table[key] : catchAll;
  };
const word =
  (table: Readonly<Record<string, string>>): Parse =>
  (raw) => {
    const v = raw.trim().toLowerCase();
    const hit = Object.entries(table).find(([k]) => k.toLowerCase() === v);
    return hit?.[1];
  };
const oneOf =
  (values: readonly string[]): Parse =>
  (raw) =>
    values.find((x) => x.toLowerCase() === raw.trim().toLowerCase());
const trimmed: Parse = (raw) => raw.trim();

const CELL: Readonly<Record<string, Parse>> = {
  channel_id: trimmed,
  video_id: trimmed,
  playlist_id: trimmed,
  asset_id: trimmed,
  claimed_status: (raw) => {
    const v = raw.trim().toLowerCase();
    return v === '' || v === 'claimed' ? v : undefined;
  },
  uploader_type: (raw) => {
    const v = raw.trim().toLowerCase();
    return v === 'self' ? 'self' : v === 'thirdparty' ? 'thirdParty' : undefined;
  },
  live_or_on_demand: word(LIVE_OR_ON_DEMAND),
  subscribed_status: word(SUBSCRIBED_STATUS),
  country_code: (raw) => {
    const v = raw.trim().toUpperCase();
    return /^[A-Z]{2}$/.test(v) ? v : undefined;
  },
  province_code: (raw) => {
    const v = raw.trim().toUpperCase();
    return v === '' || /^US-[A-Z]{2}$/.test(v) ? v : undefined;
  },
  city: trimmed,
  elapsed_video_time_ratio: (raw) => {
    const v = Number(raw.trim());
    return Number.isFinite(v) && v > 0 && v <= 1 ? String(Math.round(v * 100) / 100) : undefined;
  },
  audience_type: oneOf(ANALYTICS_VALUES.audienceType ?? []),
  creator_content_type: oneOf([...(ANALYTICS_VALUES.creatorContentType ?? []), 'UNSPECIFIED']),
  youtube_product: oneOf(ANALYTICS_VALUES.youtubeProduct ?? []),
  playback_location_type: code(PLAYBACK_LOCATION_TYPES, 'YT_OTHER'),
  playback_location_detail: trimmed,
  traffic_source_type: code(TRAFFIC_SOURCE_TYPES, 'NO_LINK_OTHER'),
  traffic_source_detail: trimmed,
  device_type: code(DEVICE_TYPES, 'UNKNOWN_PLATFORM'),
  operating_system: code(OPERATING_SYSTEMS, 'OTHER'),
  age_group: word(AGE_GROUPS),
  gender: word(GENDERS),
  sharing_service: code(SHARING_SERVICES, 'OTHER'),
  ad_type: code(AD_TYPES, 'unknown'),
};

/** Average columns, stored multiplied by the row's views so they can be re-averaged. */
/** Averages and rates stored times their row's weight column (views; impressions for the thumbnail click rate). */
const WEIGHTED: ReadonlyMap<string, string> = new Map([
  ['average_view_duration_percentage', 'views'],
  ['audience_watch_ratio', 'views'],
  ['relative_retention_performance', 'views'],
  ['video_thumbnail_impressions_ctr', 'video_thumbnail_impressions'],
]);
/** Measures in USD, converted by `currency=`. */
const MONEY = new Set([
  'estimatedRevenue',
  'estimatedAdRevenue',
  'adAuctionRevenue',
  'adReservedRevenue',
  'transactionRevenue',
  'grossRevenue',
  'estimatedRedPartnerRevenue',
]);

// ---------------------------------------------------------------------------------------------------------------
// Metrics

const q = (name: string) => `"${name.replaceAll('"', '""')}"`;
const lit = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** `a(measure)` is the SQL of the measure's (converted) sum in the answering family's rows. */
type Agg = (measure: string) => string;

interface MetricDef {
  readonly uses: readonly string[];
  readonly dataType: 'INTEGER' | 'FLOAT';
  readonly sql: (a: Agg) => string;
  /** The expression before rounding, for rounded INTEGER metrics. */
  readonly unrounded?: (a: Agg) => string;
  /** A share of the whole answer (viewerPercentage). */
  readonly normalized?: true;
}

const ratioSql = (num: string, den: string) =>
  `(CASE WHEN (${num}) IS NULL OR (${den}) IS NULL THEN NULL WHEN (${den}) = 0 THEN 0 ELSE (${num}) / (${den}) END)`;
const count = (m: string): MetricDef => ({ uses: [m], dataType: 'INTEGER', sql: (a) => a(m) });
const money = (m: string): MetricDef => ({ uses: [m], dataType: 'FLOAT', sql: (a) => a(m) });
const rounded = (m: string): MetricDef => ({
  uses: [m],
  dataType: 'INTEGER',
  sql: (a) => `ROUND(${a(m)})`,
  unrounded: (a) => a(m),
});
const ratio = (num: string, den: string, factor = 1): MetricDef => ({
  uses: [num, den],
  dataType: 'FLOAT',
  sql: (a) => ratioSql(factor === 1 ? a(num) : `${a(num)} * ${factor}`, a(den)),
});
const roundedRatio = (num: string, den: string, factor: number): MetricDef => ({
  uses: [num, den],
  dataType: 'INTEGER',
  sql: (a) => `ROUND(${ratioSql(`${a(num)} * ${factor}`, a(den))})`,
  unrounded: (a) => ratioSql(`${a(num)} * ${factor}`, a(den)),
});

export const ORACLE_METRICS: Readonly<Record<string, MetricDef>> = {
  views: count('views'),
  engagedViews: count('engagedViews'),
  redViews: count('redViews'),
  comments: count('comments'),
  likes: count('likes'),
  dislikes: count('dislikes'),
  shares: count('shares'),
  videosAddedToPlaylists: count('videosAddedToPlaylists'),
  videosRemovedFromPlaylists: count('videosRemovedFromPlaylists'),
  estimatedMinutesWatched: rounded('watchMinutes'),
  estimatedRedMinutesWatched: rounded('redWatchMinutes'),
  averageViewDuration: roundedRatio('watchMinutes', 'views', 60),
  averageViewPercentage: ratio('viewPercentageWeighted', 'views'),
  annotationImpressions: count('annotationImpressions'),
  annotationClickableImpressions: count('annotationClickableImpressions'),
  annotationClosableImpressions: count('annotationClosableImpressions'),
  annotationClicks: count('annotationClicks'),
  annotationCloses: count('annotationCloses'),
  annotationClickThroughRate: ratio('annotationClicks', 'annotationClickableImpressions'),
  annotationCloseRate: ratio('annotationCloses', 'annotationClosableImpressions'),
  cardImpressions: count('cardImpressions'),
  cardClicks: count('cardClicks'),
  cardTeaserImpressions: count('cardTeaserImpressions'),
  cardTeaserClicks: count('cardTeaserClicks'),
  cardClickRate: ratio('cardClicks', 'cardImpressions'),
  cardTeaserClickRate: ratio('cardTeaserClicks', 'cardTeaserImpressions'),
  subscribersGained: count('subscribersGained'),
  subscribersLost: count('subscribersLost'),
  viewerPercentage: { uses: ['viewerShare'], dataType: 'FLOAT', sql: (a) => a('viewerShare'), normalized: true },
  playlistViews: count('views'),
  playlistEstimatedMinutesWatched: rounded('watchMinutes'),
  playlistAverageViewDuration: roundedRatio('watchMinutes', 'views', 60),
  playlistStarts: count('playlistStarts'),
  playlistSaves: {
    uses: ['playlistSavesAdded', 'playlistSavesRemoved'],
    dataType: 'INTEGER',
    sql: (a) =>
      `(CASE WHEN ${a('playlistSavesAdded')} IS NULL AND ${a('playlistSavesRemoved')} IS NULL THEN NULL ` +
      `ELSE COALESCE(${a('playlistSavesAdded')}, 0) - COALESCE(${a('playlistSavesRemoved')}, 0) END)`,
  },
  viewsPerPlaylistStart: ratio('views', 'playlistStarts'),
  averageTimeInPlaylist: ratio('watchMinutes', 'playlistStarts'),
  estimatedRevenue: money('estimatedRevenue'),
  estimatedAdRevenue: money('estimatedAdRevenue'),
  grossRevenue: money('grossRevenue'),
  estimatedRedPartnerRevenue: money('estimatedRedPartnerRevenue'),
  monetizedPlaybacks: count('monetizedPlaybacks'),
  adImpressions: count('adImpressions'),
  cpm: ratio('grossRevenue', 'adImpressions', 1000),
  playbackBasedCpm: ratio('grossRevenue', 'monetizedPlaybacks', 1000),
  audienceWatchRatio: ratio('watchRatioWeighted', 'views'),
  relativeRetentionPerformance: ratio('relativeRetentionWeighted', 'views'),
  videoThumbnailImpressions: count('thumbnailImpressions'),
  videoThumbnailImpressionsClickRate: ratio('thumbnailClicks', 'thumbnailImpressions'),
};

/** The in-playlist metrics: with a group filter they make a request a playlist request. */
const PLAYLIST_METRICS = new Set([
  'averageTimeInPlaylist',
  'playlistAverageViewDuration',
  'playlistEstimatedMinutesWatched',
  'playlistSaves',
  'playlistStarts',
  'playlistViews',
  'viewsPerPlaylistStart',
]);

function metricDef(name: string): MetricDef {
  const def = ORACLE_METRICS[name];
  if (!def) throw new Error(`oracle: no definition for metric ${name}`);
  return def;
}

// ---------------------------------------------------------------------------------------------------------------
// Tables

/** The families the oracle loads: every queryable one. */
const QUERYABLE: readonly FamilyDef[] = FAMILIES.filter((f) => f.kind !== 'stored');
const tableOf = (f: FamilyDef) => q(`f_${f.code}`);
/** A family's dimension columns as stored here (`channel` is a column of every table). */
const dimsOf = (f: FamilyDef) => f.columns.map((c) => c.dim).filter((d) => d !== 'channel');
const measuresOf = (f: FamilyDef) => [...new Set(Object.values(f.measures) as string[])];
const familyHas = (f: FamilyDef, dim: string) => dim === 'channel' || f.columns.some((c) => c.dim === dim);

const DAY_MS = 86_400_000;
function epochDays(yyyymmdd: string): number {
  const ms = Date.UTC(Number(yyyymmdd.slice(0, 4)), Number(yyyymmdd.slice(4, 6)) - 1, Number(yyyymmdd.slice(6, 8)));
  return Math.round(ms / DAY_MS);
}

/** The family of a report type id (`channel_traffic_source_a2`, `channel_city_x1`). */
function familyOfType(reportType: string): FamilyDef | undefined {
  const m = /^(.+)_[a-z]\d+$/.exec(reportType);
  return m ? FAMILIES.find((f) => f.type === m[1]) : undefined;
}

interface SourceRows {
  readonly family: FamilyDef;
  readonly owner: (get: (column: string) => string | undefined) => string;
  readonly rows: Iterable<(column: string) => string | undefined>;
}

function* fileRows(file: ReportFile): Iterable<(column: string) => string | undefined> {
  const index = new Map(file.header.map((c, i) => [c, i]));
  for (const row of file.rows) {
    yield (column) => {
      const i = index.get(column);
      return i === undefined ? undefined : (row[i] ?? '');
    };
  }
}

/**
 * A number's text rounded half up at the sixth decimal place, from its digits (so a tie in the text is a tie, not the
 * float nearest to it): the precision the service stores.
 */
export function sixPlaces(text: string): number {
  const m = /^(\d*)\.(\d+)$/.exec(text);
  if (!m) return Math.round(Number(text) * 1e6) / 1e6;
  const frac = (m[2] as string).padEnd(7, '0');
  const units = Number(m[1] || '0') * 1e6 + Number(frac.slice(0, 6)) + (Number(frac[6]) >= 5 ? 1 : 0);
  return units / 1e6;
}

async function loadFamily(con: DuckDBConnection, family: FamilyDef, sources: readonly SourceRows[]): Promise<void> {
  const dims = dimsOf(family);
  const measures = measuresOf(family);
  await con.run(
    `CREATE TABLE ${tableOf(family)}(day DATE, owner VARCHAR, channel VARCHAR, ${[
      ...dims.map((d) => `${q(d)} VARCHAR`),
      ...measures.map((m) => `${q(m)} DOUBLE`),
    ].join(', ')})`,
  );
  const appender = await con.createAppender(`f_${family.code}`);
  const columns = family.columns.filter((c) => c.dim !== 'channel');
  const measureColumns = Object.entries(family.measures) as [string, string][];
  for (const source of sources) {
    for (const get of source.rows) {
      const field = (name: string) => get(name);
      const date = (field('date') ?? '').trim().replace(/\.0+$/, '');
      if (!/^\d{8}$/.test(date)) throw new Error(`oracle: bad date ${date} in ${family.type}`);
      appender.appendDate(dateValue(epochDays(date)));
      appender.appendVarchar(source.owner(get));
      appender.appendVarchar((field('channel_id') ?? '').trim());
      for (const c of columns) {
        const raw = field(c.column);
        if (raw === undefined) {
          if (c.missing === undefined) throw new Error(`oracle: ${family.type} row without ${c.column}`);
          appender.appendVarchar(c.missing);
          continue;
        }
        const parse = CELL[c.column];
        const v = parse ? parse(raw) : undefined;
        if (v === undefined) throw new Error(`oracle: cannot map ${c.column}="${raw}" of ${family.type}`);
        appender.appendVarchar(v);
      }
      const number = (column: string) => {
        const cell = field(column)?.trim();
        return cell === undefined || cell === '' ? null : sixPlaces(cell);
      };
      const sums = new Map<string, number | null>(measures.map((m) => [m, null]));
      for (const [column, measure] of measureColumns) {
        let v = number(column);
        if (v === null) continue;
        const by = WEIGHTED.get(column);
        if (by !== undefined) {
          const weight = number(by);
          if (weight === null) continue;
          v = Math.round(v * weight * 1e6) / 1e6;
        }
        sums.set(measure, (sums.get(measure) ?? 0) + v);
      }
      for (const m of measures) {
        const v = sums.get(m) ?? null;
        if (v === null) appender.appendNull();
        else appender.appendDouble(v);
      }
      appender.endRow();
    }
  }
  appender.closeSync();
}

// ---------------------------------------------------------------------------------------------------------------
// Requests → SQL

interface Planned {
  readonly family: FamilyDef;
  readonly metrics: string[];
}

const isPlaylistRequest = (req: OracleRequest) =>
  req.dimensions.includes('playlist') ||
  req.filters.some((f) => f.name === 'playlist') ||
  (req.filters.some((f) => f.name === 'group') && req.metrics.some((m) => PLAYLIST_METRICS.has(m)));

export function planSources(req: OracleRequest): Planned[] {
  const ownerType = req.ids?.type ?? 'channel';
  const playlist = isPlaylistRequest(req);
  const needed = new Set<string>();
  for (const d of req.dimensions) if (d !== 'day' && d !== 'month') needed.add(d);
  for (const f of req.filters) {
    if (f.name === 'continent' || f.name === 'subContinent') needed.add('country');
    else if (f.name !== 'group') needed.add(f.name);
  }
  const candidates = QUERYABLE.filter(
    (f) =>
      f.owner === ownerType &&
      (playlist ? f.kind === 'playlist' : f.kind !== 'playlist') &&
      [...needed].every((d) => f.columns.some((c) => c.dim === d)),
  )
    .map((f, i) => ({ f, i, extension: f.versions.every((v) => v.startsWith('x')) }))
    .sort((a, b) => Number(a.extension) - Number(b.extension) || a.f.columns.length - b.f.columns.length || a.i - b.i)
    .map(({ f }) => f);
  const serves = (f: FamilyDef, m: string) => {
    const has = new Set(Object.values(f.measures) as string[]);
    return metricDef(m).uses.every((u) => has.has(u));
  };
  const planned: Planned[] = [];
  let left = [...req.metrics];
  while (left.length > 0) {
    let best: Planned | undefined;
    for (const family of candidates) {
      const covered = left.filter((m) => serves(family, m));
      if (covered.length > (best?.metrics.length ?? 0)) best = { family, metrics: covered };
    }
    if (!best) {
      throw new OracleUnanswerable(`no ${playlist ? 'playlist ' : ''}family carries ${left.join(', ')}`);
    }
    planned.push(best);
    const taken = best.metrics;
    left = left.filter((m) => !taken.includes(m));
  }
  return planned;
}

const DIMENSION_SQL = (dim: string) =>
  dim === 'day' ? `strftime(t.day, '%Y-%m-%d')` : dim === 'month' ? `strftime(t.day, '%Y-%m')` : `t.${q(dim)}`;

const inList = (col: string, values: Iterable<string>) => {
  const list = [...values];
  return list.length === 0 ? 'FALSE' : `${col} IN (${list.map(lit).join(', ')})`;
};

/** The filters as conditions on a family's rows; `group` resolved to its items. */
function conditions(req: OracleRequest, playlist: boolean): { where: string[]; usesVideo: boolean } {
  const where: string[] = [];
  let usesVideo = req.dimensions.includes('video');
  for (const f of req.filters) {
    const v = f.values[0] as string;
    switch (f.name) {
      case 'continent':
        where.push(inList('t.country', countriesIn({ continent: v })));
        break;
      case 'subContinent':
        where.push(inList('t.country', countriesIn({ subContinent: v })));
        break;
      case 'group': {
        const group = req.groups?.[v];
        if (!group) throw new Error(`oracle: unknown group ${v}`);
        const { kind, ids } = Array.isArray(group)
          ? { kind: 'youtube#video' as const, ids: group as readonly string[] }
          : (group as OracleGroup);
        const dim =
          kind === 'youtube#channel'
            ? 'channel'
            : kind === 'youtube#playlist'
              ? 'playlist'
              : kind === 'youtube#video'
                ? 'video'
                : playlist
                  ? 'playlist'
                  : 'video';
        if (dim === 'playlist' && !playlist) throw new Error(`oracle: a playlist group ${v} in a video request`);
        if (dim === 'video' && playlist && kind === 'youtube#video') {
          throw new Error(`oracle: a video group ${v} in a playlist request`);
        }
        if (dim === 'video') usesVideo = true;
        where.push(inList(`t.${q(dim)}`, ids));
        break;
      }
      default:
        if (f.name === 'video') usesVideo = true;
        where.push(inList(`t.${q(f.name)}`, f.values));
    }
  }
  if (usesVideo) where.push(`t.video <> ''`);
  return { where, usesVideo };
}

interface Context {
  readonly links: ReadonlyMap<string, ReadonlyMap<string, string>>;
  readonly rates: ReadonlyMap<string, readonly ExchangeRate[]>;
}

/** The whole sorted answer, and the requested page of it. */
function toSql(req: OracleRequest, planned: readonly Planned[], ctx: Context): { full: string; page: string } {
  const playlist = isPlaylistRequest(req);
  const { where: filterWhere } = conditions(req, playlist);
  const base = [`t.day BETWEEN DATE ${lit(req.startDate)} AND DATE ${lit(req.endDate)}`, ...filterWhere];
  if (req.ids) base.push(`t.owner = ${lit(req.ids.id)}`);
  if (req.ids?.type === 'contentOwner' && !req.includeHistoricalChannelData) {
    const links = [...(ctx.links.get(req.ids.id) ?? new Map<string, string>())];
    if (links.length > 0) {
      const since = links.map(([channel, day]) => `WHEN ${lit(channel)} THEN DATE ${lit(day)}`).join(' ');
      base.push(`t.day >= (CASE t.channel ${since} ELSE DATE '0001-01-01' END)`);
    }
  }
  const converting = req.currency !== undefined && req.currency !== 'USD';
  let firstRate: number | undefined;
  if (converting) {
    const list = ctx.rates.get(req.currency as string);
    if (!list || list.length === 0) throw new OracleUnanswerable(`no rates for ${req.currency}`);
    firstRate = (list[0] as ExchangeRate).rate;
  }
  const dims = req.dimensions;
  const dimAliases = dims.map((_, i) => `d${i}`);

  const parts = planned.map((source, s) => {
    const measures = [...new Set(source.metrics.flatMap((m) => metricDef(m).uses))];
    const select = [
      ...dims.map((d, i) => `${DIMENSION_SQL(d)} AS d${i}`),
      ...measures.map((m) => {
        const col = `t.${q(m)}`;
        const value = converting && MONEY.has(m) ? `${col} * COALESCE(fx.rate, ${firstRate})` : col;
        return `SUM(${value}) AS ${q(`s${s}_${m}`)}`;
      }),
      `COUNT(*) AS s${s}_n`,
    ];
    const fx =
      converting && measures.some((m) => MONEY.has(m))
        ? ` ASOF LEFT JOIN (SELECT day AS rday, rate FROM rates WHERE currency = ${lit(req.currency as string)}) fx ON t.day >= fx.rday`
        : '';
    return `s${s} AS (SELECT ${select.join(', ')} FROM ${tableOf(source.family)} t${fx} WHERE ${base.join(' AND ')}${
      dims.length > 0 ? ` GROUP BY ${dimAliases.join(', ')}` : ''
    })`;
  });
  const from = planned
    .map((_, s) =>
      s === 0
        ? 's0'
        : dims.length === 0
          ? `CROSS JOIN s${s}`
          : `FULL OUTER JOIN s${s} USING (${dimAliases.join(', ')})`,
    )
    .join(' ');

  const sourceOf = new Map<string, number>();
  planned.forEach((p, s) => {
    for (const m of p.metrics) sourceOf.set(m, s);
  });
  const noDims = dims.length === 0;
  const matched = planned.map((_, s) => `COALESCE(s${s}_n, 0)`).join(' + ');
  // With no dimensions there is always one row: zeros when no family had a matching fact.
  const guard = (expr: string) => (noDims ? `(CASE WHEN (${matched}) = 0 THEN 0 ELSE ${expr} END)` : expr);
  const select = [...dimAliases];
  const unroundedSelect: string[] = [];
  req.metrics.forEach((name, i) => {
    const def = metricDef(name);
    const s = sourceOf.get(name) as number;
    const a: Agg = (m) => q(`s${s}_${m}`);
    let expr = def.sql(a);
    if (def.normalized) {
      expr = `(CASE WHEN (${expr}) IS NULL THEN NULL WHEN SUM(${expr}) OVER () = 0 THEN 0 ELSE (${expr}) * 100 / SUM(${expr}) OVER () END)`;
    }
    select.push(`CAST(${guard(expr)} AS DOUBLE) AS m${i}`);
    if (def.unrounded) unroundedSelect.push(`CAST(${guard(def.unrounded(a))} AS DOUBLE) AS r${unroundedSelect.length}`);
  });
  const alias = (name: string) => {
    const di = dims.indexOf(name);
    if (di >= 0) return `d${di}`;
    const mi = req.metrics.indexOf(name);
    if (mi >= 0) return `m${mi}`;
    throw new Error(`oracle: sort key ${name} is not in the query`);
  };
  const order = [
    ...req.sort.map((k) => `${alias(k.name)} ${k.descending ? 'DESC' : 'ASC'} NULLS LAST`),
    ...dimAliases.map((d) => `${d} ASC NULLS LAST`),
  ];
  const inner = `WITH ${parts.join(', ')} SELECT ${[...select, ...unroundedSelect].join(', ')} FROM ${from}`;
  const full = [`SELECT * FROM (${inner}) AS answer`];
  if (order.length > 0) full.push(`ORDER BY ${order.join(', ')}`);
  const page = [...full];
  if (req.maxResults !== undefined) page.push(`LIMIT ${req.maxResults}`);
  page.push(`OFFSET ${(req.startIndex ?? 1) - 1}`);
  return { full: full.join(' '), page: page.join(' ') };
}

// ---------------------------------------------------------------------------------------------------------------

function legacyInput(rawRows: readonly RawRow[]): SourceRows[] {
  const family = FAMILIES.find((f) => f.type === 'channel_basic') as FamilyDef;
  return [
    {
      family,
      owner: (get) => (get('channel_id') ?? '').trim(),
      rows: rawRows.map((r) => (column: string) => r[column]),
    },
  ];
}

/**
 * Loads the rows into DuckDB (with the appender) and returns the oracle. Takes the files of createReportWorlds (with
 * rates and links), or the channel_basic rows of createReportFixture.
 */
export async function createOracle(input: OracleInput | readonly RawRow[]): Promise<Oracle> {
  const instance = await DuckDBInstance.create(':memory:');
  const con: DuckDBConnection = await instance.connect();
  const legacy = Array.isArray(input);
  const sources: SourceRows[] = legacy
    ? legacyInput(input as readonly RawRow[])
    : (input as OracleInput).files.map((file) => {
        const family = familyOfType(file.reportType);
        if (!family) throw new Error(`oracle: unknown report type ${file.reportType}`);
        return {
          family,
          owner: family.owner === 'contentOwner' ? () => file.owner : (get) => (get('channel_id') ?? '').trim(),
          rows: fileRows(file),
        };
      });
  for (const family of QUERYABLE) {
    await loadFamily(
      con,
      family,
      sources.filter((s) => s.family === family),
    );
  }
  const unknown = sources.find((s) => !QUERYABLE.includes(s.family));
  if (unknown) throw new Error(`oracle: ${unknown.family.type} is not a queryable family`);

  const rates = legacy ? [] : [...((input as OracleInput).rates ?? [])];
  await con.run('CREATE TABLE rates(currency VARCHAR, day DATE, rate DOUBLE)');
  const appender = await con.createAppender('rates');
  for (const r of rates) {
    appender.appendVarchar(r.currency);
    appender.appendDate(dateValue(epochDays(r.day.replaceAll('-', ''))));
    appender.appendDouble(r.rate);
    appender.endRow();
  }
  appender.closeSync();
  const byCurrency = new Map<string, ExchangeRate[]>();
  for (const r of [...rates].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0))) {
    byCurrency.set(r.currency, [...(byCurrency.get(r.currency) ?? []), r]);
  }
  const links = new Map<string, Map<string, string>>();
  for (const l of legacy ? [] : ((input as OracleInput).links ?? [])) {
    const m = links.get(l.contentOwner) ?? new Map<string, string>();
    m.set(l.channelId, l.linkedSince);
    links.set(l.contentOwner, m);
  }
  const ctx: Context = { links, rates: byCurrency };

  const cell = (v: unknown): Cell =>
    v === null || v === undefined ? null : typeof v === 'bigint' ? Number(v) : (v as string | number);

  return {
    plan: planSources,
    async query(req) {
      const planned = planSources(req);
      const sql = toSql(req, planned, ctx);
      // The whole answer is read (the comparison needs it for ties of float sort keys), the page cut from it.
      const reader = await con.runAndReadAll(sql.full);
      const d = req.dimensions.length;
      const m = req.metrics.length;
      const all: Cell[][] = [];
      const unrounded: (number | null | undefined)[][] = [];
      for (const values of reader.getRows()) {
        all.push(values.slice(0, d + m).map(cell));
        const extra = values.slice(d + m);
        let r = 0;
        unrounded.push([
          ...req.dimensions.map(() => undefined),
          ...req.metrics.map((name) => (metricDef(name).unrounded ? (cell(extra[r++]) as number | null) : undefined)),
        ]);
      }
      const offset = (req.startIndex ?? 1) - 1;
      const end = req.maxResults === undefined ? undefined : offset + req.maxResults;
      const headers: OracleHeader[] = [
        ...req.dimensions.map((name) => ({ name, columnType: 'DIMENSION' as const, dataType: 'STRING' as const })),
        ...req.metrics.map((name) => ({
          name,
          columnType: 'METRIC' as const,
          dataType: metricDef(name).dataType,
        })),
      ];
      return {
        columnHeaders: headers,
        rows: all.slice(offset, end),
        unrounded: unrounded.slice(offset, end),
        all,
        offset,
        sortColumns: req.sort.map((k) => headers.findIndex((h) => h.name === k.name)),
        sources: planned.map((p) => ({ family: p.family.type, metrics: p.metrics })),
        sql: sql.page,
      };
    },
    async values(owner, dim, families) {
      const tables = QUERYABLE.filter(
        (f) => familyHas(f, dim) && (families === undefined || families.includes(f.type) || families.includes(f.code)),
      );
      if (tables.length === 0) return [];
      const union = tables
        .map((f) => `SELECT t.${q(dim)} AS v FROM ${tableOf(f)} t WHERE t.owner = ${lit(owner)}`)
        .join(' UNION ALL ');
      const reader = await con.runAndReadAll(`SELECT v FROM (${union}) GROUP BY v ORDER BY COUNT(*) DESC, v`);
      return reader.getRows().map((r) => String(r[0]));
    },
    async rowCounts(owner) {
      const out: Record<string, number> = {};
      for (const f of QUERYABLE) {
        const reader = await con.runAndReadAll(`SELECT COUNT(*) FROM ${tableOf(f)} WHERE owner = ${lit(owner)}`);
        out[f.code] = Number(reader.getRows()[0]?.[0] ?? 0);
      }
      return out;
    },
    close() {
      con.closeSync();
      instance.closeSync();
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Comparison

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

/** Whether two rows are the same row of an answer: equal dimensions and metrics within the tolerances. */
function sameRow(got: readonly unknown[], want: readonly Cell[], headers: readonly OracleHeader[]): boolean {
  if (!Array.isArray(got) || got.length !== want.length) return false;
  return want.every((w, j) => {
    const g = got[j];
    const type = headers[j]?.dataType;
    if (type === 'STRING' || w === null || g === null) return g === w;
    if (typeof g !== 'number' || typeof w !== 'number') return false;
    return type === 'INTEGER' ? g === w : floatClose(g, w);
  });
}

/**
 * The page allowing for ties of FLOAT sort keys: values equal within the tolerance may be ordered either way (their
 * order then depends on the last bits of a sum), so rows of such a tie may trade places, even across the page's edge.
 * Every row of the page must be the row of a tie block covering its position in the whole answer, each row once.
 */
function pageWithTies(rows: readonly unknown[][], expected: OracleResult): boolean {
  const all = expected.all;
  const keys = expected.sortColumns ?? [];
  const headers = expected.columnHeaders;
  if (!all || !keys.some((k) => headers[k]?.dataType === 'FLOAT')) return false;
  // Two rows may come in either order when the sort keys agree, within the tolerance, up to a FLOAT key: the service
  // may have told them apart there (by the last bits) or not (then by the next keys).
  const close = (a: readonly Cell[], b: readonly Cell[]) => {
    let float = false;
    for (const k of keys) {
      const x = a[k] as Cell;
      const y = b[k] as Cell;
      const isFloat = headers[k]?.dataType === 'FLOAT' && typeof x === 'number' && typeof y === 'number';
      if (isFloat ? !floatClose(x, y) : x !== y) return float;
      if (isFloat) float = true;
    }
    return float;
  };
  // block[i]: the first and last positions of the tie block holding position i.
  const first: number[] = [];
  for (let i = 0; i < all.length; i++) {
    first.push(i > 0 && close(all[i - 1] as Cell[], all[i] as Cell[]) ? (first[i - 1] as number) : i);
  }
  const last: number[] = new Array(all.length);
  for (let i = all.length - 1; i >= 0; i--) {
    last[i] = i < all.length - 1 && first[i + 1] === first[i] ? (last[i + 1] as number) : i;
  }
  const used = new Set<number>();
  const offset = expected.offset ?? 0;
  for (let i = 0; i < rows.length; i++) {
    const at = offset + i;
    if (at >= all.length) return false;
    let found = -1;
    for (let c = first[at] as number; c <= (last[at] as number); c++) {
      if (!used.has(c) && sameRow(rows[i] as unknown[], all[c] as Cell[], headers)) {
        found = c;
        break;
      }
    }
    if (found < 0) return false;
    used.add(found);
  }
  return true;
}

/**
 * Compares an API answer (the parsed JSON body) with the oracle's result. Returns the first difference as text,
 * or undefined when they agree.
 */
export function compareWithOracle(body: any, expected: OracleResult): string | undefined {
  const strict = compareStrictly(body, expected);
  if (strict === undefined) return undefined;
  const rows = body?.rows;
  if (Array.isArray(rows) && rows.length === expected.rows.length && pageWithTies(rows, expected)) return undefined;
  return strict;
}

function compareStrictly(body: any, expected: OracleResult): string | undefined {
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
