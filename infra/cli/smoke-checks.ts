/**
 * The smoke test of a deployment (`npm run smoke`), runnable in-process: every operation of the API against any base
 * URL (the local server, a stack's ApiUrl), with real tokens, checking statuses and the Google shapes of the answers.
 *
 * - `token` reads: reports.query (channel==MINE), properties.get, groups.list; and the 403 body. It may be a service
 *   token (client credentials) whose `sub`, the client id, the directory maps to a channel.
 * - `ownerToken` (default: `token`) writes: one group created, renamed, found by id; a video of the owner's channel
 *   inserted, listed and removed; the group deleted and gone. Its `sub` must own a channel (`video-platform` scope).
 * Whatever fails, the group created is deleted before the run ends.
 */

export interface SmokeOptions {
  readonly baseUrl: string;
  readonly token: string;
  readonly ownerToken?: string;
  /** A video of the owner's channel to group; by default the owner's most viewed video of the last year. */
  readonly video?: string;
  /** A property the token may read (properties.get → 200); by default a 403 for a property nobody has is checked. */
  readonly property?: string;
  /** Each check as it completes. */
  readonly onCheck?: (check: SmokeCheck) => void;
  readonly timeoutMs?: number;
  readonly now?: () => Date;
}

export interface SmokeCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

export interface SmokeResult {
  readonly checks: SmokeCheck[];
  readonly passed: number;
  readonly total: number;
}

interface Answer {
  status: number;
  body: any;
}

class CheckFailed extends Error {}

const day = (d: Date) => d.toISOString().slice(0, 10);

/** `status` → `detail`, or a CheckFailed naming what came instead. */
function expectStatus(res: Answer, status: number): void {
  if (res.status !== status) {
    const err = res.body?.error;
    const said = err ? ` ${err.status ?? ''} ${err.errors?.[0]?.reason ?? ''}: ${err.message ?? ''}` : '';
    throw new CheckFailed(`expected ${status}, got ${res.status}${said}`);
  }
}

/** Google's error body: error.code = the HTTP status, error.status, error.message, error.errors[].reason. */
function expectGoogleError(res: Answer, status: number, statusName: string): string {
  expectStatus(res, status);
  const e = res.body?.error;
  const shaped =
    e &&
    e.code === status &&
    e.status === statusName &&
    typeof e.message === 'string' &&
    Array.isArray(e.errors) &&
    typeof e.errors[0]?.reason === 'string';
  if (!shaped) throw new CheckFailed(`not a Google error body: ${JSON.stringify(res.body).slice(0, 200)}`);
  return e.errors[0].reason;
}

