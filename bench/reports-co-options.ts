/**
 * The benchmark's content owner at one size (reports-sizes.ts): its generator options, shared by reports-co.ts and
 * the child process that generates its exports (reports-co-generate.ts).
 */
import type { GeneratorOptions } from '../infra/generator/export-generator';
import { CONTENT_OWNER_START, type ContentOwnerSize, contentOwnerChannels } from './reports-sizes';

export const CONTENT_OWNER_REPORTS = ['content_owner_basic_a4', 'content_owner_estimated_revenue_a1'] as const;

export function contentOwnerOptions(c: ContentOwnerSize): GeneratorOptions {
  const width = Math.max(4, String(c.videos).length);
  const channels = contentOwnerChannels(c);
  return {
    channel: channels[0] as string,
    videos: c.videos,
    days: c.days,
    start: CONTENT_OWNER_START,
    // One seed at every size: the exchange rates (one set per table) come out the same.
    seed: 11,
    videoPrefix: `${c.videoPrefix}1v`,
    videoWidth: width,
    version: 'a3',
    gzip: false,
    reports: [...CONTENT_OWNER_REPORTS],
    contentOwner: c.id,
    channels: channels.map((channel, i) => ({
      channel,
      videoPrefix: `${c.videoPrefix}${i + 1}v`,
      videoWidth: width,
      playlists: 0,
    })),
    playlists: 0,
    rates: true,
  };
}
