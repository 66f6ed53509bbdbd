/**
 * Seeded, deterministic generator of realistic YouTube Reporting API bulk export files.
 *
 * `channel_basic` (versions a1, a2, a3; columns per the shared reference reporting-api.md §1.3, §4): one CSV per day:
 * a header of snake_case column names (metric order shuffled per file, dimension order varied in ~10 % of files, so
 * readers must match by name), then one row per unique (video_id, live_or_on_demand, subscribed_status,
 * country_code). A few days are header-only files.
 *
 * The numbers follow a simple model: videos get a Zipf-like base popularity (exponent 1.1) by a random rank, a launch
 * boost that decays to a slowly fading long tail, weekly seasonality (weekends +15–25 %), a yearly wave, a long-term
 * trend and lognormal noise. A video-day's views are Poisson and split over (country × subscribed status) cells, so
 * small videos appear in a few countries and big ones in many. Everything derives from (seed, channel) through
 * mulberry32 streams: the same options give byte-identical files.
 *
 * The other report families (catalogue in export-families.ts, generation and writeAllExports in export-world.ts)
 * reuse this module's plan and metrics; the exports marked "shared with export-world.ts" exist for that.
 *
 * With `extensions`, the video report files also carry creator_content_type (a trait of the video) and
 * youtube_product (export-extensions.ts): each row of the plain file is split over the apps, from a stream of its own,
 * so the rows' views add up to the plain file's row exactly; without it the files are exactly what they were.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { NO_CREATOR_TYPE, NO_PRODUCT, PRODUCTS, planVideoExtensions, splitProducts } from './export-extensions';
import {
  ALL_FAMILIES,
  BASE,
  CHANNEL_BASIC_METRICS,
  EXTENSION_COLUMNS,
  EXTENSION_FAMILIES,
  isOwnerFamily,
  parseReportType,
  REPORT_FAMILIES,
  type ReportFamily,
  versionForEra,
} from './export-families';
import { dec2, dec6, hash32, int, Rng, ratio, round6 } from './export-random';

export { hash32, Rng } from './export-random';

export type ReportVersion = 'a1' | 'a2' | 'a3';

export interface GeneratorOptions {
  channel: string;
  videos: number;
  days: number;
  /** YYYY-MM-DD, the first day. */
  start: string;
  seed: number;
  videoPrefix: string;
  videoWidth: number;
  version: ReportVersion;
  gzip: boolean;
  /**
   * What writeAllExports writes (default ['channel_basic']): 'all', family prefixes ('channel_traffic_source',
   * 'content_owner', 'playlist') at the version matching `version`, or exact report type ids
   * ('channel_traffic_source_a2', 'channel_city_x1'). 'all' leaves out content-owner families when there is no
   * contentOwner, and the x1 extension layouts without `extensions`.
   */
  reports?: readonly string[];
  /** The channel's playlists (default 10): ids `${playlistPrefix}01`.., each holding a subset of its videos. */
  playlists?: number;
  /** Default from the channel id: 'UCdemo-alice' -> 'alice-p'. */
  playlistPrefix?: string;
  /** Digits of the playlist number (default 2). */
  playlistWidth?: number;
  /** The content owner of the content-owner families (files under `${outDir}/${contentOwner}/`). */
  contentOwner?: string;
  /** The content owner's channels (default [channel]), each with its own videos and playlists. */
  channels?: readonly (string | OwnedChannel)[];
  /** The content owner's assets (default 50): ids `${assetPrefix}0001`.. */
  assets?: number;
  /** Default from the content owner id: 'demo-co' -> 'co-a'. */
  assetPrefix?: string;
  /** Also write `${outDir}/exchange_rates.csv` (writeAllExports). */
  rates?: boolean;
  /**
   * Extension data (default false): the video report files (channel_basic … channel_sharing_service and their
   * content-owner twins) get the columns creator_content_type and youtube_product, and 'all' or a prefix also
   * selects the x1 extension layouts (channel_city_x1, …). Exact x1 ids, or a prefix naming only extension layouts,
   * select them without it.
   */
  extensions?: boolean;
}

/** One channel of a content owner; unset fields come from the generator options (prefixes from the channel id). */
export interface OwnedChannel {
  channel: string;
  videos?: number;
  videoPrefix?: string;
  videoWidth?: number;
  playlists?: number;
  playlistPrefix?: string;
}

export interface DayExport {
  /** YYYYMMDD */
  date: string;
  header: string[];
  rows: string[][];
}

export const REPORT_VERSIONS: readonly ReportVersion[] = ['a1', 'a2', 'a3'];

export const DIMENSION_COLUMNS = BASE;

/** channel_basic_a3 metrics in Google's documented order. */
export const METRIC_COLUMNS_A3 = CHANNEL_BASIC_METRICS;

const NOT_IN_A2 = new Set<string>(['engaged_views']);
const NOT_IN_A1 = new Set<string>(['engaged_views', 'red_views', 'red_watch_time_minutes']);

