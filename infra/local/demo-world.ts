/**
 * The demo world a newcomer gets from `npm start` (documented in the README). Loaded idempotently: a marker item
 * records the loaded version, and a reload rewrites the same entries.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type DirectoryWorld, loadDirectory } from '../../functions/core/directory/directory-loader';
import type { TableContext } from '../../functions/core/directory/directory-repository';
import { dynamoFactRepository } from '../../functions/core/reports/fact-repository';
import { type IngestFile, ingestFiles } from '../../functions/core/reports/ingest/ingest-service';
import { type GeneratorOptions, generateDays } from './export-generator';

const range = (prefix: string, from: number, to: number, width: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${String(from + i).padStart(width, '0')}`);

export const demoWorld: DirectoryWorld = {
  users: [
    { sub: 'alice', channels: ['UCdemo-alice'], reads: ['accounts/100'] },
    { sub: 'bob', contentOwners: ['demo-co'], reads: ['properties/2000'] },
    { sub: 'carol', channels: ['UCdemo-carol'] },
    { sub: 'dave', channels: ['UCdemo-dave'] },
    { sub: 'mallory' },
  ],
  channels: [
    {
      id: 'UCdemo-alice',
      title: 'Alice Cooks',
      videos: range('alice-v', 1, 600, 4),
      playlists: range('alice-p', 1, 10, 2),
    },
    {
      id: 'UCdemo-carol',
      title: 'Carol Codes',
      videos: range('carol-v', 1, 100, 4),
      playlists: range('carol-p', 1, 5, 2),
    },
    { id: 'UCdemo-dave', title: 'Dave Drives', videos: range('dave-v', 1, 100, 3), playlists: [] },
  ],
  contentOwners: [
    {
      id: 'demo-co',
      displayName: 'Demo Content Owner',
      linkedChannels: [{ channelId: 'UCdemo-carol', linkedSince: '2026-01-01' }],
      assets: range('co-a', 1, 50, 4),
    },
  ],
  accounts: [
    { id: '100', displayName: 'Alice Enterprises' },
    { id: '200', displayName: 'Bob Media Group' },
  ],
  properties: [
    {
      name: 'properties/1000',
      propertyType: 'PROPERTY_TYPE_ORDINARY',
      createTime: '2024-03-01T10:00:00.000Z',
      updateTime: '2026-06-15T08:30:00.000Z',
      parent: 'accounts/100',
      displayName: 'Alice Cooks - Web',
      industryCategory: 'FOOD_AND_DRINK',
      timeZone: 'America/Los_Angeles',
      currencyCode: 'USD',
      serviceLevel: 'GOOGLE_ANALYTICS_STANDARD',
      account: 'accounts/100',
    },
    {
      name: 'properties/1001',
      propertyType: 'PROPERTY_TYPE_SUBPROPERTY',
      createTime: '2025-01-10T12:00:00.000Z',
      updateTime: '2026-10-01T09:00:00.000Z',
      parent: 'properties/1000',
      displayName: 'Alice Cooks - EU (subproperty, in trash)',
      industryCategory: 'FOOD_AND_DRINK',
      timeZone: 'Europe/Berlin',
      currencyCode: 'EUR',
      serviceLevel: 'GOOGLE_ANALYTICS_STANDARD',
      deleteTime: '2026-11-01T09:00:00.000Z',
      expireTime: '2026-12-06T09:00:00.000Z',
      account: 'accounts/100',
    },
    {
      name: 'properties/2000',
      propertyType: 'PROPERTY_TYPE_ORDINARY',
      createTime: '2023-05-20T00:00:00.000Z',
      updateTime: '2026-02-02T02:02:02.000Z',
      parent: 'accounts/200',
      displayName: 'Bob Media - Apps',
      industryCategory: 'ARTS_AND_ENTERTAINMENT',
      timeZone: 'Asia/Tokyo',
      currencyCode: 'JPY',
      serviceLevel: 'GOOGLE_ANALYTICS_360',
      account: 'accounts/200',
    },
  ],
};

/** The generated exports a newcomer sees at once: alice and carol, July to October 2026 (dave gets none). */
export const DEMO_EXPORTS: readonly GeneratorOptions[] = [
  { channel: 'UCdemo-alice', videos: 600, videoPrefix: 'alice-v', videoWidth: 4 },
  { channel: 'UCdemo-carol', videos: 100, videoPrefix: 'carol-v', videoWidth: 4 },
].map((c) => ({ ...c, days: 123, start: '2026-07-01', seed: 42, version: 'a3' as const, gzip: false }));

/** The demo exports as in-memory daily files, ready for the ingest service. */
export function demoExportFiles(): IngestFile[] {
  const files: IngestFile[] = [];
  for (const o of DEMO_EXPORTS) {
    for (const day of generateDays(o)) {
      const text = [day.header, ...day.rows].map((r) => r.join(',')).join('\n');
      files.push({ name: `demo/${o.channel}/channel_basic_a3/${day.date}.csv`, read: async () => Buffer.from(text) });
    }
  }
  return files;
}

/** Bump when the demo world changes, so existing local tables pick up the new version. */
export const DEMO_WORLD_VERSION = 4;
const MARKER = { pk: 'DEMO#WORLD', sk: 'VERSION' };

/** Loads the demo world unless this version is already there. Returns whether it loaded anything. */
export async function ensureDemoWorld(
  ctx: TableContext,
  options: { facts?: boolean; onLoad?: () => void } = {},
): Promise<boolean> {
  const marker = await ctx.db.send(new GetCommand({ TableName: ctx.tableName, Key: MARKER, ConsistentRead: true }));
  if (marker.Item?.version === DEMO_WORLD_VERSION) return false;
  options.onLoad?.();
  await loadDirectory(ctx, demoWorld);
  if (options.facts !== false) await ingestFiles(dynamoFactRepository(ctx), demoExportFiles());
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
