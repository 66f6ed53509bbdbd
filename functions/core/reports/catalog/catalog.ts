/**
 * The report catalog, as data: every report of Google's "available reports" tables (api-contract.md §A.3), for
 * channels and content owners: which dimensions, filters, filter values, metrics, sort orders and page sizes make a
 * supported query. report-matcher.ts validates requests against it and catalog-table.ts renders the README's report
 * table from it; a query that fits no entry is "not supported", in Google's words. Which of these reports the
 * engine can answer from loaded data is decided elsewhere (report-service.ts).
 */

/** Every dimension and filter name the public API knows (an unknown one is "Unknown identifier"). */
// biome-ignore format: word lists read best packed
export const KNOWN_DIMENSIONS = [
  'video', 'playlist', 'channel', 'group', 'creatorContentType', 'country', 'province', 'city', 'continent',
  'subContinent', 'day', 'month', 'insightPlaybackLocationType', 'insightPlaybackLocationDetail', 'liveOrOnDemand',
  'subscribedStatus', 'youtubeProduct', 'insightTrafficSourceType', 'insightTrafficSourceDetail', 'deviceType',
  'operatingSystem', 'ageGroup', 'gender', 'sharingService', 'elapsedVideoTimeRatio', 'audienceType', 'adType',
  'claimedStatus', 'uploaderType', 'isCurated', '7DayTotals', '30DayTotals',
] as const;

/** Names that exist only as filters. */
export const FILTER_ONLY = new Set(['group', 'continent', 'subContinent', 'audienceType', 'isCurated']);

/** Metrics that need the monetary scope (api-contract.md §A.2.3, column Mon). */
// biome-ignore format: word lists read best packed
export const MONETARY_METRICS: ReadonlySet<string> = new Set([
  'estimatedRevenue', 'estimatedAdRevenue', 'grossRevenue', 'estimatedRedPartnerRevenue', 'monetizedPlaybacks',
  'playbackBasedCpm', 'adImpressions', 'cpm',
]);

// biome-ignore format: word lists read best packed
const ANNOTATION_AND_CARD = [
  'annotationClickThroughRate', 'annotationCloseRate', 'annotationImpressions', 'annotationClickableImpressions',
  'annotationClosableImpressions', 'annotationClicks', 'annotationCloses', 'cardClickRate', 'cardTeaserClickRate',
  'cardImpressions', 'cardTeaserImpressions', 'cardClicks', 'cardTeaserClicks',
];
/** The in-playlist metrics; with a group filter they make a request a playlist report (§A.3.2). */
// biome-ignore format: word lists read best packed
const P_TOP = [
  'averageTimeInPlaylist', 'playlistAverageViewDuration', 'playlistEstimatedMinutesWatched', 'playlistSaves',
  'playlistStarts', 'playlistViews', 'viewsPerPlaylistStart',
];
export const PLAYLIST_METRICS: ReadonlySet<string> = new Set(P_TOP);

// The metric aliases of §A.3. engagedViews (newer than the contract's source tables) goes with `views` in the
// video aliases taken from the channel_basic exports, as the six reports of the first release already accepted it.
// biome-ignore format: word lists read best packed
const M_US = [
  'views', 'engagedViews', 'redViews', 'estimatedMinutesWatched', 'estimatedRedMinutesWatched', 'averageViewDuration',
  'averageViewPercentage', ...ANNOTATION_AND_CARD,
];
const M_SUB = [...M_US, 'likes', 'dislikes', 'videosAddedToPlaylists', 'videosRemovedFromPlaylists', 'shares'];
// biome-ignore format: word lists read best packed
const M_ALL = [
  ...M_SUB, 'comments', 'subscribersGained', 'subscribersLost', ...MONETARY_METRICS,
];
// biome-ignore format: word lists read best packed
const M_LIVE = [
  'views', 'engagedViews', 'redViews', 'estimatedMinutesWatched', 'estimatedRedMinutesWatched', 'averageViewDuration',
];
const M_VP = [...M_LIVE, 'averageViewPercentage'];
const M_LT = ['views', 'estimatedMinutesWatched'];
const P_GEO = ['views', 'estimatedMinutesWatched', 'averageViewDuration'];
const P_ALL = [...P_GEO, ...P_TOP];
const P_LOC = P_ALL.filter((m) => m !== 'playlistSaves');
const AD_METRICS = ['grossRevenue', 'adImpressions', 'cpm'];

