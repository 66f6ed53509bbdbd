/**
 * The report catalog, as data: every report of Google's "available reports" tables (api-contract.md §A.3), for
 * channels and content owners: which dimensions, filters, filter values, metrics, sort orders and page sizes make a
 * supported query. Each report is one line of the tables below, its rules written as the contract writes them
 * (parseRule); the content-owner reports are derived from the channel ones (forContentOwner). report-matcher.ts
 * validates requests against it and catalog-table.ts renders the README's report table from it (with the example
 * queries of report-examples.ts); a query that fits no entry is "not supported", in Google's words. Which of these
 * reports the engine can answer from loaded data is decided elsewhere (query/report-query.ts).
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

/**
 * The names a rule token may stand for: a group of the tables below stands for its names, any other word for itself.
 * DETAIL_TRAFFIC_SOURCES is a value list (after `==`).
 */
const GROUPS: Readonly<Record<string, readonly string[]>> = {
  CCT: ['creatorContentType'],
  TIME: ['day', 'month'],
  GEO: ['country', 'province', 'continent', 'subContinent'],
  GEO_P: ['country', 'continent', 'subContinent'],
  REGION: ['continent', 'subContinent'],
  VG: ['video', 'group'],
  PG: ['playlist', 'group'],
  DETAIL_TRAFFIC_SOURCES,
};

type ParsedRule = { readonly rule: SetRule; readonly values?: FilterValues };
const KNOWN_NAMES: ReadonlySet<string> = new Set(KNOWN_DIMENSIONS);
/** Words to the names they stand for (GROUPS). */
function expand(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    const names = GROUPS[word];
    if (names) for (let j = 0; j < names.length; j++) out.push(names[j] as string);
    else out.push(word);
  }
  return out;
}
/** One token of a rule (`TIME?`, `country==US`), read once however many rules hold it. */
interface RuleToken {
  readonly mark: '' | '?' | '+';
  readonly names: string;
  readonly group: readonly string[];
  readonly values?: readonly string[];
}
const ruleTokens = new Map<string, RuleToken>();

function ruleToken(text: string, token: string): RuleToken {
  const known = ruleTokens.get(token);
  if (known) return known;
  const last = token[token.length - 1];
  const mark = last === '?' || last === '+' ? last : '';
  const parts = (mark ? token.slice(0, -1) : token).split('==');
  const names = parts[0] as string;
  const valueList = parts[1];
  const group = expand(names.split('|'));
  let allKnown = names !== '' && parts.length <= 2 && valueList !== '';
  for (let j = 0; j < group.length; j++) allKnown &&= KNOWN_NAMES.has(group[j] as string);
  if (!allKnown) throw new Error(`catalog rule "${text}": bad token ${token}`);
  const read: RuleToken =
    valueList === undefined ? { mark, names, group } : { mark, names, group, values: expand(valueList.split(',')) };
  ruleTokens.set(token, read);
  return read;
}

/** Many reports share a rule's text: each text is parsed once (the catalog is built at every cold start). */
const parsedRules = new Map<string, ParsedRule>();

/**
 * A rule written as the contract's tables write it, one token per name or group (api-contract.md §A.3):
 * `city` required, `city?` optional; `day|month` (or the group `TIME`) exactly one of, `TIME?` at most one of,
 * `ageGroup|gender+` at least one of. In filters, `country==US` is a required filter that must take one of the
 * values after `==` (comma-separated, or a value list of GROUPS). Names must be known (KNOWN_DIMENSIONS).
 * Indexed loops, no destructuring, each text and token read once: this runs cold, in the interpreter, at every
 * start of reports.query.
 */
