/**
 * groups / groupItems end to end: the lifecycle and every rule's error answer through real HTTP (the local
 * server: authorizer + handlers + DynamoDB Local), content-owner flows, paging with tamper-proof tokens, and the
 * same lifecycle once more through the handlers directly with the sample events in events/youtube-analytics/.
 */
import path from 'node:path';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import * as keys from '../../functions/core/db/keys';
import { dynamoDirectoryRepository } from '../../functions/core/directory/directory-repository';
import { groupItemId, newGroupId } from '../../functions/core/groups/group';
import { dynamoGroupRepository } from '../../functions/core/groups/group-repository';
import type { GroupDeps } from '../../functions/core/groups/group-service';
import { hmacPageTokens } from '../../functions/core/groups/page-token';
import { DEFAULT_SCOPE_BASE } from '../../functions/core/scopes';
import { loadEvent, type TemplateContext } from '../../infra/local/event-template';
import { createIssuerKey, DEFAULT_AUDIENCE } from '../../infra/local/local-issuer';
import {
  ACTORS,
  expectGoogleError,
  type GroupItemWire,
  type GroupsClient,
  type GroupWire,
  groupsClient,
  RFC3339_MS_UTC,
  redacted,
  storedItems,
  testTable,
} from '../support/groups';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { useOwnTable } from '../support/own-table';

// Its own table: storedItems Scans it, and the shared one fills with the report tests' facts (a Scan once timed out).
useOwnTable('groups-lifecycle');

let api: LocalApi;
let alice: GroupsClient;
const table = testTable();

beforeAll(async () => {
  api = await startLocalApi();
  alice = groupsClient(api, await api.token('alice', ['video-platform']));
});

afterAll(async () => {
  await api.close();
  table.db.destroy();
});

/** The group as groups.list?id= shows it (undefined when absent). */
const fetchGroup = (client: GroupsClient, id: string) => client.getGroup(id);

