/**
 * The report catalog, as data: which dimensions, filters, metrics, sort orders and page sizes make a supported
 * query (api-contract.md §A.3). Validation, planning and the README's report table all derive from it; a query
 * that matches no entry is "not supported", in Google's words.
 */
import { METRICS, type MetricName } from './metrics';

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

/** Every metric name the public API knows. */
// biome-ignore format: word lists read best packed
export const KNOWN_METRICS = [
  ...Object.keys(METRICS),
  'viewerPercentage', 'estimatedRevenue', 'estimatedAdRevenue', 'grossRevenue', 'estimatedRedPartnerRevenue',
  'monetizedPlaybacks', 'playbackBasedCpm', 'adImpressions', 'cpm', 'audienceWatchRatio',
  'relativeRetentionPerformance', 'playlistViews', 'playlistStarts', 'playlistSaves',
  'playlistEstimatedMinutesWatched', 'playlistAverageViewDuration', 'averageTimeInPlaylist', 'viewsPerPlaylistStart',
];

/** A rule over a set of names (dimensions or filters). Names not mentioned are not allowed. */
export interface SetRule {
  readonly required?: readonly string[];
  readonly exactlyOne?: readonly (readonly string[])[];
  readonly atMostOne?: readonly (readonly string[])[];
  readonly optional?: readonly string[];
}

export interface ReportDef {
  /** The number in Google's channel-reports table (#1, #3, …). */
  readonly id: string;
  readonly name: string;
  readonly dimensions: SetRule;
  readonly filters: SetRule;
  readonly metrics: readonly MetricName[];
  /** Top-N reports: sort required, descending only, by one of `by`. */
  readonly sort?: { readonly descendingBy: readonly MetricName[] };
  /** Required page size and its cap (also caps startIndex + maxResults − 1). */
  readonly maxResults?: { readonly max: number };
  /** An example query for the README. */
  readonly example: string;
}

const M_ALL: readonly MetricName[] = Object.keys(METRICS) as MetricName[];
// biome-ignore format: word lists read best packed
const M_SUB: readonly MetricName[] = [
  'views', 'engagedViews', 'redViews', 'estimatedMinutesWatched', 'estimatedRedMinutesWatched', 'averageViewDuration',
  'averageViewPercentage', 'annotationClickThroughRate', 'annotationCloseRate', 'annotationImpressions',
  'annotationClickableImpressions', 'annotationClosableImpressions', 'annotationClicks', 'annotationCloses',
  'cardClickRate', 'cardTeaserClickRate', 'cardImpressions', 'cardTeaserImpressions', 'cardClicks', 'cardTeaserClicks',
  'likes', 'dislikes', 'videosAddedToPlaylists', 'videosRemovedFromPlaylists', 'shares',
];
// biome-ignore format: word lists read best packed
const M_LIVE: readonly MetricName[] = [
  'views', 'engagedViews', 'redViews', 'estimatedMinutesWatched', 'estimatedRedMinutesWatched', 'averageViewDuration',
];

const GEO_NO_PROVINCE = ['country', 'continent', 'subContinent'];
const VIDEO_OR_GROUP = ['video', 'group'];

export const CHANNEL_REPORTS: readonly ReportDef[] = [
  {
    id: '1',
    name: 'Basic user activity',
    dimensions: {},
    filters: { atMostOne: [GEO_NO_PROVINCE, VIDEO_OR_GROUP] },
    metrics: M_ALL,
    example: 'metrics=views,likes,subscribersGained',
  },
  {
    id: '3',
    name: 'Time-based activity',
    dimensions: { exactlyOne: [['day', 'month']] },
    filters: { atMostOne: [GEO_NO_PROVINCE, VIDEO_OR_GROUP] },
    metrics: M_ALL,
    example: 'dimensions=day&metrics=views,estimatedMinutesWatched&sort=day',
  },
  {
    id: '5',
    name: 'Geography-based activity',
    dimensions: { required: ['country'] },
    filters: { atMostOne: [['continent', 'subContinent'], VIDEO_OR_GROUP] },
    metrics: M_ALL,
    example: 'dimensions=country&metrics=views,averageViewDuration&sort=-views',
  },
  {
    id: '8',
    name: 'User activity by subscribed status',
    dimensions: { optional: ['subscribedStatus'], atMostOne: [['day', 'month']] },
    filters: { atMostOne: [GEO_NO_PROVINCE, VIDEO_OR_GROUP], optional: ['subscribedStatus'] },
    metrics: M_SUB,
    example: 'dimensions=subscribedStatus&metrics=views,likes',
  },
  {
    id: '10',
    name: 'Time-based playback details (live or on demand)',
    dimensions: { optional: ['liveOrOnDemand', 'subscribedStatus'], atMostOne: [['day', 'month']] },
    filters: { atMostOne: [GEO_NO_PROVINCE, VIDEO_OR_GROUP], optional: ['liveOrOnDemand', 'subscribedStatus'] },
    metrics: M_LIVE,
    example: 'dimensions=liveOrOnDemand,month&metrics=views,averageViewDuration',
  },
  {
    id: '26',
    name: 'Top videos',
    dimensions: { required: ['video'] },
    filters: { atMostOne: [GEO_NO_PROVINCE] },
    metrics: M_ALL,
    // biome-ignore format: word lists read best packed
    sort: {
      descendingBy: [
        'views', 'redViews', 'estimatedMinutesWatched', 'estimatedRedMinutesWatched', 'subscribersGained',
        'subscribersLost',
      ],
    },
    maxResults: { max: 200 },
    example: 'dimensions=video&metrics=views,likes&sort=-views&maxResults=10',
  },
];

/** Why `names` breaks `rule`, or undefined when it follows it. */
export function ruleViolation(rule: SetRule, names: ReadonlySet<string>, what: string): string | undefined {
  const allowed = new Set([
    ...(rule.required ?? []),
    ...(rule.exactlyOne ?? []).flat(),
    ...(rule.atMostOne ?? []).flat(),
    ...(rule.optional ?? []),
  ]);
  for (const n of names) if (!allowed.has(n)) return `${what} ${n} is not allowed`;
  for (const n of rule.required ?? []) if (!names.has(n)) return `${what} ${n} is required`;
  for (const g of rule.exactlyOne ?? []) {
    if (g.filter((n) => names.has(n)).length !== 1) return `exactly one of the ${what}s ${g.join(', ')} is required`;
  }
  for (const g of rule.atMostOne ?? []) {
    if (g.filter((n) => names.has(n)).length > 1) return `at most one of the ${what}s ${g.join(', ')} is allowed`;
  }
  return undefined;
}
