/**
 * Tenancy: a group is visible only to its owner. For every operation that names a group or an item, another
 * caller gets exactly the answer for a group (or item) that does not exist: same status, same body except the id.
 * And the owner's group is untouched afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupItemId, newGroupId } from '../../functions/core/groups/group';
import {
  ACTORS,
  type GroupItemWire,
  type GroupsClient,
  type GroupWire,
  groupsClient,
  redacted,
  storedItems,
  testTable,
  type WireResponse,
} from '../support/groups';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { useOwnTable } from '../support/own-table';

useOwnTable('groups-tenancy');

let api: LocalApi;
let alice: GroupsClient;
let group: GroupWire;
let item: GroupItemWire;
const table = testTable();

/** What alice sees of her group: the resource and its items. */
async function aliceView() {
  const g = await alice.getGroup(group.id);
  const items = await alice.listItems(group.id);
  return { g, items: items.body };
}
let before: Awaited<ReturnType<typeof aliceView>>;

beforeAll(async () => {
  api = await startLocalApi();
  alice = groupsClient(api, await api.token('alice', ['video-platform']));
  group = await alice.createGroup('Alice private', 'youtube#video');
  const res = await alice.insertItem(group.id, 'youtube#video', 'alice-v0001');
  expect(res.status).toBe(200);
  item = res.body;
  before = await aliceView();
  expect(before.g?.contentDetails).toEqual({ itemCount: '1', itemType: 'youtube#video' });
});

afterAll(async () => {
  await alice.deleteGroup(group.id);
  await api.close();
  table.db.destroy();
});

interface Intruder {
  name: string;
  client: () => Promise<GroupsClient>;
  /** A resource this intruder may itself group (or, owning nothing, alice's video). */
  resource: [kind: string, id: string];
}

const intruders: Intruder[] = [
  {
    name: 'mallory',
    client: async () => groupsClient(api, await api.token('mallory', ['video-platform', 'video-platform-partner'])),
    resource: ['youtube#video', 'alice-v0001'],
  },
  {
    name: 'bob',
    client: async () => groupsClient(api, await api.token('bob', ['video-platform', 'video-platform-partner'])),
    resource: ['youtube#video', 'alice-v0001'],
  },
  {
    name: 'bob for demo-co',
    client: async () => groupsClient(api, await api.token('bob', ['video-platform-partner']), 'demo-co'),
    resource: ['youtube#video', 'carol-v0001'],
  },
  {
    name: 'carol (another channel owner)',
    client: async () => groupsClient(api, await api.token('carol', ['video-platform'])),
    resource: ['youtube#video', 'carol-v0002'],
  },
];

type Op = (c: GroupsClient, target: { groupId: string; itemId: string }, who: Intruder) => Promise<WireResponse>;

const operations: [name: string, op: Op, expectedStatus: number][] = [
  ['groups.list id=', (c, t) => c.listGroups({ id: t.groupId }), 200],
  ['groups.update', (c, t) => c.updateGroup({ id: t.groupId, snippet: { title: 'pwned' } }), 404],
  [
    'groups.update with the current etag',
    (c, t) => c.updateGroup({ id: t.groupId, etag: before.g?.etag, snippet: { title: 'pwned' } }),
    404,
  ],
  ['groups.delete', (c, t) => c.deleteGroup(t.groupId), 404],
  ['groupItems.list', (c, t) => c.listItems(t.groupId), 404],
  ['groupItems.insert', (c, t, who) => c.insertItem(t.groupId, ...who.resource), 404],
  ['groupItems.delete', (c, t) => c.deleteItem(t.itemId), 404],
];

describe.each(intruders)('$name against alice’s group', (who) => {
  it.each(operations)('%s answers exactly as for a missing group', async (_name, op, expectedStatus) => {
    const client = await who.client();
    const foreign = await op(client, { groupId: group.id, itemId: item.id }, who);
    const missingId = newGroupId();
    const missingItem = groupItemId(missingId, 'youtube#video', 'alice-v0001');
    const missing = await op(client, { groupId: missingId, itemId: missingItem }, who);

    expect(foreign.status, JSON.stringify(foreign.body)).toBe(expectedStatus);
    expect(redacted(foreign, item.id, group.id)).toEqual(redacted(missing, missingItem, missingId));
    if (expectedStatus === 200) expect(foreign.body.items).toEqual([]);
    else expect(foreign.body.error.errors[0].reason).toMatch(/^group(Item)?NotFound$/);
    expect(JSON.stringify(foreign.body)).not.toContain('Alice private');
  });

  it('groups.list mine=true never includes alice’s group', async () => {
    const client = await who.client();
    expect((await client.listAllMine()).map((g) => g.id)).not.toContain(group.id);
  });

  it('groups.list by ids mixing its own group and alice’s returns only its own', async () => {
    const client = await who.client();
    const own = await client.createGroup(`${who.name}'s own`);
    try {
      const res = await client.listGroups({ id: `${group.id},${own.id}` });
      expect(res.status).toBe(200);
      expect(res.body.items.map((g: GroupWire) => g.id)).toEqual([own.id]);
    } finally {
      expect((await client.deleteGroup(own.id)).status).toBe(204);
    }
  });
});

describe('afterwards', () => {
  it('alice’s group is unchanged: title, etag, itemCount, itemType and items', async () => {
    const now = await aliceView();
    expect(now).toEqual(before);
    expect(now.g?.snippet.title).toBe('Alice private');
    expect(now.items.items).toEqual([item]);
    const stored = await storedItems(table, ACTORS.alice, group.id);
    expect(stored.viaQuery).toHaveLength(1);
  });

  it('nothing was written in the intruders’ partitions under alice’s group id', async () => {
    for (const actor of [ACTORS.mallory, ACTORS.bob, ACTORS.demoCo, ACTORS.carol]) {
      expect((await storedItems(table, actor, group.id, { scan: false })).viaQuery).toEqual([]);
    }
  });
});