export async function runSmoke(options: SmokeOptions): Promise<SmokeResult> {
  const base = options.baseUrl.replace(/\/+$/, '');
  const owner = options.ownerToken ?? options.token;
  const now = options.now?.() ?? new Date();
  const checks: SmokeCheck[] = [];

  async function call(path: string, token: string | undefined, init: { method?: string; body?: unknown } = {}) {
    const headers: Record<string, string> = {};
    if (token !== undefined) headers.Authorization = `Bearer ${token}`;
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${base}${path}`, {
      method: init.method ?? 'GET',
      headers,
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: kept as text for the message
    }
    return { status: res.status, body } as Answer;
  }

  async function check(name: string, run: () => Promise<string>): Promise<boolean> {
    let result: SmokeCheck;
    try {
      result = { name, ok: true, detail: await run() };
    } catch (err) {
      const message = err instanceof CheckFailed ? err.message : `request failed: ${(err as Error).message}`;
      result = { name, ok: false, detail: message };
    }
    checks.push(result);
    options.onCheck?.(result);
    return result.ok;
  }

  const skipped = (name: string, why: string) => {
    const result = { name, ok: false, detail: `not run: ${why}` };
    checks.push(result);
    options.onCheck?.(result);
  };

  await check('401 without a token (Google error body)', async () => {
    const reason = expectGoogleError(await call('/v2/groups?mine=true', undefined), 401, 'UNAUTHENTICATED');
    return `401 UNAUTHENTICATED ${reason}`;
  });
  await check('401 with a malformed token', async () => {
    const reason = expectGoogleError(await call('/v2/groups?mine=true', 'not-a-token'), 401, 'UNAUTHENTICATED');
    return `401 UNAUTHENTICATED ${reason}`;
  });
  await check('403 for a channel the caller does not own (Google error body)', async () => {
    const stranger = `UCsmoke-nobody-${Math.random().toString(36).slice(2, 10)}`;
    const res = await call(
      `/v2/reports?ids=channel==${stranger}&startDate=${day(now)}&endDate=${day(now)}&metrics=views`,
      options.token,
    );
    return `403 PERMISSION_DENIED ${expectGoogleError(res, 403, 'PERMISSION_DENIED')}`;
  });

  const lastMonth = new Date(now.getTime() - 30 * 86_400_000);
  await check('reports.query channel==MINE (views by day, last 30 days)', async () => {
    const res = await call(
      `/v2/reports?ids=channel==MINE&startDate=${day(lastMonth)}&endDate=${day(now)}&metrics=views&dimensions=day&sort=day`,
      options.token,
    );
    expectStatus(res, 200);
    if (res.body?.kind !== 'youtubeAnalytics#resultTable') throw new CheckFailed('not a youtubeAnalytics#resultTable');
    return `200, ${res.body.rows?.length ?? 0} days with data`;
  });

  await check(
    options.property ? `properties.get properties/${options.property}` : 'properties.get of a property nobody reads',
    async () => {
      if (options.property) {
        const res = await call(`/v1alpha/properties/${encodeURIComponent(options.property)}`, options.token);
        expectStatus(res, 200);
        if (res.body?.name !== `properties/${options.property}`)
          throw new CheckFailed(`got ${JSON.stringify(res.body?.name)}`);
        return `200 ${res.body.displayName ?? ''}`;
      }
      // No property named: the same 403 a missing or unreadable property gets (existence does not leak).
      const res = await call('/v1alpha/properties/99999999999999999', options.token);
      return `403 PERMISSION_DENIED ${expectGoogleError(res, 403, 'PERMISSION_DENIED')}`;
    },
  );

  await check('groups.list mine=true', async () => {
    const res = await call('/v2/groups?mine=true', options.token);
    expectStatus(res, 200);
    if (res.body?.kind !== 'youtube#groupListResponse') throw new CheckFailed('not a youtube#groupListResponse');
    return `200, ${res.body.items?.length ?? 0} groups on the first page`;
  });

  let groupId: string | undefined;
  let itemId: string | undefined;
  try {
    const created = await check('groups.insert', async () => {
      const res = await call('/v2/groups', owner, {
        method: 'POST',
        body: { snippet: { title: `smoke ${now.toISOString()}` } },
      });
      expectStatus(res, 200);
      if (res.body?.kind !== 'youtube#group' || typeof res.body.id !== 'string')
        throw new CheckFailed('not a youtube#group');
      groupId = res.body.id;
      return `200 ${groupId}`;
    });
    if (!created || !groupId) {
      for (const name of [
        'groups.update',
        'groups.list id',
        'groupItems.insert',
        'groupItems.list',
        'groupItems.delete',
        'groups.delete',
      ]) {
        skipped(name, 'no group was created');
      }
      return summary();
    }
    const id = groupId;
    await check('groups.update (rename)', async () => {
      const res = await call('/v2/groups', owner, {
        method: 'PUT',
        body: { id, snippet: { title: 'smoke (renamed)' } },
      });
      expectStatus(res, 200);
      if (res.body?.snippet?.title !== 'smoke (renamed)') throw new CheckFailed('the title did not change');
      return '200, renamed';
    });
    await check('groups.list id=', async () => {
      const res = await call(`/v2/groups?id=${encodeURIComponent(id)}`, owner);
      expectStatus(res, 200);
      if (res.body?.items?.[0]?.id !== id) throw new CheckFailed('the group is not listed');
      return '200, found';
    });
    const video = options.video ?? (await ownersVideo(owner));
    const inserted = await check(`groupItems.insert video ${video ?? '(none found)'}`, async () => {
      if (!video)
        throw new CheckFailed("the owner's channel has no video with views in the last year: pass --video ID");
      const res = await call('/v2/groupItems', owner, {
        method: 'POST',
        body: { groupId: id, resource: { kind: 'youtube#video', id: video } },
      });
      expectStatus(res, 200);
      if (res.body?.kind !== 'youtube#groupItem') throw new CheckFailed('not a youtube#groupItem');
      itemId = res.body.id;
      return `200 ${itemId}`;
    });
    await check('groupItems.list', async () => {
      const res = await call(`/v2/groupItems?groupId=${encodeURIComponent(id)}`, owner);
      expectStatus(res, 200);
      const count = res.body?.items?.length ?? 0;
      if (count !== (inserted ? 1 : 0)) throw new CheckFailed(`expected ${inserted ? 1 : 0} items, got ${count}`);
      return `200, ${count} item`;
    });
    if (inserted && itemId) {
      const item = itemId;
      await check('groupItems.delete', async () => {
        expectStatus(await call(`/v2/groupItems?id=${encodeURIComponent(item)}`, owner, { method: 'DELETE' }), 204);
        return '204';
      });
    } else skipped('groupItems.delete', 'no item was inserted');
    const deleted = await check('groups.delete', async () => {
      expectStatus(await call(`/v2/groups?id=${encodeURIComponent(id)}`, owner, { method: 'DELETE' }), 204);
      return '204';
    });
    if (deleted) groupId = undefined;
    await check('groups.list id= after the delete', async () => {
      const res = await call(`/v2/groups?id=${encodeURIComponent(id)}`, owner);
      expectStatus(res, 200);
      if ((res.body?.items?.length ?? 0) !== 0) throw new CheckFailed('the deleted group is still listed');
      return '200, gone';
    });
  } finally {
    // Clean up whatever a failed check left behind (deleting the group removes its items).
    if (groupId)
      await call(`/v2/groups?id=${encodeURIComponent(groupId)}`, owner, { method: 'DELETE' }).catch(() => undefined);
  }
  return summary();

  function summary(): SmokeResult {
    return { checks, passed: checks.filter((c) => c.ok).length, total: checks.length };
  }

  /** The owner's most viewed video of the last year (reports.query), or undefined when there is none. */
  async function ownersVideo(token: string): Promise<string | undefined> {
    const yearAgo = new Date(now.getTime() - 365 * 86_400_000);
    const res = await call(
      `/v2/reports?ids=channel==MINE&startDate=${day(yearAgo)}&endDate=${day(now)}&metrics=views&dimensions=video&sort=-views&maxResults=1`,
      token,
    ).catch(() => undefined);
    const first = res?.status === 200 ? res.body?.rows?.[0]?.[0] : undefined;
    return typeof first === 'string' ? first : undefined;
  }
}

/** One line per check, then `smoke: N/M checks hold`. */
export const checkLine = (c: SmokeCheck) => `${c.ok ? 'ok  ' : 'FAIL'}  ${c.name}: ${c.detail}`;
export const summaryLine = (r: SmokeResult) => `smoke: ${r.passed}/${r.total} checks hold`;
