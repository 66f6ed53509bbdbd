/**
 * The report families of the YouTube Reporting API bulk exports, as data: each report type's exact columns per version
 * (shared reference reporting-api.md §4 channel, §5 playlist, §7 content owner), and the value tables the generator
 * draws the slicing dimensions from (code weights, detail vocabularies, provinces, languages, CPMs). Codes come from
 * the ingest's code tables, so every code written is one the ingest can name. Plain data; export-generator.ts samples.
 *
 * Besides the bulk report types, the EXTENSION layouts (version x1: city, audience retention, channel revenue and ad
 * rates, playlist demographics) and the extension columns creator_content_type / youtube_product carry what the service accepts beyond the
 * bulk exports (functions/core/reports/catalog/families.ts); the generator writes them only when asked.
 */
import {
  AD_TYPES,
  AGE_GROUPS,
  DEVICE_TYPES,
  GENDERS,
  OPERATING_SYSTEMS,
  PLAYBACK_LOCATION_TYPES,
  SHARING_SERVICES,
  TRAFFIC_SOURCE_TYPES,
} from '../../functions/core/reports/ingest/code-tables';

// ---------------------------------------------------------------------------------------------------------------
// Columns

/** channel_basic dimensions (BASE in reporting-api §4). */
export const BASE = [
  'date',
  'channel_id',
  'video_id',
  'live_or_on_demand',
  'subscribed_status',
  'country_code',
] as const;
/** Playlist reports (PBASE, §5; content-owner playlist reports use the same, §7.2). */
const PBASE = [
  'date',
  'channel_id',
  'playlist_id',
  'video_id',
  'live_or_on_demand',
  'subscribed_status',
  'country_code',
];
/** Content-owner video reports (CBASE, §7). */
// biome-ignore format: column list
const CBASE = ['date', 'channel_id', 'video_id', 'claimed_status', 'uploader_type', 'live_or_on_demand', 'subscribed_status', 'country_code'];
/** Content-owner asset reports (ABASE, §7). */
// biome-ignore format: column list
const ABASE = ['date', 'channel_id', 'video_id', 'asset_id', 'claimed_status', 'uploader_type', 'live_or_on_demand', 'subscribed_status', 'country_code'];

/** channel_basic_a3 metrics in Google's documented order. */
export const CHANNEL_BASIC_METRICS = [
  'engaged_views',
  'views',
  'comments',
  'likes',
  'dislikes',
  'videos_added_to_playlists',
  'videos_removed_from_playlists',
  'shares',
  'watch_time_minutes',
  'average_view_duration_seconds',
  'average_view_duration_percentage',
  'annotation_click_through_rate',
  'annotation_close_rate',
  'annotation_impressions',
  'annotation_clickable_impressions',
  'annotation_closable_impressions',
  'annotation_clicks',
  'annotation_closes',
  'card_click_rate',
  'card_teaser_click_rate',
  'card_impressions',
  'card_teaser_impressions',
  'card_clicks',
  'card_teaser_clicks',
  'subscribers_gained',
  'subscribers_lost',
  'red_views',
  'red_watch_time_minutes',
] as const;

/** "the 7 annotation_*" and "the 6 card_*" metrics, in the order channel_basic lists them. */
const ANNOTATIONS = CHANNEL_BASIC_METRICS.slice(11, 18);
const CARDS = CHANNEL_BASIC_METRICS.slice(18, 24);
const END_SCREENS = ['end_screen_element_impressions', 'end_screen_element_clicks', 'end_screen_element_click_rate'];
const VIEW_HEAD = [
  'engaged_views',
  'views',
  'watch_time_minutes',
  'average_view_duration_seconds',
  'average_view_duration_percentage',
];
const RED = ['red_views', 'red_watch_time_minutes'];
/** VIEWSET (§4). */
const VIEWSET = [...VIEW_HEAD, ...RED];
/** channel_province / content_owner_province metrics. */
const PROVINCE_METRICS = [...VIEW_HEAD, ...ANNOTATIONS, ...CARDS, ...RED];
/** PSET (§5): no percentage, no red_*. */
// biome-ignore format: column list
const PSET = ['engaged_views', 'views', 'watch_time_minutes', 'average_view_duration_seconds', 'playlist_starts', 'playlist_saves_added', 'playlist_saves_removed'];
// biome-ignore format: column list
const CO_BASIC_METRICS = ['engaged_views', 'views', 'comments', 'shares', 'watch_time_minutes', 'average_view_duration_seconds', 'average_view_duration_percentage', ...ANNOTATIONS, ...CARDS, 'subscribers_gained', 'subscribers_lost', 'videos_added_to_playlists', 'videos_removed_from_playlists', 'likes', 'dislikes', ...RED];
// biome-ignore format: column list
const ASSET_BASIC_METRICS = ['engaged_views', 'views', 'comments', 'likes', 'dislikes', 'videos_added_to_playlists', 'videos_removed_from_playlists', 'shares', 'watch_time_minutes', 'average_view_duration_seconds', 'average_view_duration_percentage', ...ANNOTATIONS, ...CARDS, ...RED];
// biome-ignore format: column list
const REVENUE_METRICS = ['estimated_partner_revenue', 'estimated_partner_ad_revenue', 'estimated_partner_ad_auction_revenue', 'estimated_partner_ad_reserved_revenue', 'estimated_youtube_ad_revenue', 'estimated_monetized_playbacks', 'estimated_playback_based_cpm', 'ad_impressions', 'estimated_cpm', 'estimated_partner_red_revenue', 'estimated_partner_transaction_revenue'];
// biome-ignore format: column list
const ASSET_REVENUE_METRICS = ['estimated_partner_revenue', 'estimated_partner_ad_revenue', 'estimated_partner_ad_auction_revenue', 'estimated_partner_ad_reserved_revenue', 'estimated_partner_red_revenue', 'estimated_partner_transaction_revenue'];

