/**
 * Report families, as data: each YouTube Reporting API bulk report type (reporting-api.md §4, §5, §7) with its
 * dimension columns (and the Analytics dimension each one feeds), its metric columns (and the stored measure each
 * one feeds), its versions, and whether reports.query may answer from it. The planner picks, for a query, the one
 * family that holds every dimension and measure it needs (numbers are never added across report types: each is a
 * different slicing of the same views). How the ingest reads and checks each column's cells is families.ts, kept
 * apart so the functions that only read facts (reports.query, the sync) do not carry the parsers and code tables.
 */
import type { Measure } from './metrics';

export type FamilyOwner = 'channel' | 'contentOwner';
/** What a family answers: video reports, playlist reports, revenue, ad performance, or nothing (stored only). */
export type FamilyKind = 'video' | 'playlist' | 'revenue' | 'ad' | 'stored';

export interface FamilyColumn {
  /** The CSV column. */
  readonly column: string;
  /** The Analytics dimension (or a stored-only name for columns the Analytics API has no dimension for). */
  readonly dim: string;
  /**
   * An extension column (data the bulk exports do not carry): files may omit it, and then every row has this
   * value. Extension columns take no part in recognising a file's report type.
   */
  readonly missing?: string;
}

export interface FamilyShape {
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
  readonly columns: readonly FamilyColumn[];
  /** Metric column → stored measure. Rates and averages are recomputed from sums, so their columns are skipped. */
  readonly measures: Readonly<Record<string, Measure>>;
}

const col = (column: string, dim: string, missing?: string): FamilyColumn =>
  missing === undefined ? { column, dim } : { column, dim, missing };

/** Every dimension column of the exports, by a short name (families.ts gives each its cell parser). */
export const COLUMNS = {
  channel: col('channel_id', 'channel'),
  video: col('video_id', 'video'),
  playlist: col('playlist_id', 'playlist'),
  asset: col('asset_id', 'asset'),
  claimed: col('claimed_status', 'claimedStatus'),
  uploader: col('uploader_type', 'uploaderType'),
  live: col('live_or_on_demand', 'liveOrOnDemand'),
  subscribed: col('subscribed_status', 'subscribedStatus'),
  country: col('country_code', 'country'),
  province: col('province_code', 'province'),
  /** The city layout's province: empty outside the US. */
  provinceOrEmpty: col('province_code', 'province'),
  city: col('city', 'city'),
  elapsed: col('elapsed_video_time_ratio', 'elapsedVideoTimeRatio'),
  audienceType: col('audience_type', 'audienceType'),
  creatorType: col('creator_content_type', 'creatorContentType', 'UNSPECIFIED'),
  product: col('youtube_product', 'youtubeProduct', 'UNKNOWN'),
  playbackType: col('playback_location_type', 'insightPlaybackLocationType'),
  playbackDetail: col('playback_location_detail', 'insightPlaybackLocationDetail'),
  trafficType: col('traffic_source_type', 'insightTrafficSourceType'),
  trafficDetail: col('traffic_source_detail', 'insightTrafficSourceDetail'),
  device: col('device_type', 'deviceType'),
  os: col('operating_system', 'operatingSystem'),
  age: col('age_group', 'ageGroup'),
  gender: col('gender', 'gender'),
  sharing: col('sharing_service', 'sharingService'),
  adType: col('ad_type', 'adType'),
  subtitleLanguage: col('subtitle_language', 'subtitleLanguage'),
  subtitleAuto: col('subtitle_language_autotranslated', 'subtitleAutotranslated'),
  annotationType: col('annotation_type', 'annotationType'),
  annotationId: col('annotation_id', 'annotationId'),
  cardType: col('card_type', 'cardType'),
  cardId: col('card_id', 'cardId'),
  endScreenType: col('end_screen_element_type', 'endScreenElementType'),
  endScreenId: col('end_screen_element_id', 'endScreenElementId'),
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
} as const satisfies Record<string, readonly FamilyColumn[]>;

