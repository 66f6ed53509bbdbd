/**
 * Wire compatibility of groups / groupItems: the official @googleapis/youtubeanalytics v2 client, pointed at the
 * local API on loopback, runs the whole lifecycle and surfaces errors as GaxiosError with Google's status.
 */
import { auth, youtubeAnalytics } from '@googleapis/youtubeanalytics';
import { GaxiosError } from 'gaxios';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newGroupId } from '../../functions/core/groups/group';
import { RFC3339_MS_UTC } from '../support/groups';
import { type LocalApi, startLocalApi } from '../support/local-api';

let api: LocalApi;
let yt: ReturnType<typeof youtubeAnalytics>;
let token: string;

beforeAll(async () => {
  api = await startLocalApi();
  token = await api.token('alice', ['video-platform']);
  const oauth = new auth.OAuth2();
  oauth.setCredentials({ access_token: token });
  yt = youtubeAnalytics({ version: 'v2', rootUrl: `${api.baseUrl}/`, auth: oauth });
});
afterAll(() => api.close());

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

describe('@googleapis/youtubeanalytics v2: groups and groupItems against the local API', () => {
  it('talks only to the loopback server', () => {
    expect(new URL(api.baseUrl).hostname).toBe('127.0.0.1');
  });

  it('runs the full lifecycle', async () => {
    const inserted = await yt.groups.insert({ requestBody: { snippet: { title: 'From the Google client' } } });
    expect(inserted.status).toBe(200);
    expect(String(inserted.config.url)).toBe(`${api.baseUrl}/v2/groups`);
    const group = inserted.data;
    expect(group.kind).toBe('youtube#group');
    expect(group.snippet?.title).toBe('From the Google client');
    expect(group.snippet?.publishedAt).toMatch(RFC3339_MS_UTC);
    expect(group.contentDetails).toEqual({ itemCount: '0' });
    const id = group.id as string;

    // groups.list mine=true (walking pages as a client would) shows it exactly as inserted
    const all = [];
    let pageToken: string | undefined;
    do {
      const page = await yt.groups.list({ mine: true, pageToken });
      expect(page.data.kind).toBe('youtube#groupListResponse');
      all.push(...(page.data.items ?? []));
      pageToken = page.data.nextPageToken ?? undefined;
    } while (pageToken);
    expect(all.find((g) => g.id === id)).toEqual(group);

    // the client's data equals the raw HTTP JSON
    const byId = await yt.groups.list({ id });
    const raw = await api.call(`/v2/groups?id=${id}`, { token });
    expect(byId.data).toStrictEqual(raw.body);

    const updated = await yt.groups.update({ requestBody: { id, snippet: { title: 'Renamed by the client' } } });
    expect(updated.data.snippet).toEqual({ title: 'Renamed by the client', publishedAt: group.snippet?.publishedAt });
    expect(updated.data.etag).not.toBe(group.etag);

    const item = await yt.groupItems.insert({
      requestBody: { groupId: id, resource: { kind: 'youtube#video', id: 'alice-v0002' } },
    });
    expect(item.status).toBe(200);
    expect(item.data).toMatchObject({
      kind: 'youtube#groupItem',
      groupId: id,
      resource: { kind: 'youtube#video', id: 'alice-v0002' },
    });

    const items = await yt.groupItems.list({ groupId: id });
    expect(items.data.kind).toBe('youtube#groupItemListResponse');
    expect(items.data.items).toEqual([item.data]);
    expect((await yt.groups.list({ id })).data.items?.[0]?.contentDetails).toEqual({
      itemCount: '1',
      itemType: 'youtube#video',
    });

    const removedItem = await yt.groupItems.delete({ id: item.data.id as string });
    expect(removedItem.status).toBe(204);
    expect((await yt.groupItems.list({ groupId: id })).data.items).toEqual([]);

    const removed = await yt.groups.delete({ id });
    expect(removed.status).toBe(204);
    expect((await yt.groups.list({ id })).data.items).toEqual([]);
  });

  it('an unknown group rejects with GaxiosError 404 groupNotFound (one request, no retry)', async () => {
    const missing = newGroupId();
    const err = await rejection(yt.groups.delete({ id: missing }, { retry: false }));

    expect(err).toBeInstanceOf(GaxiosError);
    const g = err as GaxiosError;
    expect(g.status).toBe(404);
    expect(g.message).toBe(`Group ${missing} was not found.`);
    expect((g.response?.data as any)?.error?.errors?.[0]?.reason).toBe('groupNotFound');
  });

  it('a rule violation rejects with GaxiosError 400 (itemTypeNotAllowed)', async () => {
    const g = await yt.groups.insert({ requestBody: { snippet: { title: 'Client errors' } } });
    const err = await rejection(
      yt.groupItems.insert(
        { requestBody: { groupId: g.data.id as string, resource: { kind: 'youtube#channel', id: 'UCdemo-alice' } } },
        { retry: false },
      ),
    );
    expect(err).toBeInstanceOf(GaxiosError);
    expect((err as GaxiosError).status).toBe(400);
    expect(((err as GaxiosError).response?.data as any)?.error?.status).toBe('INVALID_ARGUMENT');
    await yt.groups.delete({ id: g.data.id as string });
  });
});
