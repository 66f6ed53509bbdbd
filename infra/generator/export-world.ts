/**
 * Every report family besides channel_basic (catalogue: export-families.ts), on the channel_basic model of
 * export-generator.ts: channel, playlist, content-owner and asset reports, and writeAllExports.
 *
 * A video-day's views are drawn once per channel and day from a stream of their own (channel_basic keeps its stream,
 * so its files are exactly what they were before the families existed), shared by every family; each family slices
 * them its own way (traffic source, device, …) into at most a few dozen cells per video-day, so files stay bounded and
 * the families of one day tell a consistent story. Playlist families thin those views by a shared stream too. The
 * slicing itself draws from a stream per (family, day), so the versions of a family carry the same numbers and differ
 * only in columns.
 *
 * With `extensions`, the video families also carry creator_content_type and youtube_product: every cell is first drawn
 * and filled exactly as in the plain file, then split over the apps from a stream of its own (the parts' views add up
 * to the cell's). The x1 extension layouts (city, audience retention, channel revenue and ad rates, and playlist
 * demographics: the playlist units of playlist_basic split over age × gender as channel_demographics does) slice the
 * same day's views; see export-extensions.ts. The reach reports turn each video-day's views into thumbnail impressions
 * at the video's click rate (a trait of its own stream), split by traffic source, device and system in the combined
 * report.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
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
import { exchangeRatesCsv } from './exchange-rates';
import {
  AUDIENCE_TYPES,
  NO_CREATOR_TYPE,
  NO_PRODUCT,
  PRODUCT_CPM,
  PRODUCTS,
  planVideoExtensions,
  RETENTION_POINTS,
  referenceCurve,
  retentionCurve,
  retentionSlices,
  sliceTilt,
  splitProducts,
  type VideoExtension,
} from './export-extensions';
import {
  AD_DETAILS,
  AD_TYPE_CPM,
  AD_TYPE_WEIGHTS,
  AGE_GROUP_WEIGHTS,
  ALL_FAMILIES,
  ANNOTATION_TYPES,
  BROWSE_FEATURES,
  CARD_TYPES,
  CITIES,
  COUNTRY_CPM,
  COUNTRY_LANGUAGE,
  DETAIL_TRAFFIC_TYPES,
  DEVICES_LONG,
  DEVICES_SHORT,
  EMBEDDING_SITES,
  END_SCREEN_CTR,
  END_SCREEN_TYPES,
  EXTENDED_FAMILY_TYPES,
  EXTENSION_COLUMNS,
  EXTERNAL_SITES,
  type FamilyKind,
  type FamilyScope,
  GENDER_WEIGHTS,
  isOwnerFamily,
  knownCodes,
  MONTH_CPM,
  NOTIFICATION_KINDS,
  OS_BY_DEVICE,
  OTHER_PAGES,
  PLAYBACK_BY_TRAFFIC,
  PLAYBACK_DEFAULT,
  PLAYBACK_LONG,
  PLAYBACK_SHORT,
  parseReportType,
  type ReportFamily,
  reportTypeColumns,
  SEARCH_EXTRA,
  SEARCH_WORDS,
  SHARING_BY_COUNTRY,
  SHARING_GLOBAL,
  TRAFFIC_CLAIMED_EXTRA,
  TRAFFIC_LIVE,
  TRAFFIC_LONG,
  TRAFFIC_PLAYLIST,
  TRAFFIC_SHORT,
  TRANSLATED_LANGUAGES,
  US_PROVINCES,
  versionForEra,
  type Weights,
} from './export-families';
import {
  ASSET_WIDTH,
  assertValid,
  CANONICAL_INDEX,
  type ChannelPlan,
  COUNTRIES,
  compactDate,
  type DayExport,
  DEFAULT_ASSETS,
  DEFAULT_PLAYLISTS,
  DIMENSION_VARIANT_PROBABILITY,
  dayTrend,
  defaultAssetPrefix,
  defaultPlaylistPrefix,
  defaultVideoPrefix,
  fillMetrics,
  type GeneratorOptions,
  generate,
  LIVE_DAY,
  type OwnedChannel,
  PLAYLIST_WIDTH,
  parseDay,
  planChannel,
  type ReportVersion,
  resolveReports,
  rowFields,
  rowLine,
  S,
  UNKNOWN_COUNTRY,
  type VideoPlan,
  videoMean,
  writeDays,
} from './export-generator';
import { dec2, dec6, dec10, hash32, int, money, Picker, Rng, ratio, round6, zipf } from './export-random';

// ---------------------------------------------------------------------------------------------------------------
// The world: channels, playlists, content owner, per-video traits

/** Share of a content owner's own uploads with a Content ID claim. */
const OWNED_CLAIMED_SHARE = 0.75;
/** Third-party uploads the content owner claims, as a share of its own videos, spread over a few channels. */
const THIRD_PARTY_SHARE = 0.08;
const THIRD_PARTY_CHANNELS = 3;
const SECOND_ASSET_SHARE = 0.12;
/** Share of views by logged-in viewers (the demographics denominator). */
const LOGGED_IN_SHARE = 0.62;
/** The partner's share of gross ad revenue. */
const PARTNER_SHARE = 0.55;
const FAMILY_EMPTY_DAY_PROBABILITY = 0.01;
/** Share of views the city layouts can place in a city (the rest have no known city and are left out). */
const CITY_SHARE = 0.7;
/** Audience retention: the channel's most viewed videos of the day with enough views, a few slices each. */
const RETENTION_TOP_VIDEOS = 20;
const RETENTION_MIN_VIEWS = 40;
const RETENTION_MIN_SLICE_VIEWS = 10;
const RETENTION_MAX_SLICES = 4;
/** Activity is cached per channel-day while a run holds at most this many video-days. */
const ACTIVITY_CACHE_LIMIT = 4_000_000;

export interface PlaylistPlan {
  id: string;
  /** Video indexes (into the channel plan's videos) in playlist order. */
  members: number[];
  /** Share of a member's views watched in this playlist's context (before the position fall-off). */
  share: number;
}

/** What the families need to know about a video beyond its VideoPlan. */
export interface VideoTraits {
  /** Has a Content ID claim (content-owner reports); third-party uploads always do. */
  claimed: boolean;
  /** The content owner's assets matching the video (claimed videos only) and their shares of its revenue. */
  assets: string[];
  assetShares: number[];
  annotations: (readonly [type: string, id: string])[];
  cards: (readonly [type: string, id: string])[];
  endScreens: (readonly [type: string, id: string])[];
  /** Share of views with an ad, and a CPM multiplier. */
  monetizedRate: number;
  cpmFactor: number;
  /** Probabilities of the age group × gender cells (DEMOGRAPHIC_CELLS order) among logged-in viewers. */
  demographics: Float64Array;
  /** Share of views watched with captions. */
  captionShare: number;
  /** Languages with a human (not auto-translated) caption track. */
  translations: string[];
}

interface Vocabulary {
  referringChannels: Picker;
  externalVideos: readonly string[];
  externalPlaylists: readonly string[];
  searchTerms: Picker;
  externalSites: Picker;
  embeddingSites: Picker;
  /** Video indexes by popularity: suggested-video details point at the channel's popular videos. */
  popular: Picker<number>;
}

interface DayActivity {
  /** Views per video index on the day (videos not yet uploaded: 0). */
  live: Int32Array;
  onDemand: Int32Array;
  /** Videos uploaded by the end of the day (the first `published` indexes). */
  published: number;
}

export interface ChannelWorld {
  plan: ChannelPlan;
  traits: VideoTraits[];
  /** Extension traits (creator content type, apps, retention), from a stream of their own. */
  extensions: VideoExtension[];
  playlists: PlaylistPlan[];
  uploader: 'self' | 'thirdParty';
  vocab: Vocabulary;
  activity: Map<number, DayActivity>;
}

export interface World {
  options: GeneratorOptions;
  /** The channel of the channel and playlist families. */
  channel: ChannelWorld;
  /** The content owner: its own channels first, then the third-party channels of claimed uploads; its assets. */
  owner?: { id: string; channels: ChannelWorld[]; assets: string[] };
}

