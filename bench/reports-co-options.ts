/**
 * The benchmark's content owner: its id, channels and generator options (shared by reports-co.ts and the child
 * process that generates its exports, reports-co-generate.ts).
 *
 * Options (environment): BENCH_CO_CHANNELS (3), BENCH_CO_VIDEOS (200 per channel), BENCH_CO_DAYS (365).
 */
import type { GeneratorOptions } from '../infra/generator/export-generator';

export const CONTENT_OWNER = 'bench-co';
export const CONTENT_OWNER_START = '2025-11-01';
export const CONTENT_OWNER_REPORTS = ['content_owner_basic_a4', 'content_owner_estimated_revenue_a1'] as const;

export const contentOwnerChannels = (): string[] =>
  Array.from({ length: Number(process.env.BENCH_CO_CHANNELS ?? 3) }, (_, i) => `UCbench-co${i + 1}`);

export function contentOwnerOptions(): GeneratorOptions {
  const videos = Number(process.env.BENCH_CO_VIDEOS ?? 200);
  const days = Number(process.env.BENCH_CO_DAYS ?? 365);
  const width = Math.max(4, String(videos).length);
  const channels = contentOwnerChannels();
  return {
    channel: channels[0] as string,
    videos,
    days,
    start: CONTENT_OWNER_START,
    seed: 11,
    videoPrefix: 'co1v',
    videoWidth: width,
    version: 'a3',
    gzip: false,
    reports: [...CONTENT_OWNER_REPORTS],
    contentOwner: CONTENT_OWNER,
    channels: channels.map((channel, i) => ({ channel, videoPrefix: `co${i + 1}v`, videoWidth: width, playlists: 0 })),
    playlists: 0,
    rates: true,
  };
}
