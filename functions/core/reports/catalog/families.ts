/**
 * Report families, as data: each YouTube Reporting API bulk report type (reporting-api.md §4, §5, §7) with its
 * dimension columns (and the Analytics dimension each one feeds), its metric columns (and the stored measure each
 * one feeds), its versions, and whether reports.query may answer from it. Ingest reads files by these definitions;
 * the planner picks, for a query, the one family that holds every dimension and measure it needs (numbers are never
 * added across report types: each is a different slicing of the same views).
 */
import {
  AD_TYPES,
  AGE_GROUPS,
  ANALYTICS_VALUES,
  DEVICE_TYPES,
  GENDERS,
  LIVE_OR_ON_DEMAND,
  mapCode,
  mapWord,
  OPERATING_SYSTEMS,
  PLAYBACK_LOCATION_TYPES,
  SHARING_SERVICES,
  SUBSCRIBED_STATUS,
  TRAFFIC_SOURCE_TYPES,
} from '../ingest/code-tables';
import type { Measure } from './metrics';

/** Parses one cell into the stored dimension value; undefined means malformed (the file is rejected). */
export type CellParser = (raw: string) => string | undefined;

export interface DimensionColumn {
  /** The CSV column. */
  readonly column: string;
  /** The Analytics dimension (or a stored-only name for columns the Analytics API has no dimension for). */
  readonly dim: string;
  readonly parse: CellParser;
  /** What a malformed cell should have been, for the error message. */
  readonly expected: string;
  /**
   * An extension column (data the bulk exports do not carry): files may omit it, and then every row has this
   * value. Extension columns take no part in recognising a file's report type.
   */
  readonly missing?: string;
}

export type FamilyOwner = 'channel' | 'contentOwner';
/** What a family answers: video reports, playlist reports, revenue, ad performance, or nothing (stored only). */
export type FamilyKind = 'video' | 'playlist' | 'revenue' | 'ad' | 'stored';

export interface FamilyDef {
  /** Short, stable storage code (part of every fact key). */
  readonly code: string;
  /** The report type id without its version suffix, e.g. `channel_traffic_source`. */
  readonly type: string;
  readonly owner: FamilyOwner;
  readonly kind: FamilyKind;
  /** Versions, oldest first; `markers` name the columns that first appear in a version. */
  readonly versions: readonly string[];
  readonly markers?: Readonly<Record<string, readonly string[]>>;
  /** Dimension columns besides `date` (and, for channel families, `channel_id`, which names the owner). */
  readonly columns: readonly DimensionColumn[];
  /** Metric column → stored measure. Rates and averages are recomputed from sums, so their columns are skipped. */
  readonly measures: Readonly<Record<string, Measure>>;
}

const text: CellParser = (raw) => raw.trim();
const nonEmpty: CellParser = (raw) => raw.trim() || undefined;
/**
 * A numeric code column. Google adds codes before any table names them (operating systems 26–31, Stories traffic):
 * a well-formed code we cannot name goes to the dimension's catch-all value rather than rejecting a real export.
 */
const codeOf =
  (table: Readonly<Record<string, string>>, catchAll: string): CellParser =>
  (raw) =>
    mapCode(table, raw) ?? (/^\d+(\.0+)?$/.test(raw.trim()) ? catchAll : undefined);
const wordOf =
  (table: Readonly<Record<string, string>>): CellParser =>
  (raw) =>
    mapWord(table, raw);
const country: CellParser = (raw) => {
  const v = raw.trim().toUpperCase();
  return /^[A-Z]{2}$/.test(v) ? v : undefined;
};
const province: CellParser = (raw) => {
  const v = raw.trim().toUpperCase();
  return /^US-[A-Z]{2}$/.test(v) ? v : undefined;
};
const claimed: CellParser = (raw) => {
  const v = raw.trim().toLowerCase();
  return v === '' || v === 'claimed' ? v : undefined;
};
const uploader: CellParser = (raw) => {
  const v = raw.trim();
  return v === 'self' || v === 'thirdParty' ? v : v.toLowerCase() === 'thirdparty' ? 'thirdParty' : undefined;
};