describe('lifecycle over HTTP (alice, channel owner)', () => {
  it('a list etag stays while its content does and changes with a rename, an item in or out', async () => {
    const g = await alice.createGroup('Etag watch');
    const listEtag = async () => ((await alice.listGroups({ id: g.id })).body as { etag: string }).etag;
    const itemsEtag = async () => ((await alice.listItems(g.id)).body as { etag: string }).etag;
    const [list0, items0] = [await listEtag(), await itemsEtag()];
    expect(await listEtag()).toBe(list0);
    expect(await itemsEtag()).toBe(items0);

    expect((await alice.updateGroup({ id: g.id, snippet: { title: 'Etag watch 2' } })).status).toBe(200);
    const list1 = await listEtag();
    expect(list1).not.toBe(list0);

    const added = await alice.insertItem(g.id, 'youtube#video', 'alice-v0001');
    expect(added.status).toBe(200);
    const [list2, items1] = [await listEtag(), await itemsEtag()];
    expect(list2).not.toBe(list1);
    expect(items1).not.toBe(items0);

    expect((await alice.deleteItem((added.body as GroupItemWire).id)).status).toBe(204);
    expect(await listEtag()).not.toBe(list2);
    expect(await itemsEtag()).not.toBe(items1);
  });

  it('insert → list mine → get → update → items insert / re-insert / list / delete → group delete', async () => {
    const before = Date.now();
    const ins = await alice.insertGroup({ snippet: { title: '  Lifecycle  ' } });
    const after = Date.now();
    expect(ins.status).toBe(200);
    const g = ins.body as GroupWire;
    expect(Object.keys(g).sort()).toEqual(['contentDetails', 'etag', 'id', 'kind', 'snippet']);
    expect(g.kind).toBe('youtube#group');
    expect(g.etag).toMatch(/^"[^"]+"$/);
    expect(g.id).toMatch(/^[A-Za-z0-9]{20,}$/);
    expect(g.snippet.title).toBe('Lifecycle');
    expect(g.snippet.publishedAt).toMatch(RFC3339_MS_UTC);
    expect(Date.parse(g.snippet.publishedAt)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(g.snippet.publishedAt)).toBeLessThanOrEqual(after);
    expect(g.contentDetails).toEqual({ itemCount: '0' });

    // list mine: the new group, exactly as inserted
    const mine = await alice.listAllMine();
    expect(mine.find((x) => x.id === g.id)).toEqual(g);

    // get by id: a list response with that one group
    const byId = await alice.listGroups({ id: g.id });
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual({ kind: 'youtube#groupListResponse', etag: expect.any(String), items: [g] });

    // update: only the title changes; output-only fields in the body are ignored
    const upd = await alice.updateGroup({
      kind: 'youtube#group',
      id: g.id,
      snippet: { title: ' Renamed ', publishedAt: '2000-01-01T00:00:00.000Z' },
      contentDetails: { itemCount: '99', itemType: 'youtube#channel' },
    });
    expect(upd.status, JSON.stringify(upd.body)).toBe(200);
    const renamed = upd.body as GroupWire;
    expect(renamed).toEqual({
      kind: 'youtube#group',
      etag: expect.stringMatching(/^"[^"]+"$/),
      id: g.id,
      snippet: { publishedAt: g.snippet.publishedAt, title: 'Renamed' },
      contentDetails: { itemCount: '0' },
    });
    expect(renamed.etag).not.toBe(g.etag);
    expect(await fetchGroup(alice, g.id)).toEqual(renamed);

    // a stale etag: 412 conditionNotMet, nothing changes
    const stale = await alice.updateGroup({ id: g.id, etag: g.etag, snippet: { title: 'Lost update' } });
    expectGoogleError(stale, 412, 'FAILED_PRECONDITION', 'conditionNotMet');
    expect(await fetchGroup(alice, g.id)).toEqual(renamed);

    // the current etag: applies
    const fresh = await alice.updateGroup({ id: g.id, etag: renamed.etag, snippet: { title: 'Renamed twice' } });
    expect(fresh.status).toBe(200);
    expect(fresh.body.snippet).toEqual({ publishedAt: g.snippet.publishedAt, title: 'Renamed twice' });

    // items insert
    const ii = await alice.insertItem(g.id, 'youtube#video', 'alice-v0001');
    expect(ii.status, JSON.stringify(ii.body)).toBe(200);
    const item = ii.body as GroupItemWire;
    expect(item).toEqual({
      kind: 'youtube#groupItem',
      etag: expect.stringMatching(/^"[^"]+"$/),
      id: expect.any(String),
      groupId: g.id,
      resource: { kind: 'youtube#video', id: 'alice-v0001' },
    });
    expect(item.id).not.toBe('alice-v0001');
    const withOne = await fetchGroup(alice, g.id);
    expect(withOne?.contentDetails).toEqual({ itemCount: '1', itemType: 'youtube#video' });
    expect(withOne?.etag).not.toBe(fresh.body.etag);

    // idempotent re-insert: the same membership, no count change
    const again = await alice.insertItem(g.id, 'youtube#video', 'alice-v0001');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(item);
    expect((await fetchGroup(alice, g.id))?.contentDetails.itemCount).toBe('1');

    // items list
    const list = await alice.listItems(g.id);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ kind: 'youtube#groupItemListResponse', etag: expect.any(String), items: [item] });
    expect(list.body.nextPageToken).toBeUndefined();

    // item delete: 204, count 0, and the undeclared group is kind-free again
    const del = await alice.deleteItem(item.id);
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect((await fetchGroup(alice, g.id))?.contentDetails).toEqual({ itemCount: '0' });
    expect((await alice.listItems(g.id)).body.items).toEqual([]);
    expectGoogleError(await alice.deleteItem(item.id), 404, 'NOT_FOUND', 'groupItemNotFound');

    // kind-free: now a playlist is accepted
    const pl = await alice.insertItem(g.id, 'youtube#playlist', 'alice-p01');
    expect(pl.status, JSON.stringify(pl.body)).toBe(200);
    expect((await fetchGroup(alice, g.id))?.contentDetails).toEqual({ itemCount: '1', itemType: 'youtube#playlist' });

    // group delete: 204, gone from every read, items gone from the table
    const gd = await alice.deleteGroup(g.id);
    expect(gd.status).toBe(204);
    expect(gd.body).toBeUndefined();
    expect((await alice.listAllMine()).map((x) => x.id)).not.toContain(g.id);
    expect(await fetchGroup(alice, g.id)).toBeUndefined();
    expectGoogleError(await alice.listItems(g.id), 404, 'NOT_FOUND', 'groupNotFound');
    expectGoogleError(await alice.deleteGroup(g.id), 404, 'NOT_FOUND', 'groupNotFound');
    const stored = await storedItems(table, ACTORS.alice, g.id);
    expect(stored.viaQuery).toEqual([]);
    expect(stored.viaScan).toEqual([]);
  });

  it('a group with a declared itemType shows it while empty and keeps it when its last item goes', async () => {
    const g = await alice.createGroup('Declared videos', 'youtube#video');
    expect(g.contentDetails).toEqual({ itemCount: '0', itemType: 'youtube#video' });

    expectGoogleError(
      await alice.insertItem(g.id, 'youtube#playlist', 'alice-p01'),
      400,
      'FAILED_PRECONDITION',
      'itemTypeMismatch',
    );
    const item = (await alice.insertItem(g.id, 'youtube#video', 'alice-v0002')).body as GroupItemWire;
    expect((await fetchGroup(alice, g.id))?.contentDetails).toEqual({ itemCount: '1', itemType: 'youtube#video' });

    expect((await alice.deleteItem(item.id)).status).toBe(204);
    expect((await fetchGroup(alice, g.id))?.contentDetails).toEqual({ itemCount: '0', itemType: 'youtube#video' });
    expectGoogleError(
      await alice.insertItem(g.id, 'youtube#playlist', 'alice-p01'),
      400,
      'FAILED_PRECONDITION',
      'itemTypeMismatch',
    );
    expect((await alice.deleteGroup(g.id)).status).toBe(204);
  });

  it('an undeclared group with items refuses another kind (itemTypeMismatch), count unchanged', async () => {
    const g = await alice.createGroup('Playlists first');
    expect((await alice.insertItem(g.id, 'youtube#playlist', 'alice-p02')).status).toBe(200);
    const res = await alice.insertItem(g.id, 'youtube#video', 'alice-v0003');
    expectGoogleError(res, 400, 'FAILED_PRECONDITION', 'itemTypeMismatch');
    expect((await fetchGroup(alice, g.id))?.contentDetails).toEqual({ itemCount: '1', itemType: 'youtube#playlist' });
    expect((await alice.deleteGroup(g.id)).status).toBe(204);
  });

  it('itemCount equals the stored items after a mix of inserts, re-inserts and deletes', async () => {
    const g = await alice.createGroup('Counting');
    const ids: string[] = [];
    for (const v of ['alice-v0010', 'alice-v0011', 'alice-v0012', 'alice-v0010', 'alice-v0013', 'alice-v0011']) {
      const res = await alice.insertItem(g.id, 'youtube#video', v);
      expect(res.status).toBe(200);
      ids.push(res.body.id);
    }
    expect(new Set(ids).size).toBe(4);
    expect((await alice.deleteItem(groupItemId(g.id, 'youtube#video', 'alice-v0012'))).status).toBe(204);
    const group = await fetchGroup(alice, g.id);
    const stored = await storedItems(table, ACTORS.alice, g.id);
    expect(group?.contentDetails.itemCount).toBe('3');
    expect(stored.viaQuery).toHaveLength(3);
    expect((await alice.listItems(g.id)).body.items.map((i: GroupItemWire) => i.resource.id).sort()).toEqual([
      'alice-v0010',
      'alice-v0011',
      'alice-v0013',
    ]);
    expect((await alice.deleteGroup(g.id)).status).toBe(204);
  });
});