/** What a family slices the views by; the generator has one sampler per kind. */
export type FamilyKind =
  | 'basic'
  | 'province'
  | 'playback_location'
  | 'traffic_source'
  | 'device_os'
  | 'combined'
  | 'demographics'
  | 'sharing_service'
  | 'subtitles'
  | 'annotations'
  | 'cards'
  | 'end_screens'
  | 'revenue'
  | 'ad_rates'
  | 'city'
  | 'retention'
  | 'reach'
  | 'reach_combined';

/** Whose videos a family covers: one channel's, its playlists', or a content owner's (per video or per asset). */
export type FamilyScope = 'channel' | 'playlist' | 'owner' | 'owner_playlist' | 'asset';

const SLICE_COLUMNS: Readonly<Record<FamilyKind, readonly string[]>> = {
  basic: [],
  province: ['province_code'],
  playback_location: ['playback_location_type', 'playback_location_detail'],
  traffic_source: ['traffic_source_type', 'traffic_source_detail'],
  device_os: ['device_type', 'operating_system'],
  combined: ['playback_location_type', 'traffic_source_type', 'device_type', 'operating_system'],
  demographics: ['age_group', 'gender'],
  sharing_service: ['sharing_service'],
  subtitles: ['subtitle_language', 'subtitle_language_autotranslated'],
  annotations: ['annotation_type', 'annotation_id'],
  cards: ['card_type', 'card_id'],
  end_screens: ['end_screen_element_type', 'end_screen_element_id'],
  revenue: [],
  ad_rates: ['ad_type'],
  city: ['province_code', 'city'],
  retention: ['elapsed_video_time_ratio', 'audience_type'],
  reach: [],
  reach_combined: ['traffic_source_type', 'traffic_source_detail', 'operating_system', 'device_type'],
};

/** Reach reports (§6): channel_reach_basic_a1's header is verified live; the combined one's is not. */
const REACH_BASE = ['date', 'channel_id', 'video_id'];
const REACH_METRICS = ['video_thumbnail_impressions', 'video_thumbnail_impressions_ctr'];

export interface FamilyVersion {
  version: string;
  /** Metric columns of the newest version this one lacks. */
  lacks: readonly string[];
}

export interface ReportFamily {
  /** The report type id without its version, e.g. `channel_traffic_source`. */
  type: string;
  scope: FamilyScope;
  kind: FamilyKind;
  /** Dimension columns in documented order. */
  dimensions: readonly string[];
  /** Metric columns of the newest version in documented order. */
  metrics: readonly string[];
  /** Newest first. */
  versions: readonly FamilyVersion[];
  /** An extension layout (version x1): data the bulk exports do not carry. */
  extension?: true;
}

const ENGAGED = ['engaged_views'];
const ENGAGED_RED = ['engaged_views', ...RED];
/** The 2025 Shorts change added engaged_views: the previous version is the same minus that column (§1.4). */
const viewVersions = (current: string, previous: string): FamilyVersion[] => [
  { version: current, lacks: [] },
  { version: previous, lacks: ENGAGED },
];

const family = (
  type: string,
  scope: FamilyScope,
  kind: FamilyKind,
  base: readonly string[],
  metrics: readonly string[],
  versions: readonly FamilyVersion[],
): ReportFamily => ({ type, scope, kind, dimensions: [...base, ...SLICE_COLUMNS[kind]], metrics, versions });

const only = (version: string): FamilyVersion[] => [{ version, lacks: [] }];

