/**
 * Extension data (functions/core/reports/catalog/families.ts: EXT, CITY, RETENTION): per-video traits the bulk exports do not
 * carry (creator content type, the YouTube app the views come from, paid promotion, an audience-retention curve) and
 * the helpers that slice views by them. The traits come from a stream of their own keyed by (seed, channel), so the
 * bulk files stay byte-identical and a video has the same traits in every file and on every day.
 */
import { ANALYTICS_VALUES } from '../../functions/core/reports/ingest/code-tables';
import type { VideoPlan } from './export-generator';
import { hash32, Rng } from './export-random';

/** youtube_product values, in the order of VideoExtension.products. */
export const PRODUCTS = ['CORE', 'GAMING', 'KIDS', 'UNKNOWN'] as const;
export const CREATOR_TYPES = ['SHORTS', 'VIDEO_ON_DEMAND', 'LIVE_STREAM', 'STORY'] as const;
export const AUDIENCE_TYPES = ['ORGANIC', 'AD_INSTREAM', 'AD_INDISPLAY'] as const;
export type CreatorType = (typeof CREATOR_TYPES)[number];
/** What rows without a video (channel-level subscriber rows) carry: the values files without the columns mean. */
export const NO_CREATOR_TYPE = 'UNSPECIFIED';
export const NO_PRODUCT = 'UNKNOWN';

for (const [dim, values] of [
  ['youtubeProduct', PRODUCTS],
  ['creatorContentType', CREATOR_TYPES],
  ['audienceType', AUDIENCE_TYPES],
] as const) {
  for (const v of values) {
    if (!ANALYTICS_VALUES[dim]?.includes(v)) throw new Error(`${dim} ${v} is not a value the service knows`);
  }
}

/** CPM multiplier by app: YouTube Kids serves no personalised ads. */
export const PRODUCT_CPM: readonly number[] = [1, 1, 0.35, 0.8];

/** The retention points: elapsed_video_time_ratio 0.01 … 1.00. */
export const RETENTION_POINTS = 100;

export interface RetentionShape {
  /** Audience watch ratio at the very start (above 1 for Shorts, which loop). */
  start: number;
  /** Share of viewers who leave in the first seconds, and how fast (as a ratio of the length). */
  intro: number;
  introTau: number;
  /** Multiplier over the last 5 % (end screen); 1 for looping Shorts. */
  end: number;
  /** A rewatch spike: where, how high (added to the ratio), how wide. Height 0: none. */
  spikeAt: number;
  spikeHeight: number;
  spikeWidth: number;
  /** The view percentage the curve averages to. */
  target: number;
}

export interface VideoExtension {
  creatorType: CreatorType;
  /** Share of views per app, in PRODUCTS order, summing to 1: mostly CORE. */
  products: Float64Array;
  /** Paid promotion: the days (inclusive, relative to the first day) and the shares of views from ads. */
  promotion: { first: number; last: number; instream: number; indisplay: number } | undefined;
  retention: RetentionShape;
  /** How the video holds viewers compared with similar videos (logit offset of relative_retention_performance). */
  quality: number;
  /** audience_watch_ratio per point, computed on first use. */
  curve?: Float64Array;
}

/** The extension traits of a channel's videos, in plan order. Deterministic in (seed, channel). */
export function planVideoExtensions(seed: number, channel: string, videos: readonly VideoPlan[]): VideoExtension[] {
  const rng = new Rng(hash32('extensions', seed, channel));
  // A cooking channel: a little YouTube Kids, a trace of the old Gaming app, some views whose app is unknown.
  const kidsBase = 0.004 * rng.lognormal(0.8);
  const gamingBase = 0.0015 * rng.lognormal(0.5);
  const unknownBase = 0.01 * rng.lognormal(0.4);
  return videos.map((v) => {
    // Stories were retired in 2023: only old short posts are stories.
    const story = v.short && v.publishDay < -365 && rng.next() < 0.15;
    const kids = rng.next() < 0.05 ? rng.between(0.05, 0.2) : kidsBase * rng.lognormal(0.5);
    const gaming = gamingBase * rng.lognormal(0.5);
    const unknown = unknownBase * rng.lognormal(0.3);
    const promoted = !v.short && !v.live && rng.next() < 0.12;
    const first = v.publishDay + rng.int(3);
    const promotion = promoted
      ? { first, last: first + 6 + rng.int(15), instream: rng.between(0.15, 0.4), indisplay: rng.between(0.02, 0.08) }
      : undefined;
    const loops = v.short;
    const spiked = rng.next() < 0.3;
    const retention: RetentionShape = {
      start: loops ? rng.between(1, 1.25) : v.live ? rng.between(0.85, 1) : rng.between(0.92, 1.05),
      intro: loops ? rng.between(0.1, 0.3) : v.live ? rng.between(0.3, 0.5) : rng.between(0.15, 0.4),
      introTau: rng.between(0.02, 0.06),
      end: loops ? 1 : rng.between(0.6, 0.85),
      spikeAt: rng.between(0.15, 0.85),
      spikeHeight: spiked ? rng.between(0.1, 0.4) : 0,
      spikeWidth: rng.between(0.01, 0.03),
      target: v.viewPercentage / 100,
    };
    return {
      creatorType: v.live ? 'LIVE_STREAM' : story ? 'STORY' : v.short ? 'SHORTS' : 'VIDEO_ON_DEMAND',
      products: Float64Array.of(1 - gaming - kids - unknown, gaming, kids, unknown),
      promotion,
      retention,
      quality: 0.6 * rng.normal(),
    };
  });
}

/**
 * Splits `count` over the apps by `shares` (a multinomial draw) into `out` (PRODUCTS order). Returns the index of the
 * only app that got everything, or -1 when the count was split over several.
 */