const col = (column: string, dim: string, parse: CellParser, expected: string): DimensionColumn => ({
  column,
  dim,
  parse,
  expected,
});
const oneOf =
  (values: readonly string[]): CellParser =>
  (raw) => {
    const v = raw.trim();
    return values.find((x) => x.toLowerCase() === v.toLowerCase());
  };
const elapsedRatio: CellParser = (raw) => {
  const v = Number(raw.trim());
  // 0.01 … 1.0 in steps of 0.01, written the way the Analytics API writes them.
  if (raw.trim() === '' || !Number.isFinite(v) || v <= 0 || v > 1) return undefined;
  const hundredths = Math.round(v * 100);
  return Math.abs(v * 100 - hundredths) < 1e-6 ? String(hundredths / 100) : undefined;
};

export const COLUMNS = {
  channel: col('channel_id', 'channel', nonEmpty, 'a channel id'),
  video: col('video_id', 'video', text, 'a video id or empty'),
  playlist: col('playlist_id', 'playlist', nonEmpty, 'a playlist id'),
  asset: col('asset_id', 'asset', nonEmpty, 'an asset id'),
  claimed: col('claimed_status', 'claimedStatus', claimed, 'claimed or empty'),
  uploader: col('uploader_type', 'uploaderType', uploader, 'self or thirdParty'),
  live: col('live_or_on_demand', 'liveOrOnDemand', wordOf(LIVE_OR_ON_DEMAND), 'live or on_demand'),
  subscribed: col('subscribed_status', 'subscribedStatus', wordOf(SUBSCRIBED_STATUS), 'subscribed or not_subscribed'),
  country: col('country_code', 'country', country, 'a country code'),
  province: col('province_code', 'province', province, 'a US-XX province code'),
  provinceOrEmpty: col(
    'province_code',
    'province',
    (raw) => (raw.trim() === '' ? '' : province(raw)),
    'a US-XX province code or empty',
  ),
  city: col('city', 'city', nonEmpty, 'a city id'),
  elapsed: col(
    'elapsed_video_time_ratio',
    'elapsedVideoTimeRatio',
    elapsedRatio,
    'a ratio 0.01 … 1.0 in steps of 0.01',
  ),
  audienceType: col(
    'audience_type',
    'audienceType',
    oneOf(ANALYTICS_VALUES.audienceType ?? []),
    'ORGANIC, AD_INSTREAM or AD_INDISPLAY',
  ),
  creatorType: {
    ...col(
      'creator_content_type',
      'creatorContentType',
      oneOf([...(ANALYTICS_VALUES.creatorContentType ?? []), 'UNSPECIFIED']),
      'SHORTS, VIDEO_ON_DEMAND, LIVE_STREAM or STORY',
    ),
    missing: 'UNSPECIFIED',
  },
  product: {
    ...col(
      'youtube_product',
      'youtubeProduct',
      oneOf(ANALYTICS_VALUES.youtubeProduct ?? []),
      'CORE, GAMING, KIDS or UNKNOWN',
    ),
    missing: 'UNKNOWN',
  },
  playbackType: col(
    'playback_location_type',
    'insightPlaybackLocationType',
    codeOf(PLAYBACK_LOCATION_TYPES, 'YT_OTHER'),
    'a playback location code',
  ),
  playbackDetail: col('playback_location_detail', 'insightPlaybackLocationDetail', text, 'text'),
  trafficType: col(
    'traffic_source_type',
    'insightTrafficSourceType',
    codeOf(TRAFFIC_SOURCE_TYPES, 'NO_LINK_OTHER'),
    'a traffic source code',
  ),
  trafficDetail: col('traffic_source_detail', 'insightTrafficSourceDetail', text, 'text'),
  device: col('device_type', 'deviceType', codeOf(DEVICE_TYPES, 'UNKNOWN_PLATFORM'), 'a device type code'),
  os: col('operating_system', 'operatingSystem', codeOf(OPERATING_SYSTEMS, 'OTHER'), 'an operating system code'),
  age: col('age_group', 'ageGroup', wordOf(AGE_GROUPS), 'an age group like AGE_18_24'),
  gender: col('gender', 'gender', wordOf(GENDERS), 'FEMALE, MALE or GENDER_OTHER'),
  sharing: col('sharing_service', 'sharingService', codeOf(SHARING_SERVICES, 'OTHER'), 'a sharing service code'),
  adType: col('ad_type', 'adType', codeOf(AD_TYPES, 'unknown'), 'an ad type code'),
  subtitleLanguage: col('subtitle_language', 'subtitleLanguage', text, 'text'),
  subtitleAuto: col('subtitle_language_autotranslated', 'subtitleAutotranslated', text, 'text'),
  annotationType: col('annotation_type', 'annotationType', text, 'a code'),
  annotationId: col('annotation_id', 'annotationId', text, 'an id'),
  cardType: col('card_type', 'cardType', text, 'a code'),
  cardId: col('card_id', 'cardId', text, 'an id'),
  endScreenType: col('end_screen_element_type', 'endScreenElementType', text, 'a code'),
  endScreenId: col('end_screen_element_id', 'endScreenElementId', text, 'an id'),
} as const;

