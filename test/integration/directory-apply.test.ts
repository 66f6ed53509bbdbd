/**
 * The directory file's service and store against DynamoDB Local: plan / apply / export round trips, --prune taking a
 * user's access away in one transaction, the lease between two applies, writes that never clobber another kind of
 * item, and a changed link moving the owners of every resource of the channel. Each test that prunes works on a
 * table of its own (a prune removes everything its file does not name).
 */
import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import * as keys from '../../functions/core/db/keys';
import type { DirectoryFileInput } from '../../functions/core/directory/directory-file';
import { dynamoDirectoryRepository, type TableContext } from '../../functions/core/directory/directory-repository';
import {
  applyDirectory,
  DirectoryBusyError,
  DirectoryConflictError,
  exportDirectory,
  planDirectory,
} from '../../functions/core/directory/directory-service';
import { dynamoDirectoryStore } from '../../functions/core/directory/directory-store';
import { changeLine } from '../../functions/core/directory/directory-target';
import { dynamoResourceSink } from '../../functions/core/directory/resource-sink';
import { dynamoGroupRepository } from '../../functions/core/groups/group-repository';
import { ensureTable } from '../../infra/local/dynamo-local';

const endpoint = () => process.env.DYNAMODB_ENDPOINT as string;
const sent: unknown[] = [];
let db: DynamoDBDocumentClient;

beforeAll(() => {
  db = createDocumentClient(endpoint());
  const send = db.send.bind(db) as (command: unknown) => Promise<unknown>;
  // Recorded only, to see which commands an apply sends (no fault is injected).
  (db as { send: unknown }).send = (command: unknown) => {
    sent.push(command);
    return send(command);
  };
});
afterAll(() => db.destroy());

/** A table of its own for one test, empty. */
async function freshTable(): Promise<TableContext> {
  const tableName = `${process.env.TABLE_NAME}-dir-${randomBytes(4).toString('hex')}`;
  await ensureTable(endpoint(), tableName);
  return { db, tableName };
}

const team = (extra: Partial<DirectoryFileInput> = {}): DirectoryFileInput => ({
  users: [
    { sub: 'erin', channels: ['UCerin'], reads: ['accounts/7'] },
    { sub: 'frank', contentOwners: ['frank-co'] },
    ...(extra.users ?? []),
  ],
  channels: [{ id: 'UCerin', title: 'Erin Edits', videos: ['erin-v1'] }, ...(extra.channels ?? [])],
  contentOwners: [{ id: 'frank-co', displayName: 'Frank Media', assets: ['fa1'] }, ...(extra.contentOwners ?? [])],
  accounts: [{ id: '7', displayName: 'Erin Inc' }, ...(extra.accounts ?? [])],
  properties: extra.properties ?? [],
});

const apply = (table: TableContext, doc: unknown, prune = false) =>
  applyDirectory(dynamoDirectoryStore(table), doc, { holder: `test ${randomBytes(2).toString('hex')}`, prune });

const get = async (table: TableContext, key: { pk: string; sk: string }) =>
  (await db.send(new GetCommand({ TableName: table.tableName, Key: key, ConsistentRead: true }))).Item;