/** The metric columns of channel_basic_<version>, in documented order. */
export function metricColumns(version: ReportVersion): string[] {
  const drop = version === 'a3' ? undefined : version === 'a2' ? NOT_IN_A2 : NOT_IN_A1;
  return METRIC_COLUMNS_A3.filter((c) => !drop?.has(c));
}

/** All columns of channel_basic_<version>, dimensions first, in documented order. */
export function reportColumns(version: ReportVersion): string[] {
  return [...DIMENSION_COLUMNS, ...metricColumns(version)];
}

/** 'UCdemo-alice' -> 'alice-v'; any other channel id -> `${channel}-v`. */
export function defaultVideoPrefix(channel: string): string {
  const demo = /^UCdemo-(.+)$/.exec(channel);
  return `${demo ? demo[1] : channel}-v`;
}

/** 'UCdemo-alice' -> 'alice-p' (the demo world's playlist ids); any other channel id -> `${channel}-p`. */
export function defaultPlaylistPrefix(channel: string): string {
  const demo = /^UCdemo-(.+)$/.exec(channel);
  return `${demo ? demo[1] : channel}-p`;
}

/** 'demo-co' -> 'co-a' (the demo world's asset ids); any other content owner -> `${owner}-a`. */
export function defaultAssetPrefix(contentOwner: string): string {
  const demo = /^demo-(.+)$/.exec(contentOwner);
  return `${demo ? demo[1] : contentOwner}-a`;
}

export const DEFAULT_PLAYLISTS = 10;
export const DEFAULT_ASSETS = 50;
export const PLAYLIST_WIDTH = 2;
export const ASSET_WIDTH = 4;

// ---------------------------------------------------------------------------------------------------------------
// Validation

const SAFE_ID = /^[A-Za-z0-9_-]+$/;
const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
export const MAX_VIDEOS = 1_000_000;
export const MAX_DAYS = 36_600;

/** Milliseconds since the epoch of a YYYY-MM-DD day (UTC midnight), or undefined when it is not a real date. */
export function parseDay(day: string): number | undefined {
  const m = ISO_DAY.exec(day);
  if (!m) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return new Date(ms).toISOString().slice(0, 10) === day ? ms : undefined;
}

/** Problems with the options, as messages (empty when valid). */
export function validateOptions(o: GeneratorOptions): string[] {
  const errors: string[] = [];
  const intIn = (name: string, v: number, min: number, max: number) => {
    if (!Number.isInteger(v) || v < min || v > max) errors.push(`${name} must be an integer from ${min} to ${max}`);
  };
  if (typeof o.channel !== 'string' || !SAFE_ID.test(o.channel)) {
    errors.push('channel must be a non-empty id of letters, digits, "_" and "-"');
  }
  intIn('videos', o.videos, 1, MAX_VIDEOS);
  intIn('days', o.days, 1, MAX_DAYS);
  if (typeof o.start !== 'string' || parseDay(o.start) === undefined) errors.push('start must be a date YYYY-MM-DD');
  if (!Number.isSafeInteger(o.seed)) errors.push('seed must be an integer');
  if (typeof o.videoPrefix !== 'string' || !SAFE_ID.test(o.videoPrefix)) {
    errors.push('video prefix must be non-empty letters, digits, "_" and "-"');
  }
  intIn('video width', o.videoWidth, 1, 16);
  if (Number.isInteger(o.videos) && Number.isInteger(o.videoWidth) && String(o.videos).length > o.videoWidth) {
    errors.push(`video width ${o.videoWidth} is too small for ${o.videos} videos`);
  }
  if (!REPORT_VERSIONS.includes(o.version)) errors.push('version must be one of a1, a2, a3');
  validateFamilyOptions(o, errors, intIn);
  return errors;
}