/** Every family the generator writes, in catalogue order (channel, playlist, content owner, asset). */
// biome-ignore format: one family a line reads best
export const REPORT_FAMILIES: readonly ReportFamily[] = [
  family('channel_basic', 'channel', 'basic', BASE, CHANNEL_BASIC_METRICS, [{ version: 'a3', lacks: [] }, { version: 'a2', lacks: ENGAGED }, { version: 'a1', lacks: ENGAGED_RED }]),
  family('channel_province', 'channel', 'province', BASE, PROVINCE_METRICS, viewVersions('a3', 'a2')),
  family('channel_playback_location', 'channel', 'playback_location', BASE, VIEWSET, viewVersions('a3', 'a2')),
  family('channel_traffic_source', 'channel', 'traffic_source', BASE, VIEWSET, viewVersions('a3', 'a2')),
  family('channel_device_os', 'channel', 'device_os', BASE, VIEWSET, viewVersions('a3', 'a2')),
  family('channel_demographics', 'channel', 'demographics', BASE, ['views_percentage'], only('a1')),
  // a1 and a2 of the element reports have the same documented columns (what changed is unknown, §10.6).
  family('channel_sharing_service', 'channel', 'sharing_service', BASE, ['shares'], [{ version: 'a2', lacks: [] }, { version: 'a1', lacks: [] }]),
  family('channel_subtitles', 'channel', 'subtitles', BASE, VIEWSET, viewVersions('a3', 'a2')),
  family('channel_annotations', 'channel', 'annotations', BASE, ANNOTATIONS, [{ version: 'a2', lacks: [] }, { version: 'a1', lacks: [] }]),
  family('channel_cards', 'channel', 'cards', BASE, CARDS, [{ version: 'a2', lacks: [] }, { version: 'a1', lacks: [] }]),
  family('channel_end_screens', 'channel', 'end_screens', BASE, END_SCREENS, [{ version: 'a2', lacks: [] }, { version: 'a1', lacks: [] }]),
  family('channel_combined', 'channel', 'combined', BASE, VIEWSET, viewVersions('a3', 'a2')),
  family('channel_reach_basic', 'channel', 'reach', REACH_BASE, REACH_METRICS, only('a1')),
  family('channel_reach_combined', 'channel', 'reach_combined', REACH_BASE, REACH_METRICS, only('a1')),
  family('playlist_basic', 'playlist', 'basic', PBASE, PSET, viewVersions('a2', 'a1')),
  family('playlist_province', 'playlist', 'province', PBASE, PSET, viewVersions('a2', 'a1')),
  family('playlist_playback_location', 'playlist', 'playback_location', PBASE, PSET, viewVersions('a2', 'a1')),
  family('playlist_traffic_source', 'playlist', 'traffic_source', PBASE, PSET, viewVersions('a2', 'a1')),
  family('playlist_device_os', 'playlist', 'device_os', PBASE, PSET, viewVersions('a2', 'a1')),
  family('playlist_combined', 'playlist', 'combined', PBASE, PSET, viewVersions('a2', 'a1')),
  family('content_owner_basic', 'owner', 'basic', CBASE, CO_BASIC_METRICS, [{ version: 'a4', lacks: [] }, { version: 'a3', lacks: ENGAGED }, { version: 'a2', lacks: ENGAGED_RED }]),
  family('content_owner_province', 'owner', 'province', CBASE, PROVINCE_METRICS, viewVersions('a3', 'a2')),
  family('content_owner_playback_location', 'owner', 'playback_location', CBASE, VIEWSET, viewVersions('a3', 'a2')),
  family('content_owner_traffic_source', 'owner', 'traffic_source', CBASE, VIEWSET, viewVersions('a3', 'a2')),
  family('content_owner_device_os', 'owner', 'device_os', CBASE, VIEWSET, viewVersions('a3', 'a2')),
  family('content_owner_demographics', 'owner', 'demographics', CBASE, ['views_percentage'], only('a1')),
  family('content_owner_sharing_service', 'owner', 'sharing_service', CBASE, ['shares'], only('a1')),
  family('content_owner_subtitles', 'owner', 'subtitles', CBASE, VIEWSET, viewVersions('a3', 'a2')),
  family('content_owner_annotations', 'owner', 'annotations', CBASE, ANNOTATIONS, only('a1')),
  family('content_owner_cards', 'owner', 'cards', CBASE, CARDS, only('a1')),
  family('content_owner_end_screens', 'owner', 'end_screens', CBASE, END_SCREENS, only('a1')),
  family('content_owner_combined', 'owner', 'combined', CBASE, VIEWSET, viewVersions('a3', 'a2')),
  family('content_owner_playlist_basic', 'owner_playlist', 'basic', PBASE, PSET, viewVersions('a2', 'a1')),
  family('content_owner_playlist_province', 'owner_playlist', 'province', PBASE, PSET, viewVersions('a2', 'a1')),
  family('content_owner_playlist_playback_location', 'owner_playlist', 'playback_location', PBASE, PSET, viewVersions('a2', 'a1')),
  family('content_owner_playlist_traffic_source', 'owner_playlist', 'traffic_source', PBASE, PSET, viewVersions('a2', 'a1')),
  family('content_owner_playlist_device_os', 'owner_playlist', 'device_os', PBASE, PSET, viewVersions('a2', 'a1')),
  family('content_owner_playlist_combined', 'owner_playlist', 'combined', PBASE, PSET, viewVersions('a2', 'a1')),
  // Revenue files have no live/subscribed split (§7.3).
  family('content_owner_estimated_revenue', 'owner', 'revenue', ['date', 'channel_id', 'video_id', 'claimed_status', 'uploader_type', 'country_code'], REVENUE_METRICS, only('a1')),
  family('content_owner_ad_rates', 'owner', 'ad_rates', ['date', 'channel_id', 'video_id', 'claimed_status', 'uploader_type', 'country_code'], ['estimated_youtube_ad_revenue', 'ad_impressions', 'estimated_cpm'], only('a1')),
  family('content_owner_asset_basic', 'asset', 'basic', ABASE, ASSET_BASIC_METRICS, viewVersions('a3', 'a2')),
  family('content_owner_asset_province', 'asset', 'province', ABASE, PROVINCE_METRICS, viewVersions('a3', 'a2')),
  family('content_owner_asset_playback_location', 'asset', 'playback_location', ABASE, VIEWSET, viewVersions('a3', 'a2')),
  family('content_owner_asset_traffic_source', 'asset', 'traffic_source', ABASE, VIEWSET, viewVersions('a3', 'a2')),
  family('content_owner_asset_device_os', 'asset', 'device_os', ABASE, VIEWSET, viewVersions('a3', 'a2')),
  family('content_owner_asset_demographics', 'asset', 'demographics', ABASE, ['views_percentage'], only('a1')),
  family('content_owner_asset_sharing_service', 'asset', 'sharing_service', ABASE, ['shares'], only('a1')),
  family('content_owner_asset_combined', 'asset', 'combined', ABASE, VIEWSET, viewVersions('a3', 'a2')),
  family('content_owner_asset_estimated_revenue', 'asset', 'revenue', ['date', 'channel_id', 'video_id', 'asset_id', 'claimed_status', 'uploader_type', 'country_code'], ASSET_REVENUE_METRICS, only('a1')),
];

// ---------------------------------------------------------------------------------------------------------------
// Extensions (functions/core/reports/catalog/families.ts: EXT, CITY, RETENTION and the families XY, XR, XV, XA, XP, YP, YY, YR)

/** The extension columns a video report file may carry, after its documented dimensions. */
export const EXTENSION_COLUMNS = ['creator_content_type', 'youtube_product'] as const;