describe('plan, apply, export', () => {
  it('plans the additions, applies them, then plans "No changes"; export reads back the file', async () => {
    const table = await freshTable();
    const store = dynamoDirectoryStore(table);
    const plan = await planDirectory(store, team());
    expect(plan.ok && plan.changes.map(changeLine)).toEqual([
      '+ user erin: channels UCerin; reads accounts/7',
      '+ user frank: contentOwners frank-co',
      '+ channel UCerin: "Erin Edits"; videos erin-v1',
      '+ content owner frank-co: "Frank Media"; assets fa1',
      '+ account 7: "Erin Inc"',
    ]);
    const applied = await apply(table, team());
    expect(applied.ok && applied.writes).toBeGreaterThan(0);
    const again = await planDirectory(store, team());
    expect(again.ok && again.changes).toEqual([]);
    expect(await exportDirectory(store)).toEqual({
      users: [
        { sub: 'erin', channels: ['UCerin'], contentOwners: [], reads: ['accounts/7'] },
        { sub: 'frank', channels: [], contentOwners: ['frank-co'], reads: [] },
      ],
      channels: [{ id: 'UCerin', title: 'Erin Edits', videos: ['erin-v1'], playlists: [] }],
      contentOwners: [
        { id: 'frank-co', displayName: 'Frank Media', linkedChannels: [], assets: ['fa1'], claimedVideos: [] },
      ],
      accounts: [{ id: '7', displayName: 'Erin Inc' }],
      properties: [],
    });
    // The access the file describes is the access the API sees.
    const profile = await dynamoDirectoryRepository(table).profile('erin');
    expect(profile.channels).toEqual(['UCerin']);
    expect([...profile.reads]).toEqual(['accounts/7']);
    expect((await dynamoDirectoryRepository(table).contentOwnerAccess('frank-co', 'frank')).manages).toBe(true);
    // A reapply writes nothing.
    const reapplied = await apply(table, team());
    expect(reapplied.ok && reapplied.writes).toBe(0);
  });

  it('a change is one line per entity, with what joins and leaves', async () => {
    const table = await freshTable();
    await apply(table, team());
    const changed = {
      ...team(),
      users: [{ sub: 'erin', channels: ['UCerin'] }],
      channels: [{ id: 'UCerin', title: 'Erin Edits 2', videos: ['erin-v1'] }],
    };
    const plan = await planDirectory(dynamoDirectoryStore(table), changed);
    expect(plan.ok && plan.changes.map(changeLine)).toEqual([
      '~ user erin: reads -1 (accounts/7)',
      '~ channel UCerin: title "Erin Edits" → "Erin Edits 2"',
    ]);
  });

  it('an invalid file writes nothing, and every issue names its place', async () => {
    const table = await freshTable();
    const bad = team({ users: [{ sub: 'gina', channels: ['UCnowhere'], contentOwners: ['nobody'] }] });
    const result = await apply(table, bad);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.issues).toEqual([
      {
        path: ['users', 2, 'channels', 0],
        message: 'channel UCnowhere is defined neither in the file nor in the table',
      },
      {
        path: ['users', 2, 'contentOwners', 0],
        message: 'content owner nobody is defined neither in the file nor in the table',
      },
    ]);
    expect(await exportDirectory(dynamoDirectoryStore(table))).toMatchObject({ users: [], channels: [] });
    expect(await get(table, keys.userOwnsChannel('erin', 'UCerin'))).toBeUndefined();
  });

  it('a file may refer to what the table holds: a second file adds a user of an existing channel', async () => {
    const table = await freshTable();
    await apply(table, team());
    const result = await apply(table, { users: [{ sub: 'hana', channels: ['UCerin'] }] });
    expect(result.ok && result.changes.map(changeLine)).toEqual(['+ user hana: channels UCerin']);
    expect((await dynamoDirectoryRepository(table).profile('hana')).channels).toEqual(['UCerin']);
    // Without --prune the others stay, and plan says how many the file does not name.
    const plan = await planDirectory(dynamoDirectoryStore(table), { users: [{ sub: 'hana', channels: ['UCerin'] }] });
    expect(plan.ok && plan.unnamed).toBe(5);
  });
});