const DEMOGRAPHICS: Readonly<Record<string, Measure>> = { views_percentage: 'viewerShare' };
const SHARES: Readonly<Record<string, Measure>> = { shares: 'shares' };
const END_SCREENS: Readonly<Record<string, Measure>> = {
  end_screen_element_impressions: 'endScreenImpressions',
  end_screen_element_clicks: 'endScreenClicks',
};
const AD_RATES: Readonly<Record<string, Measure>> = {
  estimated_youtube_ad_revenue: 'grossRevenue',
  ad_impressions: 'adImpressions',
};

/** The metric columns that first appear in a version (`a3+engaged`: version a3 added engaged_views). */
const MARKERS: Readonly<Record<string, readonly string[]>> = {
  engaged: ['engaged_views'],
  red: ['red_views', 'red_watch_time_minutes'],
};

/** A family; `versions` oldest first, each `version` or `version+marker` (MARKERS). */
function fam(
  code: string,
  type: string,
  owner: FamilyOwner,
  kind: FamilyKind,
  versions: string,
  columns: readonly FamilyColumn[],
  measures: Readonly<Record<string, Measure>>,
): FamilyShape {
  // Indexed loops, no destructuring: the table is built at every cold start, by cold (interpreted) code.
  let markers: Record<string, readonly string[]> | undefined;
  const list = versions.split(' ');
  for (let i = 0; i < list.length; i++) {
    const token = list[i] as string;
    const plus = token.indexOf('+');
    if (plus < 0) continue;
    const version = token.slice(0, plus);
    const marker = token.slice(plus + 1);
    const columns = MARKERS[marker];
    if (!columns) throw new Error(`family ${code}: unknown marker ${marker}`);
    markers ??= {};
    markers[version] = columns;
    list[i] = version;
  }
  const shape: FamilyShape = { code, type, owner, kind, versions: list, columns, measures };
  return markers ? { ...shape, markers } : shape;
}

/** The standard layouts: a family's type is the layout's prefix + its slice, its columns the base + the slice's. */
interface Layout {
  readonly prefix: string;
  readonly owner: FamilyOwner;
  readonly kind: FamilyKind;
  readonly base: readonly FamilyColumn[];
}
const CHANNEL: Layout = { prefix: 'channel_', owner: 'channel', kind: 'video', base: BASE };
const PLAYLIST: Layout = { prefix: 'playlist_', owner: 'channel', kind: 'playlist', base: PBASE };
const OWNER: Layout = { prefix: 'content_owner_', owner: 'contentOwner', kind: 'video', base: CBASE };
const OWNER_PLAYLIST: Layout = {
  prefix: 'content_owner_playlist_',
  owner: 'contentOwner',
  kind: 'playlist',
  base: CO_PBASE,
};
const ASSET: Layout = { prefix: 'content_owner_asset_', owner: 'contentOwner', kind: 'stored', base: ABASE };

const sliced = (
  code: string,
  layout: Layout,
  slice: keyof typeof SLICES,
  versions: string,
  measures: Readonly<Record<string, Measure>>,
  kind: FamilyKind = layout.kind,
): FamilyShape =>
  fam(code, layout.prefix + slice, layout.owner, kind, versions, layout.base.concat(SLICES[slice]), measures);