const C = COLUMNS;

const VIEWSET: Readonly<Record<string, Measure>> = {
  views: 'views',
  engaged_views: 'engagedViews',
  red_views: 'redViews',
  watch_time_minutes: 'watchMinutes',
  red_watch_time_minutes: 'redWatchMinutes',
  average_view_duration_percentage: 'viewPercentageWeighted',
};
const ANNOTATIONS: Readonly<Record<string, Measure>> = {
  annotation_impressions: 'annotationImpressions',
  annotation_clickable_impressions: 'annotationClickableImpressions',
  annotation_closable_impressions: 'annotationClosableImpressions',
  annotation_clicks: 'annotationClicks',
  annotation_closes: 'annotationCloses',
};
const CARDS: Readonly<Record<string, Measure>> = {
  card_impressions: 'cardImpressions',
  card_clicks: 'cardClicks',
  card_teaser_impressions: 'cardTeaserImpressions',
  card_teaser_clicks: 'cardTeaserClicks',
};
const BASIC: Readonly<Record<string, Measure>> = {
  ...VIEWSET,
  comments: 'comments',
  likes: 'likes',
  dislikes: 'dislikes',
  shares: 'shares',
  videos_added_to_playlists: 'videosAddedToPlaylists',
  videos_removed_from_playlists: 'videosRemovedFromPlaylists',
  ...ANNOTATIONS,
  ...CARDS,
  subscribers_gained: 'subscribersGained',
  subscribers_lost: 'subscribersLost',
};
const PROVINCE_MEASURES: Readonly<Record<string, Measure>> = { ...VIEWSET, ...ANNOTATIONS, ...CARDS };
const PSET: Readonly<Record<string, Measure>> = {
  views: 'views',
  engaged_views: 'engagedViews',
  watch_time_minutes: 'watchMinutes',
  playlist_starts: 'playlistStarts',
  playlist_saves_added: 'playlistSavesAdded',
  playlist_saves_removed: 'playlistSavesRemoved',
};
const REVENUE: Readonly<Record<string, Measure>> = {
  estimated_partner_revenue: 'estimatedRevenue',
  estimated_partner_ad_revenue: 'estimatedAdRevenue',
  estimated_partner_ad_auction_revenue: 'adAuctionRevenue',
  estimated_partner_ad_sense_revenue: 'adAuctionRevenue',
  estimated_partner_ad_reserved_revenue: 'adReservedRevenue',
  estimated_partner_double_click_revenue: 'adReservedRevenue',
  estimated_partner_red_revenue: 'estimatedRedPartnerRevenue',
  estimated_partner_transaction_revenue: 'transactionRevenue',
  estimated_youtube_ad_revenue: 'grossRevenue',
  estimated_monetized_playbacks: 'monetizedPlaybacks',
  ad_impressions: 'adImpressions',
};

/**
 * Reach reports (reporting-api.md §6): impressions, and the click-through rate stored as clicks (impressions × rate,
 * per row; report-file.ts) so rates over any set of rows are recomputed, never averaged.
 */
const REACH: Readonly<Record<string, Measure>> = {
  video_thumbnail_impressions: 'thumbnailImpressions',
  video_thumbnail_impressions_ctr: 'thumbnailClicks',
};

/**
 * The column prefixes of reporting-api.md: BASE (channel), PBASE (playlist), CBASE (content owner), ABASE (asset).
 * Video reports also accept the extension columns creator_content_type and youtube_product (reports #3–#30 group
 * or filter by them; the bulk exports do not carry them).
 */