/** The options only writeAllExports uses; each is checked only when given. */
function validateFamilyOptions(
  o: GeneratorOptions,
  errors: string[],
  intIn: (name: string, v: number, min: number, max: number) => void,
): void {
  const safe = (name: string, v: unknown) => {
    if (typeof v !== 'string' || !SAFE_ID.test(v))
      errors.push(`${name} must be non-empty letters, digits, "_" and "-"`);
  };
  const playlistWidth = o.playlistWidth ?? PLAYLIST_WIDTH;
  if (o.playlistWidth !== undefined) intIn('playlist width', o.playlistWidth, 1, 8);
  const playlists = (name: string, n: number) => {
    intIn(name, n, 0, 10 ** Math.min(8, Math.max(1, playlistWidth)) - 1);
  };
  if (o.playlists !== undefined) playlists('playlists', o.playlists);
  if (o.playlistPrefix !== undefined) safe('playlist prefix', o.playlistPrefix);
  if (o.contentOwner !== undefined) safe('content owner', o.contentOwner);
  if (o.assets !== undefined) intIn('assets', o.assets, 1, 10 ** ASSET_WIDTH - 1);
  if (o.assetPrefix !== undefined) safe('asset prefix', o.assetPrefix);
  if (o.rates !== undefined && typeof o.rates !== 'boolean') errors.push('rates must be true or false');
  if (o.extensions !== undefined && typeof o.extensions !== 'boolean') {
    errors.push('extensions must be true or false');
  }
  if (o.channels !== undefined) {
    if (!Array.isArray(o.channels) || o.channels.length === 0) errors.push('channels must be a non-empty list');
    const seen = new Set<string>();
    for (const entry of Array.isArray(o.channels) ? o.channels : []) {
      const c: OwnedChannel = typeof entry === 'string' ? { channel: entry } : entry;
      safe('every channel of channels', c.channel);
      if (seen.has(c.channel)) errors.push(`channel ${c.channel} is listed twice`);
      seen.add(c.channel);
      if (c.videos !== undefined) intIn(`videos of ${c.channel}`, c.videos, 1, MAX_VIDEOS);
      if (c.videoWidth !== undefined) intIn(`video width of ${c.channel}`, c.videoWidth, 1, 16);
      if (c.videoPrefix !== undefined) safe(`video prefix of ${c.channel}`, c.videoPrefix);
      if (c.playlists !== undefined) playlists(`playlists of ${c.channel}`, c.playlists);
      if (c.playlistPrefix !== undefined) safe(`playlist prefix of ${c.channel}`, c.playlistPrefix);
      const videos = c.videos ?? o.videos;
      const width = c.videoWidth ?? o.videoWidth;
      if (Number.isInteger(videos) && Number.isInteger(width) && String(videos).length > width) {
        errors.push(`video width ${width} of ${c.channel} is too small for ${videos} videos`);
      }
    }
  }
  if (o.reports !== undefined) {
    if (!Array.isArray(o.reports) || o.reports.some((r) => typeof r !== 'string')) {
      errors.push('reports must be a list of report types');
    } else {
      const { unknown, ids } = matchReports(o);
      for (const r of unknown) errors.push(`unknown report type or prefix "${r}"`);
      const owned = ids.filter((id) => isOwnerFamily(parseReportType(id)!.family));
      if (owned.length > 0 && o.contentOwner === undefined) {
        const more = owned.length > 3 ? ` and ${owned.length - 3} more` : '';
        errors.push(`content-owner reports (${owned.slice(0, 3).join(', ')}${more}) need a content owner`);
      }
    }
  }
}

/** The report type ids the options ask for (catalogue order), and the entries that match nothing. */
function matchReports(o: GeneratorOptions): { ids: string[]; unknown: string[] } {
  const era = REPORT_VERSIONS.includes(o.version) ? o.version : 'a3';
  const catalogue = o.extensions === true ? ALL_FAMILIES : REPORT_FAMILIES;
  const ids = new Set<string>();
  const unknown: string[] = [];
  const add = (f: ReportFamily) => ids.add(`${f.type}_${versionForEra(f, era).version}`);
  for (const entry of o.reports ?? ['channel_basic']) {
    if (entry === 'all') {
      for (const f of catalogue) if (!isOwnerFamily(f) || o.contentOwner !== undefined) add(f);
    } else if (parseReportType(entry)) {
      ids.add(entry);
    } else {
      const prefixOf = (f: ReportFamily) => f.type === entry || f.type.startsWith(`${entry}_`);
      let matched = catalogue.filter(prefixOf);
      // A prefix naming only extension layouts (channel_city) asks for them, as their exact ids do.
      if (matched.length === 0) matched = EXTENSION_FAMILIES.filter(prefixOf);
      if (matched.length === 0) unknown.push(entry);
      for (const f of matched) add(f);
    }
  }
  const order = (id: string) => ALL_FAMILIES.indexOf(parseReportType(id)!.family);
  return { ids: [...ids].sort((a, b) => order(a) - order(b) || (a < b ? 1 : -1)), unknown };
}

/** The report type ids writeAllExports writes for these options, in catalogue order; throws on unknown entries. */
export function resolveReports(o: GeneratorOptions): string[] {
  const { ids, unknown } = matchReports(o);
  if (unknown.length > 0) throw new Error(`unknown report type or prefix: ${unknown.join(', ')}`);
  return ids;
}

/** Throws the validation messages (shared with export-world.ts). */
export function assertValid(o: GeneratorOptions): void {
  const errors = validateOptions(o);
  if (errors.length > 0) throw new Error(`invalid generator options: ${errors.join('; ')}`);
}

// ---------------------------------------------------------------------------------------------------------------
// The channel plan: videos and their traits

/** Relative share of views by country ('ZZ' = unknown, fixed at 0.5 %). */
export const COUNTRY_WEIGHTS: readonly (readonly [string, number])[] = [
  ['US', 18],
  ['IN', 12],
  ['BR', 6],
  ['GB', 5],
  ['DE', 4],
  ['JP', 3.5],
  ['MX', 4],
  ['ID', 4],
  ['FR', 3],
  ['CA', 3.5],
  ['PH', 3],
  ['RU', 2.5],
  ['TR', 2.5],
  ['VN', 2.5],
  ['KR', 2],
  ['IT', 2],
  ['ES', 2],
  ['AU', 2],
  ['PK', 2],
  ['EG', 1.5],
  ['TH', 1.5],
  ['PL', 1.2],
  ['AR', 1.2],
  ['CO', 1.2],
  ['NL', 1],
  ['SA', 1],
  ['NG', 1],
  ['ZA', 0.8],
  ['SE', 0.5],
  ['IE', 0.4],
  ['NZ', 0.4],
  ['SG', 0.4],
  ['IS', 0.05],
  ['LU', 0.05],
  ['MT', 0.05],
];
export const UNKNOWN_COUNTRY = 'ZZ';
const UNKNOWN_SHARE = 0.005;
/** Countries in cell order; the last one is 'ZZ'. */
export const COUNTRIES: readonly string[] = [...COUNTRY_WEIGHTS.map(([c]) => c), UNKNOWN_COUNTRY];