// biome-ignore format: one family a line reads best
export const FAMILIES: readonly FamilyShape[] = [
  sliced('CB', CHANNEL, 'basic', 'a1 a2+red a3+engaged', BASIC),
  sliced('CP', CHANNEL, 'province', 'a2 a3+engaged', PROVINCE_MEASURES),
  sliced('CL', CHANNEL, 'playback_location', 'a2 a3+engaged', VIEWSET),
  sliced('CT', CHANNEL, 'traffic_source', 'a2 a3+engaged', VIEWSET),
  sliced('CD', CHANNEL, 'device_os', 'a2 a3+engaged', VIEWSET),
  sliced('CX', CHANNEL, 'combined', 'a2 a3+engaged', VIEWSET),
  sliced('CG', CHANNEL, 'demographics', 'a1', DEMOGRAPHICS),
  sliced('CS', CHANNEL, 'sharing_service', 'a1 a2', SHARES),
  sliced('CU', CHANNEL, 'subtitles', 'a2 a3+engaged', VIEWSET, 'stored'),
  sliced('CA', CHANNEL, 'annotations', 'a1 a2', ANNOTATIONS, 'stored'),
  sliced('CC', CHANNEL, 'cards', 'a1 a2', CARDS, 'stored'),
  sliced('CE', CHANNEL, 'end_screens', 'a1 a2', END_SCREENS, 'stored'),
  // Reach: channel_reach_basic_a1's header is verified against a real file; channel_reach_combined_a1's columns come
  // from third-party registries (not verified against a real header). The content-owner reach reports' columns are
  // not known, so they are not read.
  fam('RB', 'channel_reach_basic', 'channel', 'video', 'a1', [C.video], REACH),
  fam('RC', 'channel_reach_combined', 'channel', 'video', 'a1', [C.video, C.trafficType, C.trafficDetail, C.os, C.device], REACH),
  sliced('PB', PLAYLIST, 'basic', 'a1 a2+engaged', PSET),
  sliced('PP', PLAYLIST, 'province', 'a1 a2+engaged', PSET),
  sliced('PL', PLAYLIST, 'playback_location', 'a1 a2+engaged', PSET),
  sliced('PT', PLAYLIST, 'traffic_source', 'a1 a2+engaged', PSET),
  sliced('PD', PLAYLIST, 'device_os', 'a1 a2+engaged', PSET),
  sliced('PX', PLAYLIST, 'combined', 'a1 a2+engaged', PSET),
  sliced('OB', OWNER, 'basic', 'a1 a2 a3+red a4+engaged', BASIC),
  sliced('OP', OWNER, 'province', 'a2 a3+engaged', PROVINCE_MEASURES),
  sliced('OL', OWNER, 'playback_location', 'a2 a3+engaged', VIEWSET),
  sliced('OT', OWNER, 'traffic_source', 'a2 a3+engaged', VIEWSET),
  sliced('OD', OWNER, 'device_os', 'a2 a3+engaged', VIEWSET),
  sliced('OX', OWNER, 'combined', 'a2 a3+engaged', VIEWSET),
  sliced('OG', OWNER, 'demographics', 'a1', DEMOGRAPHICS),
  sliced('OS', OWNER, 'sharing_service', 'a1', SHARES),
  sliced('OU', OWNER, 'subtitles', 'a2 a3+engaged', VIEWSET, 'stored'),
  sliced('OA', OWNER, 'annotations', 'a1', ANNOTATIONS, 'stored'),
  sliced('OC', OWNER, 'cards', 'a1', CARDS, 'stored'),
  sliced('OE', OWNER, 'end_screens', 'a1', END_SCREENS, 'stored'),
  sliced('QB', OWNER_PLAYLIST, 'basic', 'a1 a2+engaged', PSET),
  sliced('QP', OWNER_PLAYLIST, 'province', 'a1 a2+engaged', PSET),
  sliced('QL', OWNER_PLAYLIST, 'playback_location', 'a1 a2+engaged', PSET),
  sliced('QT', OWNER_PLAYLIST, 'traffic_source', 'a1 a2+engaged', PSET),
  sliced('QD', OWNER_PLAYLIST, 'device_os', 'a1 a2+engaged', PSET),
  sliced('QX', OWNER_PLAYLIST, 'combined', 'a1 a2+engaged', PSET),
  fam('OR', 'content_owner_estimated_revenue', 'contentOwner', 'revenue', 'a1 a2', [C.channel, C.video, C.claimed, C.uploader, C.country], REVENUE),
  fam('OM', 'content_owner_ad_rates', 'contentOwner', 'ad', 'a1', [C.channel, C.video, C.claimed, C.uploader, C.country, C.adType], AD_RATES),
  sliced('AB', ASSET, 'basic', 'a2 a3+engaged', BASIC),
  sliced('AP', ASSET, 'province', 'a2 a3+engaged', PROVINCE_MEASURES),
  sliced('AL', ASSET, 'playback_location', 'a2 a3+engaged', VIEWSET),
  sliced('AT', ASSET, 'traffic_source', 'a2 a3+engaged', VIEWSET),
  sliced('AD', ASSET, 'device_os', 'a2 a3+engaged', VIEWSET),
  sliced('AX', ASSET, 'combined', 'a2 a3+engaged', VIEWSET),
  sliced('AG', ASSET, 'demographics', 'a1', DEMOGRAPHICS),
  sliced('AS', ASSET, 'sharing_service', 'a1', SHARES),
  // Extensions: the same CSV style for data the bulk exports do not carry (see the README).
  fam('XY', 'channel_city', 'channel', 'video', 'x1', CITY, VIEWSET),
  fam('XR', 'channel_audience_retention', 'channel', 'video', 'x1', RETENTION, RETENTION_MEASURES),
  fam('XV', 'channel_estimated_revenue', 'channel', 'revenue', 'x1', [C.video, C.country, ...EXT], REVENUE),
  fam('XA', 'channel_ad_rates', 'channel', 'ad', 'x1', [C.video, C.country, C.adType], AD_RATES),
  sliced('XP', PLAYLIST, 'demographics', 'x1', DEMOGRAPHICS),
  sliced('YP', OWNER_PLAYLIST, 'demographics', 'x1', DEMOGRAPHICS),
  fam('YY', 'content_owner_city', 'contentOwner', 'video', 'x1', [C.channel, C.claimed, C.uploader, ...CITY], VIEWSET),
  fam('YR', 'content_owner_audience_retention', 'contentOwner', 'video', 'x1', [C.channel, C.claimed, C.uploader, ...RETENTION], RETENTION_MEASURES),
  fam('AR', 'content_owner_asset_estimated_revenue', 'contentOwner', 'stored', 'a1', [C.channel, C.video, C.asset, C.claimed, C.uploader, C.country], REVENUE),
];

