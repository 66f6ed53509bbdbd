/**
 * Resources recorded by ingest (core/directory/resource-sink.ts) against DynamoDB Local, through the real ingest
 * service and generated export files: a channel's videos and playlists become groupable by the channel (and the
 * content owner it is linked to), a content owner's files make the videos they name its own, with their claims; a
 * video named nowhere stays 404. Writes are batched, conditional and idempotent.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import * as keys from '../../functions/core/db/keys';
import { loadDirectory } from '../../functions/core/directory/directory-loader';
import type { TableContext } from '../../functions/core/directory/directory-repository';
import {
  dynamoResourceSink,
  NAMED_PER_PAGE,
  type ResourceSinkStats,
} from '../../functions/core/directory/resource-sink';
import { dynamoGroupRepository } from '../../functions/core/groups/group-repository';
import { parseCsv } from '../../functions/core/reports/ingest/csv';
import { localFile } from '../../functions/core/reports/ingest/ingest-file';
import { dynamoIngestStores, type IngestFile, ingestFiles } from '../../functions/core/reports/ingest/ingest-service';
import type { GeneratorOptions } from '../../infra/generator/export-generator';
import { writeAllExports } from '../../infra/generator/export-world';
import { useOwnTable } from '../support/own-table';

useOwnTable('resources');

let table: TableContext;
let db: DynamoDBDocumentClient;
let hook: ((command: unknown) => Promise<void>) | undefined;
const work = mkdtempSync(path.join(tmpdir(), 'resources-'));

beforeAll(() => {
  db = createDocumentClient(process.env.DYNAMODB_ENDPOINT);
  const send = db.send.bind(db) as (command: unknown) => Promise<unknown>;
  // A hook runs just before a command: it plays the part of an apply that changes a link at that moment.
  (db as { send: unknown }).send = async (command: unknown) => {
    if (hook) await hook(command);
    return send(command);
  };
  table = { db, tableName: process.env.TABLE_NAME as string };
});
afterAll(() => {
  db.destroy();
  rmSync(work, { recursive: true, force: true });
});

let n = 0;
const fresh = () => `${Date.now().toString(36)}${n++}`;

async function exportsOf(o: Partial<GeneratorOptions> & { channel: string }): Promise<IngestFile[]> {
  const dir = mkdtempSync(path.join(work, 'x-'));
  await writeAllExports(
    {
      videos: 5,
      days: 2,
      start: '2026-05-01',
      seed: 7,
      videoPrefix: `${o.channel}-v`,
      videoWidth: 3,
      version: 'a3',
      gzip: false,
      ...o,
    },
    dir,
  );
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.csv'))
    .sort()
    .map((f) => localFile(path.join(dir, f)));
}

/** The video and playlist ids the files name (which videos have rows on which days depends on the channel id). */
async function namedIn(files: IngestFile[], column: 'video_id' | 'playlist_id'): Promise<string[]> {
  const ids = new Set<string>();
  for (const f of files) {
    const table = parseCsv(f.name, readFileSync(f.name, 'utf8'));
    const at = table.header.indexOf(column);
    // Rows without a video (a channel's own rows) name none.
    if (at >= 0) for (const row of table.rows) if (row.fields[at]) ids.add(row.fields[at] as string);
  }
  return [...ids].sort();
}

async function ingest(files: IngestFile[], indexPageItems?: number): Promise<ResourceSinkStats> {
  let stats: ResourceSinkStats | undefined;
  const summary = await ingestFiles(dynamoIngestStores(table), files, {
    resources: dynamoResourceSink(table, {
      onStats: (s) => (stats = s),
      ...(indexPageItems ? { indexPageItems } : {}),
    }),
  });
  expect(summary.rejected).toEqual([]);
  return stats as ResourceSinkStats;
}

const entry = async (kind: 'VIDEO' | 'PLAYLIST', id: string) =>
  (
    await db.send(
      new GetCommand({ TableName: table.tableName, Key: keys.directoryEntry(kind, id), ConsistentRead: true }),
    )
  ).Item;

const group = { itemCount: 0, status: 'active' as const, etag: 'e', publishedAt: '2026-01-01T00:00:00.000Z' };