/** The named metric sets of §A.3 (catalog-table.ts prints a report's metrics by these names). */
export const METRIC_SETS: Readonly<Record<string, readonly string[]>> = {
  M_ALL,
  M_US,
  M_SUB,
  M_LIVE,
  M_VP,
  M_LT,
  P_ALL,
  P_LOC,
  P_GEO,
  P_TOP,
};

/**
 * Reach metrics (thumbnail impressions and their click rate): answered by this service from the channel_reach_* bulk
 * reports; Google's Analytics API answers 400 for them. Channels only: the content-owner reach reports' columns are
 * not known (reporting-api.md §6, §10).
 */
export const REACH_METRICS: readonly string[] = ['videoThumbnailImpressions', 'videoThumbnailImpressionsClickRate'];

/** Every metric name the public API knows, and the reach metrics this service adds. */
export const KNOWN_METRICS: readonly string[] = [
  ...new Set([
    ...M_ALL,
    ...P_ALL,
    'viewerPercentage',
    'audienceWatchRatio',
    'relativeRetentionPerformance',
    ...REACH_METRICS,
  ]),
];

/** A rule over a set of names (dimensions or filters). Names not mentioned are not allowed. */
export interface SetRule {
  readonly required?: readonly string[];
  readonly exactlyOne?: readonly (readonly string[])[];
  readonly atLeastOne?: readonly (readonly string[])[];
  readonly atMostOne?: readonly (readonly string[])[];
  readonly optional?: readonly string[];
}

/** Filter name → the values it may take. */
export type FilterValues = Readonly<Record<string, readonly string[]>>;

/** Content owners must say whose data: an entity filter, or one of the claimedStatus / uploaderType combinations. */
export interface EntityFilterRule {
  readonly anyOf: readonly string[];
  readonly combinations: readonly Readonly<Record<string, string>>[];
}

export interface ReportDef {
  /** '1'..'30' (Google's channel-reports numbers), 'P1'..'P11', 'AD'; content-owner reports 'CO-' + that. */
  readonly id: string;
  readonly name: string;
  readonly owner: 'channel' | 'contentOwner';
  readonly kind: 'video' | 'playlist' | 'ad';
  readonly dimensions: SetRule;
  readonly filters: SetRule;
  readonly metrics: readonly string[];
  /** A filter in this map may only take these values (a required filter must also be present, per `filters`). */
  readonly requiredFilterValues?: FilterValues;
  /** Filters that must name exactly one id (#25: one video). */
  readonly singleValueFilters?: readonly string[];
  /** Dimension → the filter values it needs when requested (`province` needs `country==US`, …; §A.2.2). */
  readonly requiredDimensionFilters?: Readonly<Record<string, FilterValues>>;
  /** Content-owner reports: what the query must filter by. */
  readonly entityFilter?: EntityFilterRule;
  /** Top-N and detail reports: sort required, descending only, by one of `descendingBy`. */
  readonly sort?: { readonly descendingBy: readonly string[] };
  /** Page size cap (also caps startIndex + maxResults − 1), and whether maxResults must be given. */
  readonly maxResults?: { readonly max: number; readonly required: boolean };
  /** An example query (after ids, startDate and endDate) for the README. */
  readonly example: string;
  /** A report of this service only (not in Google's catalog): why, for the docs. */
  readonly serviceOnly?: string;
}

/** The insightTrafficSourceType values that have a detail report (§A.2.2). */
// biome-ignore format: word lists read best packed
export const DETAIL_TRAFFIC_SOURCES = [
  'ADVERTISING', 'CAMPAIGN_CARD', 'END_SCREEN', 'EXT_URL', 'NOTIFICATION', 'RELATED_VIDEO', 'SUBSCRIBER', 'YT_CHANNEL',
  'YT_OTHER_PAGE', 'YT_SEARCH',
];

/** Dimensions that need a filter value whenever they are requested (§A.2.2). */
const DIMENSION_NEEDS: Readonly<Record<string, FilterValues>> = {
  province: { country: ['US'] },
  insightPlaybackLocationDetail: { insightPlaybackLocationType: ['EMBEDDED'] },
  insightTrafficSourceDetail: { insightTrafficSourceType: DETAIL_TRAFFIC_SOURCES },
};