/** The families whose files get EXTENSION_COLUMNS with `extensions` (the ingest's video families with EXT). */
// biome-ignore format: type list
export const EXTENDED_FAMILY_TYPES: ReadonlySet<string> = new Set([
  'channel_basic', 'channel_province', 'channel_playback_location', 'channel_traffic_source', 'channel_device_os',
  'channel_combined', 'channel_demographics', 'channel_sharing_service',
  'content_owner_basic', 'content_owner_province', 'content_owner_playback_location', 'content_owner_traffic_source',
  'content_owner_device_os', 'content_owner_combined', 'content_owner_demographics', 'content_owner_sharing_service',
]);

// biome-ignore format: column list
const CITY_DIMS = ['video_id', 'subscribed_status', 'country_code', 'province_code', 'city', 'creator_content_type'];
// biome-ignore format: column list
const RETENTION_DIMS = ['video_id', 'elapsed_video_time_ratio', 'audience_type', 'subscribed_status', 'youtube_product', 'creator_content_type'];
// biome-ignore format: column list
const CITY_METRICS = ['views', 'engaged_views', 'red_views', 'watch_time_minutes', 'red_watch_time_minutes', 'average_view_duration_percentage'];
const RETENTION_METRICS = ['views', 'audience_watch_ratio', 'relative_retention_performance'];
const AD_RATE_METRICS = ['estimated_youtube_ad_revenue', 'ad_impressions', 'estimated_cpm'];
/** Content-owner layouts put the owner's columns after video_id, as CBASE does. */
const owned = (dims: readonly string[]) => [
  'date',
  'channel_id',
  'video_id',
  'claimed_status',
  'uploader_type',
  ...dims.slice(1),
];

const extension = (
  type: string,
  scope: FamilyScope,
  kind: FamilyKind,
  dimensions: readonly string[],
  metrics: readonly string[],
): ReportFamily => ({ type, scope, kind, dimensions, metrics, versions: only('x1'), extension: true });

/** The extension layouts, written to `<channel or content owner>/<type>_x1/YYYYMMDD.csv` like the bulk reports. */
// biome-ignore format: one family a line reads best
export const EXTENSION_FAMILIES: readonly ReportFamily[] = [
  extension('channel_city', 'channel', 'city', ['date', 'channel_id', ...CITY_DIMS], CITY_METRICS),
  extension('channel_audience_retention', 'channel', 'retention', ['date', 'channel_id', ...RETENTION_DIMS], RETENTION_METRICS),
  extension('channel_estimated_revenue', 'channel', 'revenue', ['date', 'channel_id', 'video_id', 'country_code', ...EXTENSION_COLUMNS], REVENUE_METRICS),
  extension('channel_ad_rates', 'channel', 'ad_rates', ['date', 'channel_id', 'video_id', 'country_code', 'ad_type'], AD_RATE_METRICS),
  // playlist_basic's rows split over age × gender, as channel_demographics splits channel_basic's.
  extension('playlist_demographics', 'playlist', 'demographics', [...PBASE, ...SLICE_COLUMNS.demographics], ['views_percentage']),
  extension('content_owner_playlist_demographics', 'owner_playlist', 'demographics', [...PBASE, ...SLICE_COLUMNS.demographics], ['views_percentage']),
  extension('content_owner_city', 'owner', 'city', owned(CITY_DIMS), CITY_METRICS),
  extension('content_owner_audience_retention', 'owner', 'retention', owned(RETENTION_DIMS), RETENTION_METRICS),
];

/** The bulk report families, then the extension layouts: the catalogue order of report type ids. */
export const ALL_FAMILIES: readonly ReportFamily[] = [...REPORT_FAMILIES, ...EXTENSION_FAMILIES];

export const FAMILY_BY_TYPE: ReadonlyMap<string, ReportFamily> = new Map(ALL_FAMILIES.map((f) => [f.type, f]));

/** Whether a family belongs to a content owner (its files go under the content owner's folder). */
export const isOwnerFamily = (f: ReportFamily) =>
  f.scope === 'owner' || f.scope === 'owner_playlist' || f.scope === 'asset';

/**
 * The family and version of a report type id such as `channel_traffic_source_a2` or `channel_city_x1`, if the
 * catalogue has it.
 */
export function parseReportType(id: string): { family: ReportFamily; version: FamilyVersion } | undefined {
  const m = /^(.+)_([ax]\d+)$/.exec(id);
  const family = m ? FAMILY_BY_TYPE.get(m[1]!) : undefined;
  const version = family?.versions.find((v) => v.version === m![2]);
  return family && version ? { family, version } : undefined;
}

/**
 * The columns of a report type id, dimensions first, in documented order; with `extensions`, the families of
 * EXTENDED_FAMILY_TYPES also carry EXTENSION_COLUMNS after their dimensions. Throws for an unknown id.
 */
export function reportTypeColumns(id: string, extensions = false): string[] {
  const parsed = parseReportType(id);
  if (!parsed) throw new Error(`unknown report type ${id}`);
  const { family } = parsed;
  const lacks = new Set(parsed.version.lacks);
  const extra = extensions && EXTENDED_FAMILY_TYPES.has(family.type) ? EXTENSION_COLUMNS : [];
  return [...family.dimensions, ...extra, ...family.metrics.filter((m) => !lacks.has(m))];
}

/**
 * The version of a family matching the channel_basic version (the "era"): a3 = current ids; a2 = the newest version
 * without engaged_views; a1 = also without red_*, where the family has such a version. Families whose versions do
 * not differ in those columns stay at their current id.
 */
export function versionForEra(f: ReportFamily, era: 'a1' | 'a2' | 'a3'): FamilyVersion {
  const has = (v: FamilyVersion, c: string) => f.metrics.includes(c) && !v.lacks.includes(c);
  const fits = (v: FamilyVersion, red: boolean) => !has(v, 'engaged_views') && (red || !has(v, 'red_views'));
  if (era === 'a3') return f.versions[0]!;
  return f.versions.find((v) => fits(v, era === 'a2')) ?? f.versions.find((v) => fits(v, true)) ?? f.versions[0]!;
}

