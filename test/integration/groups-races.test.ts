/**
 * Races against DynamoDB Local, each run for several rounds with a fresh group: the 500-item limit under 100
 * parallel inserts, the one-kind rule under mixed parallel inserts, delete racing inserts (no orphan survives),
 * and an interrupted delete finished by a retry. (Local serialises transactions, so these exercise the
 * conditions; conflict/throttle retries are covered with mocks in test/unit/groups-faults.test.ts.)
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as keys from '../../functions/core/db/keys';
import type { GroupRepository } from '../../functions/core/groups/group-repository';
import {
  ACTORS,
  expectGoogleError,
  type GroupItemWire,
  type GroupsClient,
  groupsClient,
  inBatches,
  range,
  storedItems,
  testRepository,
  testTable,
  type WireResponse,
} from '../support/groups';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { useOwnTable } from '../support/own-table';

useOwnTable('groups-races');

const ROUNDS = [1, 2, 3];

let api: LocalApi;
let alice: GroupsClient;
let repo: GroupRepository;
const table = testTable();

beforeAll(async () => {
  api = await startLocalApi();
  alice = groupsClient(api, await api.token('alice', ['video-platform']));
  repo = testRepository(table);
});

afterAll(async () => {
  await api.close();
  table.db.destroy();
});

/** Adds alice's videos through the repository (the same conditional transaction as the API), in parallel batches. */
const fill = (groupId: string, videoIds: string[]) =>
  inBatches(videoIds, 50, (v) => repo.insertItem(ACTORS.alice, groupId, 'youtube#video', v));

describe('(a) the 500-item limit under 100 parallel inserts', () => {
  it.each(ROUNDS)('round %i: 490 + 100 parallel → exactly 10 accepted, 90 itemLimitReached, 500 stored', async () => {
    const g = await alice.createGroup('Nearly full');
    await fill(g.id, range('alice-v', 1, 490, 4));
    expect((await alice.getGroup(g.id))?.contentDetails.itemCount).toBe('490');

    const contenders = range('alice-v', 491, 590, 4);
    const results = await Promise.all(contenders.map((v) => alice.insertItem(g.id, 'youtube#video', v)));

    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(90);
    for (const r of refused) expectGoogleError(r, 400, 'FAILED_PRECONDITION', 'itemLimitReached');
    expect((await alice.getGroup(g.id))?.contentDetails).toEqual({ itemCount: '500', itemType: 'youtube#video' });

    const listed = await alice.listItems(g.id);
    expect(listed.status).toBe(200);
    expect(listed.body.items).toHaveLength(500);
    const accepted = new Set(ok.map((r) => (r.body as GroupItemWire).resource.id));
    const listedIds = new Set((listed.body.items as GroupItemWire[]).map((i) => i.resource.id));
    for (const v of accepted) expect(listedIds.has(v)).toBe(true);
    expect((await storedItems(table, ACTORS.alice, g.id)).viaQuery).toHaveLength(500);

    // Full, but re-inserting a member still answers with the existing membership; a newcomer is refused.
    const member = await alice.insertItem(g.id, 'youtube#video', 'alice-v0001');
    expect(member.status).toBe(200);
    expect(member.body.resource.id).toBe('alice-v0001');
    expectGoogleError(
      await alice.insertItem(g.id, 'youtube#video', 'alice-v0600'),
      400,
      'FAILED_PRECONDITION',
      'itemLimitReached',
    );
    // One removed → room for exactly one.
    expect((await alice.deleteItem(member.body.id)).status).toBe(204);
    expect((await alice.insertItem(g.id, 'youtube#video', 'alice-v0600')).status).toBe(200);
    expect((await alice.getGroup(g.id))?.contentDetails.itemCount).toBe('500');

    expect((await alice.deleteGroup(g.id)).status).toBe(204);
  });
});

describe('(b) one kind per group under 40 parallel mixed inserts', () => {
  it.each(ROUNDS)('round %i: one kind wins, losers get itemTypeMismatch, itemCount = accepted', async (round) => {
    const g = await alice.createGroup('Kind race');
    const videos = range('alice-v', 100 + round * 20, 100 + round * 20 + 29, 4); // 30 videos
    const playlists = range('alice-p', 1, 10, 2); // 10 playlists
    // 10 playlists at every 4th position (round 2 puts one first on the wire), 30 videos elsewhere.
    const offset = (round + 2) % 4;
    const requests: [string, string][] = Array.from({ length: 40 }, (_, i) =>
      i % 4 === offset
        ? ['youtube#playlist', playlists[Math.floor(i / 4)] as string]
        : ['youtube#video', videos.pop() as string],
    );
    expect(requests).toHaveLength(40);
    const results = await Promise.all(requests.map(([kind, id]) => alice.insertItem(g.id, kind, id)));

    const ok = results.filter((r) => r.status === 200);
    const kinds = new Set(ok.map((r) => (r.body as GroupItemWire).resource.kind));
    expect(kinds.size).toBe(1);
    const winner = [...kinds][0] as string;
    for (const r of results.filter((x) => x.status !== 200)) {
      expectGoogleError(r, 400, 'FAILED_PRECONDITION', 'itemTypeMismatch');
    }
    const losers = requests.filter(([kind]) => kind !== winner).length;
    expect(ok).toHaveLength(40 - losers);
    const after = await alice.getGroup(g.id);
    expect(after?.contentDetails).toEqual({ itemCount: String(ok.length), itemType: winner });
    expect((await alice.listItems(g.id)).body.items).toHaveLength(ok.length);
    expect((await storedItems(table, ACTORS.alice, g.id)).viaQuery).toHaveLength(ok.length);

    expect((await alice.deleteGroup(g.id)).status).toBe(204);
  });
});