const GEO = ['country', 'province', 'continent', 'subContinent'];
const GEO_P = ['country', 'continent', 'subContinent'];
const REGION = ['continent', 'subContinent'];
const VG = ['video', 'group'];
const PLAYLIST_OR_GROUP = ['playlist', 'group'];
const TIME = ['day', 'month'];
const CCT = 'creatorContentType';
const US = { country: ['US'] };
const EMBEDDED = { insightPlaybackLocationType: ['EMBEDDED'] };
const DETAIL_SOURCE = { insightTrafficSourceType: DETAIL_TRAFFIC_SOURCES };
const TOP_N = ['views', 'estimatedMinutesWatched'];
const TOP_VIDEOS = ['views', 'redViews', 'estimatedMinutesWatched', 'estimatedRedMinutesWatched'];
const TOP_PLAYLISTS = ['playlistViews', 'playlistEstimatedMinutesWatched', 'playlistStarts'];
const PLAYBACK = ['creatorContentType', 'liveOrOnDemand', 'subscribedStatus', 'youtubeProduct'];
const DEVICE_DIMS = [CCT, 'day', 'liveOrOnDemand', 'subscribedStatus', 'youtubeProduct'];

type Entry = Omit<ReportDef, 'owner' | 'kind' | 'requiredDimensionFilters'>;