// ---------------------------------------------------------------------------------------------------------------
// Value tables. Weights are relative; every code is checked against the ingest's code tables when this module loads.

export type Weights = readonly (readonly [string, number])[];

/** Traffic-source types whose `traffic_source_detail` is filled (reporting-api §2.2); all others leave it empty. */
export const DETAIL_TRAFFIC_TYPES: ReadonlySet<string> = new Set([
  '1',
  '3',
  '4',
  '5',
  '7',
  '8',
  '9',
  '14',
  '17',
  '18',
  '19',
  '20',
  '24',
  '32',
]);

/** Where a long-form video's views come from: browse, suggested and search carry most of them. */
// biome-ignore format: weight table
export const TRAFFIC_LONG: Weights = [
  ['3', 30], ['7', 24], ['5', 14], ['0', 6], ['4', 4], ['14', 4], ['9', 3], ['17', 3], ['24', 2], ['8', 2],
  ['18', 1.5], ['20', 1.2], ['1', 0.6], ['32', 0.5], ['11', 0.3], ['26', 0.3], ['29', 0.1], ['25', 0.05],
];
/** Shorts: mostly the Shorts feed. */
// biome-ignore format: weight table
export const TRAFFIC_SHORT: Weights = [
  ['24', 68], ['3', 7], ['4', 6], ['5', 5], ['0', 2.5], ['7', 2], ['32', 2], ['27', 1.5], ['26', 1.2], ['8', 1],
  ['9', 0.5], ['30', 0.5], ['17', 0.5], ['14', 0.3],
];
/** Live views: browse, notifications, the vertical live feed and live redirects. */
// biome-ignore format: weight table
export const TRAFFIC_LIVE: Weights = [
  ['3', 35], ['17', 18], ['7', 12], ['4', 8], ['0', 6], ['31', 6], ['5', 5], ['28', 4], ['9', 2], ['8', 2], ['14', 1],
];
/** Views in a playlist's context: mostly playlists and playlist pages. */
// biome-ignore format: weight table
export const TRAFFIC_PLAYLIST: Weights = [
  ['14', 45], ['18', 14], ['3', 12], ['7', 8], ['5', 7], ['4', 5], ['0', 4], ['9', 2], ['17', 1.5], ['8', 1.5],
];
/** Claimed videos of a content owner also get "programming from claimed content" (content owner only). */
export const TRAFFIC_CLAIMED_EXTRA: Weights = [['19', 0.8]];

// biome-ignore format: weight table
export const PLAYBACK_LONG: Weights = [['0', 56], ['7', 20], ['2', 7], ['8', 6], ['1', 4], ['10', 2], ['5', 1]];
// biome-ignore format: weight table
export const PLAYBACK_SHORT: Weights = [['10', 80], ['0', 8], ['2', 5], ['8', 3], ['7', 2], ['1', 0.5], ['5', 0.5]];
/** Playback location given the traffic source (combined reports): search → search page, browse → browse, … */
// biome-ignore format: weight table
export const PLAYBACK_BY_TRAFFIC: Readonly<Record<string, Weights>> = {
  '24': [['10', 92], ['0', 8]],
  '27': [['10', 90], ['0', 10]],
  '26': [['10', 60], ['0', 40]],
  '30': [['10', 90], ['0', 10]],
  '31': [['10', 70], ['0', 30]],
  '5': [['0', 58], ['8', 40], ['5', 2]],
  '3': [['7', 68], ['0', 30], ['5', 2]],
  '4': [['2', 62], ['0', 38]],
  '9': [['1', 55], ['0', 45]],
  '0': [['0', 72], ['1', 20], ['5', 8]],
};
export const PLAYBACK_DEFAULT: Weights = [
  ['0', 92],
  ['5', 8],
];
/** Sites and apps embedding the player (playback_location_detail of type 1). */
// biome-ignore format: word list
export const EMBEDDING_SITES: readonly string[] = [
  'www.reddit.com', 'www.facebook.com', 'twitter.com', 'medium.com', 'discord.com', 'www.notion.so',
  'news.ycombinator.com', 'www.tumblr.com', 'wordpress.com', 'www.linkedin.com', 'classroom.google.com',
  'com.google.android.gm', 'com.slack', 'blog.example.org', 'www.allrecipes.com', 'forum.example.net',
];

// biome-ignore format: weight table
export const DEVICES_LONG: Weights = [['104', 52], ['101', 26], ['102', 14], ['105', 6], ['103', 1], ['100', 1]];
// biome-ignore format: weight table
export const DEVICES_SHORT: Weights = [['104', 86], ['101', 6], ['105', 5], ['102', 2], ['100', 1]];
/** Operating system given the device type. */
// biome-ignore format: weight table
export const OS_BY_DEVICE: Readonly<Record<string, Weights>> = {
  '104': [['4', 70], ['5', 29], ['25', 0.4], ['1', 0.5], ['3', 0.05], ['23', 0.05]],
  '101': [['2', 72], ['9', 19], ['13', 4], ['1', 5]],
  '102': [['19', 38], ['4', 22], ['22', 16], ['12', 12], ['21', 10], ['1', 2]],
  '103': [['10', 50], ['17', 45], ['16', 2], ['1', 3]],
  '105': [['5', 56], ['4', 42], ['1', 2]],
  '100': [['1', 85], ['4', 15]],
};