describe('apply --prune', () => {
  it('a user absent from the file loses every grant in one transaction; their groups stay but serve nobody', async () => {
    const table = await freshTable();
    const withIvy = team({
      users: [{ sub: 'ivy', channels: ['UCerin'], contentOwners: ['frank-co'], reads: ['accounts/7'] }],
    });
    await apply(table, withIvy);
    const repo = dynamoDirectoryRepository(table);
    expect((await repo.contentOwnerAccess('frank-co', 'ivy')).manages).toBe(true);
    const groups = dynamoGroupRepository(table);
    await groups.create({
      id: 'g-ivy',
      actor: 'channel:UCerin',
      title: 'kept',
      itemCount: 0,
      status: 'active',
      etag: 'e',
      publishedAt: new Date().toISOString(),
    });

    sent.length = 0;
    const result = await apply(table, team(), true);
    expect(result.ok && result.changes.map(changeLine)).toEqual([
      '- user ivy: channels UCerin; contentOwners frank-co; reads accounts/7',
    ]);
    // All of ivy's grant items, both sides, and her record: in ONE TransactWriteItems (plus the lease check).
    const transactions = sent.filter((c): c is TransactWriteCommand => c instanceof TransactWriteCommand);
    const ivy = transactions.filter((t) => JSON.stringify(t.input).includes('ivy'));
    expect(ivy).toHaveLength(1);
    const deleted = (ivy[0]?.input.TransactItems ?? []).flatMap((i) =>
      i.Delete ? [`${i.Delete.Key?.pk} ${i.Delete.Key?.sk}`] : [],
    );
    expect(deleted.sort()).toEqual(
      [
        'CONTENT_OWNER#frank-co MANAGER#ivy',
        'DIRECTORY USER#ivy',
        'USER#ivy MANAGES#CONTENT_OWNER#frank-co',
        'USER#ivy OWNS#CHANNEL#UCerin',
        'USER#ivy READS#accounts/7',
      ].sort(),
    );
    const profile = await repo.profile('ivy');
    expect([profile.channels, profile.contentOwners, [...profile.reads]]).toEqual([[], [], []]);
    expect((await repo.contentOwnerAccess('frank-co', 'ivy')).manages).toBe(false);
    expect(await groups.get('channel:UCerin', 'g-ivy')).toMatchObject({ title: 'kept' });
    expect((await repo.profile('erin')).channels).toEqual(['UCerin']); // erin is in the file: untouched
  });

  it('a channel absent from the file goes with the resources only it listed; those ingest recorded stay', async () => {
    const table = await freshTable();
    await apply(
      table,
      team({
        channels: [{ id: 'UCjay', title: 'Jay', videos: ['jay-listed'] }],
        users: [{ sub: 'jay', channels: ['UCjay'] }],
      }),
    );
    await dynamoResourceSink(table).record([
      {
        owner: { type: 'channel', id: 'UCjay' },
        videos: new Map([['jay-seen', 'UCjay']]),
        playlists: new Map(),
        claimed: new Set(),
      },
    ]);
    const result = await apply(table, team(), true);
    expect(result.ok && result.changes.map(changeLine)).toEqual([
      '- user jay: channels UCjay',
      '- channel UCjay: "Jay"; videos jay-listed',
    ]);
    expect(await get(table, keys.directoryEntry('CHANNEL', 'UCjay'))).toBeUndefined();
    expect(await get(table, keys.directoryEntry('VIDEO', 'jay-listed'))).toBeUndefined();
    expect(await get(table, keys.directoryEntry('VIDEO', 'jay-seen'))).toMatchObject({
      seenBy: new Set(['channel:UCjay']),
    });
    // Ingest's resources are data, not the operator's file: export leaves them out.
    expect((await exportDirectory(dynamoDirectoryStore(table))).channels.map((c) => c.videos)).toEqual([['erin-v1']]);
  });
});