/** Channel video reports #1–#30 (§A.3.1). */
const VIDEO_REPORTS: readonly Entry[] = [
  {
    id: '1',
    name: 'Basic user activity',
    dimensions: {},
    filters: { atMostOne: [GEO_P, VG] },
    metrics: M_ALL,
    example: 'metrics=views,likes,subscribersGained',
  },
  {
    id: '2',
    name: 'Basic user activity (US)',
    dimensions: {},
    filters: { required: ['province'], atMostOne: [VG] },
    metrics: M_US,
    example: 'metrics=views,estimatedMinutesWatched&filters=province==US-CA',
  },
  {
    id: '3',
    name: 'Time-based activity',
    dimensions: { exactlyOne: [TIME], optional: [CCT] },
    filters: { atMostOne: [GEO_P, VG] },
    metrics: M_ALL,
    example: 'dimensions=day&metrics=views,estimatedMinutesWatched&sort=day',
  },
  {
    id: '4',
    name: 'Time-based activity (US)',
    dimensions: { exactlyOne: [TIME], optional: [CCT] },
    filters: { required: ['province'], atMostOne: [VG] },
    metrics: M_US,
    example: 'dimensions=day&metrics=views&filters=province==US-TX&sort=day',
  },
  {
    id: '5',
    name: 'Geography-based activity',
    dimensions: { required: ['country'], optional: [CCT] },
    filters: { atMostOne: [REGION, VG] },
    metrics: M_ALL,
    example: 'dimensions=country&metrics=views,averageViewDuration&sort=-views',
  },
  {
    id: '6',
    name: 'Geography-based activity (US)',
    dimensions: { required: ['province'], optional: [CCT] },
    filters: { required: ['country'], atMostOne: [VG] },
    requiredFilterValues: US,
    metrics: M_US,
    example: 'dimensions=province&metrics=views,averageViewPercentage&filters=country==US&sort=-views',
  },
  {
    id: '7',
    name: 'Activity by city',
    dimensions: { required: ['city'], optional: [CCT, 'country', 'province', 'subscribedStatus'], atMostOne: [TIME] },
    filters: { atMostOne: [GEO, VG] },
    metrics: ['views', 'estimatedMinutesWatched', 'averageViewDuration', 'averageViewPercentage'],
    sort: { descendingBy: TOP_N },
    // The docs say 250; the API accepts 25 (api-contract.md §A.3.1, note on #7).
    maxResults: { max: 25, required: true },
    example: 'dimensions=city&metrics=views,estimatedMinutesWatched&sort=-views&maxResults=25',
  },
  {
    id: '8',
    name: 'User activity by subscribed status',
    dimensions: { optional: [CCT, 'subscribedStatus'], atMostOne: [TIME] },
    filters: { atMostOne: [GEO_P, VG], optional: ['subscribedStatus'] },
    metrics: M_SUB,
    example: 'dimensions=subscribedStatus&metrics=views,likes',
  },
  {
    id: '9',
    name: 'User activity by subscribed status (US)',
    dimensions: { optional: [CCT, 'subscribedStatus'], atMostOne: [TIME] },
    filters: { atMostOne: [VG], optional: ['province', 'subscribedStatus'] },
    metrics: M_US,
    example: 'dimensions=subscribedStatus&metrics=views,annotationClickThroughRate&filters=province==US-NY',
  },
  {
    id: '10',
    name: 'Time-based playback details (live or on demand)',
    dimensions: { optional: PLAYBACK, atMostOne: [TIME] },
    filters: { atMostOne: [GEO, VG], optional: ['liveOrOnDemand', 'subscribedStatus', 'youtubeProduct'] },
    metrics: M_LIVE,
    example: 'dimensions=liveOrOnDemand,month&metrics=views,averageViewDuration',
  },
  {
    id: '11',
    name: 'Time-based playback details (view percentage)',
    dimensions: { optional: [CCT, 'subscribedStatus', 'youtubeProduct'], atMostOne: [TIME] },
    filters: { atMostOne: [GEO, VG], optional: ['subscribedStatus', 'youtubeProduct'] },
    metrics: M_VP,
    example: 'dimensions=youtubeProduct,day&metrics=views,averageViewPercentage',
  },
  {
    id: '12',
    name: 'Geography-based playback details (live or on demand)',
    dimensions: { required: ['country'], optional: PLAYBACK },
    filters: { atMostOne: [REGION, VG], optional: ['liveOrOnDemand', 'subscribedStatus', 'youtubeProduct'] },
    metrics: M_LIVE,
    example: 'dimensions=country,liveOrOnDemand&metrics=views,estimatedMinutesWatched&sort=-views',
  },
  {
    id: '13',
    name: 'Geography-based playback details (view percentage)',
    dimensions: { required: ['country'], optional: [CCT, 'subscribedStatus', 'youtubeProduct'] },
    filters: { atMostOne: [REGION, VG], optional: ['subscribedStatus', 'youtubeProduct'] },
    metrics: M_VP,
    example: 'dimensions=country,subscribedStatus&metrics=views,averageViewPercentage',
  },
  {
    id: '14',
    name: 'Geography-based playback details (live or on demand, US)',
    dimensions: { required: ['province'], optional: PLAYBACK },
    filters: {
      required: ['country'],
      atMostOne: [VG],
      optional: ['liveOrOnDemand', 'subscribedStatus', 'youtubeProduct'],
    },
    requiredFilterValues: US,
    metrics: M_LIVE,
    example: 'dimensions=province,liveOrOnDemand&metrics=views&filters=country==US',
  },
  {
    id: '15',
    name: 'Geography-based playback details (view percentage, US)',
    dimensions: { required: ['province'], optional: [CCT, 'subscribedStatus', 'youtubeProduct'] },
    filters: { required: ['country'], atMostOne: [VG], optional: ['subscribedStatus', 'youtubeProduct'] },
    requiredFilterValues: US,
    metrics: M_VP,
    example: 'dimensions=province,youtubeProduct&metrics=averageViewPercentage&filters=country==US',
  },
  {
    id: '16',
    name: 'Playback locations',
    dimensions: {
      required: ['insightPlaybackLocationType'],
      optional: [CCT, 'day', 'liveOrOnDemand', 'subscribedStatus'],
    },
    filters: { atMostOne: [GEO, VG], optional: ['liveOrOnDemand', 'subscribedStatus'] },
    metrics: M_LT,
    example: 'dimensions=insightPlaybackLocationType&metrics=views,estimatedMinutesWatched',
  },
  {
    id: '17',
    name: 'Playback location details',
    dimensions: { required: ['insightPlaybackLocationDetail'], optional: [CCT] },
    filters: {
      required: ['insightPlaybackLocationType'],
      atMostOne: [GEO, VG],
      optional: ['liveOrOnDemand', 'subscribedStatus'],
    },
    requiredFilterValues: EMBEDDED,
    metrics: M_LT,
    sort: { descendingBy: TOP_N },
    maxResults: { max: 25, required: true },
    example:
      'dimensions=insightPlaybackLocationDetail&metrics=views&filters=insightPlaybackLocationType==EMBEDDED&sort=-views&maxResults=25',
  },
  {
    id: '18',
    name: 'Traffic sources',
    dimensions: {
      required: ['insightTrafficSourceType'],
      optional: [CCT, 'day', 'liveOrOnDemand', 'subscribedStatus'],
    },
    filters: { atMostOne: [GEO, VG], optional: ['liveOrOnDemand', 'subscribedStatus'] },
    metrics: M_LT,
    example: 'dimensions=insightTrafficSourceType,day&metrics=views',
  },
  {
    id: '19',
    name: 'Traffic source details',
    dimensions: { required: ['insightTrafficSourceDetail'], optional: [CCT] },
    filters: {
      required: ['insightTrafficSourceType'],
      atMostOne: [GEO, VG],
      optional: ['liveOrOnDemand', 'subscribedStatus'],
    },
    requiredFilterValues: DETAIL_SOURCE,
    metrics: M_LT,
    sort: { descendingBy: TOP_N },
    maxResults: { max: 25, required: true },
    example:
      'dimensions=insightTrafficSourceDetail&metrics=views,estimatedMinutesWatched&filters=insightTrafficSourceType==YT_SEARCH&sort=-estimatedMinutesWatched&maxResults=10',
  },
  {
    id: '20',
    name: 'Device type',
    dimensions: { required: ['deviceType'], optional: DEVICE_DIMS },
    filters: {
      atMostOne: [GEO, VG],
      optional: ['operatingSystem', 'liveOrOnDemand', 'subscribedStatus', 'youtubeProduct'],
    },
    metrics: M_LT,
    example: 'dimensions=deviceType&metrics=views,estimatedMinutesWatched',
  },
  {
    id: '21',
    name: 'Operating system',
    dimensions: { required: ['operatingSystem'], optional: DEVICE_DIMS },
    filters: { atMostOne: [GEO, VG], optional: ['deviceType', 'liveOrOnDemand', 'subscribedStatus', 'youtubeProduct'] },
    metrics: M_LT,
    example: 'dimensions=operatingSystem&metrics=views&filters=deviceType==MOBILE',
  },
  {
    id: '22',
    name: 'Device type and operating system',
    dimensions: { required: ['deviceType', 'operatingSystem'], optional: DEVICE_DIMS },
    filters: { atMostOne: [GEO, VG], optional: ['liveOrOnDemand', 'subscribedStatus', 'youtubeProduct'] },
    metrics: M_LT,
    example: 'dimensions=deviceType,operatingSystem&metrics=views',
  },
  {
    id: '23',
    name: 'Viewer demographics',
    dimensions: { atLeastOne: [['ageGroup', 'gender']], optional: [CCT, 'liveOrOnDemand', 'subscribedStatus'] },
    filters: { atMostOne: [GEO, VG], optional: ['liveOrOnDemand', 'subscribedStatus'] },
    metrics: ['viewerPercentage'],
    example: 'dimensions=ageGroup,gender&metrics=viewerPercentage',
  },
  {
    id: '24',
    name: 'Engagement and content sharing',
    dimensions: { required: ['sharingService'], optional: [CCT, 'subscribedStatus'] },
    filters: { atMostOne: [GEO_P, VG], optional: ['subscribedStatus'] },
    metrics: ['shares'],
    example: 'dimensions=sharingService&metrics=shares&sort=-shares',
  },
  {
    id: '25',
    name: 'Audience retention',
    dimensions: { required: ['elapsedVideoTimeRatio'], optional: [CCT] },
    filters: { required: ['video'], optional: ['audienceType', 'subscribedStatus', 'youtubeProduct'] },
    singleValueFilters: ['video'],
    metrics: ['audienceWatchRatio', 'relativeRetentionPerformance'],
    example:
      'dimensions=elapsedVideoTimeRatio&metrics=audienceWatchRatio,relativeRetentionPerformance&filters=video=={video}',
  },
  {
    id: '26',
    name: 'Top videos',
    dimensions: { required: ['video'], optional: [CCT] },
    filters: { atMostOne: [GEO_P] },
    metrics: M_ALL,
    // biome-ignore format: word lists read best packed
    sort: {
      descendingBy: [
        'views', 'redViews', 'estimatedRevenue', 'estimatedRedPartnerRevenue', 'estimatedMinutesWatched',
        'estimatedRedMinutesWatched', 'subscribersGained', 'subscribersLost',
      ],
    },
    maxResults: { max: 200, required: true },
    example: 'dimensions=video&metrics=views,likes&sort=-views&maxResults=10',
  },
  {
    id: '27',
    name: 'Top videos by state',
    dimensions: { required: ['video'], optional: [CCT] },
    filters: { required: ['province'], optional: ['subscribedStatus'] },
    metrics: M_US,
    sort: { descendingBy: TOP_VIDEOS },
    maxResults: { max: 200, required: true },
    example:
      'dimensions=video&metrics=views,estimatedMinutesWatched&filters=province==US-CA&sort=-estimatedMinutesWatched&maxResults=10',
  },
  {
    id: '28',
    name: 'Top videos by subscription status',
    dimensions: { required: ['video'], optional: [CCT] },
    filters: { atMostOne: [GEO_P], optional: ['subscribedStatus'] },
    metrics: M_SUB,
    sort: { descendingBy: TOP_VIDEOS },
    maxResults: { max: 200, required: true },
    example: 'dimensions=video&metrics=views,likes&filters=subscribedStatus==SUBSCRIBED&sort=-views&maxResults=10',
  },
  {
    id: '29',
    name: 'Top videos by YouTube product',
    dimensions: { required: ['video'], optional: [CCT] },
    filters: { atMostOne: [GEO], optional: ['subscribedStatus', 'youtubeProduct'] },
    metrics: M_VP,
    sort: { descendingBy: TOP_VIDEOS },
    maxResults: { max: 200, required: true },
    example:
      'dimensions=video&metrics=views,averageViewPercentage&filters=youtubeProduct==CORE&sort=-views&maxResults=10',
  },
  {
    id: '30',
    name: 'Top videos by playback detail',
    dimensions: { required: ['video'], optional: [CCT] },
    filters: { atMostOne: [GEO], optional: ['liveOrOnDemand', 'subscribedStatus', 'youtubeProduct'] },
    metrics: M_VP,
    sort: { descendingBy: TOP_VIDEOS },
    maxResults: { max: 200, required: true },
    example: 'dimensions=video&metrics=views&filters=liveOrOnDemand==LIVE&sort=-views&maxResults=10',
  },
];