/** Zipf-like exponent of the popularity by rank. */
const ZIPF_EXPONENT = 1.1;
/** Mean daily views of the least popular video in its long tail (sets the overall scale and the row count). */
const BASE_DAILY_VIEWS = 1.7;
/** Share of videos published before the first day (per channel, uniform in this range). */
const PRE_EXISTING_SHARE: readonly [number, number] = [0.35, 0.45];
/** Pre-existing videos were published up to this many days before the first day. */
const BACKLOG_DAYS = 1095;
const LIVE_SHARE = 0.03;
const SHORTS_SHARE = 0.2;
const EMPTY_DAY_PROBABILITY = 0.003;
export const DIMENSION_VARIANT_PROBABILITY = 0.1;

export interface VideoPlan {
  id: string;
  /** Day index of the upload relative to the first day (negative: before the period). */
  publishDay: number;
  /** Popularity rank, 1 = most popular. */
  rank: number;
  live: boolean;
  short: boolean;
  durationSeconds: number;
  /** Typical average view percentage. */
  viewPercentage: number;
  /** Mean daily views in the long tail, before trend and seasonality. */
  baseViews: number;
  /** Launch boost (multiple of baseViews on the first day) and its decay time in days. */
  boost: number;
  boostDays: number;
  subscribedShare: number;
  engagedRate: number;
  redRate: number;
  likeRate: number;
  dislikeRatio: number;
  commentRate: number;
  shareRate: number;
  playlistAddRate: number;
  subscribeRate: number;
  hasCards: boolean;
  legacyAnnotations: boolean;
  /** Cumulative country probabilities, in COUNTRIES order. */
  countryCumulative: Float64Array;
  countryShare: Float64Array;
}

export interface ChannelPlan {
  options: GeneratorOptions;
  videos: VideoPlan[];
  /** Multiplier on Saturdays and Sundays. */
  weekendBoost: number;
  /** Long-term growth, as a log-rate per year. */
  growthPerYear: number;
  yearlyAmplitude: number;
  yearlyPhase: number;
}

function countryMix(rng: Rng, base: Float64Array, sigma: number): Float64Array {
  const w = new Float64Array(base.length);
  let sum = 0;
  for (let i = 0; i < base.length - 1; i++) {
    w[i] = base[i]! * rng.lognormal(sigma);
    sum += w[i]!;
  }
  const scale = (1 - UNKNOWN_SHARE) / sum;
  for (let i = 0; i < base.length - 1; i++) w[i] = w[i]! * scale;
  w[base.length - 1] = UNKNOWN_SHARE;
  return w;
}

function cumulative(w: Float64Array): Float64Array {
  const c = new Float64Array(w.length);
  let acc = 0;
  for (let i = 0; i < w.length; i++) {
    acc += w[i]!;
    c[i] = acc;
  }
  c[w.length - 1] = 1;
  return c;
}