const EXT = [C.creatorType, C.product];
const BASE = [C.video, C.live, C.subscribed, C.country, ...EXT];
const PBASE = [C.playlist, C.video, C.live, C.subscribed, C.country];
const CBASE = [C.channel, C.video, C.claimed, C.uploader, C.live, C.subscribed, C.country, ...EXT];
const ABASE = [C.channel, C.video, C.asset, C.claimed, C.uploader, C.live, C.subscribed, C.country];
/** Extension layouts (documented in the README): city, audience retention. */
const CITY = [C.video, C.subscribed, C.country, C.provinceOrEmpty, C.city, C.creatorType];
const RETENTION = [C.video, C.elapsed, C.audienceType, C.subscribed, C.product, C.creatorType];
const RETENTION_MEASURES: Readonly<Record<string, Measure>> = {
  views: 'views',
  audience_watch_ratio: 'watchRatioWeighted',
  relative_retention_performance: 'relativeRetentionWeighted',
};
const CO_PBASE = [C.channel, ...PBASE];

/** Slicing columns shared by the channel, playlist and content-owner variants of a family. */
const SLICES = {
  basic: [],
  province: [C.province],
  playback_location: [C.playbackType, C.playbackDetail],
  traffic_source: [C.trafficType, C.trafficDetail],
  device_os: [C.device, C.os],
  combined: [C.playbackType, C.trafficType, C.device, C.os],
  demographics: [C.age, C.gender],
  sharing_service: [C.sharing],
  subtitles: [C.subtitleLanguage, C.subtitleAuto],
  annotations: [C.annotationType, C.annotationId],
  cards: [C.cardType, C.cardId],
  end_screens: [C.endScreenType, C.endScreenId],
} as const satisfies Record<string, readonly DimensionColumn[]>;

const ENGAGED = ['engaged_views'];
const RED = ['red_views', 'red_watch_time_minutes'];

const fam = (
  code: string,
  type: string,
  owner: FamilyOwner,
  kind: FamilyKind,
  versions: readonly string[],
  columns: readonly DimensionColumn[],
  measures: Readonly<Record<string, Measure>>,
  markers?: Readonly<Record<string, readonly string[]>>,
): FamilyDef => ({ code, type, owner, kind, versions, columns, measures, ...(markers ? { markers } : {}) });