/** The ad performance report (§A.3.3). */
const AD_REPORT: Entry = {
  id: 'AD',
  name: 'Ad performance',
  dimensions: { required: ['adType'], optional: ['day'] },
  filters: { atMostOne: [VG, GEO_P] },
  metrics: AD_METRICS,
  example: 'dimensions=adType&metrics=grossRevenue,adImpressions,cpm&sort=-grossRevenue',
};

/** Channel playlist reports P1–P11 (§A.3.2). */
const PLAYLIST_REPORTS: readonly Entry[] = [
  {
    id: 'P1',
    name: 'Basic playlist activity',
    dimensions: {},
    filters: { exactlyOne: [PLAYLIST_OR_GROUP] },
    metrics: P_ALL,
    example: 'metrics=playlistViews,playlistStarts,averageTimeInPlaylist&filters=playlist=={playlist}',
  },
  {
    id: 'P2',
    name: 'Time-based playlist activity',
    dimensions: { exactlyOne: [TIME] },
    filters: { exactlyOne: [PLAYLIST_OR_GROUP] },
    metrics: P_ALL,
    example: 'dimensions=day&metrics=playlistViews&filters=playlist=={playlist}&sort=day',
  },
  {
    id: 'P3',
    name: 'Geography-based playlist activity',
    dimensions: { required: ['country'] },
    filters: { exactlyOne: [PLAYLIST_OR_GROUP], atMostOne: [REGION] },
    metrics: P_GEO,
    example: 'dimensions=country&metrics=views,estimatedMinutesWatched&filters=playlist=={playlist}',
  },
  {
    id: 'P4',
    name: 'Geography-based playlist activity (US)',
    dimensions: { required: ['province'] },
    filters: { required: ['country'], exactlyOne: [PLAYLIST_OR_GROUP] },
    requiredFilterValues: US,
    metrics: P_GEO,
    example: 'dimensions=province&metrics=views&filters=country==US;playlist=={playlist}',
  },
  {
    id: 'P5',
    name: 'Playlist playback locations',
    dimensions: { required: ['insightPlaybackLocationType'] },
    filters: { exactlyOne: [PLAYLIST_OR_GROUP] },
    metrics: P_LOC,
    example: 'dimensions=insightPlaybackLocationType&metrics=playlistStarts&filters=playlist=={playlist}',
  },
  {
    id: 'P6',
    name: 'Playlist playback location details',
    dimensions: { required: ['insightPlaybackLocationDetail'] },
    filters: { required: ['insightPlaybackLocationType'], exactlyOne: [PLAYLIST_OR_GROUP] },
    requiredFilterValues: EMBEDDED,
    metrics: P_LOC,
    sort: { descendingBy: TOP_PLAYLISTS },
    maxResults: { max: 25, required: false },
    example:
      'dimensions=insightPlaybackLocationDetail&metrics=playlistViews&filters=insightPlaybackLocationType==EMBEDDED;playlist=={playlist}&sort=-playlistViews&maxResults=25',
  },
  {
    id: 'P7',
    name: 'Playlist traffic sources',
    dimensions: { required: ['insightTrafficSourceType'] },
    filters: { exactlyOne: [PLAYLIST_OR_GROUP] },
    metrics: P_ALL,
    example: 'dimensions=insightTrafficSourceType&metrics=playlistViews,playlistSaves&filters=playlist=={playlist}',
  },
  {
    id: 'P8',
    name: 'Playlist traffic source details',
    dimensions: { required: ['insightTrafficSourceDetail'] },
    filters: { required: ['insightTrafficSourceType'], exactlyOne: [PLAYLIST_OR_GROUP] },
    requiredFilterValues: DETAIL_SOURCE,
    metrics: P_ALL,
    sort: { descendingBy: TOP_PLAYLISTS },
    maxResults: { max: 25, required: false },
    example:
      'dimensions=insightTrafficSourceDetail&metrics=playlistViews&filters=insightTrafficSourceType==YT_SEARCH;playlist=={playlist}&sort=-playlistViews&maxResults=10',
  },
  {
    id: 'P9',
    name: 'Playlist device type and operating system',
    dimensions: { atLeastOne: [['deviceType', 'operatingSystem']] },
    filters: { exactlyOne: [PLAYLIST_OR_GROUP] },
    metrics: P_LOC,
    example: 'dimensions=deviceType,operatingSystem&metrics=playlistViews&filters=playlist=={playlist}',
  },
  {
    id: 'P10',
    name: 'Playlist viewer demographics',
    dimensions: { atLeastOne: [['ageGroup', 'gender']] },
    filters: { exactlyOne: [PLAYLIST_OR_GROUP] },
    metrics: ['viewerPercentage'],
    example: 'dimensions=ageGroup&metrics=viewerPercentage&filters=playlist=={playlist}',
  },
  {
    id: 'P11',
    name: 'Top playlists',
    dimensions: { required: ['playlist'] },
    filters: {},
    metrics: P_TOP,
    sort: { descendingBy: TOP_PLAYLISTS },
    maxResults: { max: 200, required: false },
    example: 'dimensions=playlist&metrics=playlistViews,playlistStarts&sort=-playlistViews&maxResults=10',
  },
];