describe('two operators at once', () => {
  it('an apply waits for the lease; with no wait it says who holds it, and nothing is written', async () => {
    const table = await freshTable();
    const store = dynamoDirectoryStore(table);
    const held = await store.lease('operator-a@laptop');
    await expect(apply(table, team())).rejects.toThrow(DirectoryBusyError);
    await expect(apply(table, team())).rejects.toThrow(/operator-a@laptop/);
    expect((await exportDirectory(store)).users).toEqual([]);
    // Waiting: the second apply goes through once the first lets go.
    const waiting = applyDirectory(store, team(), { holder: 'operator-b', waitMs: 10_000 });
    await new Promise((r) => setTimeout(r, 300));
    await held.release();
    expect((await waiting).ok).toBe(true);
    expect((await exportDirectory(store)).users.map((u) => u.sub)).toEqual(['erin', 'frank']);
  });

  it('two applies started together end in the state of one file, never a mix', async () => {
    const table = await freshTable();
    const a = team({ users: [{ sub: 'only-in-a', channels: ['UCerin'] }] });
    const b = team({ users: [{ sub: 'only-in-b', channels: ['UCerin'] }] });
    const store = dynamoDirectoryStore(table);
    const [ra, rb] = await Promise.all([
      applyDirectory(store, a, { holder: 'a', prune: true, waitMs: 30_000 }),
      applyDirectory(store, b, { holder: 'b', prune: true, waitMs: 30_000 }),
    ]);
    expect(ra.ok && rb.ok).toBe(true);
    const users = (await exportDirectory(store)).users.map((u) => u.sub);
    expect([JSON.stringify(users)]).toContainEqual(expect.stringMatching(/^\["erin","frank","only-in-[ab]"\]$/));
    const other = users.includes('only-in-a') ? 'only-in-b' : 'only-in-a';
    expect((await dynamoDirectoryRepository(table).profile(other)).channels).toEqual([]);
  });

  it('a record changed since the apply read it (a lease run out) stops the apply with a conflict', async () => {
    const table = await freshTable();
    await apply(table, team());
    const store = dynamoDirectoryStore(table);
    const lease = await store.lease('stale');
    const current = await store.read();
    // Another writer changes erin's record behind this apply's back.
    await db.send(
      new PutCommand({
        TableName: table.tableName,
        Item: {
          ...keys.directoryRecord('USER', 'erin'),
          entity: 'DirectoryRecord',
          kind: 'user',
          doc: '{"sub":"erin"}',
        },
      }),
    );
    const target = { ...current, users: current.users.filter((u) => u.sub !== 'erin') };
    await expect(store.write(lease, current, target)).rejects.toThrow(DirectoryConflictError);
    await lease.release();
    expect(await get(table, keys.userOwnsChannel('erin', 'UCerin'))).toBeDefined();
  });

  it('never overwrites another kind of item: the apply stops and says which', async () => {
    const table = await freshTable();
    await db.send(
      new PutCommand({ TableName: table.tableName, Item: { ...keys.account('7'), entity: 'SomethingElse' } }),
    );
    await expect(apply(table, team())).rejects.toThrow(/ACCOUNT#7 \/ ACCOUNT is not a directory item/);
    expect(await get(table, keys.account('7'))).toEqual({ ...keys.account('7'), entity: 'SomethingElse' });
  });
});

describe('links and the owners of resources', () => {
  it('linking a channel lets the content owner group its resources, those ingest recorded too; unlinking takes it back', async () => {
    const table = await freshTable();
    await apply(table, team());
    await dynamoResourceSink(table).record([
      {
        owner: { type: 'channel', id: 'UCerin' },
        videos: new Map([['erin-seen', 'UCerin']]),
        playlists: new Map([['erin-pl', 'UCerin']]),
        claimed: new Set(),
      },
    ]);
    const groups = dynamoGroupRepository(table);
    const group = { itemCount: 0, status: 'active' as const, etag: 'e', publishedAt: new Date().toISOString() };
    await groups.create({ id: 'g-co', actor: 'contentOwner:frank-co', title: 'co', ...group });
    await expect(groups.insertItem('contentOwner:frank-co', 'g-co', 'youtube#video', 'erin-seen')).rejects.toThrow();

    const linked = team();
    (linked.contentOwners as object[])[0] = {
      id: 'frank-co',
      displayName: 'Frank Media',
      assets: ['fa1'],
      linkedChannels: [{ channelId: 'UCerin', linkedSince: '2026-01-01' }],
    };
    const result = await apply(table, linked);
    expect(result.ok && result.changes.map(changeLine)).toEqual([
      '~ content owner frank-co: linkedChannels +1 (UCerin since 2026-01-01)',
    ]);
    for (const [kind, id] of [
      ['VIDEO', 'erin-seen'],
      ['VIDEO', 'erin-v1'],
      ['PLAYLIST', 'erin-pl'],
    ] as const) {
      expect((await get(table, keys.directoryEntry(kind, id)))?.owners).toEqual(
        new Set(['channel:UCerin', 'contentOwner:frank-co']),
      );
    }
    expect((await groups.insertItem('contentOwner:frank-co', 'g-co', 'youtube#video', 'erin-seen')).created).toBe(true);
    await groups.create({ id: 'g-co-channels', actor: 'contentOwner:frank-co', title: 'channels', ...group });
    expect(
      (await groups.insertItem('contentOwner:frank-co', 'g-co-channels', 'youtube#channel', 'UCerin')).created,
    ).toBe(true);
    expect(await get(table, keys.directoryLinksRevision)).toMatchObject({ rev: 1 });

    await apply(table, team());
    expect((await get(table, keys.directoryEntry('VIDEO', 'erin-seen')))?.owners).toEqual(new Set(['channel:UCerin']));
    expect((await get(table, keys.directoryEntry('CHANNEL', 'UCerin')))?.owners).toBeUndefined();
    expect(await get(table, keys.directoryLinksRevision)).toMatchObject({ rev: 2 });
  });
});