function parseRule(text: string): ParsedRule {
  const known = parsedRules.get(text);
  if (known) return known;
  const required: string[] = [];
  const optional: string[] = [];
  const exactlyOne: string[][] = [];
  const atLeastOne: string[][] = [];
  const atMostOne: string[][] = [];
  let values: Record<string, readonly string[]> | undefined;
  const words = text.split(' ');
  for (let i = 0; i < words.length; i++) {
    if (words[i] === '') continue;
    const { mark, names, group, values: allowed } = ruleToken(text, words[i] as string);
    if (allowed) {
      values ??= {};
      values[names] = allowed;
    }
    if (group.length === 1) (mark === '?' ? optional : required).push(group[0] as string);
    else (mark === '?' ? atMostOne : mark === '+' ? atLeastOne : exactlyOne).push([...group]);
  }
  const rule: { -readonly [K in keyof SetRule]: SetRule[K] } = {};
  if (required.length > 0) rule.required = required;
  if (optional.length > 0) rule.optional = optional;
  if (exactlyOne.length > 0) rule.exactlyOne = exactlyOne;
  if (atLeastOne.length > 0) rule.atLeastOne = atLeastOne;
  if (atMostOne.length > 0) rule.atMostOne = atMostOne;
  const parsed = values ? { rule, values } : { rule };
  parsedRules.set(text, parsed);
  return parsed;
}

const TOP_N = ['views', 'estimatedMinutesWatched'];
const TOP_VIDEOS = ['views', 'redViews', 'estimatedMinutesWatched', 'estimatedRedMinutesWatched'];
const TOP_PLAYLISTS = ['playlistViews', 'playlistEstimatedMinutesWatched', 'playlistStarts'];
// biome-ignore format: word lists read best packed
const TOP_BY_REVENUE = [
  'views', 'redViews', 'estimatedRevenue', 'estimatedRedPartnerRevenue', 'estimatedMinutesWatched',
  'estimatedRedMinutesWatched', 'subscribersGained', 'subscribersLost',
];

type Extra = Pick<ReportDef, 'sort' | 'maxResults' | 'singleValueFilters' | 'serviceOnly'>;
/** Top-N and detail reports: sort descending by one of `by`; at most `max` rows, maxResults required unless said. */
const top = (by: readonly string[], max: number, required = true): Extra => ({
  sort: { descendingBy: by },
  maxResults: { max, required },
});

/** id, name, dimensions rule, filters rule (parseRule), metrics, and what only some reports have. */
type Row = readonly [id: string, name: string, dimensions: string, filters: string, metrics: readonly string[], Extra?];