const REACH_NOTE =
  "Google's Analytics API answers 400 for these metrics; this service answers them from the `channel_reach_*` bulk reports";
const REACH_SLICES = ['insightTrafficSourceType', 'deviceType', 'operatingSystem'];

/**
 * Reach reports R1 and R2 (channels): thumbnail impressions and their click rate by day or month, video and the
 * slices the reach files carry (traffic source type, device type, operating system), with the usual video, group
 * and slice filters. Top videos follow Google's top-video rules (#26): sort descending, maxResults ≤ 200.
 */
const REACH_REPORTS: readonly Entry[] = [
  {
    id: 'R1',
    name: 'Reach: thumbnail impressions',
    dimensions: { atMostOne: [TIME], optional: REACH_SLICES },
    filters: { atMostOne: [VG], optional: REACH_SLICES },
    metrics: REACH_METRICS,
    example: 'dimensions=day&metrics=videoThumbnailImpressions,videoThumbnailImpressionsClickRate&sort=day',
    serviceOnly: REACH_NOTE,
  },
  {
    id: 'R2',
    name: 'Reach: top videos by thumbnail impressions',
    dimensions: { required: ['video'], optional: REACH_SLICES },
    filters: { optional: REACH_SLICES },
    metrics: REACH_METRICS,
    sort: { descendingBy: REACH_METRICS },
    maxResults: { max: 200, required: true },
    example:
      'dimensions=video&metrics=videoThumbnailImpressions,videoThumbnailImpressionsClickRate&sort=-videoThumbnailImpressions&maxResults=10',
    serviceOnly: REACH_NOTE,
  },
];