describe('error answers over HTTP', () => {
  let g: GroupWire;
  beforeAll(async () => {
    g = await alice.createGroup('Errors');
  });
  afterAll(async () => {
    await alice.deleteGroup(g.id);
  });

  describe('groups.insert', () => {
    it.each([
      ['no snippet', {}, 'required'],
      ['empty title', { snippet: { title: '' } }, 'required'],
      ['whitespace-only title', { snippet: { title: '   \t ' } }, 'required'],
      ['non-string title', { snippet: { title: 12 } }, 'invalidValue'],
      ['201 characters', { snippet: { title: 'x'.repeat(201) } }, 'invalidValue'],
      ['201 emoji', { snippet: { title: '\u{1F600}'.repeat(201) } }, 'invalidValue'],
      [
        'unknown itemType',
        { snippet: { title: 't' }, contentDetails: { itemType: 'youtube#comment' } },
        'invalidValue',
      ],
      ['an array body', [{ snippet: { title: 't' } }], 'parseError'],
    ])('%s → 400 %s', async (_name, body, reason) => {
      expectGoogleError(await alice.insertGroup(body), 400, 'INVALID_ARGUMENT', reason);
    });

    it('malformed JSON → 400 parseError; empty body → 400 required', async () => {
      expectGoogleError(await alice.insertGroup('{"snippet": {"title": '), 400, 'INVALID_ARGUMENT', 'parseError');
      expectGoogleError(await alice.insertGroup(''), 400, 'INVALID_ARGUMENT', 'required');
    });

    it('200 emoji (400 UTF-16 units) is a valid title and is stored exactly', async () => {
      const title = '\u{1F600}'.repeat(200);
      const created = await alice.createGroup(title);
      expect(created.snippet.title).toBe(title);
      expect((await fetchGroup(alice, created.id))?.snippet.title).toBe(title);
      expect((await alice.deleteGroup(created.id)).status).toBe(204);
    });

    it('a declared kind the owner may not group → 400 itemTypeNotAllowed', async () => {
      for (const itemType of ['youtube#channel', 'youtubePartner#asset'])
        expectGoogleError(
          await alice.insertGroup({ snippet: { title: 't' }, contentDetails: { itemType } }),
          400,
          'INVALID_ARGUMENT',
          'itemTypeNotAllowed',
        );
    });

    it('an empty onBehalfOfContentOwner → 400 invalidValue', async () => {
      const res = await api.call('/v2/groups?onBehalfOfContentOwner=', {
        token: await api.token('alice', ['video-platform']),
        method: 'POST',
        body: JSON.stringify({ snippet: { title: 't' } }),
      });
      expectGoogleError(res, 400, 'INVALID_ARGUMENT', 'invalidValue');
    });
  });

  describe('groups.update', () => {
    it('missing id → 400 required; missing title → 400 required; malformed → 400 parseError', async () => {
      expectGoogleError(await alice.updateGroup({ snippet: { title: 'x' } }), 400, 'INVALID_ARGUMENT', 'required');
      expectGoogleError(await alice.updateGroup({ id: g.id }), 400, 'INVALID_ARGUMENT', 'required');
      expectGoogleError(await alice.updateGroup('{'), 400, 'INVALID_ARGUMENT', 'parseError');
    });

    it('unknown id → 404 groupNotFound (with or without etag)', async () => {
      const id = newGroupId();
      expectGoogleError(await alice.updateGroup({ id, snippet: { title: 'x' } }), 404, 'NOT_FOUND', 'groupNotFound');
      expectGoogleError(
        await alice.updateGroup({ id, etag: g.etag, snippet: { title: 'x' } }),
        404,
        'NOT_FOUND',
        'groupNotFound',
      );
    });
  });

  describe('groups.list', () => {
    it.each([
      ['neither id nor mine', '', 'required'],
      ['mine=false only', '?mine=false', 'required'],
      ['both id and mine=true', '?mine=true&id=x', 'invalidParameter'],
      ['mine=yes', '?mine=yes', 'invalidValue'],
      ['an empty id entry', '?id=a,,b', 'invalidValue'],
      ['pageToken with id', '?id=a&pageToken=abc', 'invalidValue'],
      ['51 ids', `?id=${Array.from({ length: 51 }, (_, i) => `g${i}`).join(',')}`, 'invalidValue'],
      ['a parameter given twice', '?mine=true&mine=true', 'invalidParameter'],
    ])('%s → 400 %s', async (_name, query, reason) => {
      const res = await api.call(`/v2/groups${query}`, { token: await api.token('alice', ['video-platform']) });
      expectGoogleError(res, 400, 'INVALID_ARGUMENT', reason);
    });

    it('50 ids are accepted; ids that are missing are simply absent', async () => {
      const ids = [g.id, ...Array.from({ length: 49 }, () => newGroupId())];
      const res = await alice.listGroups({ id: ids.join(',') });
      expect(res.status).toBe(200);
      expect(res.body.items.map((x: GroupWire) => x.id)).toEqual([g.id]);
      const none = await alice.listGroups({ id: newGroupId() });
      expect(none.body).toEqual({ kind: 'youtube#groupListResponse', etag: expect.any(String), items: [] });
    });

    it('a garbage pageToken → 400 invalidPageToken', async () => {
      expectGoogleError(
        await alice.listGroups({ mine: 'true', pageToken: 'garbage' }),
        400,
        'INVALID_ARGUMENT',
        'invalidPageToken',
      );
    });
  });

  describe('groups.delete, groupItems.list, groupItems.delete', () => {
    it('missing parameters → 400 required', async () => {
      const token = await api.token('alice', ['video-platform']);
      for (const [method, p] of [
        ['DELETE', '/v2/groups'],
        ['GET', '/v2/groupItems'],
        ['DELETE', '/v2/groupItems'],
        ['DELETE', '/v2/groups?id='],
        ['GET', '/v2/groupItems?groupId=%20'],
      ] as const) {
        expectGoogleError(await api.call(p, { token, method }), 400, 'INVALID_ARGUMENT', 'required');
      }
    });

    it('unknown group → 404 groupNotFound; unknown or malformed item id → 404 groupItemNotFound', async () => {
      expectGoogleError(await alice.deleteGroup(newGroupId()), 404, 'NOT_FOUND', 'groupNotFound');
      expectGoogleError(await alice.listItems(newGroupId()), 404, 'NOT_FOUND', 'groupNotFound');
      expectGoogleError(await alice.deleteItem('not-an-item-id!'), 404, 'NOT_FOUND', 'groupItemNotFound');
      expectGoogleError(
        await alice.deleteItem(groupItemId(g.id, 'youtube#video', 'alice-v0599')),
        404,
        'NOT_FOUND',
        'groupItemNotFound',
      );
      expectGoogleError(
        await alice.deleteItem(groupItemId(newGroupId(), 'youtube#video', 'alice-v0001')),
        404,
        'NOT_FOUND',
        'groupItemNotFound',
      );
    });

    it('a body on a DELETE → 400', async () => {
      const res = await api.call(`/v2/groups?id=${g.id}`, {
        token: await api.token('alice', ['video-platform']),
        method: 'DELETE',
        body: '{"x":1}',
      });
      expect(res.status).toBe(400);
      expect(await fetchGroup(alice, g.id)).toBeDefined();
    });
  });

  describe('groupItems.insert', () => {
    it('unknown group → 404 groupNotFound', async () => {
      expectGoogleError(
        await alice.insertItem(newGroupId(), 'youtube#video', 'alice-v0001'),
        404,
        'NOT_FOUND',
        'groupNotFound',
      );
    });

    it('bad bodies → 400 required / invalidValue / parseError', async () => {
      const post = (body: string) => alice.insertGroupItemRaw(body);
      expectGoogleError(
        await post(JSON.stringify({ resource: { kind: 'youtube#video', id: 'v' } })),
        400,
        'INVALID_ARGUMENT',
        'required',
      );
      expectGoogleError(await post(JSON.stringify({ groupId: g.id })), 400, 'INVALID_ARGUMENT', 'required');
      expectGoogleError(
        await post(JSON.stringify({ groupId: g.id, resource: { kind: 'youtube#comment', id: 'v' } })),
        400,
        'INVALID_ARGUMENT',
        'invalidValue',
      );
      expectGoogleError(await post('{"groupId":'), 400, 'INVALID_ARGUMENT', 'parseError');
    });

    it('a kind a channel owner may not group → 400 INVALID_ARGUMENT itemTypeNotAllowed', async () => {
      expectGoogleError(
        await alice.insertItem(g.id, 'youtube#channel', 'UCdemo-alice'),
        400,
        'INVALID_ARGUMENT',
        'itemTypeNotAllowed',
      );
      expectGoogleError(
        await alice.insertItem(g.id, 'youtubePartner#asset', 'co-a0001'),
        400,
        'INVALID_ARGUMENT',
        'itemTypeNotAllowed',
      );
      expect((await fetchGroup(alice, g.id))?.contentDetails).toEqual({ itemCount: '0' });
    });

    it('another owner’s video and a video that does not exist get the SAME 404 resourceNotFound', async () => {
      const foreign = await alice.insertItem(g.id, 'youtube#video', 'carol-v0001');
      const missing = await alice.insertItem(g.id, 'youtube#video', 'no-such-video');
      expectGoogleError(foreign, 404, 'NOT_FOUND', 'resourceNotFound');
      expect(redacted(foreign, 'carol-v0001')).toEqual(redacted(missing, 'no-such-video'));
      // nothing was written, and the undeclared group did not take a kind
      expect((await fetchGroup(alice, g.id))?.contentDetails).toEqual({ itemCount: '0' });
    });
  });

  describe('ids the table cannot hold as keys (over 1 KB)', () => {
    const long = `g${'x'.repeat(1100)}`;
    const okAnswer = (res: { status: number; body: any }) => {
      const reason = res.body?.error?.errors?.[0]?.reason;
      expect(
        [
          [400, 'invalidValue'],
          [404, 'groupNotFound'],
        ],
        JSON.stringify(res.body).slice(0, 300),
      ).toContainEqual([res.status, reason]);
    };
    it.each([
      ['groups.list', (c: GroupsClient) => c.listGroups({ id: long })],
      ['groups.update', (c: GroupsClient) => c.updateGroup({ id: long, snippet: { title: 'x' } })],
      ['groups.delete', (c: GroupsClient) => c.deleteGroup(long)],
      ['groupItems.list', (c: GroupsClient) => c.listItems(long)],
      ['groupItems.insert', (c: GroupsClient) => c.insertItem(long, 'youtube#video', 'alice-v0001')],
    ])('%s answers 400 invalidValue or 404 groupNotFound, never 500', async (_name, call) => {
      const res = await call(alice);
      if (res.status === 200) expect(res.body.items).toEqual([]);
      else okAnswer(res);
    });
  });
});