export function splitProducts(rng: Rng, shares: Float64Array, count: number, out: Int32Array): number {
  let left = count;
  let mass = 1;
  let only = -1;
  for (let p = 0; p < PRODUCTS.length; p++) {
    const share = shares[p]!;
    const k = p === PRODUCTS.length - 1 || mass <= share ? left : rng.binomial(left, share / mass);
    out[p] = k;
    mass -= share;
    left -= k;
    if (k === count) only = p;
  }
  return only;
}

// ---------------------------------------------------------------------------------------------------------------
// Audience retention

function shapeAt(s: RetentionShape, decay: number, r: number): number {
  const intro = s.intro * Math.exp(-r / s.introTau) + (1 - s.intro);
  const spike = s.spikeHeight * Math.exp(-0.5 * ((r - s.spikeAt) / s.spikeWidth) ** 2);
  return s.start * intro * Math.exp(-decay * r) * (r > 0.95 ? s.end : 1) + spike;
}

/** Everybody leaves in the end: the slowest decay (per unit of elapsed ratio) a curve has. */
const MIN_DECAY = 0.25;

function meanOf(s: RetentionShape, decay: number): number {
  let sum = 0;
  for (let k = 1; k <= RETENTION_POINTS; k++) sum += shapeAt(s, decay, k / RETENTION_POINTS);
  return sum / RETENTION_POINTS;
}

/** The largest x in [lo, hi] with f(x) >= target, for a decreasing f (bisection). */
function solveDecreasing(f: (x: number) => number, target: number, from: number, to: number): number {
  let [lo, hi] = [from, to];
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (f(mid) > target) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** The curve over the points whose mean is the shape's view percentage. */
function solveCurve(shape: RetentionShape): Float64Array {
  const s = { ...shape };
  let decay = MIN_DECAY;
  if (meanOf(s, MIN_DECAY) >= s.target) {
    decay = solveDecreasing((x) => meanOf(s, x), s.target, MIN_DECAY, 12);
  } else if (meanOf({ ...s, intro: 0 }, MIN_DECAY) >= s.target) {
    // A video that holds its viewers this well loses few of them at the start.
    s.intro = solveDecreasing((x) => meanOf({ ...s, intro: x }, MIN_DECAY), s.target, 0, s.intro);
  } else {
    // Even better: viewers rewatch (Shorts loop), so the ratio starts above 1.
    s.intro = 0;
    s.start *= s.target / meanOf(s, MIN_DECAY);
  }
  return Float64Array.from({ length: RETENTION_POINTS }, (_, k) => shapeAt(s, decay, (k + 1) / RETENTION_POINTS));
}

/** The video's audience watch ratio per point (cached on the video). */
export function retentionCurve(x: VideoExtension): Float64Array {
  x.curve ??= solveCurve(x.retention);
  return x.curve;
}

/** Typical videos of each creator type, the yardstick of relative_retention_performance. */
const REFERENCE = new Map<CreatorType, Float64Array>(
  CREATOR_TYPES.map((type) => {
    const short = type === 'SHORTS' || type === 'STORY';
    const target = short ? 0.72 : type === 'LIVE_STREAM' ? 0.16 : 0.45;
    const shape: RetentionShape = {
      start: short ? 1.1 : 1,
      intro: 0.25,
      introTau: 0.04,
      end: short ? 1 : 0.75,
      spikeAt: 0.5,
      spikeHeight: 0,
      spikeWidth: 0.02,
      target,
    };
    return [type, solveCurve(shape)] as const;
  }),
);

export function referenceCurve(type: CreatorType): Float64Array {
  return REFERENCE.get(type)!;
}

/** How much faster (per unit of elapsed ratio) a slice's viewers leave than the video's average viewer. */
export function sliceTilt(audience: number, subscribed: boolean, product: number): number {
  return [0, 0.9, 0.3][audience]! + (subscribed ? -0.15 : 0) + [0, 0, -0.1, 0.1][product]!;
}

export interface RetentionSlice {
  /** Indexes into AUDIENCE_TYPES and PRODUCTS. */
  audience: number;
  subscribed: boolean;
  product: number;
  views: number;
}

const sliceParts = new Int32Array(PRODUCTS.length);

/**
 * A video-day's `views` split over (audience type × subscribed status × app): ads only while the video is promoted.
 * Keeps the `max` largest slices with at least `minViews` views (retention needs enough viewers to be meaningful).
 */
export function retentionSlices(
  rng: Rng,
  v: VideoPlan,
  x: VideoExtension,
  day: number,
  views: number,
  minViews: number,
  max: number,
): RetentionSlice[] {
  const p = x.promotion;
  const promoted = p !== undefined && day >= p.first && day <= p.last;
  const ads = promoted ? rng.binomial(views, p.instream + p.indisplay) : 0;
  const instream = promoted ? rng.binomial(ads, p.instream / (p.instream + p.indisplay)) : 0;
  const byAudience = [views - ads, instream, ads - instream];
  const slices: RetentionSlice[] = [];
  byAudience.forEach((n, audience) => {
    if (n < minViews) return;
    const subscribed = rng.binomial(n, v.subscribedShare);
    for (const [count, isSubscribed] of [
      [n - subscribed, false],
      [subscribed, true],
    ] as const) {
      if (count < minViews) continue;
      splitProducts(rng, x.products, count, sliceParts);
      sliceParts.forEach((k, product) => {
        if (k >= minViews) slices.push({ audience, subscribed: isSubscribed, product, views: k });
      });
    }
  });
  // The largest slices, written in slicing order.
  const kept = new Set([...slices].sort((a, b) => b.views - a.views).slice(0, max));
  return slices.filter((s) => kept.has(s));
}