/** Every name a rule mentions (the names it allows). */
export const ruleNames = (rule: SetRule): Set<string> =>
  new Set([
    ...(rule.required ?? []),
    ...(rule.exactlyOne ?? []).flat(),
    ...(rule.atLeastOne ?? []).flat(),
    ...(rule.atMostOne ?? []).flat(),
    ...(rule.optional ?? []),
  ]);

/** The §A.2.2 dimension → filter needs that apply to the dimensions a report allows. */
function withDimensionNeeds(def: Omit<ReportDef, 'requiredDimensionFilters'>): ReportDef {
  const needs = Object.entries(DIMENSION_NEEDS).filter(([d]) => ruleNames(def.dimensions).has(d));
  return needs.length > 0 ? { ...def, requiredDimensionFilters: Object.fromEntries(needs) } : def;
}

const channelReport =
  (kind: ReportDef['kind']) =>
  (entry: Entry): ReportDef =>
    withDimensionNeeds({ ...entry, owner: 'channel', kind });

export const CHANNEL_REPORTS: readonly ReportDef[] = [
  ...VIDEO_REPORTS.map(channelReport('video')),
  ...PLAYLIST_REPORTS.map(channelReport('playlist')),
  channelReport('ad')(AD_REPORT),
];

/** The reach reports (channels only, see REACH_METRICS). */
export const REACH_CHANNEL_REPORTS: readonly ReportDef[] = REACH_REPORTS.map(channelReport('video'));