const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const randomId = (rng: Rng, length: number) => {
  let s = '';
  for (let i = 0; i < length; i++) s += ID_CHARS[rng.int(64)];
  return s;
};
const hex = (rng: Rng, length: number) => {
  let s = '';
  for (let i = 0; i < length; i++) s += rng.int(16).toString(16);
  return s;
};

const codePicker = (table: Readonly<Record<string, string>>, weights: Weights) =>
  new Picker(knownCodes(table, weights));
const TRAFFIC = {
  long: codePicker(TRAFFIC_SOURCE_TYPES, TRAFFIC_LONG),
  longClaimed: codePicker(TRAFFIC_SOURCE_TYPES, [...TRAFFIC_LONG, ...TRAFFIC_CLAIMED_EXTRA]),
  short: codePicker(TRAFFIC_SOURCE_TYPES, TRAFFIC_SHORT),
  live: codePicker(TRAFFIC_SOURCE_TYPES, TRAFFIC_LIVE),
  playlist: codePicker(TRAFFIC_SOURCE_TYPES, TRAFFIC_PLAYLIST),
};
const PLAYBACK = {
  long: codePicker(PLAYBACK_LOCATION_TYPES, PLAYBACK_LONG),
  short: codePicker(PLAYBACK_LOCATION_TYPES, PLAYBACK_SHORT),
  fallback: codePicker(PLAYBACK_LOCATION_TYPES, PLAYBACK_DEFAULT),
  byTraffic: new Map(
    Object.entries(PLAYBACK_BY_TRAFFIC).map(([t, w]) => [t, codePicker(PLAYBACK_LOCATION_TYPES, w)] as const),
  ),
};
const DEVICES = { long: codePicker(DEVICE_TYPES, DEVICES_LONG), short: codePicker(DEVICE_TYPES, DEVICES_SHORT) };
const OS_OF_DEVICE = new Map(
  Object.entries(OS_BY_DEVICE).map(([d, w]) => [d, codePicker(OPERATING_SYSTEMS, w)] as const),
);
const SHARING = {
  global: codePicker(SHARING_SERVICES, SHARING_GLOBAL),
  byCountry: new Map(Object.entries(SHARING_BY_COUNTRY).map(([c, w]) => [c, codePicker(SHARING_SERVICES, w)] as const)),
};
const AD_TYPE_PICKER = codePicker(AD_TYPES, AD_TYPE_WEIGHTS);
const PROVINCES = new Picker(US_PROVINCES);
const ANNOTATION_PICKER = new Picker(ANNOTATION_TYPES);
const CARD_PICKER = new Picker(CARD_TYPES);
const END_SCREEN_PICKER = new Picker(END_SCREEN_TYPES);
const BROWSE = new Picker(zipf(BROWSE_FEATURES));
const OTHER_PAGE = new Picker(zipf(OTHER_PAGES));
const NOTIFICATION = new Picker(zipf(NOTIFICATION_KINDS));
const AD_DETAIL = new Picker(zipf(AD_DETAILS));
/** Age group × gender cells, age-major, restricted to the values the code tables know. */
const AGES = knownCodes(AGE_GROUPS, AGE_GROUP_WEIGHTS);
const GENDER_CELLS = knownCodes(GENDERS, GENDER_WEIGHTS);
const DEMOGRAPHIC_CELLS = AGES.flatMap(([age]) => GENDER_CELLS.map(([gender]) => [age, gender] as const));

/** One channel's plan, traits, playlists and detail vocabulary. Deterministic in (seed, channel). */
function planChannelWorld(
  o: GeneratorOptions,
  c: Required<OwnedChannel>,
  uploader: 'self' | 'thirdParty',
  owner: { id: string; assets: readonly string[] } | undefined,
): ChannelWorld {
  const plan = planChannel({
    ...o,
    channel: c.channel,
    videos: c.videos,
    videoPrefix: c.videoPrefix,
    videoWidth: c.videoWidth,
  });
  const rng = new Rng(hash32('traits', o.seed, c.channel));
  const ageBase = AGES.map(([, w]) => w * rng.lognormal(0.3));
  const genderBase = GENDER_CELLS.map(([, w]) => w * rng.lognormal(0.2));
  const traits = plan.videos.map((v) => planTraits(rng, v, uploader, ageBase, genderBase));
  if (owner) {
    // Assets come from their own stream, so a channel's other traits do not depend on its content owner.
    const assetRng = new Rng(hash32('assets', o.seed, owner.id, c.channel));
    for (const t of traits) if (t.claimed) assignAssets(assetRng, t, owner.assets);
  }
  const playlists = planPlaylists(o, plan, c);
  return {
    plan,
    traits,
    extensions: planVideoExtensions(o.seed, c.channel, plan.videos),
    playlists,
    uploader,
    vocab: planVocabulary(new Rng(hash32('vocabulary', o.seed, c.channel)), plan),
    activity: new Map(),
  };
}

function planTraits(
  rng: Rng,
  v: VideoPlan,
  uploader: 'self' | 'thirdParty',
  ageBase: readonly number[],
  genderBase: readonly number[],
): VideoTraits {
  const claimed = uploader === 'thirdParty' || rng.next() < OWNED_CLAIMED_SHARE;
  const annotations: [string, string][] = [];
  if (v.legacyAnnotations || (v.publishDay < -365 && rng.next() < 0.08)) {
    for (let k = 1 + rng.int(3); k > 0; k--) {
      annotations.push([ANNOTATION_PICKER.pick(rng), `annotation_${1_000_000 + rng.int(9_000_000)}`]);
    }
  }
  const cards: [string, string][] = [];
  if (v.hasCards) {
    for (let k = 1 + rng.int(4); k > 0; k--) cards.push([CARD_PICKER.pick(rng), String(1e12 + rng.int(9e12))]);
  }
  const endScreens: [string, string][] = [];
  if (!v.short && !v.live && rng.next() < 0.65) {
    for (let k = 2 + rng.int(3); k > 0; k--) {
      endScreens.push([
        END_SCREEN_PICKER.pick(rng),
        `${hex(rng, 8)}-${hex(rng, 4)}-${hex(rng, 4)}-${hex(rng, 4)}-${hex(rng, 12)}`,
      ]);
    }
  }
  const ages = ageBase.map((w) => w * rng.lognormal(0.15));
  const genders = genderBase.map((w) => w * rng.lognormal(0.1));
  const demographics = Float64Array.from(
    DEMOGRAPHIC_CELLS,
    (_, i) => ages[Math.floor(i / genders.length)]! * genders[i % genders.length]!,
  );
  const total = demographics.reduce((a, b) => a + b, 0);
  for (let i = 0; i < demographics.length; i++) demographics[i] = demographics[i]! / total;
  const translations =
    rng.next() < 0.2
      ? [
          ...new Set([
            TRANSLATED_LANGUAGES[rng.int(TRANSLATED_LANGUAGES.length)]!,
            TRANSLATED_LANGUAGES[rng.int(TRANSLATED_LANGUAGES.length)]!,
          ]),
        ]
      : [];
  return {
    claimed,
    assets: [],
    assetShares: [],
    annotations,
    cards,
    endScreens,
    monetizedRate: v.short ? rng.between(0.03, 0.12) : v.live ? rng.between(0.15, 0.3) : rng.between(0.25, 0.5),
    cpmFactor: rng.lognormal(0.3),
    demographics,
    captionShare: rng.between(0.04, 0.15),
    translations,
  };
}

/** One matching asset, sometimes two (e.g. a music track) sharing the revenue. */
function assignAssets(rng: Rng, t: VideoTraits, assets: readonly string[]): void {
  const first = rng.int(assets.length);
  t.assets.push(assets[first]!);
  if (assets.length > 1 && rng.next() < SECOND_ASSET_SHARE) {
    t.assets.push(assets[(first + 1 + rng.int(assets.length - 1)) % assets.length]!);
    const share = rng.between(0.5, 0.8);
    t.assetShares.push(share, 1 - share);
  } else {
    t.assetShares.push(1);
  }
}