// biome-ignore format: one family a line reads best
export const FAMILIES: readonly FamilyDef[] = [
  fam('CB', 'channel_basic', 'channel', 'video', ['a1', 'a2', 'a3'], BASE, BASIC, { a2: RED, a3: ENGAGED }),
  fam('CP', 'channel_province', 'channel', 'video', ['a2', 'a3'], [...BASE, ...SLICES.province], PROVINCE_MEASURES, { a3: ENGAGED }),
  fam('CL', 'channel_playback_location', 'channel', 'video', ['a2', 'a3'], [...BASE, ...SLICES.playback_location], VIEWSET, { a3: ENGAGED }),
  fam('CT', 'channel_traffic_source', 'channel', 'video', ['a2', 'a3'], [...BASE, ...SLICES.traffic_source], VIEWSET, { a3: ENGAGED }),
  fam('CD', 'channel_device_os', 'channel', 'video', ['a2', 'a3'], [...BASE, ...SLICES.device_os], VIEWSET, { a3: ENGAGED }),
  fam('CX', 'channel_combined', 'channel', 'video', ['a2', 'a3'], [...BASE, ...SLICES.combined], VIEWSET, { a3: ENGAGED }),
  fam('CG', 'channel_demographics', 'channel', 'video', ['a1'], [...BASE, ...SLICES.demographics], { views_percentage: 'viewerShare' }),
  fam('CS', 'channel_sharing_service', 'channel', 'video', ['a1', 'a2'], [...BASE, ...SLICES.sharing_service], { shares: 'shares' }),
  fam('CU', 'channel_subtitles', 'channel', 'stored', ['a2', 'a3'], [...BASE, ...SLICES.subtitles], VIEWSET, { a3: ENGAGED }),
  fam('CA', 'channel_annotations', 'channel', 'stored', ['a1', 'a2'], [...BASE, ...SLICES.annotations], ANNOTATIONS),
  fam('CC', 'channel_cards', 'channel', 'stored', ['a1', 'a2'], [...BASE, ...SLICES.cards], CARDS),
  fam('CE', 'channel_end_screens', 'channel', 'stored', ['a1', 'a2'], [...BASE, ...SLICES.end_screens], { end_screen_element_impressions: 'endScreenImpressions', end_screen_element_clicks: 'endScreenClicks' }),
  // Reach: channel_reach_basic_a1's header is verified against a real file; channel_reach_combined_a1's columns come
  // from third-party registries (not verified against a real header). The content-owner reach reports' columns are
  // not known, so they are not read.
  fam('RB', 'channel_reach_basic', 'channel', 'video', ['a1'], [C.video], REACH),
  fam('RC', 'channel_reach_combined', 'channel', 'video', ['a1'], [C.video, C.trafficType, C.trafficDetail, C.os, C.device], REACH),
  fam('PB', 'playlist_basic', 'channel', 'playlist', ['a1', 'a2'], PBASE, PSET, { a2: ENGAGED }),
  fam('PP', 'playlist_province', 'channel', 'playlist', ['a1', 'a2'], [...PBASE, ...SLICES.province], PSET, { a2: ENGAGED }),
  fam('PL', 'playlist_playback_location', 'channel', 'playlist', ['a1', 'a2'], [...PBASE, ...SLICES.playback_location], PSET, { a2: ENGAGED }),
  fam('PT', 'playlist_traffic_source', 'channel', 'playlist', ['a1', 'a2'], [...PBASE, ...SLICES.traffic_source], PSET, { a2: ENGAGED }),
  fam('PD', 'playlist_device_os', 'channel', 'playlist', ['a1', 'a2'], [...PBASE, ...SLICES.device_os], PSET, { a2: ENGAGED }),
  fam('PX', 'playlist_combined', 'channel', 'playlist', ['a1', 'a2'], [...PBASE, ...SLICES.combined], PSET, { a2: ENGAGED }),
  fam('OB', 'content_owner_basic', 'contentOwner', 'video', ['a1', 'a2', 'a3', 'a4'], CBASE, BASIC, { a3: RED, a4: ENGAGED }),
  fam('OP', 'content_owner_province', 'contentOwner', 'video', ['a2', 'a3'], [...CBASE, ...SLICES.province], PROVINCE_MEASURES, { a3: ENGAGED }),
  fam('OL', 'content_owner_playback_location', 'contentOwner', 'video', ['a2', 'a3'], [...CBASE, ...SLICES.playback_location], VIEWSET, { a3: ENGAGED }),
  fam('OT', 'content_owner_traffic_source', 'contentOwner', 'video', ['a2', 'a3'], [...CBASE, ...SLICES.traffic_source], VIEWSET, { a3: ENGAGED }),
  fam('OD', 'content_owner_device_os', 'contentOwner', 'video', ['a2', 'a3'], [...CBASE, ...SLICES.device_os], VIEWSET, { a3: ENGAGED }),
  fam('OX', 'content_owner_combined', 'contentOwner', 'video', ['a2', 'a3'], [...CBASE, ...SLICES.combined], VIEWSET, { a3: ENGAGED }),
  fam('OG', 'content_owner_demographics', 'contentOwner', 'video', ['a1'], [...CBASE, ...SLICES.demographics], { views_percentage: 'viewerShare' }),
  fam('OS', 'content_owner_sharing_service', 'contentOwner', 'video', ['a1'], [...CBASE, ...SLICES.sharing_service], { shares: 'shares' }),
  fam('OU', 'content_owner_subtitles', 'contentOwner', 'stored', ['a2', 'a3'], [...CBASE, ...SLICES.subtitles], VIEWSET, { a3: ENGAGED }),
  fam('OA', 'content_owner_annotations', 'contentOwner', 'stored', ['a1'], [...CBASE, ...SLICES.annotations], ANNOTATIONS),
  fam('OC', 'content_owner_cards', 'contentOwner', 'stored', ['a1'], [...CBASE, ...SLICES.cards], CARDS),
  fam('OE', 'content_owner_end_screens', 'contentOwner', 'stored', ['a1'], [...CBASE, ...SLICES.end_screens], { end_screen_element_impressions: 'endScreenImpressions', end_screen_element_clicks: 'endScreenClicks' }),
  fam('QB', 'content_owner_playlist_basic', 'contentOwner', 'playlist', ['a1', 'a2'], CO_PBASE, PSET, { a2: ENGAGED }),
  fam('QP', 'content_owner_playlist_province', 'contentOwner', 'playlist', ['a1', 'a2'], [...CO_PBASE, ...SLICES.province], PSET, { a2: ENGAGED }),
  fam('QL', 'content_owner_playlist_playback_location', 'contentOwner', 'playlist', ['a1', 'a2'], [...CO_PBASE, ...SLICES.playback_location], PSET, { a2: ENGAGED }),
  fam('QT', 'content_owner_playlist_traffic_source', 'contentOwner', 'playlist', ['a1', 'a2'], [...CO_PBASE, ...SLICES.traffic_source], PSET, { a2: ENGAGED }),
  fam('QD', 'content_owner_playlist_device_os', 'contentOwner', 'playlist', ['a1', 'a2'], [...CO_PBASE, ...SLICES.device_os], PSET, { a2: ENGAGED }),
  fam('QX', 'content_owner_playlist_combined', 'contentOwner', 'playlist', ['a1', 'a2'], [...CO_PBASE, ...SLICES.combined], PSET, { a2: ENGAGED }),
  fam('OR', 'content_owner_estimated_revenue', 'contentOwner', 'revenue', ['a1', 'a2'], [C.channel, C.video, C.claimed, C.uploader, C.country], REVENUE),
  fam('OM', 'content_owner_ad_rates', 'contentOwner', 'ad', ['a1'], [C.channel, C.video, C.claimed, C.uploader, C.country, C.adType], { estimated_youtube_ad_revenue: 'grossRevenue', ad_impressions: 'adImpressions' }),
  fam('AB', 'content_owner_asset_basic', 'contentOwner', 'stored', ['a2', 'a3'], ABASE, BASIC, { a3: ENGAGED }),
  fam('AP', 'content_owner_asset_province', 'contentOwner', 'stored', ['a2', 'a3'], [...ABASE, ...SLICES.province], PROVINCE_MEASURES, { a3: ENGAGED }),
  fam('AL', 'content_owner_asset_playback_location', 'contentOwner', 'stored', ['a2', 'a3'], [...ABASE, ...SLICES.playback_location], VIEWSET, { a3: ENGAGED }),
  fam('AT', 'content_owner_asset_traffic_source', 'contentOwner', 'stored', ['a2', 'a3'], [...ABASE, ...SLICES.traffic_source], VIEWSET, { a3: ENGAGED }),
  fam('AD', 'content_owner_asset_device_os', 'contentOwner', 'stored', ['a2', 'a3'], [...ABASE, ...SLICES.device_os], VIEWSET, { a3: ENGAGED }),
  fam('AX', 'content_owner_asset_combined', 'contentOwner', 'stored', ['a2', 'a3'], [...ABASE, ...SLICES.combined], VIEWSET, { a3: ENGAGED }),
  fam('AG', 'content_owner_asset_demographics', 'contentOwner', 'stored', ['a1'], [...ABASE, ...SLICES.demographics], { views_percentage: 'viewerShare' }),
  fam('AS', 'content_owner_asset_sharing_service', 'contentOwner', 'stored', ['a1'], [...ABASE, ...SLICES.sharing_service], { shares: 'shares' }),
  // Extensions: the same CSV style for data the bulk exports do not carry (see the README).
  fam('XY', 'channel_city', 'channel', 'video', ['x1'], CITY, VIEWSET),
  fam('XR', 'channel_audience_retention', 'channel', 'video', ['x1'], RETENTION, RETENTION_MEASURES),
  fam('XV', 'channel_estimated_revenue', 'channel', 'revenue', ['x1'], [C.video, C.country, ...EXT], REVENUE),
  fam('XA', 'channel_ad_rates', 'channel', 'ad', ['x1'], [C.video, C.country, C.adType], { estimated_youtube_ad_revenue: 'grossRevenue', ad_impressions: 'adImpressions' }),
  fam('XP', 'playlist_demographics', 'channel', 'playlist', ['x1'], [...PBASE, ...SLICES.demographics], { views_percentage: 'viewerShare' }),
  fam('YP', 'content_owner_playlist_demographics', 'contentOwner', 'playlist', ['x1'], [...CO_PBASE, ...SLICES.demographics], { views_percentage: 'viewerShare' }),
  fam('YY', 'content_owner_city', 'contentOwner', 'video', ['x1'], [C.channel, C.claimed, C.uploader, ...CITY], VIEWSET),
  fam('YR', 'content_owner_audience_retention', 'contentOwner', 'video', ['x1'], [C.channel, C.claimed, C.uploader, ...RETENTION], RETENTION_MEASURES),
  fam('AR', 'content_owner_asset_estimated_revenue', 'contentOwner', 'stored', ['a1'], [C.channel, C.video, C.asset, C.claimed, C.uploader, C.country], REVENUE),
];