/** Sharing services, worldwide. */
// biome-ignore format: weight table
export const SHARING_GLOBAL: Weights = [
  ['49', 25], ['55', 20], ['10', 9], ['31', 6], ['60', 5], ['82', 5], ['47', 4], ['61', 3], ['75', 3], ['53', 3],
  ['0', 3], ['4', 2], ['46', 2], ['51', 1], ['45', 1], ['42', 1], ['59', 1], ['68', 0.5], ['84', 0.5], ['80', 0.3],
  ['70', 0.2], ['40', 0.2], ['85', 0.1], ['76', 0.1],
];
/** Where a country prefers another service (about 40 % of its shares). */
export const SHARING_BY_COUNTRY: Readonly<Record<string, Weights>> = {
  JP: [
    ['67', 70],
    ['7', 10],
    ['9', 5],
    ['8', 5],
    ['6', 10],
  ],
  KR: [
    ['52', 75],
    ['73', 15],
    ['81', 10],
  ],
  RU: [
    ['36', 60],
    ['39', 25],
    ['75', 15],
  ],
  IN: [['49', 100]],
  BR: [['49', 100]],
  ID: [['49', 100]],
  MX: [['49', 100]],
  PL: [
    ['21', 30],
    ['25', 10],
    ['47', 60],
  ],
  ES: [
    ['20', 20],
    ['49', 80],
  ],
  NL: [
    ['12', 20],
    ['49', 80],
  ],
};

export const AGE_GROUP_WEIGHTS: Weights = [
  ['AGE_13_17', 6],
  ['AGE_18_24', 21],
  ['AGE_25_34', 31],
  ['AGE_35_44', 19],
  ['AGE_45_54', 11],
  ['AGE_55_64', 8],
  ['AGE_65_', 4],
];
/** USER_SPECIFIED is left out: the ingest reads it and GENDER_OTHER as one value, so both would collide. */
export const GENDER_WEIGHTS: Weights = [
  ['MALE', 57],
  ['FEMALE', 41],
  ['GENDER_OTHER', 2],
];

/** US states and DC by population (millions), plus US-ZZ (state unknown). */
// biome-ignore format: weight table
export const US_PROVINCES: Weights = [
  ['US-CA', 39], ['US-TX', 30], ['US-FL', 22], ['US-NY', 19.6], ['US-PA', 13], ['US-IL', 12.5], ['US-OH', 11.8],
  ['US-GA', 11], ['US-NC', 10.8], ['US-MI', 10], ['US-NJ', 9.3], ['US-VA', 8.7], ['US-WA', 7.8], ['US-AZ', 7.4],
  ['US-TN', 7.1], ['US-MA', 7], ['US-IN', 6.9], ['US-MD', 6.2], ['US-MO', 6.2], ['US-WI', 5.9], ['US-CO', 5.9],
  ['US-MN', 5.7], ['US-SC', 5.4], ['US-AL', 5.1], ['US-LA', 4.6], ['US-KY', 4.5], ['US-OR', 4.2], ['US-OK', 4],
  ['US-CT', 3.6], ['US-UT', 3.4], ['US-IA', 3.2], ['US-NV', 3.2], ['US-AR', 3], ['US-MS', 2.9], ['US-KS', 2.9],
  ['US-NM', 2.1], ['US-NE', 2], ['US-ID', 2], ['US-WV', 1.8], ['US-HI', 1.4], ['US-NH', 1.4], ['US-ME', 1.4],
  ['US-MT', 1.1], ['US-RI', 1.1], ['US-DE', 1], ['US-SD', 0.9], ['US-ND', 0.8], ['US-AK', 0.7], ['US-DC', 0.7],
  ['US-VT', 0.6], ['US-WY', 0.6], ['US-ZZ', 3.5],
];

/**
 * Cities of the city extension layouts by country (metro population, millions): `${country}-${name}`, and for the
 * US `${state}-${name}`, whose state prefix is the row's province_code. Every country of the generator has some.
 */