/** Playlists: half of them series (consecutive uploads), half picks; the first playlists draw the most views. */
function planPlaylists(o: GeneratorOptions, plan: ChannelPlan, c: Required<OwnedChannel>): PlaylistPlan[] {
  const rng = new Rng(hash32('playlists', o.seed, c.channel));
  const n = plan.videos.length;
  const width = o.playlistWidth ?? PLAYLIST_WIDTH;
  return Array.from({ length: c.playlists }, (_, p) => {
    const size = Math.min(n, Math.max(2, Math.round(rng.between(4, 14) * rng.lognormal(0.5))));
    let members: number[];
    if (rng.next() < 0.5) {
      const first = rng.int(n - size + 1);
      members = Array.from({ length: size }, (_, i) => first + i);
    } else {
      const chosen = new Set<number>();
      while (chosen.size < size) chosen.add(rng.int(n));
      members = [...chosen];
    }
    const share = Math.min(0.5, 0.2 * (p + 1) ** -0.6 * rng.lognormal(0.4));
    return { id: `${c.playlistPrefix}${String(p + 1).padStart(width, '0')}`, members, share };
  });
}

function planVocabulary(rng: Rng, plan: ChannelPlan): Vocabulary {
  const phrases = new Set<string>();
  for (let i = 0; i < 80 && phrases.size < 60; i++) {
    phrases.add(
      SEARCH_WORDS.map((words) => words[rng.int(words.length)]!)
        .join(' ')
        .trim(),
    );
  }
  const terms = [...phrases];
  // The non-ASCII and quoting-needing terms sit among the common ones, so small runs contain them too.
  SEARCH_EXTRA.forEach((term, i) => {
    terms.splice(Math.min(terms.length, 2 + i * 4), 0, term);
  });
  return {
    referringChannels: new Picker(zipf(Array.from({ length: 12 }, () => `UC${randomId(rng, 22)}`))),
    externalVideos: Array.from({ length: 40 }, () => randomId(rng, 11)),
    externalPlaylists: Array.from({ length: 12 }, () => `PL${randomId(rng, 32)}`),
    searchTerms: new Picker(zipf(terms, 0.9)),
    externalSites: new Picker(zipf(EXTERNAL_SITES, 1.2)),
    embeddingSites: new Picker(zipf(EMBEDDING_SITES)),
    popular: new Picker(plan.videos.map((v, i) => [i, v.baseViews] as const)),
  };
}

/** A channel id of the options or of `channels`, with its unset fields filled in. */
function ownedChannel(o: GeneratorOptions, entry: string | OwnedChannel): Required<OwnedChannel> {
  const c = typeof entry === 'string' ? { channel: entry } : entry;
  const main = c.channel === o.channel;
  return {
    channel: c.channel,
    videos: c.videos ?? o.videos,
    videoPrefix: c.videoPrefix ?? (main ? o.videoPrefix : defaultVideoPrefix(c.channel)),
    videoWidth: c.videoWidth ?? o.videoWidth,
    playlists: c.playlists ?? o.playlists ?? DEFAULT_PLAYLISTS,
    playlistPrefix: c.playlistPrefix ?? (main ? o.playlistPrefix : undefined) ?? defaultPlaylistPrefix(c.channel),
  };
}

/** The channel, its playlists and (with contentOwner) the content owner's channels and assets. Deterministic. */
export function planWorld(o: GeneratorOptions): World {
  assertValid(o);
  const channel = planChannelWorld(o, ownedChannel(o, o.channel), 'self', undefined);
  if (o.contentOwner === undefined) return { options: o, channel };
  const id = o.contentOwner;
  const prefix = o.assetPrefix ?? defaultAssetPrefix(id);
  const assets = Array.from(
    { length: o.assets ?? DEFAULT_ASSETS },
    (_, i) => `${prefix}${String(i + 1).padStart(ASSET_WIDTH, '0')}`,
  );
  const owned = (o.channels ?? [o.channel]).map((c) => planChannelWorld(o, ownedChannel(o, c), 'self', { id, assets }));
  const total = owned.reduce((sum, c) => sum + c.plan.videos.length, 0);
  const claimedElsewhere = Math.max(THIRD_PARTY_CHANNELS, Math.round(total * THIRD_PARTY_SHARE));
  const thirdParty = Array.from({ length: THIRD_PARTY_CHANNELS }, (_, k) => {
    const videos =
      Math.floor(claimedElsewhere / THIRD_PARTY_CHANNELS) + (k < claimedElsewhere % THIRD_PARTY_CHANNELS ? 1 : 0);
    const channel = {
      channel: `UCtp${k + 1}-${id}`,
      videos,
      videoPrefix: `${id}-tp${k + 1}-`,
      videoWidth: Math.max(4, String(videos).length),
      playlists: 0,
      playlistPrefix: 'unused',
    };
    return planChannelWorld(o, channel, 'thirdParty', { id, assets });
  });
  return { options: o, channel, owner: { id, channels: [...owned, ...thirdParty], assets } };
}

/** The views of every video of a channel on day `d`, shared by all families (its own stream, not channel_basic's). */
function channelActivity(o: GeneratorOptions, cw: ChannelWorld, d: number): DayActivity {
  const cached = cw.activity.get(d);
  if (cached) return cached;
  const plan = cw.plan;
  const rng = new Rng(hash32('activity', o.seed, plan.options.channel, d));
  const startWeekday = new Date(parseDay(o.start)!).getUTCDay();
  const dayFactor = dayTrend(plan, d, (startWeekday + d) % 7) * rng.lognormal(0.05);
  const n = plan.videos.length;
  const live = new Int32Array(n);
  const onDemand = new Int32Array(n);
  let published = 0;
  for (const v of plan.videos) {
    if (v.publishDay > d) break;
    const age = d - v.publishDay;
    const mean = videoMean(rng, v, age, dayFactor);
    const liveShare = v.live && age === 0 ? rng.between(0.6, 0.9) : 0;
    live[published] = liveShare > 0 ? rng.poisson(mean * liveShare) : 0;
    onDemand[published] = rng.poisson(mean * (1 - liveShare));
    published++;
  }
  const activity = { live, onDemand, published };
  if (n * o.days <= ACTIVITY_CACHE_LIMIT) cw.activity.set(d, activity);
  return activity;
}

// ---------------------------------------------------------------------------------------------------------------
// Slicing a day's views into rows

/** Canonical slots of every family column: channel_basic's first (so fillMetrics serves every family), then the rest. */
const FAMILY_INDEX = new Map<string, number>(CANONICAL_INDEX);
for (const f of ALL_FAMILIES) {
  for (const c of [...f.dimensions, ...f.metrics]) if (!FAMILY_INDEX.has(c)) FAMILY_INDEX.set(c, FAMILY_INDEX.size);
}
const FAMILY_SLOTS = FAMILY_INDEX.size;
const fslot = (name: string) => FAMILY_INDEX.get(name)!;
const F = {
  playlist: fslot('playlist_id'),
  asset: fslot('asset_id'),
  claimed: fslot('claimed_status'),
  uploader: fslot('uploader_type'),
  province: fslot('province_code'),
  playbackType: fslot('playback_location_type'),
  playbackDetail: fslot('playback_location_detail'),
  trafficType: fslot('traffic_source_type'),
  trafficDetail: fslot('traffic_source_detail'),
  device: fslot('device_type'),
  os: fslot('operating_system'),
  age: fslot('age_group'),
  gender: fslot('gender'),
  sharing: fslot('sharing_service'),
  subtitleLanguage: fslot('subtitle_language'),
  subtitleAuto: fslot('subtitle_language_autotranslated'),
  annotationType: fslot('annotation_type'),
  annotationId: fslot('annotation_id'),
  cardType: fslot('card_type'),
  cardId: fslot('card_id'),
  endScreenType: fslot('end_screen_element_type'),
  endScreenId: fslot('end_screen_element_id'),
  adType: fslot('ad_type'),
  viewsPercentage: fslot('views_percentage'),
  endScreenImpressions: fslot('end_screen_element_impressions'),
  endScreenClicks: fslot('end_screen_element_clicks'),
  endScreenClickRate: fslot('end_screen_element_click_rate'),
  playlistStarts: fslot('playlist_starts'),
  savesAdded: fslot('playlist_saves_added'),
  savesRemoved: fslot('playlist_saves_removed'),
  partnerRevenue: fslot('estimated_partner_revenue'),
  partnerAdRevenue: fslot('estimated_partner_ad_revenue'),
  auctionRevenue: fslot('estimated_partner_ad_auction_revenue'),
  reservedRevenue: fslot('estimated_partner_ad_reserved_revenue'),
  grossRevenue: fslot('estimated_youtube_ad_revenue'),
  monetizedPlaybacks: fslot('estimated_monetized_playbacks'),
  playbackCpm: fslot('estimated_playback_based_cpm'),
  adImpressions: fslot('ad_impressions'),
  cpm: fslot('estimated_cpm'),
  redRevenue: fslot('estimated_partner_red_revenue'),
  transactionRevenue: fslot('estimated_partner_transaction_revenue'),
  creator: fslot('creator_content_type'),
  product: fslot('youtube_product'),
  city: fslot('city'),
  impressions: fslot('video_thumbnail_impressions'),
  impressionsCtr: fslot('video_thumbnail_impressions_ctr'),
  elapsed: fslot('elapsed_video_time_ratio'),
  audienceType: fslot('audience_type'),
  watchRatio: fslot('audience_watch_ratio'),
  relativeRetention: fslot('relative_retention_performance'),
};