describe('a channel’s exports', () => {
  it('make every video and playlist they name the channel’s (and its content owner’s); an unknown video stays 404', async () => {
    const t = fresh();
    const [channel, co] = [`UCres${t}`, `co-${t}`];
    await loadDirectory(table, {
      users: [{ sub: `u-${t}`, channels: [channel] }],
      channels: [{ id: channel, title: 'resources' }],
      contentOwners: [
        { id: co, displayName: 'CO', linkedChannels: [{ channelId: channel, linkedSince: '2026-01-01' }] },
      ],
    });
    const files = await exportsOf({ channel, reports: ['channel_basic', 'playlist'], playlists: 2, days: 7 });
    const [videos, playlistIds] = [await namedIn(files, 'video_id'), await namedIn(files, 'playlist_id')];
    const stats = await ingest(files);
    const named = new Set([...videos, ...playlistIds]).size;
    expect(stats).toMatchObject({ resources: named, written: named, refused: 0, transactions: 1 });

    const video = await entry('VIDEO', videos[0] as string);
    expect(video).toMatchObject({
      channelId: channel,
      owners: new Set([`channel:${channel}`, `contentOwner:${co}`]),
      seenBy: new Set([`channel:${channel}`]),
      gsi1pk: `CHANNEL#${channel}#RESOURCES`,
    });
    expect(video?.listedBy).toBeUndefined();
    const playlists = await entry('PLAYLIST', playlistIds[0] as string);
    expect(playlists?.owners).toEqual(new Set([`channel:${channel}`, `contentOwner:${co}`]));

    const groups = dynamoGroupRepository(table);
    await groups.create({ id: `g-${t}`, actor: `channel:${channel}`, title: 'videos', ...group });
    expect(
      (await groups.insertItem(`channel:${channel}`, `g-${t}`, 'youtube#video', videos[1] as string)).created,
    ).toBe(true);
    await expect(
      groups.insertItem(`channel:${channel}`, `g-${t}`, 'youtube#video', `${channel}-v999`),
    ).rejects.toMatchObject({
      reason: 'resourceNotFound',
    });
    // Another channel cannot group them.
    await groups.create({ id: `g2-${t}`, actor: 'channel:UCsomeoneelse', title: 'x', ...group });
    await expect(
      groups.insertItem('channel:UCsomeoneelse', `g2-${t}`, 'youtube#video', videos[0] as string),
    ).rejects.toMatchObject({
      reason: 'resourceNotFound',
    });
  });

  it('loading the same files again writes nothing (a read of the channel and the entries, no transaction)', async () => {
    const channel = `UCagain${fresh()}`;
    const files = await exportsOf({ channel });
    expect((await ingest(files)).written).toBe((await namedIn(files, 'video_id')).length);
    expect(await ingest(files)).toMatchObject({ written: 0, transactions: 0, batchGets: 2 });
  });

  it('a channel the directory does not know yet: its resources are its own, ready for when it is added', async () => {
    const channel = `UCunknown${fresh()}`;
    const files = await exportsOf({ channel });
    await ingest(files);
    const [video] = await namedIn(files, 'video_id');
    expect((await entry('VIDEO', video as string))?.owners).toEqual(new Set([`channel:${channel}`]));
  });

  it('never overwrites another kind of item at a resource key; the others are written', async () => {
    const channel = `UCclash${fresh()}`;
    const files = await exportsOf({ channel });
    const [taken, ...others] = await namedIn(files, 'video_id');
    const clash = { ...keys.directoryEntry('VIDEO', taken as string), entity: 'Other' };
    await db.send(new PutCommand({ TableName: table.tableName, Item: clash }));
    const stats = await ingest(files);
    expect(stats).toMatchObject({ refused: 1, written: others.length });
    expect(await entry('VIDEO', taken as string)).toEqual(clash);
  });

  it('a link changed while the resources are written: the write fails, the links are read again', async () => {
    const t = fresh();
    const [channel, co] = [`UCrace${t}`, `corace-${t}`];
    await loadDirectory(table, {
      channels: [{ id: channel, title: 'race' }],
      contentOwners: [{ id: co, displayName: 'race' }],
    });
    const files = await exportsOf({ channel });
    const [video] = await namedIn(files, 'video_id');
    let moved = false;
    hook = async (command) => {
      if (moved || !(command instanceof TransactWriteCommand)) return;
      if (!JSON.stringify(command.input).includes(video as string)) return;
      moved = true;
      // What an apply linking the channel does: the channel entry and the links revision in one transaction.
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: table.tableName,
                Item: {
                  ...keys.directoryEntry('CHANNEL', channel),
                  entity: 'DirectoryCHANNEL',
                  id: channel,
                  contentOwnerId: co,
                },
              },
            },
            {
              Update: {
                TableName: table.tableName,
                Key: keys.directoryLinksRevision,
                UpdateExpression: 'ADD rev :one',
                ExpressionAttributeValues: { ':one': 1 },
              },
            },
          ],
        }),
      );
    };
    try {
      const stats = await ingest(files);
      expect(stats.relinks).toBe(1);
    } finally {
      hook = undefined;
    }
    expect((await entry('VIDEO', video as string))?.owners).toEqual(
      new Set([`channel:${channel}`, `contentOwner:${co}`]),
    );
  });

  it('a day naming ~1,000 videos: transactions of 99, the entries read by the channel’s index, no writes the next time', async () => {
    const channel = `UCthousand${fresh()}`;
    const files = await exportsOf({ channel, videos: 1000, videoWidth: 4, days: 1 });
    const named = (await namedIn(files, 'video_id')).length;
    expect(named).toBeGreaterThan(NAMED_PER_PAGE);
    // The channel's entry (its link) by key; the resources' entries by one Query of the index (D3), not 10 BatchGets.
    const first = await ingest(files);
    expect(first).toMatchObject({
      resources: named,
      written: named,
      transactions: Math.ceil(named / 99),
      batchGets: 1,
      indexQueries: 1,
    });
    expect(await ingest(files)).toMatchObject({ written: 0, transactions: 0, batchGets: 1, indexQueries: 1 });
  });

  it('a channel with far more entries than a day names: the index read stops at its budget, the rest by key', async () => {
    const channel = `UCbudget${fresh()}`;
    const all = await exportsOf({ channel, videos: 1000, videoWidth: 4, days: 1 });
    expect((await ingest(all)).written).toBeGreaterThan(NAMED_PER_PAGE * 3);
    const recorded = new Set(await namedIn(all, 'video_id'));
    // A day naming a few hundred of them, with index pages of 100 entries: one page is its budget (a page per 256
    // named); the named ones that page did not hold are read by key, and only videos not recorded yet are written.
    const some = await exportsOf({ channel, videos: 300, videoWidth: 4, days: 1 });
    const someIds = await namedIn(some, 'video_id');
    const unseen = someIds.filter((id) => !recorded.has(id));
    for (const id of someIds) recorded.add(id);
    expect(someIds.length).toBeGreaterThanOrEqual(NAMED_PER_PAGE);
    const stats = await ingest(some, 100);
    expect(stats).toMatchObject({
      resources: someIds.length,
      written: unseen.length,
      indexQueries: Math.floor(someIds.length / NAMED_PER_PAGE),
    });
    expect(stats.batchGets).toBeGreaterThan(1);
    expect(stats.batchGets).toBeLessThanOrEqual(1 + Math.ceil(someIds.length / 100));
    // Read again, all of them are recorded: nothing is written, however the index read was cut short.
    expect(await ingest(some, 100)).toMatchObject({ written: 0, transactions: 0 });
    // Videos the channel's files never named are written when first named.
    const more = await exportsOf({ channel, videos: 1300, videoWidth: 4, days: 1 });
    const newOnes = (await namedIn(more, 'video_id')).filter((id) => !recorded.has(id));
    expect(newOnes.length).toBeGreaterThan(0);
    expect((await ingest(more, 100)).written).toBe(newOnes.length);
    for (const id of newOnes.slice(0, 3))
      expect((await entry('VIDEO', id))?.seenBy).toEqual(new Set([`channel:${channel}`]));
  });
});

describe('a content owner’s exports', () => {
  it('make the videos they name the content owner’s, recording which it claims', async () => {
    const t = fresh();
    const [co, channel] = [`cores${t}`, `UCcores${t}`];
    const files = await exportsOf({
      channel,
      contentOwner: co,
      channels: [{ channel, videos: 6, playlists: 0 }],
      reports: ['content_owner_basic'],
    });
    const stats = await ingest(files);
    expect(stats.resources).toBeGreaterThan(0);
    const [first] = await namedIn(files, 'video_id');
    const video = await entry('VIDEO', first as string);
    expect(video?.owners).toContain(`contentOwner:${co}`);
    expect(video?.owners).toContain(`channel:${video?.channelId}`);
    expect(video?.seenBy).toEqual(new Set([`contentOwner:${co}`]));
    // The generator claims most of a content owner's own uploads: some video carries the claim.
    const claimed = await Promise.all((await namedIn(files, 'video_id')).map((id) => entry('VIDEO', id)));
    expect(claimed.some((v) => v?.claimedBy instanceof Set && v.claimedBy.has(co))).toBe(true);
  });
});