/** Channel video reports #1–#30 (§A.3.1). */
// biome-ignore format: one report a line reads best
const VIDEO_REPORTS: readonly Row[] = [
  ['1', 'Basic user activity', '', 'GEO_P? VG?', M_ALL],
  ['2', 'Basic user activity (US)', '', 'province VG?', M_US],
  ['3', 'Time-based activity', 'TIME CCT?', 'GEO_P? VG?', M_ALL],
  ['4', 'Time-based activity (US)', 'TIME CCT?', 'province VG?', M_US],
  ['5', 'Geography-based activity', 'country CCT?', 'REGION? VG?', M_ALL],
  ['6', 'Geography-based activity (US)', 'province CCT?', 'country==US VG?', M_US],
  // The docs say maxResults ≤ 250; the API accepts 25 (api-contract.md §A.3.1, note on #7).
  ['7', 'Activity by city', 'city CCT? country? province? subscribedStatus? TIME?', 'GEO? VG?', ['views', 'estimatedMinutesWatched', 'averageViewDuration', 'averageViewPercentage'], top(TOP_N, 25)],
  ['8', 'User activity by subscribed status', 'CCT? subscribedStatus? TIME?', 'subscribedStatus? GEO_P? VG?', M_SUB],
  ['9', 'User activity by subscribed status (US)', 'CCT? subscribedStatus? TIME?', 'province? subscribedStatus? VG?', M_US],
  ['10', 'Time-based playback details (live or on demand)', 'CCT? liveOrOnDemand? subscribedStatus? youtubeProduct? TIME?', 'liveOrOnDemand? subscribedStatus? youtubeProduct? GEO? VG?', M_LIVE],
  ['11', 'Time-based playback details (view percentage)', 'CCT? subscribedStatus? youtubeProduct? TIME?', 'subscribedStatus? youtubeProduct? GEO? VG?', M_VP],
  ['12', 'Geography-based playback details (live or on demand)', 'country CCT? liveOrOnDemand? subscribedStatus? youtubeProduct?', 'liveOrOnDemand? subscribedStatus? youtubeProduct? REGION? VG?', M_LIVE],
  ['13', 'Geography-based playback details (view percentage)', 'country CCT? subscribedStatus? youtubeProduct?', 'subscribedStatus? youtubeProduct? REGION? VG?', M_VP],
  ['14', 'Geography-based playback details (live or on demand, US)', 'province CCT? liveOrOnDemand? subscribedStatus? youtubeProduct?', 'country==US liveOrOnDemand? subscribedStatus? youtubeProduct? VG?', M_LIVE],
  ['15', 'Geography-based playback details (view percentage, US)', 'province CCT? subscribedStatus? youtubeProduct?', 'country==US subscribedStatus? youtubeProduct? VG?', M_VP],
  ['16', 'Playback locations', 'insightPlaybackLocationType CCT? day? liveOrOnDemand? subscribedStatus?', 'liveOrOnDemand? subscribedStatus? GEO? VG?', M_LT],
  ['17', 'Playback location details', 'insightPlaybackLocationDetail CCT?', 'insightPlaybackLocationType==EMBEDDED liveOrOnDemand? subscribedStatus? GEO? VG?', M_LT, top(TOP_N, 25)],
  ['18', 'Traffic sources', 'insightTrafficSourceType CCT? day? liveOrOnDemand? subscribedStatus?', 'liveOrOnDemand? subscribedStatus? GEO? VG?', M_LT],
  ['19', 'Traffic source details', 'insightTrafficSourceDetail CCT?', 'insightTrafficSourceType==DETAIL_TRAFFIC_SOURCES liveOrOnDemand? subscribedStatus? GEO? VG?', M_LT, top(TOP_N, 25)],
  ['20', 'Device type', 'deviceType CCT? day? liveOrOnDemand? subscribedStatus? youtubeProduct?', 'operatingSystem? liveOrOnDemand? subscribedStatus? youtubeProduct? GEO? VG?', M_LT],
  ['21', 'Operating system', 'operatingSystem CCT? day? liveOrOnDemand? subscribedStatus? youtubeProduct?', 'deviceType? liveOrOnDemand? subscribedStatus? youtubeProduct? GEO? VG?', M_LT],
  ['22', 'Device type and operating system', 'deviceType operatingSystem CCT? day? liveOrOnDemand? subscribedStatus? youtubeProduct?', 'liveOrOnDemand? subscribedStatus? youtubeProduct? GEO? VG?', M_LT],
  ['23', 'Viewer demographics', 'ageGroup|gender+ CCT? liveOrOnDemand? subscribedStatus?', 'liveOrOnDemand? subscribedStatus? GEO? VG?', ['viewerPercentage']],
  ['24', 'Engagement and content sharing', 'sharingService CCT? subscribedStatus?', 'subscribedStatus? GEO_P? VG?', ['shares']],
  ['25', 'Audience retention', 'elapsedVideoTimeRatio CCT?', 'video audienceType? subscribedStatus? youtubeProduct?', ['audienceWatchRatio', 'relativeRetentionPerformance'], { singleValueFilters: ['video'] }],
  ['26', 'Top videos', 'video CCT?', 'GEO_P?', M_ALL, top(TOP_BY_REVENUE, 200)],
  ['27', 'Top videos by state', 'video CCT?', 'province subscribedStatus?', M_US, top(TOP_VIDEOS, 200)],
  ['28', 'Top videos by subscription status', 'video CCT?', 'subscribedStatus? GEO_P?', M_SUB, top(TOP_VIDEOS, 200)],
  ['29', 'Top videos by YouTube product', 'video CCT?', 'subscribedStatus? youtubeProduct? GEO?', M_VP, top(TOP_VIDEOS, 200)],
  ['30', 'Top videos by playback detail', 'video CCT?', 'liveOrOnDemand? subscribedStatus? youtubeProduct? GEO?', M_VP, top(TOP_VIDEOS, 200)],
];