// biome-ignore format: lookup table
export const CITIES: Readonly<Record<string, Weights>> = {
  US: [
    ['US-NY-new_york', 19.5], ['US-CA-los_angeles', 12.8], ['US-IL-chicago', 9.4], ['US-TX-dallas', 7.9],
    ['US-TX-houston', 7.3], ['US-DC-washington', 6.3], ['US-PA-philadelphia', 6.2], ['US-GA-atlanta', 6.2],
    ['US-FL-miami', 6.1], ['US-AZ-phoenix', 5], ['US-MA-boston', 4.9], ['US-CA-san_francisco', 4.6],
    ['US-MI-detroit', 4.3], ['US-WA-seattle', 4], ['US-MN-minneapolis', 3.7], ['US-CA-san_diego', 3.3],
    ['US-CO-denver', 3], ['US-FL-orlando', 2.7], ['US-NC-charlotte', 2.7], ['US-OR-portland', 2.5],
    ['US-TX-austin', 2.4], ['US-NV-las_vegas', 2.3],
  ],
  IN: [
    ['IN-delhi', 32], ['IN-mumbai', 21], ['IN-kolkata', 15], ['IN-bengaluru', 13], ['IN-chennai', 11],
    ['IN-hyderabad', 10], ['IN-ahmedabad', 8], ['IN-pune', 7],
  ],
  BR: [
    ['BR-sao_paulo', 22], ['BR-rio_de_janeiro', 13.5], ['BR-belo_horizonte', 6], ['BR-brasilia', 4.7],
    ['BR-salvador', 4], ['BR-fortaleza', 4],
  ],
  GB: [['GB-london', 14], ['GB-birmingham', 2.9], ['GB-manchester', 2.8], ['GB-leeds', 1.9], ['GB-glasgow', 1.7]],
  DE: [['DE-berlin', 3.7], ['DE-hamburg', 1.9], ['DE-munich', 1.5], ['DE-cologne', 1.1], ['DE-frankfurt', 0.8]],
  JP: [['JP-tokyo', 37], ['JP-osaka', 19], ['JP-nagoya', 9.5], ['JP-fukuoka', 5.5], ['JP-sapporo', 2.6]],
  MX: [['MX-mexico_city', 22], ['MX-guadalajara', 5.3], ['MX-monterrey', 5.3], ['MX-puebla', 3]],
  ID: [['ID-jakarta', 34], ['ID-surabaya', 10], ['ID-bandung', 8.5], ['ID-medan', 4]],
  FR: [['FR-paris', 11], ['FR-lyon', 2.3], ['FR-marseille', 1.9], ['FR-toulouse', 1.4]],
  CA: [['CA-toronto', 6.7], ['CA-montreal', 4.3], ['CA-vancouver', 2.7], ['CA-calgary', 1.6]],
  PH: [['PH-manila', 14], ['PH-cebu', 3], ['PH-davao', 1.8]],
  RU: [['RU-moscow', 12.6], ['RU-saint_petersburg', 5.4], ['RU-novosibirsk', 1.6]],
  TR: [['TR-istanbul', 15.6], ['TR-ankara', 5.7], ['TR-izmir', 3]],
  VN: [['VN-ho_chi_minh_city', 9], ['VN-hanoi', 8]],
  KR: [['KR-seoul', 25], ['KR-busan', 3.4]],
  IT: [['IT-rome', 4.3], ['IT-milan', 3.2], ['IT-naples', 3]],
  ES: [['ES-madrid', 6.7], ['ES-barcelona', 5.6], ['ES-valencia', 1.6]],
  AU: [['AU-sydney', 5.3], ['AU-melbourne', 5.1], ['AU-brisbane', 2.6]],
  PK: [['PK-karachi', 16], ['PK-lahore', 13]],
  EG: [['EG-cairo', 21], ['EG-alexandria', 5.4]],
  TH: [['TH-bangkok', 11], ['TH-chiang_mai', 1.2]],
  PL: [['PL-warsaw', 3.1], ['PL-krakow', 1.4]],
  AR: [['AR-buenos_aires', 15.5], ['AR-cordoba', 1.6]],
  CO: [['CO-bogota', 11], ['CO-medellin', 4]],
  NL: [['NL-amsterdam', 2.5], ['NL-rotterdam', 1]],
  SA: [['SA-riyadh', 7.7], ['SA-jeddah', 4.7]],
  NG: [['NG-lagos', 15], ['NG-abuja', 3.8]],
  ZA: [['ZA-johannesburg', 6.2], ['ZA-cape_town', 4.8]],
  SE: [['SE-stockholm', 2.4]],
  IE: [['IE-dublin', 1.4]],
  NZ: [['NZ-auckland', 1.7]],
  SG: [['SG-singapore', 5.9]],
  IS: [['IS-reykjavik', 0.24]],
  LU: [['LU-luxembourg', 0.13]],
  MT: [['MT-valletta', 0.4]],
};

/** Viewers' language by country, for the caption language of subtitle reports (channels speak English). */
// biome-ignore format: lookup table
export const COUNTRY_LANGUAGE: Readonly<Record<string, string>> = {
  IN: 'hi', BR: 'pt', DE: 'de', JP: 'ja', MX: 'es', ID: 'id', FR: 'fr', PH: 'tl', RU: 'ru', TR: 'tr', VN: 'vi',
  KR: 'ko', IT: 'it', ES: 'es', PK: 'ur', EG: 'ar', TH: 'th', PL: 'pl', AR: 'es', CO: 'es', NL: 'nl', SA: 'ar',
  SE: 'sv', IS: 'is', LU: 'fr',
};
/** Languages with a human translation on some videos (not auto-translated). */
export const TRANSLATED_LANGUAGES: readonly string[] = ['es', 'pt', 'hi', 'de', 'fr'];

// biome-ignore format: weight table
export const ANNOTATION_TYPES: Weights = [
  ['4', 20], ['1', 18], ['3', 15], ['8', 10], ['9', 10], ['11', 8], ['12', 5], ['30', 8], ['10', 4], ['0', 2],
];
// biome-ignore format: weight table
export const CARD_TYPES: Weights = [
  ['62', 45], ['63', 20], ['60', 12], ['69', 10], ['68', 5], ['66', 3], ['61', 2], ['65', 1], ['0', 2],
];
// biome-ignore format: weight table
export const END_SCREEN_TYPES: Weights = [
  ['501', 35], ['510', 20], ['509', 15], ['505', 15], ['502', 8], ['504', 4], ['503', 2], ['506', 0.5], ['507', 0.3],
  ['508', 0.2],
];
/** Click rate of an end-screen element by type (a subscribe button is clicked less than a video). */
// biome-ignore format: lookup table
export const END_SCREEN_CTR: Readonly<Record<string, number>> = {
  '501': 0.05, '510': 0.06, '509': 0.045, '505': 0.012, '502': 0.03, '504': 0.02, '503': 0.01, '506': 0.01,
  '507': 0.008, '508': 0.008,
};

