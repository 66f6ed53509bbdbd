/**
 * Reads a YouTube Reporting API `channel_basic_a1|a2|a3` file into facts. Columns are matched by header name
 * (their order varies between files); a metric column a version lacks is null, not 0; the whole file is
 * rejected, naming file, line and column, at the first malformed value.
 */
import type { FactRow } from '../cube';
import { emptySums, MEASURE_INDEX, type Measure, type Sums } from '../metrics';
import { CsvError, type CsvTable } from './csv';

export const CHANNEL_BASIC_FAMILY = 'CB';

const DIMENSION_COLUMNS = ['date', 'channel_id', 'video_id', 'live_or_on_demand', 'subscribed_status', 'country_code'];

/** Dimension columns of the other report types: their presence means "not a channel_basic file". */
// biome-ignore format: word list
const OTHER_DIMENSION_COLUMNS = [
  'playlist_id', 'asset_id', 'province_code', 'playback_location_type', 'playback_location_detail',
  'traffic_source_type', 'traffic_source_detail', 'device_type', 'operating_system', 'age_group', 'gender',
  'sharing_service', 'subtitle_language', 'annotation_type', 'card_type', 'end_screen_element_type', 'ad_type',
  'claimed_status', 'uploader_type',
];

/** CSV metric column → stored measure (rates are recomputed from counts, so their columns are not read). */
const MEASURE_COLUMNS: Readonly<Record<string, Measure>> = {
  views: 'views',
  engaged_views: 'engagedViews',
  red_views: 'redViews',
  comments: 'comments',
  likes: 'likes',
  dislikes: 'dislikes',
  shares: 'shares',
  videos_added_to_playlists: 'videosAddedToPlaylists',
  videos_removed_from_playlists: 'videosRemovedFromPlaylists',
  watch_time_minutes: 'watchMinutes',
  red_watch_time_minutes: 'redWatchMinutes',
  annotation_impressions: 'annotationImpressions',
  annotation_clickable_impressions: 'annotationClickableImpressions',
  annotation_closable_impressions: 'annotationClosableImpressions',
  annotation_clicks: 'annotationClicks',
  annotation_closes: 'annotationCloses',
  card_impressions: 'cardImpressions',
  card_clicks: 'cardClicks',
  card_teaser_impressions: 'cardTeaserImpressions',
  card_teaser_clicks: 'cardTeaserClicks',
  subscribers_gained: 'subscribersGained',
  subscribers_lost: 'subscribersLost',
};
const PERCENTAGE_COLUMN = 'average_view_duration_percentage';

const LIVE: Record<string, string> = { live: 'LIVE', on_demand: 'ON_DEMAND', ondemand: 'ON_DEMAND' };
const SUBSCRIBED: Record<string, string> = {
  subscribed: 'SUBSCRIBED',
  unsubscribed: 'UNSUBSCRIBED',
  not_subscribed: 'UNSUBSCRIBED',
};

export type ChannelBasicVersion = 'channel_basic_a1' | 'channel_basic_a2' | 'channel_basic_a3';

/** The report type a header describes, or undefined when it is not a channel_basic header. */
export function detectChannelBasic(header: readonly string[]): ChannelBasicVersion | undefined {
  const cols = new Set(header);
  if (!DIMENSION_COLUMNS.every((c) => cols.has(c))) return undefined;
  if (OTHER_DIMENSION_COLUMNS.some((c) => cols.has(c))) return undefined;
  if (!cols.has('views')) return undefined;
  if (cols.has('engaged_views')) return 'channel_basic_a3';
  return cols.has('red_views') ? 'channel_basic_a2' : 'channel_basic_a1';
}

export interface ParsedDayFile {
  readonly file: string;
  readonly reportType: ChannelBasicVersion;
  /** YYYY-MM-DD, or undefined for an empty file whose day the caller must supply. */
  readonly day: string | undefined;
  /** Facts per channel, each list sorted by (video, country, subscribedStatus, liveOrOnDemand). */
  readonly byChannel: ReadonlyMap<string, FactRow[]>;
  readonly rows: number;
}

const NUMBER = /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