export const FAMILY_BY_CODE: ReadonlyMap<string, FamilyDef> = new Map(FAMILIES.map((f) => [f.code, f]));
export const CHANNEL_BASIC = FAMILY_BY_CODE.get('CB') as FamilyDef;

/** An extension layout (version x1): data the bulk exports do not carry, used only where no bulk report serves. */
export const isExtension = (f: FamilyDef): boolean => f.versions.every((v) => v.startsWith('x'));

/** The Analytics dimensions a family's facts are keyed by (without `day`). */
export const familyDims = (f: FamilyDef): string[] => f.columns.map((c) => c.dim);

/** The stored measures a family carries. */
export const familyMeasures = (f: FamilyDef): Set<Measure> => new Set(Object.values(f.measures));

const DIMENSION_COLUMN_NAMES = new Set(
  Object.values(COLUMNS)
    .filter((c) => !('missing' in c))
    .map((c) => c.column),
);

/** The dimension columns of a header (besides date; channel_id only for content-owner layouts). */
function headerSignature(header: readonly string[], owner: FamilyOwner): string {
  return header
    .filter((c) => DIMENSION_COLUMN_NAMES.has(c) && (owner === 'contentOwner' || c !== 'channel_id'))
    .sort()
    .join(',');
}

const signatures = new Map<string, FamilyDef>();
for (const f of FAMILIES) {
  const key = `${f.owner}|${f.columns
    .filter((c) => c.missing === undefined)
    .map((c) => c.column)
    .sort()
    .join(',')}`;
  // The estimated-revenue layouts of videos and assets differ by asset_id, so every signature is unique.
  if (signatures.has(key)) throw new Error(`two families share the columns ${key}`);
  signatures.set(key, f);
}