describe('content owners (onBehalfOfContentOwner)', () => {
  let bob: GroupsClient;
  beforeAll(async () => {
    bob = groupsClient(api, await api.token('bob', ['video-platform-partner']), 'demo-co');
  });

  it.each([
    ['youtubePartner#asset', 'co-a0001'],
    ['youtube#channel', 'UCdemo-carol'],
    ['youtube#video', 'carol-v0001'],
    ['youtube#playlist', 'carol-p01'],
  ])('bob for demo-co groups %s %s', async (kind, id) => {
    const g = await bob.createGroup(`demo-co ${kind}`);
    const res = await bob.insertItem(g.id, kind, id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ kind: 'youtube#groupItem', groupId: g.id, resource: { kind, id } });
    const listed = await bob.getGroup(g.id);
    expect(listed?.contentDetails).toEqual({ itemCount: '1', itemType: kind });
    expect((await bob.listItems(g.id)).body.items).toEqual([res.body]);
    // the group lives with demo-co: bob as himself, and carol (whose channel is linked), do not see it
    const bobHimself = groupsClient(api, await api.token('bob', ['video-platform-partner']));
    expect(await bobHimself.getGroup(g.id)).toBeUndefined();
    expect(await groupsClient(api, await api.token('carol', ['video-platform'])).getGroup(g.id)).toBeUndefined();
    expect((await bob.listAllMine()).map((x) => x.id)).toContain(g.id);
    expect((await bob.deleteGroup(g.id)).status).toBe(204);
  });

  it('a declared youtube#channel group is allowed for a content owner', async () => {
    const g = await bob.createGroup('demo-co channels', 'youtube#channel');
    expect(g.contentDetails).toEqual({ itemCount: '0', itemType: 'youtube#channel' });
    expect((await bob.deleteGroup(g.id)).status).toBe(204);
  });

  it('demo-co cannot group a resource of an unlinked channel: 404 resourceNotFound', async () => {
    const g = await bob.createGroup('demo-co videos');
    const res = await bob.insertItem(g.id, 'youtube#video', 'alice-v0001');
    const missing = await bob.insertItem(g.id, 'youtube#video', 'no-such-video');
    expectGoogleError(res, 404, 'NOT_FOUND', 'resourceNotFound');
    expect(redacted(res, 'alice-v0001')).toEqual(redacted(missing, 'no-such-video'));
    expectGoogleError(
      await bob.insertItem(g.id, 'youtube#channel', 'UCdemo-alice'),
      404,
      'NOT_FOUND',
      'resourceNotFound',
    );
    expect((await bob.deleteGroup(g.id)).status).toBe(204);
  });

  it('bob without the video-platform-partner scope → 403 insufficientPermissions on every operation', async () => {
    const weak = groupsClient(api, await api.token('bob', ['video-platform']), 'demo-co');
    const id = newGroupId();
    for (const res of [
      await weak.insertGroup({ snippet: { title: 't' } }),
      await weak.listGroups({ mine: 'true' }),
      await weak.updateGroup({ id, snippet: { title: 't' } }),
      await weak.deleteGroup(id),
      await weak.insertItem(id, 'youtubePartner#asset', 'co-a0001'),
      await weak.listItems(id),
      await weak.deleteItem(groupItemId(id, 'youtubePartner#asset', 'co-a0001')),
    ])
      expectGoogleError(res, 403, 'PERMISSION_DENIED', 'insufficientPermissions');
  });

  it('mallory on behalf of demo-co → 403 forbidden on every operation', async () => {
    const mallory = groupsClient(api, await api.token('mallory', ['video-platform-partner']), 'demo-co');
    const id = newGroupId();
    for (const res of [
      await mallory.insertGroup({ snippet: { title: 't' } }),
      await mallory.listGroups({ mine: 'true' }),
      await mallory.updateGroup({ id, snippet: { title: 't' } }),
      await mallory.deleteGroup(id),
      await mallory.insertItem(id, 'youtubePartner#asset', 'co-a0001'),
      await mallory.listItems(id),
      await mallory.deleteItem(groupItemId(id, 'youtubePartner#asset', 'co-a0001')),
    ])
      expectGoogleError(res, 403, 'PERMISSION_DENIED', 'forbidden');
  });

  it('a channel owner naming a content owner it does not manage → 403 forbidden', async () => {
    const carolAsCo = groupsClient(api, await api.token('carol', ['video-platform-partner']), 'demo-co');
    expectGoogleError(await carolAsCo.listGroups({ mine: 'true' }), 403, 'PERMISSION_DENIED', 'forbidden');
  });
});