export function readChannelBasic(file: string, table: CsvTable, forcedType?: ChannelBasicVersion): ParsedDayFile {
  const detected = detectChannelBasic(table.header);
  if (!detected) {
    const missing = DIMENSION_COLUMNS.filter((c) => !table.header.includes(c));
    throw new CsvError(
      file,
      1,
      missing[0],
      missing.length
        ? `not a channel_basic report: missing column(s) ${missing.join(', ')}`
        : 'not a channel_basic report (other report types are not supported yet)',
    );
  }
  const reportType = forcedType ?? detected;
  const col = (name: string) => table.header.indexOf(name);
  const [iDate, iChannel, iVideo, iLive, iSub, iCountry] = DIMENSION_COLUMNS.map(col) as number[];
  const measures = Object.entries(MEASURE_COLUMNS)
    .map(([column, measure]) => ({ column, index: col(column), at: MEASURE_INDEX[measure] }))
    .filter((m) => m.index >= 0);
  const iViews = col('views');
  const iPct = col(PERCENTAGE_COLUMN);
  const weightedAt = MEASURE_INDEX.viewPercentageWeighted;

  let day: string | undefined;
  const byChannel = new Map<string, FactRow[]>();
  const seen = new Set<string>();
  for (const { line, fields } of table.rows) {
    const fail = (column: string, detail: string): never => {
      throw new CsvError(file, line, column, detail);
    };
    const rawDate = (fields[iDate as number] as string).trim().replace(/\.0+$/, '');
    if (!/^\d{8}$/.test(rawDate)) fail('date', `"${rawDate}" is not a YYYYMMDD date`);
    const rowDay = `${rawDate.slice(0, 4)}-${rawDate.slice(4, 6)}-${rawDate.slice(6, 8)}`;
    if (
      Number.isNaN(Date.parse(`${rowDay}T00:00:00Z`)) ||
      new Date(`${rowDay}T00:00:00Z`).toISOString().slice(0, 10) !== rowDay
    ) {
      fail('date', `"${rawDate}" is not a calendar date`);
    }
    if (day === undefined) day = rowDay;
    else if (rowDay !== day)
      fail('date', `every row of a daily file has the same date; found ${rawDate} after ${day.replaceAll('-', '')}`);
    const channel = (fields[iChannel as number] as string).trim();
    if (!channel) fail('channel_id', 'channel_id is empty');
    const video = (fields[iVideo as number] as string).trim();
    const live = LIVE[(fields[iLive as number] as string).trim().toLowerCase()];
    if (!live) fail('live_or_on_demand', `"${fields[iLive as number]}" is not live or on_demand`);
    const subscribed = SUBSCRIBED[(fields[iSub as number] as string).trim().toLowerCase()];
    if (!subscribed) fail('subscribed_status', `"${fields[iSub as number]}" is not subscribed or not_subscribed`);
    const country = (fields[iCountry as number] as string).trim().toUpperCase();
    if (!/^[A-Z]{2}$/.test(country)) fail('country_code', `"${fields[iCountry as number]}" is not a country code`);

    const sums: Sums = emptySums();
    for (const m of measures) {
      const raw = (fields[m.index] as string).trim();
      if (raw === '') continue; // suppressed or anonymised: unknown, not zero
      if (!NUMBER.test(raw)) fail(m.column, `"${raw}" is not a number`);
      const v = Number(raw);
      if (!Number.isFinite(v) || v < 0) fail(m.column, `"${raw}" is not a non-negative number`);
      sums[m.at] = v;
    }
    if (iPct >= 0 && iViews >= 0) {
      const raw = (fields[iPct] as string).trim();
      if (raw !== '') {
        if (!NUMBER.test(raw) || Number(raw) < 0) fail(PERCENTAGE_COLUMN, `"${raw}" is not a non-negative number`);
        const views = sums[MEASURE_INDEX.views];
        sums[weightedAt] = views === null || views === undefined ? null : Number(raw) * views;
      }
    }
    const key = `${channel}\u0000${video}\u0000${country}\u0000${subscribed}\u0000${live}`;
    if (seen.has(key)) fail('video_id', 'the same dimension values appear on an earlier line');
    seen.add(key);
    const fact: FactRow = {
      day: rowDay,
      video,
      country,
      subscribedStatus: subscribed as string,
      liveOrOnDemand: live as string,
      sums,
    };
    const list = byChannel.get(channel);
    if (list) list.push(fact);
    else byChannel.set(channel, [fact]);
  }
  for (const list of byChannel.values()) list.sort(compareFacts);
  return { file, reportType, day, byChannel, rows: table.rows.length };
}

export function compareFacts(a: FactRow, b: FactRow): number {
  if (a.day !== b.day) return a.day < b.day ? -1 : 1;
  for (const k of ['video', 'country', 'subscribedStatus', 'liveOrOnDemand'] as const) {
    if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  }
  return 0;
}