/** The channel's videos (in id order, which is also upload order) and its traits. Deterministic. */
export function planChannel(o: GeneratorOptions): ChannelPlan {
  assertValid(o);
  const rng = new Rng(hash32('channel', o.seed, o.channel));
  const n = o.videos;

  const preExisting = Math.round(n * rng.between(PRE_EXISTING_SHARE[0], PRE_EXISTING_SHARE[1]));
  const before = Array.from({ length: preExisting }, () => -1 - rng.int(BACKLOG_DAYS)).sort((a, b) => a - b);
  const during = Array.from({ length: n - preExisting }, () => rng.int(o.days)).sort((a, b) => a - b);
  const publishDays = [...before, ...during];

  const ranks = Array.from({ length: n }, (_, i) => i + 1);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [ranks[i], ranks[j]] = [ranks[j]!, ranks[i]!];
  }

  const liveVideos = new Set<number>();
  const liveCount = Math.round(n * LIVE_SHARE);
  while (liveVideos.size < liveCount) liveVideos.add(rng.int(n));

  const baseCountries = new Float64Array(COUNTRIES.length);
  COUNTRY_WEIGHTS.forEach(([, w], i) => {
    baseCountries[i] = w;
  });
  const channelCountries = countryMix(rng, baseCountries, 0.35);
  const channelSubscribed = rng.between(0.2, 0.35);

  const videos: VideoPlan[] = [];
  for (let i = 0; i < n; i++) {
    const rank = ranks[i]!;
    const live = liveVideos.has(i);
    const short = !live && rng.next() < SHORTS_SHARE;
    const durationSeconds = live
      ? Math.round(rng.between(1800, 10800))
      : short
        ? Math.round(rng.between(12, 60))
        : Math.round(Math.min(5400, Math.max(60, 600 * Math.exp(0.6 * rng.normal()))));
    const viewPercentage = live ? rng.between(8, 25) : short ? rng.between(60, 85) : rng.between(28, 62);
    const countryShare = countryMix(rng, channelCountries, 0.6);
    videos.push({
      id: `${o.videoPrefix}${String(i + 1).padStart(o.videoWidth, '0')}`,
      publishDay: publishDays[i]!,
      rank,
      live,
      short,
      durationSeconds,
      viewPercentage,
      baseViews: BASE_DAILY_VIEWS * (rank / n) ** -ZIPF_EXPONENT * rng.lognormal(0.3),
      boost: rng.between(3, 10),
      boostDays: rng.between(2, 8),
      subscribedShare: Math.min(0.6, Math.max(0.05, channelSubscribed + 0.05 * rng.normal())),
      engagedRate: short ? rng.between(0.55, 0.8) : rng.between(0.97, 1),
      redRate: rng.between(0.02, 0.06),
      likeRate: short ? rng.between(0.02, 0.045) : rng.between(0.01, 0.035),
      dislikeRatio: rng.between(0.015, 0.06),
      commentRate: rng.between(0.0008, 0.004),
      shareRate: rng.between(0.001, 0.004),
      playlistAddRate: short ? rng.between(0.0005, 0.002) : rng.between(0.002, 0.008),
      subscribeRate: short ? rng.between(0.0008, 0.003) : rng.between(0.002, 0.008),
      hasCards: !short && rng.next() < 0.3,
      legacyAnnotations: publishDays[i]! < -700 && rng.next() < 0.02,
      countryCumulative: cumulative(countryShare),
      countryShare,
    });
  }

  return {
    options: o,
    videos,
    weekendBoost: rng.between(1.15, 1.25),
    growthPerYear: rng.between(0.05, 0.2),
    yearlyAmplitude: rng.between(0.02, 0.08),
    yearlyPhase: rng.between(0, 2 * Math.PI),
  };
}

/** Launch boost decaying to a long tail that itself fades slowly. */
function ageFactor(v: VideoPlan, age: number): number {
  return v.boost * Math.exp(-age / v.boostDays) + 0.4 + 0.6 * Math.exp(-age / 300);
}

/** The channel's level on day `d` (trend × weekday × yearly wave), before the day's noise. */
export function dayTrend(plan: ChannelPlan, d: number, weekday: number): number {
  return (
    Math.exp((plan.growthPerYear * d) / 365) *
    (weekday === 0 || weekday === 6 ? plan.weekendBoost : weekday === 5 ? 1.04 : 1) *
    (1 + plan.yearlyAmplitude * Math.sin((2 * Math.PI * d) / 365 + plan.yearlyPhase))
  );
}

/** A video's mean views on a day (age = days since upload); draws two or three numbers from `rng`. */
export function videoMean(rng: Rng, v: VideoPlan, age: number, dayFactor: number): number {
  let mean = v.baseViews * ageFactor(v, age) * dayFactor * rng.lognormal(0.3);
  if (age === 0) mean *= rng.between(0.3, 1); // uploaded during the day
  return mean;
}

// ---------------------------------------------------------------------------------------------------------------
// Per-file header

const DIMENSION_VARIANTS: readonly (readonly string[])[] = [
  ['date', 'channel_id', 'video_id', 'country_code', 'live_or_on_demand', 'subscribed_status'],
  ['date', 'channel_id', 'video_id', 'subscribed_status', 'live_or_on_demand', 'country_code'],
  ['date', 'channel_id', 'country_code', 'video_id', 'live_or_on_demand', 'subscribed_status'],
  ['channel_id', 'date', 'video_id', 'live_or_on_demand', 'subscribed_status', 'country_code'],
];

/** Canonical slot of every column: dimensions 0..5, then METRIC_COLUMNS_A3. */
export const CANONICAL_INDEX = new Map<string, number>(
  [...DIMENSION_COLUMNS, ...METRIC_COLUMNS_A3].map((name, i) => [name, i] as const),
);
const SLOTS = CANONICAL_INDEX.size;
const slot = (name: (typeof METRIC_COLUMNS_A3)[number] | (typeof DIMENSION_COLUMNS)[number]) =>
  CANONICAL_INDEX.get(name)!;

/** Slots of the extension columns in `generate`'s rows, after the channel_basic ones. */
const X_CREATOR = SLOTS;
const X_PRODUCT = SLOTS + 1;
const EXTENDED_INDEX = new Map<string, number>([
  ...CANONICAL_INDEX,
  [EXTENSION_COLUMNS[0], X_CREATOR],
  [EXTENSION_COLUMNS[1], X_PRODUCT],
]);