describe('paging groups.list mine=true', () => {
  it('60 groups of dave: pages of 25/25/10 in id (creation) order, then tampered and foreign tokens → 400', async () => {
    const dave = groupsClient(api, await api.token('dave', ['video-platform']));
    expect(await dave.listAllMine(), 'dave must start without groups (no other test creates them)').toEqual([]);
    const created: string[] = [];
    for (let i = 0; i < 60; i++) created.push((await dave.createGroup(`dave ${i}`)).id);

    const pages: GroupWire[][] = [];
    const tokens: string[] = [];
    let pageToken: string | undefined;
    do {
      const res = await dave.listGroups({ mine: 'true', pageToken });
      expect(res.status).toBe(200);
      expect(res.body.kind).toBe('youtube#groupListResponse');
      expect(res.body.etag).toEqual(expect.any(String));
      pages.push(res.body.items);
      pageToken = res.body.nextPageToken;
      if (pageToken) tokens.push(pageToken);
    } while (pageToken && pages.length < 10);

    expect(pages.map((p) => p.length)).toEqual([25, 25, 10]);
    expect(tokens).toHaveLength(2);
    const ids = pages.flat().map((g) => g.id);
    for (let i = 1; i < ids.length; i++) expect(String(ids[i]) > String(ids[i - 1])).toBe(true);
    expect(ids).toEqual(created);

    // tampered tokens
    const token = tokens[0] as string;
    const [payload = '', mac = ''] = token.split('.');
    const flip = (s: string, i: number) => `${s.slice(0, i)}${s[i] === 'A' ? 'B' : 'A'}${s.slice(i + 1)}`;
    const forgedPayload = Buffer.from(JSON.stringify({ v: 1, a: ACTORS.dave, k: created[49] })).toString('base64url');
    for (const bad of [flip(token, 3), `${payload}.${flip(mac, 7)}`, `${forgedPayload}.${mac}`, token.slice(0, -2)]) {
      expectGoogleError(
        await dave.listGroups({ mine: 'true', pageToken: bad }),
        400,
        'INVALID_ARGUMENT',
        'invalidPageToken',
      );
    }

    // dave's token for another owner: never dave's groups
    const carol = groupsClient(api, await api.token('carol', ['video-platform']));
    const res = await carol.listGroups({ mine: 'true', pageToken: token });
    expectGoogleError(res, 400, 'INVALID_ARGUMENT', 'invalidPageToken');
    expect(JSON.stringify(res.body)).not.toContain(created[30] as string);

    // exactly two full pages: no third, empty page
    for (const id of created.slice(50)) expect((await dave.deleteGroup(id)).status).toBe(204);
    const p1 = await dave.listGroups({ mine: 'true' });
    const p2 = await dave.listGroups({ mine: 'true', pageToken: p1.body.nextPageToken });
    expect([p1.body.items.length, p2.body.items.length]).toEqual([25, 25]);
    expect(p2.body.nextPageToken).toBeUndefined();

    for (const id of created.slice(0, 50)) expect((await dave.deleteGroup(id)).status).toBe(204);
    expect(await dave.listGroups({ mine: 'true' })).toMatchObject({ status: 200, body: { items: [] } });
  });

  it('alice’s page token used by carol (or by demo-co) → 400 invalidPageToken', async () => {
    const extra: string[] = [];
    // alice needs a second page; other test files may have groups of hers at any moment, so top up to 26.
    const have = (await alice.listAllMine()).length;
    for (let i = have; i < 26; i++) extra.push((await alice.createGroup(`paging filler ${i}`)).id);
    try {
      const first = await alice.listGroups({ mine: 'true' });
      const token = first.body.nextPageToken as string;
      expect(token).toEqual(expect.any(String));
      expect((await alice.listGroups({ mine: 'true', pageToken: token })).status).toBe(200);

      const carol = groupsClient(api, await api.token('carol', ['video-platform']));
      expectGoogleError(
        await carol.listGroups({ mine: 'true', pageToken: token }),
        400,
        'INVALID_ARGUMENT',
        'invalidPageToken',
      );
      const bob = groupsClient(api, await api.token('bob', ['video-platform-partner']), 'demo-co');
      expectGoogleError(
        await bob.listGroups({ mine: 'true', pageToken: token }),
        400,
        'INVALID_ARGUMENT',
        'invalidPageToken',
      );
    } finally {
      for (const id of extra) await alice.deleteGroup(id);
    }
  });
});

