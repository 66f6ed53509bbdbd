/**
 * The sizes the reports benchmark runs at: a channel world and a content owner per size, each named by its size in
 * the output. The larger size has ten times the videos (the channel half the days, so its rows stay within what two
 * cores generate and ingest in a few minutes). Each size has its own owners, so both live in one table.
 *
 * Options (environment): BENCH_SIZES (`1k,10k`, the default: both; `1k` runs the small one alone), and for the small
 * size only BENCH_VIDEOS (1000), BENCH_DAYS (730), BENCH_CO_VIDEOS (200 per channel), BENCH_CO_DAYS (365);
 * BENCH_CO_CHANNELS (3) for both.
 */

export interface ContentOwnerSize {
  /** The content owner's id; its channels are `UC<id>-<n>`, their videos `<videoPrefix><n>v…`. */
  readonly id: string;
  readonly channels: number;
  /** Videos per channel. */
  readonly videos: number;
  readonly days: number;
  readonly videoPrefix: string;
}

export interface BenchSize {
  /** `1k` or `10k`: what BENCH_SIZES selects. */
  readonly key: string;
  readonly channel: string;
  readonly sub: string;
  readonly videos: number;
  readonly days: number;
  /** The first day of the channel world (its last is 2026-10-31 at both sizes, so the one-year queries are full). */
  readonly start: string;
  readonly videoPrefix: string;
  readonly contentOwner: ContentOwnerSize;
}

/** The first day of the content owners' exports (365 days: to 2026-10-31). */
export const CONTENT_OWNER_START = '2025-11-01';

const count = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/** Every size, smallest first (the ×10 check compares each with the first). */
export function allSizes(): BenchSize[] {
  const channels = count('BENCH_CO_CHANNELS', 3);
  return [
    {
      key: '1k',
      channel: 'UCbench-reports',
      sub: 'bench-reporter',
      videos: count('BENCH_VIDEOS', 1000),
      days: count('BENCH_DAYS', 730),
      start: '2024-11-01',
      videoPrefix: 'bv',
      contentOwner: {
        id: 'bench-co',
        channels,
        videos: count('BENCH_CO_VIDEOS', 200),
        days: count('BENCH_CO_DAYS', 365),
        videoPrefix: 'co',
      },
    },
    {
      key: '10k',
      channel: 'UCbench-reports-10k',
      sub: 'bench-reporter-10k',
      videos: 10_000,
      days: 365,
      start: '2025-11-01',
      videoPrefix: 'bx',
      contentOwner: { id: 'bench-co-10k', channels, videos: 2_000, days: 365, videoPrefix: 'cx' },
    },
  ];
}

/** The sizes BENCH_SIZES selects (default all); an unknown name is an error, not a silent skip. */
export function selectedSizes(): BenchSize[] {
  const all = allSizes();
  const wanted = (process.env.BENCH_SIZES ?? all.map((s) => s.key).join(','))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = wanted.filter((w) => !all.some((s) => s.key === w));
  if (unknown.length > 0 || wanted.length === 0) {
    throw new Error(
      `BENCH_SIZES: expected a list of ${all.map((s) => s.key).join(', ')}; got "${process.env.BENCH_SIZES}"`,
    );
  }
  return all.filter((s) => wanted.includes(s.key));
}

const thousands = (n: number) => n.toLocaleString('en-US');

/** The channel world by its size: `10,000 videos × 365 days`. */
export const channelLabel = (s: BenchSize) => `${thousands(s.videos)} videos × ${thousands(s.days)} days`;

/** The content owner by its size: `3 channels × 2,000 videos × 365 days`. */
export const contentOwnerLabel = (c: ContentOwnerSize) =>
  `${c.channels} channels × ${thousands(c.videos)} videos × ${thousands(c.days)} days`;

/** The content owner's channel ids. */
export const contentOwnerChannels = (c: ContentOwnerSize): string[] =>
  Array.from({ length: c.channels }, (_, i) => `UC${c.id}-${i + 1}`);