function fileHeader(o: GeneratorOptions, day: number): { header: string[]; order: Int32Array } {
  const rng = new Rng(hash32('header', o.seed, o.channel, day));
  const dims =
    rng.next() < DIMENSION_VARIANT_PROBABILITY
      ? DIMENSION_VARIANTS[rng.int(DIMENSION_VARIANTS.length)]!
      : DIMENSION_COLUMNS;
  const metrics = metricColumns(o.version);
  for (let i = metrics.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [metrics[i], metrics[j]] = [metrics[j]!, metrics[i]!];
  }
  // The extension columns follow the dimensions; the rest of the header is the plain file's.
  const header = [...dims, ...(o.extensions === true ? EXTENSION_COLUMNS : []), ...metrics];
  return { header, order: Int32Array.from(header, (c) => EXTENDED_INDEX.get(c)!) };
}

// ---------------------------------------------------------------------------------------------------------------
// Rows

/** Canonical slots of the channel_basic columns (shared with export-world.ts). */
export const S = {
  date: slot('date'),
  channel: slot('channel_id'),
  video: slot('video_id'),
  live: slot('live_or_on_demand'),
  subscribed: slot('subscribed_status'),
  country: slot('country_code'),
  engaged: slot('engaged_views'),
  views: slot('views'),
  comments: slot('comments'),
  likes: slot('likes'),
  dislikes: slot('dislikes'),
  added: slot('videos_added_to_playlists'),
  removed: slot('videos_removed_from_playlists'),
  shares: slot('shares'),
  minutes: slot('watch_time_minutes'),
  avgSeconds: slot('average_view_duration_seconds'),
  avgPercentage: slot('average_view_duration_percentage'),
  annotationCtr: slot('annotation_click_through_rate'),
  annotationCloseRate: slot('annotation_close_rate'),
  annotationImpressions: slot('annotation_impressions'),
  annotationClickable: slot('annotation_clickable_impressions'),
  annotationClosable: slot('annotation_closable_impressions'),
  annotationClicks: slot('annotation_clicks'),
  annotationCloses: slot('annotation_closes'),
  cardClickRate: slot('card_click_rate'),
  cardTeaserClickRate: slot('card_teaser_click_rate'),
  cardImpressions: slot('card_impressions'),
  cardTeaserImpressions: slot('card_teaser_impressions'),
  cardClicks: slot('card_clicks'),
  cardTeaserClicks: slot('card_teaser_clicks'),
  gained: slot('subscribers_gained'),
  lost: slot('subscribers_lost'),
  redViews: slot('red_views'),
  redMinutes: slot('red_watch_time_minutes'),
};

const FIRST_METRIC = DIMENSION_COLUMNS.length;
const ANNOTATION_SLOTS = [
  S.annotationImpressions,
  S.annotationClickable,
  S.annotationClosable,
  S.annotationClicks,
  S.annotationCloses,
  S.annotationCtr,
  S.annotationCloseRate,
];
const CARD_SLOTS = [
  S.cardTeaserImpressions,
  S.cardTeaserClicks,
  S.cardTeaserClickRate,
  S.cardImpressions,
  S.cardClicks,
  S.cardClickRate,
];
export const LIVE_DAY: readonly boolean[] = [true, false];
const ON_DEMAND_ONLY: readonly boolean[] = [false];

/** A row as an array of fields in header order. */
export function rowFields(canon: string[], order: Int32Array): string[] {
  const row = new Array<string>(order.length);
  for (let j = 0; j < order.length; j++) row[j] = canon[order[j]!]!;
  return row;
}

/** Reused field buffers of rowLine, by row length. */
const lineFields: string[][] = [];

/** A row as a CSV line (no field needs quoting: ids are validated, values are numbers or enum words). */
export function rowLine(canon: string[], order: Int32Array): string {
  let fields = lineFields[order.length];
  if (!fields) {
    fields = new Array<string>(order.length).fill('');
    lineFields[order.length] = fields;
  }
  for (let j = 0; j < order.length; j++) fields[j] = canon[order[j]!]!;
  return fields.join(',');
}

