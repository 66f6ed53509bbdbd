/**
 * The demo world a newcomer gets from `npm start` (documented in the README). Loaded idempotently: a marker item
 * records the loaded version, and a reload rewrites the same entries.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type DirectoryWorld, loadDirectory } from '../../functions/core/directory/directory-loader';
import type { TableContext } from '../../functions/core/directory/directory-repository';
import { dynamoResourceSink } from '../../functions/core/directory/resource-sink';
import { bytesFile, localFile } from '../../functions/core/reports/ingest/ingest-file';
import { dynamoIngestStores, type IngestFile, ingestFiles } from '../../functions/core/reports/ingest/ingest-service';
import { dynamoRateRepository } from '../../functions/core/reports/storage/rate-repository';
import { readDirectoryText } from '../cli/directory-yaml';
import { exchangeRatesCsv } from '../generator/exchange-rates';
import type { GeneratorOptions } from '../generator/export-generator';
import { writeAllExports } from '../generator/export-world';

/** The demo directory, a directory file in the repo (the README's demo-world table describes it). */
export const DEMO_DIRECTORY_FILE = path.join(import.meta.dirname, 'demo-directory.yaml');

/** The demo directory as a parsed document, ready for the directory service. */
export function demoDirectoryDocument(): DirectoryWorld {
  const read = readDirectoryText(DEMO_DIRECTORY_FILE, readFileSync(DEMO_DIRECTORY_FILE, 'utf8'));
  if (!read.ok) throw new Error(read.messages.join('\n'));
  return read.doc as DirectoryWorld; // validated by the apply that loads it
}

/** The generated exports a newcomer sees at once: alice and carol, July to October 2026 (dave gets none). */
export const DEMO_EXPORTS: readonly GeneratorOptions[] = [
  { channel: 'UCdemo-alice', videos: 600, videoPrefix: 'alice-v', videoWidth: 4 },
  { channel: 'UCdemo-carol', videos: 100, videoPrefix: 'carol-v', videoWidth: 4 },
].map((c) => ({
  ...c,
  days: 123,
  start: '2026-07-01',
  seed: 42,
  version: 'a3' as const,
  gzip: false,
  extensions: true,
}));

const OCTOBER = { days: 31, start: '2026-10-01', seed: 42, version: 'a3' as const, gzip: false, extensions: true };

/**
 * October 2026 of every other queryable report family and extension layout, so every report of the catalog has demo
 * data: alice's channel and playlist families, and demo-co's content-owner families over carol's channel (plus the
 * generator's third-party channels whose videos demo-co claims). Video reports carry the extension columns.
 */
export const DEMO_FAMILY_EXPORTS: readonly GeneratorOptions[] = [
  {
    ...OCTOBER,
    channel: 'UCdemo-alice',
    videos: 600,
    videoPrefix: 'alice-v',
    videoWidth: 4,
    playlists: 10,
    // biome-ignore format: word list
    reports: [
      'channel_province', 'channel_playback_location', 'channel_traffic_source', 'channel_device_os',
      'channel_demographics', 'channel_sharing_service', 'channel_combined', 'playlist', 'channel_city',
      'channel_audience_retention', 'channel_estimated_revenue', 'channel_ad_rates', 'channel_reach',
    ],
  },
  {
    ...OCTOBER,
    channel: 'UCdemo-carol',
    videos: 100,
    videoPrefix: 'carol-v',
    videoWidth: 4,
    contentOwner: 'demo-co',
    channels: [{ channel: 'UCdemo-carol', videos: 100, playlists: 5 }],
    // biome-ignore format: word list
    reports: [
      'content_owner_basic', 'content_owner_province', 'content_owner_playback_location',
      'content_owner_traffic_source', 'content_owner_device_os', 'content_owner_demographics',
      'content_owner_sharing_service', 'content_owner_combined', 'content_owner_playlist',
      'content_owner_estimated_revenue', 'content_owner_ad_rates', 'content_owner_city',
      'content_owner_audience_retention',
    ],
  },
];

/** A year of exchange rates (EUR, GBP, JPY, INR, BRL, …) for `currency=`. */
export const DEMO_RATES = { start: '2025-12-01', days: 365, seed: 42 };

const readAll = (dir: string): IngestFile[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.csv'))
    .sort()
    .map((f) => localFile(path.join(dir, f)));

/** The demo exports as daily files, ready for the ingest service (generated into a temporary folder). */
export async function demoExportFiles(work: string): Promise<IngestFile[]> {
  for (const o of [...DEMO_EXPORTS, ...DEMO_FAMILY_EXPORTS]) await writeAllExports(o, work);
  const files = readAll(work);
  files.push(bytesFile('demo/exchange_rates.csv', Buffer.from(exchangeRatesCsv(DEMO_RATES))));
  return files;
}

/** The demo ids the catalog's example queries use (README, examples test). */
export const DEMO_EXAMPLE_IDS = {
  channel: { video: 'alice-v0291', playlist: 'alice-p03', channel: 'UCdemo-alice' },
  contentOwner: { video: 'carol-v0040', playlist: 'carol-p03', channel: 'UCdemo-carol' },
} as const;

/** Bump when the demo world or its storage changes, so existing local tables pick up the new version. */
export const DEMO_WORLD_VERSION = 13;
const MARKER = { pk: 'DEMO#WORLD', sk: 'VERSION' };

/** Loads the demo world unless this version is already there. Returns whether it loaded anything. */
export async function ensureDemoWorld(
  ctx: TableContext,
  options: { facts?: boolean; onLoad?: () => void } = {},
): Promise<boolean> {
  const marker = await ctx.db.send(new GetCommand({ TableName: ctx.tableName, Key: MARKER, ConsistentRead: true }));
  if (marker.Item?.version === DEMO_WORLD_VERSION) return false;
  options.onLoad?.();
  await loadDirectory(ctx, demoDirectoryDocument());
  if (options.facts !== false) {
    const work = mkdtempSync(path.join(tmpdir(), 'demo-exports-'));
    try {
      const summary = await ingestFiles(dynamoIngestStores(ctx), await demoExportFiles(work), {
        rates: dynamoRateRepository(ctx),
        resources: dynamoResourceSink(ctx),
      });
      // The demo must be whole: a rejected file is a bug in the generator or the reader, not a user's mistake.
      if (summary.rejected.length > 0 || summary.failed.length > 0) {
        const problems = [...summary.rejected, ...summary.failed].map((r) => r.message);
        throw new Error(`demo exports not loaded: ${problems.join('; ')}`);
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  await ctx.db.send(
    new PutCommand({
      TableName: ctx.tableName,
      Item: { ...MARKER, entity: 'DemoWorldMarker', version: DEMO_WORLD_VERSION, loadedAt: new Date().toISOString() },
      ConditionExpression: 'attribute_not_exists(pk) OR version <> :v',
      ExpressionAttributeValues: { ':v': DEMO_WORLD_VERSION },
    }),
  );
  return true;
}