export const FAMILY_BY_CODE: ReadonlyMap<string, FamilyShape> = new Map(FAMILIES.map((f) => [f.code, f]));
export const CHANNEL_BASIC = FAMILY_BY_CODE.get('CB') as FamilyShape;

/** An extension layout (version x1): data the bulk exports do not carry, used only where no bulk report serves. */
export const isExtension = (f: FamilyShape): boolean => f.versions.every((v) => v.startsWith('x'));

// The families are constants: what is derived from one is worked out once (report planning asks per request).
const dimsOf = new WeakMap<FamilyShape, readonly string[]>();
const measuresOf = new WeakMap<FamilyShape, ReadonlySet<Measure>>();

/** The Analytics dimensions a family's facts are keyed by (without `day`). */
export function familyDims(f: FamilyShape): readonly string[] {
  let dims = dimsOf.get(f);
  if (!dims) {
    dims = f.columns.map((c) => c.dim);
    dimsOf.set(f, dims);
  }
  return dims;
}

/** The stored measures a family carries. */
export function familyMeasures(f: FamilyShape): ReadonlySet<Measure> {
  let measures = measuresOf.get(f);
  if (!measures) {
    measures = new Set(Object.values(f.measures));
    measuresOf.set(f, measures);
  }
  return measures;
}

/** The family of a report type id such as `channel_traffic_source_a3`, if it is a known version. */
export function familyOfReportType(reportType: string): FamilyShape | undefined {
  const m = /^(.+)_([ax]\d+)$/.exec(reportType);
  if (!m) return undefined;
  const family = FAMILIES.find((f) => f.type === m[1]);
  return family?.versions.includes(m[2] as string) ? family : undefined;
}