/** Fills the metric slots of `canon` for one (video, cell) with `views` views. */
export function fillMetrics(
  rng: Rng,
  canon: string[],
  v: VideoPlan,
  views: number,
  subscribed: boolean,
  live: boolean,
) {
  const percentage =
    (live ? v.viewPercentage : v.viewPercentage * (subscribed ? 1.08 : 1)) *
    rng.lognormal(0.03 + 0.15 / Math.sqrt(Math.min(views, 100)));
  const avg = Math.max(1, (v.durationSeconds * percentage) / 100);
  const minutes = round6((views * avg) / 60);
  const avgSeconds = (minutes * 60) / views;
  const redViews = rng.binomial(views, v.redRate);
  const redMinutes = Math.min(minutes, round6((redViews * avg * rng.lognormal(0.1)) / 60));
  const social = subscribed ? 2 : 1;
  const likes = rng.poisson(views * v.likeRate * social);

  canon[S.views] = int(views);
  canon[S.engaged] = int(live ? views : rng.binomial(views, v.engagedRate));
  canon[S.minutes] = dec6(minutes);
  canon[S.avgSeconds] = dec6(avgSeconds);
  canon[S.avgPercentage] = dec2((avgSeconds * 100) / v.durationSeconds);
  canon[S.likes] = int(likes);
  canon[S.dislikes] = int(rng.poisson(likes * v.dislikeRatio));
  canon[S.comments] = int(rng.poisson(views * v.commentRate * social * (live ? 3 : 1)));
  canon[S.shares] = int(rng.poisson(views * v.shareRate));
  canon[S.added] = int(rng.poisson(views * v.playlistAddRate));
  canon[S.removed] = int(rng.poisson(views * v.playlistAddRate * 0.15));
  canon[S.gained] = subscribed ? '0' : int(rng.poisson(views * v.subscribeRate));
  canon[S.lost] = subscribed ? int(rng.poisson(views * 0.0006)) : '0';
  canon[S.redViews] = int(redViews);
  canon[S.redMinutes] = dec6(redMinutes);

  if (v.hasCards) {
    const teaserImpressions = rng.poisson(views * 0.4);
    const teaserClicks = rng.binomial(teaserImpressions, 0.012);
    const impressions = teaserClicks + rng.poisson(views * 0.004);
    const clicks = rng.binomial(impressions, 0.08);
    canon[S.cardTeaserImpressions] = int(teaserImpressions);
    canon[S.cardTeaserClicks] = int(teaserClicks);
    canon[S.cardTeaserClickRate] = ratio(teaserClicks, teaserImpressions);
    canon[S.cardImpressions] = int(impressions);
    canon[S.cardClicks] = int(clicks);
    canon[S.cardClickRate] = ratio(clicks, impressions);
  } else {
    for (const s of CARD_SLOTS) canon[s] = '0';
  }

  if (v.legacyAnnotations && rng.next() < 0.2) {
    const impressions = rng.poisson(views * 0.3);
    const clickable = rng.binomial(impressions, 0.6);
    const closable = rng.binomial(impressions, 0.8);
    const clicks = rng.binomial(clickable, 0.02);
    const closes = rng.binomial(closable, 0.1);
    canon[S.annotationImpressions] = int(impressions);
    canon[S.annotationClickable] = int(clickable);
    canon[S.annotationClosable] = int(closable);
    canon[S.annotationClicks] = int(clicks);
    canon[S.annotationCloses] = int(closes);
    canon[S.annotationCtr] = ratio(clicks, clickable);
    canon[S.annotationCloseRate] = ratio(closes, closable);
  } else {
    for (const s of ANNOTATION_SLOTS) canon[s] = '0';
  }
}

const CELLS = COUNTRIES.length * 2;
const cellCounts = new Int32Array(CELLS);
const touchedCells = new Int32Array(CELLS);

/**
 * Splits Poisson(mean) views of one video over (country × subscribed) cells; cell = country * 2 + subscribed.
 * Returns how many cells got views (listed, ascending, in touchedCells; counts in cellCounts).
 */
function sampleCells(rng: Rng, v: VideoPlan, mean: number): number {
  let touched = 0;
  if (mean < 40) {
    const total = rng.poisson(mean);
    const cum = v.countryCumulative;
    for (let i = 0; i < total; i++) {
      const u = rng.next();
      let c = 0;
      while (cum[c]! <= u && c < cum.length - 1) c++;
      const cell = c * 2 + (rng.next() < v.subscribedShare ? 1 : 0);
      const before = cellCounts[cell]!;
      cellCounts[cell] = before + 1;
      if (before === 0) touchedCells[touched++] = cell;
    }
    touchedCells.subarray(0, touched).sort();
  } else {
    for (let c = 0; c < COUNTRIES.length; c++) {
      const countryMean = mean * v.countryShare[c]!;
      for (let s = 0; s < 2; s++) {
        const k = rng.poisson(countryMean * (s === 1 ? v.subscribedShare : 1 - v.subscribedShare));
        if (k > 0) {
          const cell = c * 2 + s;
          cellCounts[cell] = k;
          touchedCells[touched++] = cell;
        }
      }
    }
  }
  return touched;
}