describe('lifecycle through the handlers directly (sample events)', () => {
  const EVENTS = path.resolve(import.meta.dirname, '..', '..', 'events', 'youtube-analytics');
  let ctx: TemplateContext;
  let deps: GroupDeps;
  const handlerTable = testTable();
  const db = createDocumentClient(process.env.DYNAMODB_ENDPOINT);

  // The handler modules wire their exported handlers to TABLE_NAME when they load: imported after useOwnTable set it.
  let handlers: Awaited<ReturnType<typeof loadHandlers>>;
  const loadHandlers = async () => ({
    groupsInsert: await import('../../functions/youtube-analytics/groups-insert'),
    groupsList: await import('../../functions/youtube-analytics/groups-list'),
    groupsUpdate: await import('../../functions/youtube-analytics/groups-update'),
    groupsDelete: await import('../../functions/youtube-analytics/groups-delete'),
    groupItemsInsert: await import('../../functions/youtube-analytics/group-items-insert'),
    groupItemsList: await import('../../functions/youtube-analytics/group-items-list'),
    groupItemsDelete: await import('../../functions/youtube-analytics/group-items-delete'),
  });

  beforeAll(async () => {
    handlers = await loadHandlers();
    ctx = { issuerKey: await createIssuerKey(), audience: DEFAULT_AUDIENCE, scopeBase: DEFAULT_SCOPE_BASE };
    const t = { db, tableName: handlerTable.tableName };
    deps = {
      groups: dynamoGroupRepository(t),
      directory: dynamoDirectoryRepository(t),
      pageTokens: hmacPageTokens('x'),
      now: () => new Date(),
      newId: newGroupId,
    };
  });
  afterAll(() => {
    db.destroy();
    handlerTable.db.destroy();
  });

  /** Loads events/youtube-analytics/<name>.json and fills the id placeholders. */
  async function event(name: string, ids: Record<string, string> = {}): Promise<APIGatewayProxyEvent> {
    let text = JSON.stringify(await loadEvent<APIGatewayProxyEvent>(path.join(EVENTS, `${name}.json`), ctx));
    // Longest placeholders first: GROUP_ID_1 contains GROUP_ID.
    for (const key of Object.keys(ids).sort((a, b) => b.length - a.length)) text = text.split(key).join(ids[key]);
    expect(text).not.toMatch(/GROUP_(ITEM_)?ID/);
    return JSON.parse(text) as APIGatewayProxyEvent;
  }
  const body = (res: APIGatewayProxyResult) => (res.body ? JSON.parse(res.body) : undefined);
  const expectError = (res: APIGatewayProxyResult, code: number, status: string, reason: string) => {
    expect(res.statusCode, res.body).toBe(code);
    expect(body(res).error).toMatchObject({ code, status });
    expect(body(res).error.errors[0].reason).toBe(reason);
  };

  it('runs every sample event against DynamoDB Local', async () => {
    const { groupsInsert, groupsList, groupsUpdate, groupsDelete, groupItemsInsert, groupItemsList, groupItemsDelete } =
      handlers;
    const insert = groupsInsert.makeHandler(deps);
    const list = groupsList.makeHandler(deps);
    const update = groupsUpdate.makeHandler(deps);
    const del = groupsDelete.makeHandler(deps);
    const itemsInsert = groupItemsInsert.makeHandler(deps);
    const itemsList = groupItemsList.makeHandler(deps);
    const itemsDelete = groupItemsDelete.makeHandler(deps);

    const created = await insert(await event('groups-insert'));
    expect(created.statusCode, created.body).toBe(200);
    const g = body(created) as GroupWire;
    expect(g).toMatchObject({
      kind: 'youtube#group',
      snippet: { title: 'Best of 2026' },
      contentDetails: { itemCount: '0', itemType: 'youtube#video' },
    });
    const GROUP_ID = g.id;

    const mine = await list(await event('groups-list'));
    expect(mine.statusCode).toBe(200);
    expect(body(mine).kind).toBe('youtube#groupListResponse');
    const byId = await list(await event('groups-list.by-id', { GROUP_ID_1: GROUP_ID, GROUP_ID_2: newGroupId() }));
    expect(body(byId).items).toEqual([g]);
    expectError(await list(await event('groups-list.no-selector')), 400, 'INVALID_ARGUMENT', 'required');
    const co = await list(await event('groups-list.content-owner'));
    expect(co.statusCode, co.body).toBe(200);
    expect(body(co).items.map((x: GroupWire) => x.id)).not.toContain(GROUP_ID);

    const renamed = await update(await event('groups-update', { GROUP_ID }));
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(body(renamed)).toMatchObject({
      id: GROUP_ID,
      snippet: { title: 'Renamed group', publishedAt: g.snippet.publishedAt },
    });
    expectError(
      await update(await event('groups-update.stale-etag', { GROUP_ID })),
      412,
      'FAILED_PRECONDITION',
      'conditionNotMet',
    );

    const item = await itemsInsert(await event('group-items-insert', { GROUP_ID }));
    expect(item.statusCode, item.body).toBe(200);
    expect(body(item)).toMatchObject({ groupId: GROUP_ID, resource: { kind: 'youtube#video', id: 'alice-v0001' } });
    expectError(
      await itemsInsert(await event('group-items-insert.kind-not-allowed', { GROUP_ID })),
      400,
      'INVALID_ARGUMENT',
      'itemTypeNotAllowed',
    );
    expectError(
      await itemsInsert(await event('group-items-insert.foreign-video', { GROUP_ID })),
      404,
      'NOT_FOUND',
      'resourceNotFound',
    );

    const items = await itemsList(await event('group-items-list', { GROUP_ID }));
    expect(body(items)).toEqual({
      kind: 'youtube#groupItemListResponse',
      etag: expect.any(String),
      items: [body(item)],
    });
    expectError(await itemsList(await event('group-items-list.missing-group-id')), 400, 'INVALID_ARGUMENT', 'required');

    const removed = await itemsDelete(await event('group-items-delete', { GROUP_ITEM_ID: body(item).id }));
    expect(removed.statusCode).toBe(204);
    expect(removed.body).toBe('');
    expect(body(await itemsList(await event('group-items-list', { GROUP_ID }))).items).toEqual([]);

    expectError(await insert(await event('groups-insert.malformed-body')), 400, 'INVALID_ARGUMENT', 'parseError');
    expectError(await insert(await event('groups-insert.missing-title')), 400, 'INVALID_ARGUMENT', 'required');
    expectError(
      await insert(await event('groups-insert.foreign-content-owner')),
      403,
      'PERMISSION_DENIED',
      'forbidden',
    );

    expect((await del(await event('groups-delete', { GROUP_ID }))).statusCode).toBe(204);
    expectError(await del(await event('groups-delete.missing-id')), 400, 'INVALID_ARGUMENT', 'required');
    expectError(await del(await event('groups-delete', { GROUP_ID })), 404, 'NOT_FOUND', 'groupNotFound');
    const gone = await list(await event('groups-list.by-id', { GROUP_ID_1: GROUP_ID, GROUP_ID_2: newGroupId() }));
    expect(body(gone).items).toEqual([]);
  });

  it('the exported handlers are the same handlers, wired to the environment table', async () => {
    const res = await handlers.groupsList.handler(await event('groups-list.no-selector'));
    expectError(res, 400, 'INVALID_ARGUMENT', 'required');
  });
});

describe('direct-table cleanup helper sanity', () => {
  it('BatchWrite deletes on the owner partition are visible to storedItems', async () => {
    const g = await alice.createGroup('Helper sanity');
    expect((await alice.insertItem(g.id, 'youtube#video', 'alice-v0004')).status).toBe(200);
    const before = await storedItems(table, ACTORS.alice, g.id);
    expect(before.viaQuery).toHaveLength(1);
    expect(before.viaScan.length).toBeGreaterThanOrEqual(2); // the item and the group itself
    await table.db.send(
      new BatchWriteCommand({
        RequestItems: {
          [table.tableName]: [{ DeleteRequest: { Key: keys.groupItem(ACTORS.alice, g.id, 'VIDEO', 'alice-v0004') } }],
        },
      }),
    );
    expect((await storedItems(table, ACTORS.alice, g.id)).viaQuery).toEqual([]);
    expect((await alice.deleteGroup(g.id)).status).toBe(204);
  });
});
