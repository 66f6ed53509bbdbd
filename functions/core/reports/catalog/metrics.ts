/**
 * Stored measures (additive columns of the fact cubes) and the Analytics API metrics computed from them.
 * Averages and rates are recomputed from sums, never summed. A measure missing from a file's report version is
 * null, not 0; sums follow SQL semantics (null only when every input is null).
 */
export const MEASURES = [
  'views',
  'engagedViews',
  'redViews',
  'comments',
  'likes',
  'dislikes',
  'shares',
  'videosAddedToPlaylists',
  'videosRemovedFromPlaylists',
  'watchMinutes',
  'redWatchMinutes',
  /** average_view_duration_percentage × views: the weight that makes the percentage re-averageable. */
  'viewPercentageWeighted',
  'annotationImpressions',
  'annotationClickableImpressions',
  'annotationClosableImpressions',
  'annotationClicks',
  'annotationCloses',
  'cardImpressions',
  'cardClicks',
  'cardTeaserImpressions',
  'cardTeaserClicks',
  'subscribersGained',
  'subscribersLost',
  'playlistStarts',
  'playlistSavesAdded',
  'playlistSavesRemoved',
  /** views_percentage summed: a demographic cell's share, normalized over the answer (viewerPercentage). */
  'viewerShare',
  'estimatedRevenue',
  'estimatedAdRevenue',
  'adAuctionRevenue',
  'adReservedRevenue',
  'transactionRevenue',
  'grossRevenue',
  'estimatedRedPartnerRevenue',
  'monetizedPlaybacks',
  'adImpressions',
  'endScreenImpressions',
  'endScreenClicks',
  /** audience_watch_ratio × views and relative_retention_performance × views (retention extension). */
  'watchRatioWeighted',
  'relativeRetentionWeighted',
  /** video_thumbnail_impressions, and impressions × video_thumbnail_impressions_ctr (clicks) per row (reach reports). */
  'thumbnailImpressions',
  'thumbnailClicks',
] as const;

export type Measure = (typeof MEASURES)[number];
export const MEASURE_INDEX: Readonly<Record<Measure, number>> = Object.fromEntries(
  MEASURES.map((m, i) => [m, i]),
) as Record<Measure, number>;

/** Money measures, in USD as loaded; `currency=` converts them day by day before they are summed. */
export const MONEY_MEASURES: ReadonlySet<Measure> = new Set<Measure>([
  'estimatedRevenue',
  'estimatedAdRevenue',
  'adAuctionRevenue',
  'adReservedRevenue',
  'transactionRevenue',
  'grossRevenue',
  'estimatedRedPartnerRevenue',
]);

export type Value = number | null;
export type Sums = Value[];
/** Measures as read from storage: an array, or a Float64Array view in which NaN stands for null. */
export type StoredSums = ArrayLike<number | null>;

export const emptySums = (): Sums => MEASURES.map(() => null);

/** Null-aware addition (SQL SUM); NaN in stored measures means null. */
export function addInto(target: Sums, source: StoredSums, only?: readonly number[]): void {
  if (only) {
    for (const i of only) add(target, i, source[i] as Value);
    return;
  }
  for (let i = 0; i < source.length; i++) add(target, i, source[i] as Value);
}

function add(target: Sums, i: number, v: Value): void {
  if (v === null || Number.isNaN(v)) return;
  const t = target[i] as Value;
  target[i] = t === null ? v : t + v;
}

/** The measure positions the given metrics need (so a report sums only those). */
export const measuresFor = (metrics: readonly MetricName[]): number[] => [
  ...new Set(metrics.flatMap((m) => METRICS[m].uses.map((u) => MEASURE_INDEX[u]))),
];

export type DataType = 'INTEGER' | 'FLOAT';

export interface MetricDef {
  readonly dataType: DataType;
  /** Measures whose sums the metric needs (for documentation and the oracle). */
  readonly uses: readonly Measure[];
  readonly compute: (s: (m: Measure) => Value) => Value;
  /** A share of the whole answer: the computed value is divided by its total over all rows, times 100. */
  readonly normalized?: boolean;
}

// The builders are side-effect free: a bundle that never reads METRICS (the ingest) does not carry the table.
const sum = /* @__NO_SIDE_EFFECTS__ */ (m: Measure): MetricDef => ({
  dataType: 'INTEGER',
  uses: [m],
  compute: (s) => s(m),
});
const rounded = /* @__NO_SIDE_EFFECTS__ */ (m: Measure): MetricDef => ({
  dataType: 'INTEGER',
  uses: [m],
  compute: (s) => {
    const v = s(m);
    return v === null ? null : Math.round(v);
  },
});
/** numerator ÷ denominator × factor; 0 when the denominator is 0 (no activity), null when unknown. */
const ratio = /* @__NO_SIDE_EFFECTS__ */ (
  num: Measure,
  den: Measure,
  dataType: DataType = 'FLOAT',
  factor = 1,
): MetricDef => ({
  dataType,
  uses: [num, den],
  compute: (s) => {
    const n = s(num);
    const d = s(den);
    if (n === null || d === null) return null;
    if (d === 0) return 0;
    const v = (n * factor) / d;
    return dataType === 'INTEGER' ? Math.round(v) : v;
  },
});

