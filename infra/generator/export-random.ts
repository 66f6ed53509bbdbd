/**
 * Seeded randomness and number formatting shared by the bulk-export generators (export-generator.ts,
 * export-families.ts): mulberry32 streams keyed by FNV-1a hashes, a few distributions, and decimal strings that never
 * use exponent notation.
 */

/** FNV-1a over the parts, finished with the murmur3 avalanche: a well-mixed 32-bit seed. */
export function hash32(...parts: (string | number)[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    const s = String(part);
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= 0xff;
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** mulberry32 with a few distributions on top. */
export class Rng {
  private state: number;
  private spare = 0;
  private hasSpare = false;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  between(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  normal(): number {
    if (this.hasSpare) {
      this.hasSpare = false;
      return this.spare;
    }
    const r = Math.sqrt(-2 * Math.log(1 - this.next()));
    const a = 2 * Math.PI * this.next();
    this.spare = r * Math.sin(a);
    this.hasSpare = true;
    return r * Math.cos(a);
  }

  /** Lognormal with mean 1. */
  lognormal(sigma: number): number {
    return Math.exp(sigma * this.normal() - (sigma * sigma) / 2);
  }

  /** Poisson: exact (Knuth) for small means, rounded normal above. */
  poisson(mean: number): number {
    if (!(mean > 0)) return 0;
    if (mean < 12) {
      // exp(-mean) by its Taylor series for the (very common) tiny means: error < 3e-9.
      const limit = mean < 0.02 ? 1 - mean * (1 - (mean / 2) * (1 - mean / 3)) : Math.exp(-mean);
      let k = 0;
      let p = this.next();
      while (p > limit) {
        k++;
        p *= this.next();
      }
      return k;
    }
    const k = Math.round(mean + Math.sqrt(mean) * this.normal());
    return Math.max(k, 0);
  }

  /** Binomial(n, p): exact for small n, Poisson or normal approximation above; always within [0, n]. */
  binomial(n: number, p: number): number {
    if (n <= 0 || p <= 0) return 0;
    if (p >= 1) return n;
    if (n < 20) {
      let k = 0;
      for (let i = 0; i < n; i++) if (this.next() < p) k++;
      return k;
    }
    const mean = n * p;
    const k = mean < 12 && p < 0.1 ? this.poisson(mean) : Math.round(mean + Math.sqrt(mean * (1 - p)) * this.normal());
    return k < 0 ? 0 : Math.min(k, n);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Number formatting (never exponent notation)

/** Rounds to 6 decimals. */
export const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** Decimal strings of 0..4095 (most counts are small). */
const SMALL_INTS = Array.from({ length: 4096 }, (_, i) => String(i));
/** A non-negative integer as a string. */
export const int = (n: number) => (n < 4096 ? SMALL_INTS[n]! : String(n));

/** "000".."999", and the same with trailing zeros trimmed ("5" for 500, "" for 0). */
const PAD3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
const TRIM3 = PAD3.map((s) => s.replace(/0+$/, ''));
/** ".01".."99" with trailing zeros trimmed, by hundredths. */
const CENTS = Array.from({ length: 100 }, (_, i) => `.${String(i).padStart(2, '0').replace(/0+$/, '')}`);

/** A non-negative decimal with up to 6 decimals, trailing zeros trimmed, never in exponent notation. */
export function dec6(x: number): string {
  const n = Math.round(x * 1e6);
  if (!(n > 0)) return '0';
  const whole = Math.floor(n / 1e6);
  const frac = n - whole * 1e6;
  if (frac === 0) return int(whole);
  const hi = Math.floor(frac / 1000);
  const lo = frac - hi * 1000;
  return lo === 0 ? `${int(whole)}.${TRIM3[hi]!}` : `${int(whole)}.${PAD3[hi]!}${TRIM3[lo]!}`;
}

/** A non-negative decimal with up to 2 decimals (e.g. 43.27), trailing zeros trimmed. */
export function dec2(x: number): string {
  const n = Math.round(x * 100);
  if (!(n > 0)) return '0';
  const whole = Math.floor(n / 100);
  const frac = n - whole * 100;
  return frac === 0 ? int(whole) : `${int(whole)}${CENTS[frac]!}`;
}

/** num / den with up to 6 decimals, '0' when den is 0. */
export const ratio = (num: number, den: number) => (den > 0 ? dec6(num / den) : '0');

/** An amount of whole cents as dollars with up to 2 decimals (1234 -> '12.34', 1230 -> '12.3', 0 -> '0'). */
export function money(cents: number): string {
  const whole = Math.floor(cents / 100);
  const frac = cents - whole * 100;
  return frac === 0 ? int(whole) : `${int(whole)}${CENTS[frac]!}`;
}

/** A non-negative decimal with up to 10 decimals, trailing zeros trimmed (percentages such as 0.3003003003). */
export function dec10(x: number): string {
  if (!(x > 0)) return '0';
  const s = x.toFixed(10);
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

/** Draws from a fixed discrete distribution (values with relative weights) by binary search. */
export class Picker<T = string> {
  readonly values: readonly T[];
  private readonly cum: Float64Array;

  constructor(weighted: readonly (readonly [T, number])[]) {
    if (weighted.length === 0) throw new Error('a picker needs at least one value');
    this.values = weighted.map(([v]) => v);
    this.cum = new Float64Array(weighted.length);
    let acc = 0;
    weighted.forEach(([, w], i) => {
      acc += w;
      this.cum[i] = acc;
    });
  }

  pick(rng: Rng): T {
    const u = rng.next() * this.cum[this.cum.length - 1]!;
    let lo = 0;
    let hi = this.cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cum[mid]! > u) hi = mid;
      else lo = mid + 1;
    }
    return this.values[lo]!;
  }
}

/** Zipf-like weights 1/rank^exponent for a list of values, first = most likely. */
export const zipf = <T>(values: readonly T[], exponent = 1): [T, number][] =>
  values.map((v, i) => [v, (i + 1) ** -exponent]);