/**
 * The family and report type id a header describes. `typeHint` (a report type id from the file's folder or from
 * `--type`) decides where layouts coincide: content-owner playlist files have the channel playlist columns.
 * Otherwise channel layouts win, then content-owner ones (told by `claimed_status`/`uploader_type`, or by their
 * revenue and ad-rate metric columns). The version is the newest whose marker columns are all present.
 */
export function detectFamily(
  header: readonly string[],
  typeHint?: string,
): { family: FamilyDef; reportType: string } | undefined {
  if (!header.includes('date') || !header.includes('channel_id')) return undefined;
  const hinted = typeHint === undefined ? undefined : familyOfReportType(typeHint);
  const candidates = hinted ? [hinted.owner] : (['channel', 'contentOwner'] as const);
  for (const owner of candidates) {
    const family = signatures.get(`${owner}|${headerSignature(header, owner)}`);
    if (!family || (hinted && family !== hinted)) continue;
    if (!Object.keys(family.measures).some((m) => header.includes(m))) continue;
    return { family, reportType: hinted ? (typeHint as string) : `${family.type}_${versionOf(family, header)}` };
  }
  return undefined;
}

function versionOf(family: FamilyDef, header: readonly string[]): string {
  for (let i = family.versions.length - 1; i > 0; i--) {
    const v = family.versions[i] as string;
    const marks = family.markers?.[v];
    if (!marks || marks.every((m) => header.includes(m))) return v;
  }
  return family.versions[0] as string;
}

/** The family of a report type id such as `channel_traffic_source_a3`, if it is a known version. */
export function familyOfReportType(reportType: string): FamilyDef | undefined {
  const m = /^(.+)_([ax]\d+)$/.exec(reportType);
  if (!m) return undefined;
  const family = FAMILIES.find((f) => f.type === m[1]);
  return family?.versions.includes(m[2] as string) ? family : undefined;
}