const money = /* @__NO_SIDE_EFFECTS__ */ (m: Measure): MetricDef => ({
  dataType: 'FLOAT',
  uses: [m],
  compute: (s) => s(m),
});
const difference = /* @__NO_SIDE_EFFECTS__ */ (a: Measure, b: Measure): MetricDef => ({
  dataType: 'INTEGER',
  uses: [a, b],
  compute: (s) => {
    const x = s(a);
    const y = s(b);
    return x === null && y === null ? null : (x ?? 0) - (y ?? 0);
  },
});

/** The metrics served from stored measures, with their Analytics API names. */
export const METRICS = {
  views: sum('views'),
  engagedViews: sum('engagedViews'),
  redViews: sum('redViews'),
  comments: sum('comments'),
  likes: sum('likes'),
  dislikes: sum('dislikes'),
  shares: sum('shares'),
  videosAddedToPlaylists: sum('videosAddedToPlaylists'),
  videosRemovedFromPlaylists: sum('videosRemovedFromPlaylists'),
  estimatedMinutesWatched: rounded('watchMinutes'),
  estimatedRedMinutesWatched: rounded('redWatchMinutes'),
  averageViewDuration: ratio('watchMinutes', 'views', 'INTEGER', 60),
  averageViewPercentage: ratio('viewPercentageWeighted', 'views'),
  annotationImpressions: sum('annotationImpressions'),
  annotationClickableImpressions: sum('annotationClickableImpressions'),
  annotationClosableImpressions: sum('annotationClosableImpressions'),
  annotationClicks: sum('annotationClicks'),
  annotationCloses: sum('annotationCloses'),
  annotationClickThroughRate: ratio('annotationClicks', 'annotationClickableImpressions'),
  annotationCloseRate: ratio('annotationCloses', 'annotationClosableImpressions'),
  cardImpressions: sum('cardImpressions'),
  cardClicks: sum('cardClicks'),
  cardTeaserImpressions: sum('cardTeaserImpressions'),
  cardTeaserClicks: sum('cardTeaserClicks'),
  cardClickRate: ratio('cardClicks', 'cardImpressions'),
  cardTeaserClickRate: ratio('cardTeaserClicks', 'cardTeaserImpressions'),
  subscribersGained: sum('subscribersGained'),
  subscribersLost: sum('subscribersLost'),
  viewerPercentage: { dataType: 'FLOAT', uses: ['viewerShare'], compute: (s) => s('viewerShare'), normalized: true },
  // Playlist reports read the playlist exports, whose views and minutes are in the playlist's context.
  playlistViews: sum('views'),
  playlistEstimatedMinutesWatched: rounded('watchMinutes'),
  playlistAverageViewDuration: ratio('watchMinutes', 'views', 'INTEGER', 60),
  playlistStarts: sum('playlistStarts'),
  playlistSaves: difference('playlistSavesAdded', 'playlistSavesRemoved'),
  viewsPerPlaylistStart: ratio('views', 'playlistStarts'),
  averageTimeInPlaylist: ratio('watchMinutes', 'playlistStarts'),
  estimatedRevenue: money('estimatedRevenue'),
  estimatedAdRevenue: money('estimatedAdRevenue'),
  grossRevenue: money('grossRevenue'),
  estimatedRedPartnerRevenue: money('estimatedRedPartnerRevenue'),
  monetizedPlaybacks: sum('monetizedPlaybacks'),
  adImpressions: sum('adImpressions'),
  cpm: ratio('grossRevenue', 'adImpressions', 'FLOAT', 1000),
  audienceWatchRatio: ratio('watchRatioWeighted', 'views'),
  relativeRetentionPerformance: ratio('relativeRetentionWeighted', 'views'),
  playbackBasedCpm: ratio('grossRevenue', 'monetizedPlaybacks', 'FLOAT', 1000),
  // Reach (channel_reach_* bulk reports): answered here, not by Google's Analytics API. The click rate is a fraction
  // recomputed from the summed clicks and impressions, never an average of the files' rates.
  videoThumbnailImpressions: sum('thumbnailImpressions'),
  videoThumbnailImpressionsClickRate: ratio('thumbnailClicks', 'thumbnailImpressions'),
} as const satisfies Record<string, MetricDef>;

export type MetricName = keyof typeof METRICS;
export const isSupportedMetric = (name: string): name is MetricName => Object.hasOwn(METRICS, name);