/** Ad formats of monetized playbacks; skippable auction ads dominate. */
// biome-ignore format: weight table
export const AD_TYPE_WEIGHTS: Weights = [
  ['1', 55], ['3', 14], ['19', 10], ['2', 7], ['15', 4], ['6', 3], ['13', 3], ['5', 2], ['20', 2],
];
/** CPM multiplier by ad type (reserved and non-skippable ads sell dearer, display and bumpers cheaper). */
// biome-ignore format: lookup table
export const AD_TYPE_CPM: Readonly<Record<string, number>> = {
  '1': 1, '2': 0.35, '3': 1.3, '5': 0.6, '6': 2, '13': 0.8, '15': 1.6, '19': 0.7, '20': 1.1,
};
/** Typical gross CPM (USD per 1000 ad impressions) by viewer country; ZZ = unknown. */
// biome-ignore format: lookup table
export const COUNTRY_CPM: Readonly<Record<string, number>> = {
  US: 9, IN: 0.6, BR: 1.5, GB: 7, DE: 7, JP: 5, MX: 1.5, ID: 0.8, FR: 5, CA: 7, PH: 0.7, RU: 0.8, TR: 1, VN: 0.6,
  KR: 4, IT: 4, ES: 4, AU: 8, PK: 0.4, EG: 0.5, TH: 1.2, PL: 2.5, AR: 1, CO: 1, NL: 6, SA: 3, NG: 0.5, ZA: 2,
  SE: 6, IE: 6, NZ: 6, SG: 5, IS: 6, LU: 7, MT: 4, ZZ: 1,
};
/** Ad demand by month (Q4 holiday season high, January low). */
export const MONTH_CPM: readonly number[] = [0.75, 0.8, 0.9, 0.9, 0.95, 0.95, 0.9, 0.9, 1, 1.05, 1.2, 1.35];

// Vocabulary of the free-text detail columns. Two search terms need CSV quoting on purpose.
// biome-ignore format: word list
export const SEARCH_WORDS: readonly (readonly string[])[] = [
  ['easy', 'quick', 'best', 'simple', 'healthy', 'cheap', 'vegan', 'homemade', 'one pot', '5 minute', 'beginner'],
  ['pasta', 'bread', 'curry', 'tacos', 'soup', 'salad', 'pizza', 'noodles', 'cake', 'ramen', 'dinner', 'breakfast'],
  ['recipe', 'tutorial', 'how to make', 'at home', 'review', 'tips', 'for beginners', '2026', 'meal prep', ''],
];
export const SEARCH_EXTRA: readonly string[] = [
  'receta fácil',
  'receita de bolo',
  'रेसिपी',
  'レシピ 簡単',
  'pasta, no oven',
  'the "best" lasagna',
];
export const BROWSE_FEATURES: readonly string[] = [
  'what-to-watch',
  'subscriptions',
  'watch-later',
  'history',
  'trending',
  'library',
];
export const OTHER_PAGES: readonly string[] = ['offline', 'unknown', 'ytremote'];
// biome-ignore format: word list
export const EXTERNAL_SITES: readonly string[] = [
  'google.com', 'www.google.com', 'facebook.com', 'm.facebook.com', 'www.reddit.com', 't.co', 'bing.com',
  'duckduckgo.com', 'instagram.com', 'www.linkedin.com', 'news.ycombinator.com', 'pinterest.com', 'discord.com',
  'search.yahoo.co.jp', 'search.naver.com', 'vk.com', 'www.allrecipes.com', 'https://blog.example.org/weeknight-meals',
];
export const NOTIFICATION_KINDS: readonly string[] = ['inbox', 'push', 'sdig', 'uploaded_other', 'uploaded_push'];
export const AD_DETAILS: readonly string[] = ['trueview_instream', 'trueview_discovery', 'bumper', 'unknown'];

/**
 * The weights restricted to codes the ingest's code table names: the code tables decide which codes exist (a code
 * they drop is never written); the unit tests check that no weight table names an unknown code.
 */
export function knownCodes(table: Readonly<Record<string, string>>, weights: Weights): Weights {
  return weights.filter(([code]) => Object.hasOwn(table, code));
}

/** Every weight table of a code column, with the code table its codes must come from (for tests). */
export const CODE_WEIGHT_TABLES: readonly (readonly [string, Readonly<Record<string, string>>, Weights])[] = [
  ['traffic long', TRAFFIC_SOURCE_TYPES, TRAFFIC_LONG],
  ['traffic short', TRAFFIC_SOURCE_TYPES, TRAFFIC_SHORT],
  ['traffic live', TRAFFIC_SOURCE_TYPES, TRAFFIC_LIVE],
  ['traffic playlist', TRAFFIC_SOURCE_TYPES, TRAFFIC_PLAYLIST],
  ['traffic claimed', TRAFFIC_SOURCE_TYPES, TRAFFIC_CLAIMED_EXTRA],
  ['traffic detail types', TRAFFIC_SOURCE_TYPES, [...DETAIL_TRAFFIC_TYPES].map((c) => [c, 1] as const)],
  ['playback long', PLAYBACK_LOCATION_TYPES, PLAYBACK_LONG],
  ['playback short', PLAYBACK_LOCATION_TYPES, PLAYBACK_SHORT],
  ['playback default', PLAYBACK_LOCATION_TYPES, PLAYBACK_DEFAULT],
  ...Object.entries(PLAYBACK_BY_TRAFFIC).map(
    ([t, w]) => [`playback after traffic ${t}`, PLAYBACK_LOCATION_TYPES, w] as const,
  ),
  ['devices long', DEVICE_TYPES, DEVICES_LONG],
  ['devices short', DEVICE_TYPES, DEVICES_SHORT],
  ...Object.entries(OS_BY_DEVICE).map(([d, w]) => [`os of device ${d}`, OPERATING_SYSTEMS, w] as const),
  ['sharing', SHARING_SERVICES, SHARING_GLOBAL],
  ...Object.entries(SHARING_BY_COUNTRY).map(([c, w]) => [`sharing in ${c}`, SHARING_SERVICES, w] as const),
  ['ad types', AD_TYPES, AD_TYPE_WEIGHTS],
  ['age groups', AGE_GROUPS, AGE_GROUP_WEIGHTS],
  ['genders', GENDERS, GENDER_WEIGHTS],
];