describe('(c) delete racing 50 parallel inserts', () => {
  it.each(ROUNDS)('round %i: no item survives the group, every insert is 200 or 404 groupNotFound', async (round) => {
    const g = await alice.createGroup('Doomed');
    await fill(g.id, range('alice-v', 401, 420, 4));

    const videos = range('alice-v', 421 + (round - 1) * 50, 470 + (round - 1) * 50, 4);
    // Round 1: the DELETE goes out first. Round 2: right behind the inserts. Round 3: once 10 inserts have landed
    // (so some items surely committed before the fence and must be drained).
    const insert = (v: string) => alice.insertItem(g.id, 'youtube#video', v);
    let landed = 0;
    let release: () => void = () => {};
    const tenLanded = new Promise<void>((resolve) => {
      release = resolve;
    });
    const track = (p: Promise<WireResponse>) =>
      p.then((r) => {
        if (++landed === 10) release();
        return r;
      });
    let del: Promise<WireResponse> | undefined;
    if (round === 1) del = alice.deleteGroup(g.id);
    const inserts = videos.map((v) => track(insert(v)));
    if (round === 2) del = new Promise((r) => setTimeout(r, 2)).then(() => alice.deleteGroup(g.id));
    if (round === 3) del = tenLanded.then(() => alice.deleteGroup(g.id));
    const [deleted, ...results] = await Promise.all([del as Promise<WireResponse>, ...inserts]);
    if (round === 3) expect(results.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(10);

    expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
    for (const r of results) {
      if (r.status === 200) continue;
      expectGoogleError(r, 404, 'NOT_FOUND', 'groupNotFound');
    }
    const stored = await storedItems(table, ACTORS.alice, g.id);
    expect(stored.viaQuery).toEqual([]);
    expect(stored.viaScan).toEqual([]);
    expect(await alice.getGroup(g.id)).toBeUndefined();
    expectGoogleError(await alice.listItems(g.id), 404, 'NOT_FOUND', 'groupNotFound');
    // and nothing can be added afterwards
    expectGoogleError(await alice.insertItem(g.id, 'youtube#video', 'alice-v0001'), 404, 'NOT_FOUND', 'groupNotFound');
    expect((await storedItems(table, ACTORS.alice, g.id)).viaScan).toEqual([]);
  });

  it('two DELETEs of the same group in parallel: 204 and (204 or 404), nothing left', async () => {
    const g = await alice.createGroup('Deleted twice');
    await fill(g.id, range('alice-v', 1, 60, 4));
    const [a, b] = await Promise.all([alice.deleteGroup(g.id), alice.deleteGroup(g.id)]);
    const statuses = [a.status, b.status].sort();
    expect(statuses[0]).toBe(204);
    expect([204, 404]).toContain(statuses[1]);
    const stored = await storedItems(table, ACTORS.alice, g.id);
    expect(stored.viaQuery).toEqual([]);
    expect(stored.viaScan).toEqual([]);
  });
});

describe('(d) an interrupted delete is finished by a retry', () => {
  const interruptions: [name: string, interrupt: (groupId: string, items: string[]) => Promise<void>][] = [
    [
      'fenced, 30 of 120 items removed',
      async (groupId, items) => {
        await repo.beginDelete(ACTORS.alice, groupId);
        const doomed = items.slice(0, 30);
        for (let i = 0; i < doomed.length; i += 25) {
          await table.db.send(
            new BatchWriteCommand({
              RequestItems: {
                [table.tableName]: doomed
                  .slice(i, i + 25)
                  .map((v) => ({ DeleteRequest: { Key: keys.groupItem(ACTORS.alice, groupId, 'VIDEO', v) } })),
              },
            }),
          );
        }
        expect((await storedItems(table, ACTORS.alice, groupId)).viaQuery).toHaveLength(90);
      },
    ],
    [
      'fenced only',
      async (groupId) => {
        await repo.beginDelete(ACTORS.alice, groupId);
      },
    ],
    [
      'fenced and drained, group item not removed',
      async (groupId) => {
        await repo.beginDelete(ACTORS.alice, groupId);
        expect(await repo.drainItems(ACTORS.alice, groupId)).toBe(120);
      },
    ],
  ];

  it.each(interruptions)('%s: the group reads as missing; DELETE → 204, nothing left; again → 404', async (_n, cut) => {
    const g = await alice.createGroup('Interrupted');
    const items = range('alice-v', 201, 320, 4);
    await fill(g.id, items);
    expect((await alice.getGroup(g.id))?.contentDetails.itemCount).toBe('120');

    await cut(g.id, items);

    // While half-deleted, the group is missing to every operation except the retried delete.
    expect(await alice.getGroup(g.id)).toBeUndefined();
    expect((await alice.listAllMine()).map((x) => x.id)).not.toContain(g.id);
    expectGoogleError(await alice.listItems(g.id), 404, 'NOT_FOUND', 'groupNotFound');
    expectGoogleError(await alice.insertItem(g.id, 'youtube#video', 'alice-v0500'), 404, 'NOT_FOUND', 'groupNotFound');
    expectGoogleError(
      await alice.updateGroup({ id: g.id, snippet: { title: 'revived?' } }),
      404,
      'NOT_FOUND',
      'groupNotFound',
    );

    const retry = await alice.deleteGroup(g.id);
    expect(retry.status, JSON.stringify(retry.body)).toBe(204);
    const stored = await storedItems(table, ACTORS.alice, g.id);
    expect(stored.viaQuery).toEqual([]);
    expect(stored.viaScan).toEqual([]);
    expectGoogleError(await alice.deleteGroup(g.id), 404, 'NOT_FOUND', 'groupNotFound');
  });
});