/** YYYYMMDD of day index `day` after `startMs`. */
export function compactDate(startMs: number, day: number): string {
  return new Date(startMs + day * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
}

/** One export per day, in date order. Each yield holds one file's rows only. */
export function generateDays(o: GeneratorOptions): Generator<DayExport, void, undefined> {
  return generate(o, rowFields);
}

/** channel_basic days with rows built by `emit` (shared with export-world.ts, which writes lines). */
export function* generate<Row>(
  o: GeneratorOptions,
  emit: (canon: string[], order: Int32Array) => Row,
): Generator<{ date: string; header: string[]; rows: Row[] }, void, undefined> {
  const plan = planChannel(o);
  const startMs = parseDay(o.start)!;
  const startWeekday = new Date(startMs).getUTCDay();
  const canon = new Array<string>(SLOTS + EXTENSION_COLUMNS.length).fill('0');
  canon[S.channel] = o.channel;
  const extensions = o.extensions === true ? planVideoExtensions(o.seed, o.channel, plan.videos) : undefined;
  const parts = new Int32Array(PRODUCTS.length);

  for (let d = 0; d < o.days; d++) {
    const date = compactDate(startMs, d);
    const { header, order } = fileHeader(o, d);
    const rows: Row[] = [];
    const rng = new Rng(hash32('day', o.seed, o.channel, d));
    if (rng.next() < EMPTY_DAY_PROBABILITY) {
      yield { date, header, rows };
      continue;
    }
    canon[S.date] = date;
    const dayFactor = dayTrend(plan, d, (startWeekday + d) % 7) * rng.lognormal(0.05);
    // The app split draws from its own stream: the main stream, and so every cell, stays the plain file's.
    const productRng = extensions ? new Rng(hash32('products', o.seed, o.channel, d)) : undefined;

    let dayViews = 0;
    for (let i = 0; i < plan.videos.length; i++) {
      const v = plan.videos[i]!;
      if (v.publishDay > d) break; // videos are in upload order
      const age = d - v.publishDay;
      const mean = videoMean(rng, v, age, dayFactor);
      canon[S.video] = v.id;
      if (extensions) canon[X_CREATOR] = extensions[i]!.creatorType;
      const liveShare = v.live && age === 0 ? rng.between(0.6, 0.9) : 0;
      for (const live of liveShare > 0 ? LIVE_DAY : ON_DEMAND_ONLY) {
        canon[S.live] = live ? 'live' : 'on_demand';
        const touched = sampleCells(rng, v, live ? mean * liveShare : mean * (1 - liveShare));
        for (let t = 0; t < touched; t++) {
          const cell = touchedCells[t]!;
          const views = cellCounts[cell]!;
          cellCounts[cell] = 0;
          const subscribed = (cell & 1) === 1;
          canon[S.subscribed] = subscribed ? 'subscribed' : 'not_subscribed';
          canon[S.country] = COUNTRIES[cell >> 1]!;
          fillMetrics(rng, canon, v, views, subscribed, live);
          dayViews += views;
          if (!extensions || !productRng) {
            rows.push(emit(canon, order));
            continue;
          }
          const only = splitProducts(productRng, extensions[i]!.products, views, parts);
          if (only >= 0) {
            canon[X_PRODUCT] = PRODUCTS[only]!;
            rows.push(emit(canon, order));
            continue;
          }
          // Split over apps: each part gets its own metrics (the views add up to the cell's exactly).
          for (let p = 0; p < PRODUCTS.length; p++) {
            if (parts[p] === 0) continue;
            fillMetrics(productRng, canon, v, parts[p]!, subscribed, live);
            canon[X_PRODUCT] = PRODUCTS[p]!;
            rows.push(emit(canon, order));
          }
        }
      }
    }

    // Channel-level rows (empty video_id): subscriber changes not attributed to a video.
    const gained = rng.poisson(dayViews * 0.0006 + 0.2);
    const lost = rng.poisson(dayViews * 0.0008 + 0.2);
    if (gained > 0 || lost > 0) {
      for (let s = FIRST_METRIC; s < SLOTS; s++) canon[s] = '0';
      canon[S.video] = '';
      canon[S.live] = 'on_demand';
      canon[S.country] = UNKNOWN_COUNTRY;
      canon[X_CREATOR] = NO_CREATOR_TYPE;
      canon[X_PRODUCT] = NO_PRODUCT;
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
    yield { date, header, rows };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Files

const gzipAsync = promisify(gzipCallback);

/** The directory that holds one channel's files for the options' report version. */
export function exportDir(o: Pick<GeneratorOptions, 'channel' | 'version'>, outDir: string): string {
  return path.join(outDir, o.channel, `channel_basic_${o.version}`);
}

/** Writes one `${date}.csv[.gz]` per day into `dir`. */
export async function writeDays(
  days: Iterable<{ date: string; header: string[]; rows: string[] }>,
  dir: string,
  gzip: boolean,
  onFile?: (file: string, rows: number) => void,
): Promise<{ files: number; rows: number; headerOnly: number }> {
  await mkdir(dir, { recursive: true });
  let files = 0;
  let rows = 0;
  let headerOnly = 0;
  // One write in flight while the next file is generated: the I/O (and gzip, on the thread pool) overlaps the CPU work.
  let pending: Promise<void> | undefined;
  try {
    for (const day of days) {
      const text = `${day.header.join(',')}\n${day.rows.length > 0 ? `${day.rows.join('\n')}\n` : ''}`;
      const file = path.join(dir, `${day.date}.csv${gzip ? '.gz' : ''}`);
      const count = day.rows.length;
      await pending;
      pending = (gzip ? gzipAsync(text) : Promise.resolve(text)).then(async (body) => {
        await writeFile(file, body);
        onFile?.(file, count);
      });
      files++;
      rows += count;
      if (count === 0) headerOnly++;
    }
  } catch (err) {
    await pending?.catch(() => undefined);
    throw err;
  }
  await pending;
  return { files, rows, headerOnly };
}

/** Writes `${outDir}/${channel}/channel_basic_${version}/${YYYYMMDD}.csv[.gz]`, one file per day. */
export async function writeExports(
  o: GeneratorOptions,
  outDir: string,
  onFile?: (file: string, rows: number) => void,
): Promise<{ files: number; rows: number }> {
  assertValid(o);
  const { files, rows } = await writeDays(generate(o, rowLine), exportDir(o, outDir), o.gzip, onFile);
  return { files, rows };
}