/** Free-text columns, quoted in the CSV when they hold a comma or a quote. */
const QUOTED_SLOTS = new Uint8Array(FAMILY_SLOTS);
QUOTED_SLOTS[F.trafficDetail] = 1;
QUOTED_SLOTS[F.playbackDetail] = 1;
const NEEDS_QUOTES = /[",\r\n]/;

/** A family row as a CSV line (RFC 4180 quotes on the free-text columns that need them). */
function familyLine(canon: string[], order: Int32Array): string {
  let line = '';
  for (let j = 0; j < order.length; j++) {
    const s = order[j]!;
    let field = canon[s]!;
    if (QUOTED_SLOTS[s] === 1 && NEEDS_QUOTES.test(field)) field = `"${field.replaceAll('"', '""')}"`;
    line = j === 0 ? field : `${line},${field}`;
  }
  return line;
}

/** The most cells one video-day (or playlist-video-day, asset-video-day) may split into, per family kind. */
const CELL_CAP: Readonly<Record<FamilyKind, number>> = {
  basic: 60,
  province: 16,
  playback_location: 24,
  traffic_source: 40,
  device_os: 24,
  combined: 40,
  demographics: 6,
  sharing_service: 8,
  subtitles: 6,
  annotations: 6,
  cards: 8,
  end_screens: 10,
  revenue: 12,
  ad_rates: 16,
  city: 20,
  retention: 0, // not sliced into cells (generateRetention)
  reach: 1, // one row per video with impressions that day
  reach_combined: 12,
};

/** The dimension slots a kind's cells set, in the order its sampler fills them (country and subscribed first). */
const CELL_SLOTS: Readonly<Record<FamilyKind, readonly number[]>> = {
  basic: [S.country, S.subscribed],
  province: [S.country, S.subscribed, F.province],
  playback_location: [S.country, S.subscribed, F.playbackType, F.playbackDetail],
  traffic_source: [S.country, S.subscribed, F.trafficType, F.trafficDetail],
  device_os: [S.country, S.subscribed, F.device, F.os],
  combined: [S.country, S.subscribed, F.playbackType, F.trafficType, F.device, F.os],
  demographics: [S.country, S.subscribed],
  sharing_service: [S.country, S.subscribed, F.sharing],
  subtitles: [S.country, S.subscribed, F.subtitleLanguage, F.subtitleAuto],
  annotations: [S.country, S.subscribed, F.annotationType, F.annotationId],
  cards: [S.country, S.subscribed, F.cardType, F.cardId],
  end_screens: [S.country, S.subscribed, F.endScreenType, F.endScreenId],
  revenue: [S.country],
  ad_rates: [S.country, F.adType],
  city: [S.country, S.subscribed, F.province, F.city],
  retention: [],
  reach: [],
  reach_combined: [F.trafficType, F.trafficDetail, F.os, F.device],
};

const REACH_KINDS: ReadonlySet<FamilyKind> = new Set(['reach', 'reach_combined']);

/**
 * A video's thumbnail click-through rate (a trait drawn from a stream of its own, so no other family's numbers move):
 * a few percent, lower for Shorts, whose thumbnails are seen in the feed far more often than they are clicked.
 */
const reachRates = new Map<string, number>();
function reachRate(o: GeneratorOptions, v: VideoPlan): number {
  const key = `${o.seed}|${v.id}`;
  let rate = reachRates.get(key);
  if (rate === undefined) {
    rate = Math.min(0.3, (v.short ? 0.015 : 0.045) * new Rng(hash32('reach', o.seed, v.id)).lognormal(0.45));
    if (reachRates.size > 200_000) reachRates.clear();
    reachRates.set(key, rate);
  }
  return rate;
}
/** How a traffic source's impressions turn into clicks, relative to the video's rate (search clicks most). */
// biome-ignore format: lookup table
const REACH_TRAFFIC_FACTOR: Readonly<Record<string, number>> = {
  '5': 1.8, '3': 1, '7': 0.8, '24': 0.4, '17': 2.2, '4': 1.3, '14': 0.9, '9': 1.5, '0': 1.2,
};

interface Unit {
  cw: ChannelWorld;
  v: VideoPlan;
  t: VideoTraits;
  x: VideoExtension;
  live: boolean;
  views: number;
  /** Videos of the channel uploaded by this day (details only point at those). */
  published: number;
  playlist: PlaylistPlan | undefined;
  position: number;
  asset: string;
  assetShare: number;
}

interface Cell {
  dims: string[];
  count: number;
}

const cellMap = new Map<string, Cell>();

/**
 * Splits `total` (views, shares, impressions) over cells drawn by `sample`: one draw per unit while total <= cap,
 * else `cap` chunks of multinomial size, so a video-day never yields more than `cap` rows while the expected count of
 * every cell stays proportional to its probability (small cells are rarely hit: "small videos appear in few cells").
 * The cells are valid until the next call.
 */
function splitCells(rng: Rng, total: number, cap: number, width: number, sample: (out: string[]) => void) {
  cellMap.clear();
  const out = new Array<string>(width).fill('');
  const take = (size: number) => {
    sample(out);
    const key = out.join('\u0001');
    const cell = cellMap.get(key);
    if (cell) cell.count += size;
    else cellMap.set(key, { dims: out.slice(), count: size });
  };
  if (total <= cap) {
    for (let i = 0; i < total; i++) take(1);
  } else {
    let left = total;
    for (let k = cap; k > 0 && left > 0; k--) {
      const size = k === 1 ? left : rng.binomial(left, 1 / k);
      if (size > 0) take(size);
      left -= size;
    }
  }
  return cellMap.values();
}

const US = COUNTRIES.indexOf('US');
const CITY_PICKERS = new Map(Object.entries(CITIES).map(([country, w]) => [country, new Picker(w)] as const));
for (const c of COUNTRIES) {
  if (c !== UNKNOWN_COUNTRY && !CITY_PICKERS.has(c)) throw new Error(`no cities for the country ${c}`);
}

function pickCountry(rng: Rng, v: VideoPlan): string {
  const u = rng.next();
  const cum = v.countryCumulative;
  let c = 0;
  while (cum[c]! <= u && c < cum.length - 1) c++;
  return COUNTRIES[c]!;
}

/** out[0] = country, out[1] = subscribed status. */
function sampleAudience(rng: Rng, v: VideoPlan, out: string[]): void {
  out[0] = pickCountry(rng, v);
  out[1] = rng.next() < v.subscribedShare ? 'subscribed' : 'not_subscribed';
}

function trafficType(rng: Rng, u: Unit, scope: FamilyScope): string {
  if (u.playlist) return TRAFFIC.playlist.pick(rng);
  if (u.live) return TRAFFIC.live.pick(rng);
  if (u.v.short) return TRAFFIC.short.pick(rng);
  return (scope === 'owner' || scope === 'asset') && u.t.claimed
    ? TRAFFIC.longClaimed.pick(rng)
    : TRAFFIC.long.pick(rng);
}

/** Another uploaded video of the channel, popular ones more often (or an outside video id). */
function referredVideo(rng: Rng, u: Unit): string {
  for (let attempt = 0; attempt < 3; attempt++) {
    const i = u.cw.vocab.popular.pick(rng);
    const id = u.cw.plan.videos[i]!.id;
    if (i < u.published && id !== u.v.id) return id;
  }
  return u.cw.vocab.externalVideos[rng.int(u.cw.vocab.externalVideos.length)]!;
}

/** traffic_source_detail: what §2.2 says the type's detail holds; empty for types without one, sometimes suppressed. */
function trafficDetail(rng: Rng, type: string, u: Unit): string {
  if (!DETAIL_TRAFFIC_TYPES.has(type)) return '';
  const vocab = u.cw.vocab;
  if (type === '5') return rng.next() < 0.3 ? '' : vocab.searchTerms.pick(rng); // low-volume terms are withheld
  if (rng.next() < 0.03) return '';
  const ownPlaylists = u.cw.playlists;
  switch (type) {
    case '1':
      return AD_DETAIL.pick(rng);
    case '3':
      return BROWSE.pick(rng);
    case '4':
      return rng.next() < 0.4 ? u.cw.plan.options.channel : vocab.referringChannels.pick(rng);
    case '7':
    case '32':
      return rng.next() < 0.7 ? referredVideo(rng, u) : vocab.externalVideos[rng.int(vocab.externalVideos.length)]!;
    case '19':
    case '20':
      return referredVideo(rng, u);
    case '8':
      return OTHER_PAGE.pick(rng);
    case '9':
      return vocab.externalSites.pick(rng);
    case '14': {
      if (u.playlist && rng.next() < 0.8) return u.playlist.id;
      const r = rng.next();
      if (r < 0.5 && ownPlaylists.length > 0) return ownPlaylists[rng.int(ownPlaylists.length)]!.id;
      if (r < 0.7) return `RD${u.v.id}`; // an auto-generated mix
      return vocab.externalPlaylists[rng.int(vocab.externalPlaylists.length)]!;
    }
    case '17':
      return NOTIFICATION.pick(rng);
    case '18':
      if (u.playlist && rng.next() < 0.85) return u.playlist.id;
      return ownPlaylists.length > 0 && rng.next() < 0.6 ? ownPlaylists[rng.int(ownPlaylists.length)]!.id : 'my-likes';
    default:
      return 'unknown'; // 24: Shorts feed, observed always "unknown"
  }
}

function playbackDetail(rng: Rng, type: string, u: Unit): string {
  if (type !== '1') return '';
  return rng.next() < 0.2 ? '' : u.cw.vocab.embeddingSites.pick(rng); // low-volume embedders are withheld
}

/** Fills out[2..] for a kind's cell; out[0..1] (country, subscribed) are already drawn. */
function sampleSlice(rng: Rng, kind: FamilyKind, u: Unit, scope: FamilyScope, out: string[]): void {
  switch (kind) {
    case 'province':
      out[0] = 'US';
      out[2] = PROVINCES.pick(rng);
      return;
    case 'playback_location': {
      const type = (u.v.short && !u.live ? PLAYBACK.short : PLAYBACK.long).pick(rng);
      out[2] = type;
      out[3] = playbackDetail(rng, type, u);
      return;
    }
    case 'traffic_source': {
      const type = trafficType(rng, u, scope);
      out[2] = type;
      out[3] = trafficDetail(rng, type, u);
      return;
    }
    case 'device_os': {
      const device = (u.v.short ? DEVICES.short : DEVICES.long).pick(rng);
      out[2] = device;
      out[3] = OS_OF_DEVICE.get(device)!.pick(rng);
      return;
    }
    case 'combined': {
      const traffic = trafficType(rng, u, scope);
      const device = (u.v.short ? DEVICES.short : DEVICES.long).pick(rng);
      out[2] = (PLAYBACK.byTraffic.get(traffic) ?? PLAYBACK.fallback).pick(rng);
      out[3] = traffic;
      out[4] = device;
      out[5] = OS_OF_DEVICE.get(device)!.pick(rng);
      return;
    }
    case 'subtitles': {
      const language = COUNTRY_LANGUAGE[out[0]!] ?? 'en';
      const own = u.t.translations.includes(language);
      const local = language !== 'en' && rng.next() < (own ? 0.7 : 0.55);
      out[2] = local ? language : 'en';
      out[3] = local && !own ? 'true' : 'false';
      return;
    }
    case 'sharing_service': {
      const local = SHARING.byCountry.get(out[0]!);
      out[2] = (local && rng.next() < 0.4 ? local : SHARING.global).pick(rng);
      return;
    }
    case 'annotations': {
      const [type, id] = u.t.annotations[rng.int(u.t.annotations.length)]!;
      out[2] = type;
      out[3] = id;
      return;
    }
    case 'cards': {
      const [type, id] = u.t.cards[rng.int(u.t.cards.length)]!;
      out[2] = type;
      out[3] = id;
      return;
    }
    case 'end_screens': {
      const [type, id] = u.t.endScreens[rng.int(u.t.endScreens.length)]!;
      out[2] = type;
      out[3] = id;
      return;
    }
    case 'ad_rates':
      out[1] = AD_TYPE_PICKER.pick(rng);
      return;
    case 'reach_combined': {
      // Where the thumbnail was shown (traffic source, with its detail), on which device and system.
      const traffic = trafficType(rng, u, scope);
      const device = (u.v.short ? DEVICES.short : DEVICES.long).pick(rng);
      out[0] = traffic;
      out[1] = trafficDetail(rng, traffic, u);
      out[2] = OS_OF_DEVICE.get(device)!.pick(rng);
      out[3] = device;
      return;
    }
    case 'city': {
      // Views of an unknown country have no city either: draw the country again.
      for (let tries = 0; out[0] === UNKNOWN_COUNTRY && tries < 8; tries++) out[0] = pickCountry(rng, u.v);
      if (out[0] === UNKNOWN_COUNTRY) out[0] = 'US';
      const city = CITY_PICKERS.get(out[0]!)!.pick(rng);
      out[2] = out[0] === 'US' ? city.slice(0, 5) : ''; // US-CA-los_angeles -> US-CA
      out[3] = city;
      return;
    }
    default:
      return; // basic, demographics, revenue: country (and subscribed) only
  }
}

/** How much of a unit a kind splits: views, or the part of them it counts (US views, captioned views, shares, …). */
function unitTotal(rng: Rng, kind: FamilyKind, u: Unit): number {
  switch (kind) {
    case 'province':
      return rng.binomial(u.views, u.v.countryShare[US]!);
    case 'subtitles':
      return rng.binomial(u.views, u.t.captionShare);
    case 'sharing_service':
      return rng.poisson(u.views * u.v.shareRate * 1.2);
    case 'annotations':
      return u.t.annotations.length > 0 ? rng.poisson(u.views * 0.3) : 0;
    case 'cards':
      return u.t.cards.length > 0 ? rng.poisson(u.views * 0.4) : 0;
    case 'end_screens':
      return u.t.endScreens.length > 0 ? rng.binomial(u.views, Math.min(0.9, (u.v.viewPercentage / 100) * 0.8)) : 0;
    case 'demographics':
      return rng.binomial(u.views, LOGGED_IN_SHARE);
    case 'city':
      return rng.binomial(u.views, CITY_SHARE);
    case 'ad_rates': {
      const monetized = rng.binomial(u.views, u.t.monetizedRate);
      return monetized + rng.poisson(monetized * 0.35); // ad impressions
    }
    case 'reach':
    case 'reach_combined':
      // Thumbnail impressions: the views came from a share of them (most views start from a thumbnail).
      return rng.poisson((u.views * 0.8) / reachRate(u.cw.plan.options, u.v));
    default:
      return u.views;
  }
}

/** PSET metrics of `views` playlist-context views. */
function fillPlaylistMetrics(rng: Rng, canon: string[], u: Unit, views: number): void {
  const v = u.v;
  // Autoplay in a playlist moves on a little earlier than a standalone view.
  const percentage = v.viewPercentage * 0.9 * rng.lognormal(0.03 + 0.15 / Math.sqrt(Math.min(views, 100)));
  const avg = Math.max(1, (v.durationSeconds * percentage) / 100);
  const minutes = round6((views * avg) / 60);
  canon[S.views] = int(views);
  canon[S.engaged] = int(u.live ? views : rng.binomial(views, v.engagedRate));
  canon[S.minutes] = dec6(minutes);
  canon[S.avgSeconds] = dec6((minutes * 60) / views);
  canon[F.playlistStarts] = int(rng.binomial(views, u.position === 0 ? 0.35 : 0.04));
  canon[F.savesAdded] = int(rng.poisson(views * 0.003));
  canon[F.savesRemoved] = int(rng.poisson(views * 0.0005));
}

/** Whole cents from an amount in cents, rounded up with probability = the fraction: unbiased over many rows. */
function cents(rng: Rng, amount: number): number {
  const whole = Math.floor(amount);
  return whole + (rng.next() < amount - whole ? 1 : 0);
}

/**
 * Revenue of `views` views in one country, in whole cents (asset rows get their asset's share; `cpmScale` is the
 * app's CPM multiplier in the channel revenue extension).
 */
function fillRevenue(
  rng: Rng,
  canon: string[],
  u: Unit,
  views: number,
  country: string,
  month: number,
  cpmScale: number,
): boolean {
  const monetized = rng.binomial(views, u.t.monetizedRate);
  const impressions = monetized + rng.poisson(monetized * 0.35);
  const cpm = COUNTRY_CPM[country]! * u.t.cpmFactor * MONTH_CPM[month]! * rng.lognormal(0.2) * cpmScale;
  const gross = cents(rng, (impressions * cpm) / 10); // impressions × (cpm / 1000) dollars × 100
  const partnerAd = cents(rng, gross * PARTNER_SHARE * u.assetShare);
  const auction = cents(rng, partnerAd * rng.between(0.8, 0.97));
  // Premium pays per watched view, roughly in line with the country's ad rates.
  const red = cents(rng, rng.binomial(views, u.v.redRate) * COUNTRY_CPM[country]! * 0.12 * u.assetShare);
  const transaction = rng.next() < 0.002 ? cents(rng, rng.between(99, 2000) * u.assetShare) : 0;
  if (impressions === 0 && red === 0 && transaction === 0) return false;
  canon[F.partnerRevenue] = money(partnerAd + red + transaction);
  canon[F.partnerAdRevenue] = money(partnerAd);
  canon[F.auctionRevenue] = money(auction);
  canon[F.reservedRevenue] = money(partnerAd - auction);
  canon[F.grossRevenue] = money(gross);
  canon[F.monetizedPlaybacks] = int(monetized);
  // Derived from the written (rounded) amounts, so 1000 × revenue / count holds for the file's own numbers.
  canon[F.playbackCpm] = monetized > 0 ? dec6((gross * 10) / monetized) : '0';
  canon[F.adImpressions] = int(impressions);
  canon[F.cpm] = impressions > 0 ? dec6((gross * 10) / impressions) : '0';
  canon[F.redRevenue] = money(red);
  canon[F.transactionRevenue] = money(transaction);
  return true;
}

/** Metrics of one cell with `count` units; false when the row should not be written. */
function fillCell(
  rng: Rng,
  kind: FamilyKind,
  playlist: boolean,
  canon: string[],
  u: Unit,
  cell: Cell,
  month: number,
  cpmScale = 1,
) {
  const count = cell.count;
  switch (kind) {
    case 'sharing_service':
      canon[S.shares] = int(count);
      return true;
    case 'annotations': {
      const clickable = rng.binomial(count, 0.6);
      const closable = rng.binomial(count, 0.8);
      const clicks = rng.binomial(clickable, 0.02);
      const closes = rng.binomial(closable, 0.1);
      canon[S.annotationImpressions] = int(count);
      canon[S.annotationClickable] = int(clickable);
      canon[S.annotationClosable] = int(closable);
      canon[S.annotationClicks] = int(clicks);
      canon[S.annotationCloses] = int(closes);
      canon[S.annotationCtr] = ratio(clicks, clickable);
      canon[S.annotationCloseRate] = ratio(closes, closable);
      return true;
    }
    case 'cards': {
      const teaserClicks = rng.binomial(count, 0.012);
      const impressions = teaserClicks + rng.poisson(count * 0.01);
      const clicks = rng.binomial(impressions, 0.08);
      canon[S.cardTeaserImpressions] = int(count);
      canon[S.cardTeaserClicks] = int(teaserClicks);
      canon[S.cardTeaserClickRate] = ratio(teaserClicks, count);
      canon[S.cardImpressions] = int(impressions);
      canon[S.cardClicks] = int(clicks);
      canon[S.cardClickRate] = ratio(clicks, impressions);
      return true;
    }
    case 'end_screens': {
      const clicks = rng.binomial(count, Math.min(1, END_SCREEN_CTR[cell.dims[2]!]! * rng.lognormal(0.3)));
      canon[F.endScreenImpressions] = int(count);
      canon[F.endScreenClicks] = int(clicks);
      canon[F.endScreenClickRate] = ratio(clicks, count);
      return true;
    }
    case 'revenue':
      return fillRevenue(rng, canon, u, count, cell.dims[0]!, month, cpmScale);
    case 'reach':
    case 'reach_combined': {
      const factor = kind === 'reach_combined' ? (REACH_TRAFFIC_FACTOR[cell.dims[0]!] ?? 1) : 1;
      const clicks = rng.binomial(count, Math.min(0.9, reachRate(u.cw.plan.options, u.v) * factor));
      canon[F.impressions] = int(count);
      // Written as the real files do: a fraction with four decimals.
      canon[F.impressionsCtr] = dec6(Math.round((clicks / count) * 1e4) / 1e4);
      return count > 0;
    }
    case 'ad_rates': {
      const cpm =
        COUNTRY_CPM[cell.dims[0]!]! *
        AD_TYPE_CPM[cell.dims[1]!]! *
        u.t.cpmFactor *
        MONTH_CPM[month]! *
        rng.lognormal(0.2) *
        cpmScale;
      const gross = cents(rng, (count * cpm) / 10);
      canon[F.grossRevenue] = money(gross);
      canon[F.adImpressions] = int(count);
      canon[F.cpm] = dec6((gross * 10) / count);
      return true;
    }
    default:
      if (playlist) fillPlaylistMetrics(rng, canon, u, count);
      else fillMetrics(rng, canon, u.v, count, cell.dims[1] === 'subscribed', u.live);
      return true;
  }
}

/** The units a family slices on day `d`: (video, live) views, per playlist or asset where the family says so. */
function dayUnits(world: World, f: ReportFamily, d: number): Unit[] {
  const o = world.options;
  const units: Unit[] = [];
  const perPlaylist = f.scope === 'playlist' || f.scope === 'owner_playlist';
  const monetary = f.kind === 'revenue' || f.kind === 'ad_rates';
  // A content owner earns from its claimed videos; a channel (the x1 revenue layouts) from all of its own.
  const claimedOnly = (monetary && f.scope !== 'channel') || f.scope === 'asset';
  // Money and cities have no live/on-demand split.
  const merged = monetary || f.kind === 'city' || REACH_KINDS.has(f.kind);
  const owner = world.owner;
  const channels =
    f.scope === 'channel' || f.scope === 'playlist'
      ? [world.channel]
      : f.scope === 'owner_playlist'
        ? owner!.channels.filter((c) => c.uploader === 'self')
        : owner!.channels;
  for (const cw of channels) {
    const act = channelActivity(o, cw, d);
    const base = { cw, published: act.published, playlist: undefined, position: -1, asset: '', assetShare: 1 };
    if (perPlaylist) {
      // Thinned from the day's views by a stream shared by all playlist families, so they slice the same views.
      const rng = new Rng(hash32('playlist-activity', o.seed, cw.plan.options.channel, d));
      for (const playlist of cw.playlists) {
        playlist.members.forEach((i, position) => {
          if (i >= act.published) return;
          const share = playlist.share / (1 + 0.08 * position);
          for (const live of LIVE_DAY) {
            const all = live ? act.live[i]! : act.onDemand[i]!;
            const views = all > 0 ? rng.binomial(all, share) : 0;
            if (views > 0)
              units.push({
                ...base,
                v: cw.plan.videos[i]!,
                t: cw.traits[i]!,
                x: cw.extensions[i]!,
                live,
                views,
                playlist,
                position,
              });
          }
        });
      }
      continue;
    }
    for (let i = 0; i < act.published; i++) {
      const v = cw.plan.videos[i]!;
      const t = cw.traits[i]!;
      const x = cw.extensions[i]!;
      if (claimedOnly && !t.claimed) continue;
      const push = (live: boolean, views: number) => {
        if (views === 0) return;
        if (f.scope !== 'asset') units.push({ ...base, v, t, x, live, views });
        else {
          t.assets.forEach((asset, k) => {
            units.push({ ...base, v, t, x, live, views, asset, assetShare: t.assetShares[k]! });
          });
        }
      };
      if (merged) push(false, act.live[i]! + act.onDemand[i]!);
      else {
        push(true, act.live[i]!);
        push(false, act.onDemand[i]!);
      }
    }
  }
  return units;
}

/** Header of one family file: documented dimensions (two swapped in ~10 % of files), metrics shuffled. */
function familyHeader(
  columns: readonly string[],
  dimensions: number,
  type: string,
  seed: number,
  owner: string,
  day: number,
) {
  const rng = new Rng(hash32('header', type, seed, owner, day));
  const dims = columns.slice(0, dimensions);
  if (rng.next() < DIMENSION_VARIANT_PROBABILITY) {
    const i = rng.int(dims.length - 1);
    [dims[i], dims[i + 1]] = [dims[i + 1]!, dims[i]!];
  }
  const metrics = columns.slice(dimensions);
  for (let i = metrics.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [metrics[i], metrics[j]] = [metrics[j]!, metrics[i]!];
  }
  const header = [...dims, ...metrics];
  return { header, order: Int32Array.from(header, (c) => FAMILY_INDEX.get(c)!) };
}

/** A plain file's header with the extension columns after its `dimensions` dimension columns. */
function withExtensionColumns(header: readonly string[], dimensions: number) {
  const extended = [...header.slice(0, dimensions), ...EXTENSION_COLUMNS, ...header.slice(dimensions)];
  return { header: extended, order: Int32Array.from(extended, (c) => FAMILY_INDEX.get(c)!) };
}

const noRow = () => undefined;

/**
 * One file per day of a family other than channel_basic. Values depend on the family (not its version), so the
 * versions of a family carry the same numbers and differ only in columns.
 */
function* generateFamily<Row>(
  world: World,
  reportType: string,
  emit: (canon: string[], order: Int32Array) => Row,
): Generator<{ date: string; header: string[]; rows: Row[] }, void, undefined> {
  const { family: f } = parseReportType(reportType)!;
  const o = world.options;
  const owner = isOwnerFamily(f) ? world.owner!.id : o.channel;
  const columns = reportTypeColumns(reportType);
  const startMs = parseDay(o.start)!;
  const slots = CELL_SLOTS[f.kind];
  const cap = CELL_CAP[f.kind];
  const playlist = f.scope === 'playlist' || f.scope === 'owner_playlist';
  const metricSlots = f.metrics.map(fslot);
  const canon = new Array<string>(FAMILY_SLOTS).fill('');
  const extended = o.extensions === true && EXTENDED_FAMILY_TYPES.has(f.type);
  // Rows split over apps: the extension columns of a video family, or a layout with youtube_product.
  const byProduct = extended || f.dimensions.includes('youtube_product');
  const parts = new Int32Array(PRODUCTS.length);

  for (let d = 0; d < o.days; d++) {
    const date = compactDate(startMs, d);
    const plain = familyHeader(columns, f.dimensions.length, f.type, o.seed, owner, d);
    const { header, order } = extended ? withExtensionColumns(plain.header, f.dimensions.length) : plain;
    const rows: Row[] = [];
    const rng = new Rng(hash32('slice', f.type, o.seed, owner, d));
    if (rng.next() < FAMILY_EMPTY_DAY_PROBABILITY) {
      yield { date, header, rows };
      continue;
    }
    // The app split has its own stream, so the main one (and every cell) stays the plain file's.
    const productRng = byProduct ? new Rng(hash32('products', f.type, o.seed, owner, d)) : undefined;
    const push = () => {
      rows.push(emit(canon, order));
    };
    canon[S.date] = date;
    const month = Number(date.slice(4, 6)) - 1;
    /** Fills (part of) a cell of unit `u` from stream `r` and writes its rows with `out`. */
    const fill = (r: Rng, u: Unit, part: Cell, cpmScale: number, out: () => void) => {
      if (f.kind === 'demographics') emitDemographics(r, canon, u, part.count, out);
      else if (fillCell(r, f.kind, playlist, canon, u, part, month, cpmScale)) out();
    };
    const channelViews = new Map<ChannelWorld, number>();
    for (const u of dayUnits(world, f, d)) {
      canon[S.channel] = u.cw.plan.options.channel;
      canon[S.video] = u.v.id;
      canon[S.live] = u.live ? 'live' : 'on_demand';
      canon[F.playlist] = u.playlist?.id ?? '';
      canon[F.asset] = u.asset;
      canon[F.claimed] = u.t.claimed ? 'claimed' : '';
      canon[F.uploader] = u.cw.uploader;
      canon[F.creator] = u.x.creatorType;
      channelViews.set(u.cw, (channelViews.get(u.cw) ?? 0) + u.views);
      const total = unitTotal(rng, f.kind, u);
      const sample = (out: string[]) => {
        if (f.kind === 'revenue' || f.kind === 'ad_rates') out[0] = pickCountry(rng, u.v);
        else if (!REACH_KINDS.has(f.kind)) sampleAudience(rng, u.v, out); // reach files have no audience columns
        sampleSlice(rng, f.kind, u, f.scope, out);
      };
      const cells = [...splitCells(rng, total, cap, slots.length, sample)];
      for (const cell of cells) {
        for (let k = 0; k < slots.length; k++) canon[slots[k]!] = cell.dims[k]!;
        if (!productRng) {
          fill(rng, u, cell, 1, push);
          continue;
        }
        const only = splitProducts(productRng, u.x.products, cell.count, parts);
        if (only >= 0) {
          canon[F.product] = PRODUCTS[only]!;
          fill(rng, u, cell, PRODUCT_CPM[only]!, push);
          continue;
        }
        // Split over apps: the whole cell still draws from the main stream (as in the plain file, whose later
        // cells depend on it), then each app's part gets its own metrics from the app stream.
        fill(rng, u, cell, 1, noRow);
        for (let p = 0; p < PRODUCTS.length; p++) {
          if (parts[p] === 0) continue;
          canon[F.product] = PRODUCTS[p]!;
          fill(productRng, u, { dims: cell.dims, count: parts[p]! }, PRODUCT_CPM[p]!, push);
        }
      }
    }
    if (f.type === 'content_owner_basic') {
      // Subscriber changes not attributed to a video, per own channel (as in channel_basic: empty video_id).
      for (const [cw, views] of channelViews) {
        if (cw.uploader !== 'self') continue;
        const gained = rng.poisson(views * 0.0006 + 0.2);
        const lost = rng.poisson(views * 0.0008 + 0.2);
        for (const s of metricSlots) canon[s] = '0';
        canon[S.channel] = cw.plan.options.channel;
        canon[S.video] = '';
        canon[F.claimed] = '';
        canon[F.uploader] = 'self';
        canon[S.live] = 'on_demand';
        canon[S.country] = UNKNOWN_COUNTRY;
        canon[F.creator] = NO_CREATOR_TYPE;
        canon[F.product] = NO_PRODUCT;
        if (gained > 0) {
          canon[S.subscribed] = 'not_subscribed';
          canon[S.gained] = int(gained);
          rows.push(emit(canon, order));
          canon[S.gained] = '0';
        }
        if (lost > 0) {
          canon[S.subscribed] = 'subscribed';
          canon[S.lost] = int(lost);
          rows.push(emit(canon, order));
          canon[S.lost] = '0';
        }
      }
    }
    yield { date, header, rows };
  }
}

/** elapsed_video_time_ratio of each point: 0.01 … 0.5 … 1. */
const ELAPSED = Array.from({ length: RETENTION_POINTS }, (_, k) => dec2((k + 1) / RETENTION_POINTS));

/** The indexes (ascending) of the `top` most viewed videos of a day with at least `min` views. */
function topVideos(act: DayActivity, top: number, min: number): number[] {
  const views = (i: number) => act.live[i]! + act.onDemand[i]!;
  const chosen: number[] = [];
  for (let i = 0; i < act.published; i++) if (views(i) >= min) chosen.push(i);
  chosen.sort((a, b) => views(b) - views(a) || a - b);
  return chosen.slice(0, top).sort((a, b) => a - b);
}

/**
 * Audience-retention files: for each channel, the day's most viewed videos (RETENTION_TOP_VIDEOS, enough views),
 * their views split over (audience type × subscribed status × app) slices, and for each slice RETENTION_POINTS rows:
 * `views` the slice's viewers (the weight of the ratios), audience_watch_ratio the video's curve tilted for the slice
 * with sampling noise, relative_retention_performance how it compares with typical videos of its kind.
 */
function* generateRetention<Row>(
  world: World,
  reportType: string,
  emit: (canon: string[], order: Int32Array) => Row,
): Generator<{ date: string; header: string[]; rows: Row[] }, void, undefined> {
  const { family: f } = parseReportType(reportType)!;
  const o = world.options;
  const owner = isOwnerFamily(f) ? world.owner!.id : o.channel;
  const columns = reportTypeColumns(reportType);
  const startMs = parseDay(o.start)!;
  const channels = isOwnerFamily(f) ? world.owner!.channels : [world.channel];
  const canon = new Array<string>(FAMILY_SLOTS).fill('');

  for (let d = 0; d < o.days; d++) {
    const date = compactDate(startMs, d);
    const { header, order } = familyHeader(columns, f.dimensions.length, f.type, o.seed, owner, d);
    const rows: Row[] = [];
    const rng = new Rng(hash32('retention', f.type, o.seed, owner, d));
    if (rng.next() < FAMILY_EMPTY_DAY_PROBABILITY) {
      yield { date, header, rows };
      continue;
    }
    canon[S.date] = date;
    for (const cw of channels) {
      const act = channelActivity(o, cw, d);
      canon[S.channel] = cw.plan.options.channel;
      canon[F.uploader] = cw.uploader;
      for (const i of topVideos(act, RETENTION_TOP_VIDEOS, RETENTION_MIN_VIEWS)) {
        const v = cw.plan.videos[i]!;
        const x = cw.extensions[i]!;
        canon[S.video] = v.id;
        canon[F.claimed] = cw.traits[i]!.claimed ? 'claimed' : '';
        canon[F.creator] = x.creatorType;
        const curve = retentionCurve(x);
        const reference = referenceCurve(x.creatorType);
        const views = act.live[i]! + act.onDemand[i]!;
        const slices = retentionSlices(rng, v, x, d, views, RETENTION_MIN_SLICE_VIEWS, RETENTION_MAX_SLICES);
        for (const slice of slices) {
          canon[F.audienceType] = AUDIENCE_TYPES[slice.audience]!;
          canon[S.subscribed] = slice.subscribed ? 'subscribed' : 'not_subscribed';
          canon[F.product] = PRODUCTS[slice.product]!;
          canon[S.views] = int(slice.views);
          const tilt = sliceTilt(slice.audience, slice.subscribed, slice.product);
          // Fewer viewers, noisier curve; plus a small wobble of the whole day.
          const sigma = 0.01 + 0.3 / Math.sqrt(slice.views);
          const level = rng.lognormal(0.03);
          for (let k = 0; k < RETENTION_POINTS; k++) {
            const watch = curve[k]! * Math.exp((-tilt * (k + 1)) / RETENTION_POINTS) * level * rng.lognormal(sigma);
            canon[F.elapsed] = ELAPSED[k]!;
            canon[F.watchRatio] = dec6(watch);
            canon[F.relativeRetention] = dec6(1 / (1 + Math.exp(-(x.quality + 6 * (watch - reference[k]!)))));
            rows.push(emit(canon, order));
          }
        }
      }
    }
    yield { date, header, rows };
  }
}

/** The day files of any family but channel_basic. */
function generateWorldFamily<Row>(
  world: World,
  reportType: string,
  emit: (canon: string[], order: Int32Array) => Row,
): Generator<{ date: string; header: string[]; rows: Row[] }, void, undefined> {
  return parseReportType(reportType)!.family.kind === 'retention'
    ? generateRetention(world, reportType, emit)
    : generateFamily(world, reportType, emit);
}

/**
 * The age × gender rows of one (video, live, country, subscribed) slice with `viewers` logged-in views: a
 * multinomial draw over the video's demographic cells, each row's views_percentage its share (they sum to 100).
 */
function emitDemographics(rng: Rng, canon: string[], u: Unit, viewers: number, emit: () => void): void {
  const p = u.t.demographics;
  let left = viewers;
  let mass = 1;
  for (let i = 0; i < p.length && left > 0; i++) {
    const k = i === p.length - 1 ? left : rng.binomial(left, Math.min(1, p[i]! / mass));
    mass -= p[i]!;
    left -= k;
    if (k === 0) continue;
    const [age, gender] = DEMOGRAPHIC_CELLS[i]!;
    canon[F.age] = age;
    canon[F.gender] = gender;
    canon[F.viewsPercentage] = dec10((k * 100) / viewers);
    emit();
  }
}

/** The report type id for an id or a family prefix (at the version matching `version`). */
function reportTypeOf(o: GeneratorOptions, reportType: string): string {
  if (parseReportType(reportType)) return reportType;
  const f = ALL_FAMILIES.find((x) => x.type === reportType);
  if (!f) throw new Error(`unknown report type ${reportType}`);
  return `${f.type}_${versionForEra(f, o.version).version}`;
}

/**
 * One export per day of any report type (an id such as 'channel_traffic_source_a2' or 'channel_city_x1', or a family
 * such as 'playlist_basic' at the version matching `version`), in date order. Rows hold raw values (no CSV quoting);
 * with `extensions`, the video families carry the extension columns.
 */
export function generateReportDays(o: GeneratorOptions, reportType: string): Generator<DayExport, void, undefined> {
  assertValid(o);
  const id = reportTypeOf(o, reportType);
  const { family } = parseReportType(id)!;
  if (family.type === 'channel_basic') return generate({ ...o, version: id.slice(-2) as ReportVersion }, rowFields);
  if (isOwnerFamily(family) && o.contentOwner === undefined) throw new Error(`${id} needs a content owner`);
  return generateWorldFamily(planWorld(o), id, rowFields);
}

// ---------------------------------------------------------------------------------------------------------------
// Files

export interface ReportTypeSummary {
  reportType: string;
  /** The channel or content owner whose folder holds the files. */
  owner: string;
  dir: string;
  files: number;
  rows: number;
  headerOnly: number;
  seconds: number;
}

export interface ExportSummary {
  files: number;
  rows: number;
  reports: ReportTypeSummary[];
  /** The exchange-rates file, when `rates` was set. */
  rates?: { file: string; rows: number };
}

export const EXCHANGE_RATES_FILE = 'exchange_rates.csv';

/**
 * Writes every requested report type (`reports`, default channel_basic; x1 extension layouts included) to
 * `${outDir}/${channel or contentOwner}/${report type id}/${YYYYMMDD}.csv[.gz]`, plus `${outDir}/exchange_rates.csv`
 * when `rates` is set. channel_basic files are exactly those of writeExports.
 */
export async function writeAllExports(
  o: GeneratorOptions,
  outDir: string,
  onFile?: (file: string, rows: number) => void,
): Promise<ExportSummary> {
  assertValid(o);
  const ids = resolveReports(o);
  const world = ids.some((id) => !id.startsWith('channel_basic_')) ? planWorld(o) : undefined;
  const summary: ExportSummary = { files: 0, rows: 0, reports: [] };
  for (const reportType of ids) {
    const { family } = parseReportType(reportType)!;
    const owner = isOwnerFamily(family) ? o.contentOwner! : o.channel;
    const dir = path.join(outDir, owner, reportType);
    const started = performance.now();
    const days =
      family.type === 'channel_basic'
        ? generate({ ...o, version: reportType.slice(-2) as ReportVersion }, rowLine)
        : generateWorldFamily(world!, reportType, familyLine);
    const written = await writeDays(days, dir, o.gzip, onFile);
    const seconds = (performance.now() - started) / 1000;
    summary.reports.push({ reportType, owner, dir, ...written, seconds });
    summary.files += written.files;
    summary.rows += written.rows;
  }
  if (o.rates) {
    const file = path.join(outDir, EXCHANGE_RATES_FILE);
    await mkdir(outDir, { recursive: true });
    const text = exchangeRatesCsv(o);
    await writeFile(file, text);
    summary.rates = { file, rows: text.split('\n').length - 2 };
  }
  return summary;
}