// Content owners (§A.3.4): the channel families with a `channel` dimension and filter and, outside playlist
// reports, claimedStatus / uploaderType dimensions and filters; every query must say whose data it covers.
const CLAIM_NAMES = ['claimedStatus', 'uploaderType'];
const CLAIM_VALUES: FilterValues = { claimedStatus: ['claimed'], uploaderType: ['self', 'thirdParty'] };
const CLAIM_COMBINATIONS: readonly Readonly<Record<string, string>>[] = [
  { claimedStatus: 'claimed' },
  { uploaderType: 'self' },
  { uploaderType: 'thirdParty' },
  { claimedStatus: 'claimed', uploaderType: 'self' },
  { claimedStatus: 'claimed', uploaderType: 'thirdParty' },
];
const ENTITY_FILTERS = ['video', 'channel', 'group', 'playlist'];

/** A filter clause added to an example query. */
function withFilter(example: string, clause: string): string {
  const parts = example.split('&');
  const i = parts.findIndex((p) => p.startsWith('filters='));
  if (i < 0) return [...parts, `filters=${clause}`].join('&');
  parts[i] = `${parts[i]};${clause}`;
  return parts.join('&');
}

/**
 * The content-owner report of a channel report: `channel` joins the video / group alternative (or is an optional
 * filter where there is none); video and ad reports also take claimedStatus / uploaderType and, unless they are
 * about given videos already, a `channel` dimension; metrics, sort and page rules stay the same.
 */
function forContentOwner(def: ReportDef): ReportDef {
  const claims = def.kind !== 'playlist';
  const joinsVideoOrGroup = (def.filters.atMostOne ?? []).some((g) => g.includes('video'));
  const aboutVideos = [def.dimensions.required, def.filters.required].some((r) => r?.includes('video'));
  const example = claims
    ? withFilter(def.example, 'uploaderType==self')
    : ENTITY_FILTERS.some((f) => def.example.includes(`${f}==`))
      ? def.example
      : withFilter(def.example, 'channel=={channel}');
  return {
    ...def,
    id: `CO-${def.id}`,
    owner: 'contentOwner',
    dimensions: claims
      ? {
          ...def.dimensions,
          optional: [...(def.dimensions.optional ?? []), ...(aboutVideos ? [] : ['channel']), ...CLAIM_NAMES],
        }
      : def.dimensions,
    filters: {
      ...def.filters,
      ...(joinsVideoOrGroup
        ? { atMostOne: (def.filters.atMostOne ?? []).map((g) => (g.includes('video') ? [...g, 'channel'] : g)) }
        : {}),
      optional: [
        ...(def.filters.optional ?? []),
        ...(joinsVideoOrGroup ? [] : ['channel']),
        ...(claims ? CLAIM_NAMES : []),
      ],
    },
    ...(claims ? { requiredFilterValues: { ...def.requiredFilterValues, ...CLAIM_VALUES } } : {}),
    entityFilter: { anyOf: ENTITY_FILTERS, combinations: claims ? CLAIM_COMBINATIONS : [] },
    example,
  };
}

/** The whole catalog: channel reports, then their content-owner counterparts (matching tries them in this order). */
export const REPORTS: readonly ReportDef[] = [
  ...CHANNEL_REPORTS,
  ...REACH_CHANNEL_REPORTS,
  ...CHANNEL_REPORTS.map(forContentOwner),
];

/** Why `names` breaks `rule`, or undefined when it follows it. */
export function ruleViolation(rule: SetRule, names: ReadonlySet<string>, what: string): string | undefined {
  const allowed = ruleNames(rule);
  for (const n of names) if (!allowed.has(n)) return `${what} ${n} is not allowed`;
  for (const n of rule.required ?? []) if (!names.has(n)) return `${what} ${n} is required`;
  for (const g of rule.exactlyOne ?? []) {
    if (g.filter((n) => names.has(n)).length !== 1) return `exactly one of the ${what}s ${g.join(', ')} is required`;
  }
  for (const g of rule.atLeastOne ?? []) {
    if (!g.some((n) => names.has(n))) return `at least one of the ${what}s ${g.join(', ')} is required`;
  }
  for (const g of rule.atMostOne ?? []) {
    if (g.filter((n) => names.has(n)).length > 1) return `at most one of the ${what}s ${g.join(', ')} is allowed`;
  }
  return undefined;
}
