/**
 * A seeded, deterministic daily exchange-rate table (`date,currency,units_per_usd`, date YYYYMMDD) for converting the
 * USD revenue of the content-owner reports: realistic levels, a small mean-reverting random walk, and a few gaps of
 * a few days for some currencies, so readers must fall back to the latest earlier rate. The first and last day of the
 * period always have every currency.
 */
import { dec6, hash32, Rng } from './export-random';

/** Currency, units per USD at the start, daily volatility (log). */
export const CURRENCIES: readonly (readonly [string, number, number])[] = [
  ['EUR', 0.92, 0.003],
  ['GBP', 0.79, 0.003],
  ['JPY', 151.2, 0.005],
  ['INR', 84.1, 0.002],
  ['BRL', 5.62, 0.007],
  ['CAD', 1.37, 0.003],
  ['AUD', 1.52, 0.004],
  ['MXN', 18.4, 0.006],
];

export const EXCHANGE_RATES_HEADER = ['date', 'currency', 'units_per_usd'] as const;
/** Pull back towards the starting level per day, so long periods stay realistic. */
const MEAN_REVERSION = 0.01;

export interface RatesOptions {
  /** YYYY-MM-DD */
  start: string;
  days: number;
  seed: number;
}

/** Rows in date then currency order, and the days left out per currency (day indexes). */
export function generateExchangeRates(o: RatesOptions): { rows: string[][]; gaps: Map<string, number[]> } {
  const startMs = Date.parse(`${o.start}T00:00:00Z`);
  const gaps = new Map<string, number[]>();
  const missing = new Map<string, Set<number>>();
  const rng = new Rng(hash32('rates', o.seed));
  CURRENCIES.forEach(([currency], i) => {
    const days = new Set<number>();
    // Every other currency gets gaps: one per ~90 days, 2–4 days long, never touching the first or last day.
    if (i % 2 === 0 && o.days >= 6) {
      const count = Math.max(1, Math.floor(o.days / 90));
      for (let g = 0; g < count; g++) {
        const length = Math.min(2 + rng.int(3), o.days - 2);
        const first = 1 + rng.int(o.days - 1 - length);
        for (let d = first; d < first + length; d++) days.add(d);
      }
    }
    missing.set(currency, days);
    gaps.set(
      currency,
      [...days].sort((a, b) => a - b),
    );
  });

  const level = CURRENCIES.map(([, start, sigma]) => Math.log(start) + 3 * sigma * rng.normal());
  const rows: string[][] = [];
  for (let d = 0; d < o.days; d++) {
    const date = new Date(startMs + d * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
    CURRENCIES.forEach(([currency, start, sigma], i) => {
      if (d > 0) level[i] = level[i]! + sigma * rng.normal() - MEAN_REVERSION * (level[i]! - Math.log(start));
      if (!missing.get(currency)!.has(d)) rows.push([date, currency, dec6(Math.exp(level[i]!))]);
    });
  }
  return { rows, gaps };
}

/** The whole file as CSV text. */
export function exchangeRatesCsv(o: RatesOptions): string {
  const { rows } = generateExchangeRates(o);
  return `${EXCHANGE_RATES_HEADER.join(',')}\n${rows.map((r) => r.join(',')).join('\n')}\n`;
}