/** Channel playlist reports P1–P11 (§A.3.2). */
// biome-ignore format: one report a line reads best
const PLAYLIST_REPORTS: readonly Row[] = [
  ['P1', 'Basic playlist activity', '', 'PG', P_ALL],
  ['P2', 'Time-based playlist activity', 'TIME', 'PG', P_ALL],
  ['P3', 'Geography-based playlist activity', 'country', 'PG REGION?', P_GEO],
  ['P4', 'Geography-based playlist activity (US)', 'province', 'country==US PG', P_GEO],
  ['P5', 'Playlist playback locations', 'insightPlaybackLocationType', 'PG', P_LOC],
  ['P6', 'Playlist playback location details', 'insightPlaybackLocationDetail', 'insightPlaybackLocationType==EMBEDDED PG', P_LOC, top(TOP_PLAYLISTS, 25, false)],
  ['P7', 'Playlist traffic sources', 'insightTrafficSourceType', 'PG', P_ALL],
  ['P8', 'Playlist traffic source details', 'insightTrafficSourceDetail', 'insightTrafficSourceType==DETAIL_TRAFFIC_SOURCES PG', P_ALL, top(TOP_PLAYLISTS, 25, false)],
  ['P9', 'Playlist device type and operating system', 'deviceType|operatingSystem+', 'PG', P_LOC],
  ['P10', 'Playlist viewer demographics', 'ageGroup|gender+', 'PG', ['viewerPercentage']],
  ['P11', 'Top playlists', 'playlist', '', P_TOP, top(TOP_PLAYLISTS, 200, false)],
];

/** The ad performance report (§A.3.3). */
const AD_REPORT: Row = ['AD', 'Ad performance', 'adType day?', 'VG? GEO_P?', AD_METRICS];

const REACH_NOTE =
  "Google's Analytics API answers 400 for these metrics; this service answers them from the `channel_reach_*` bulk reports";

/**
 * Reach reports R1 and R2 (channels): thumbnail impressions and their click rate by day or month, video and the
 * slices the reach files carry (traffic source type, device type, operating system), with the usual video, group
 * and slice filters. Top videos follow Google's top-video rules (#26): sort descending, maxResults ≤ 200.
 */
// biome-ignore format: one report a line reads best
const REACH_REPORTS: readonly Row[] = [
  ['R1', 'Reach: thumbnail impressions', 'insightTrafficSourceType? deviceType? operatingSystem? TIME?', 'insightTrafficSourceType? deviceType? operatingSystem? VG?', REACH_METRICS, { serviceOnly: REACH_NOTE }],
  ['R2', 'Reach: top videos by thumbnail impressions', 'video insightTrafficSourceType? deviceType? operatingSystem?', 'insightTrafficSourceType? deviceType? operatingSystem?', REACH_METRICS, { ...top(REACH_METRICS, 200), serviceOnly: REACH_NOTE }],
];

const namesOf = new WeakMap<SetRule, ReadonlySet<string>>();

/** Every name a rule mentions (the names it allows). Worked out once per rule: matching a request asks per report. */
export function ruleNames(rule: SetRule): ReadonlySet<string> {
  let names = namesOf.get(rule);
  if (!names) {
    names = new Set([
      ...(rule.required ?? []),
      ...(rule.exactlyOne ?? []).flat(),
      ...(rule.atLeastOne ?? []).flat(),
      ...(rule.atMostOne ?? []).flat(),
      ...(rule.optional ?? []),
    ]);
    namesOf.set(rule, names);
  }
  return names;
}

/** A channel report from its table row, with the §A.2.2 dimension → filter needs of the dimensions it allows. */
const channelReport =
  (kind: ReportDef['kind']) =>
  ([id, name, dims, filters, metrics, extra]: Row): ReportDef => {
    const dimensions = parseRule(dims).rule;
    const { rule, values } = parseRule(filters);
    const allowed = ruleNames(dimensions);
    const needs = Object.entries(DIMENSION_NEEDS).filter(([d]) => allowed.has(d));
    return {
      id,
      name,
      owner: 'channel',
      kind,
      dimensions,
      filters: rule,
      metrics,
      ...(values ? { requiredFilterValues: values } : {}),
      ...(needs.length > 0 ? { requiredDimensionFilters: Object.fromEntries(needs) } : {}),
      ...extra,
    };
  };

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

/**
 * The content-owner report of a channel report: `channel` joins the video / group alternative (or is an optional
 * filter where there is none); video and ad reports also take claimedStatus / uploaderType and, unless they are
 * about given videos already, a `channel` dimension; metrics, sort and page rules stay the same.
 */
function forContentOwner(def: ReportDef): ReportDef {
  const claims = def.kind !== 'playlist';
  const joinsVideoOrGroup = (def.filters.atMostOne ?? []).some((g) => g.includes('video'));
  const aboutVideos = [def.dimensions.required, def.filters.required].some((r) => r?.includes('video'));
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
