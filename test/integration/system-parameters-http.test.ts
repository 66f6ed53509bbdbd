/**
 * Google's system parameters on every operation, over real HTTP (local API, DynamoDB Local): `fields` partial
 * responses and their refusal before anything is written, `prettyPrint`, `alt`, `callback`, the accepted-and-ignored
 * `quotaUser` / `$.xgafv` / `key`, and `key` never replacing the OAuth token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayErrors } from '../../functions/_shared/error-envelope';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { createReportFixture, type ReportFixture } from '../support/report-fixtures';

let api: LocalApi;
let fx: ReportFixture;
let token: string;
let aliceAdmin: string;
let groupId: string;
let itemId: string;

interface Raw {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

const ANONYMOUS = 'x-test-anonymous';
const anonymous = { [ANONYMOUS]: '1' };

async function raw(path: string, init: RequestInit & { token?: string | null } = {}): Promise<Raw> {
  const { token: t, ...rest } = init;
  const headers = new Headers(rest.headers);
  const bearer = t === undefined ? token : t;
  // `anonymous` sends the request without any Authorization header.
  if (bearer && !headers.has(ANONYMOUS)) headers.set('Authorization', `Bearer ${bearer}`);
  headers.delete(ANONYMOUS);
  if (rest.body !== undefined) headers.set('Content-Type', 'application/json');
  const res = await fetch(`${api.baseUrl}${path}`, { ...rest, headers });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

const withQuery = (path: string, extra: string) => (extra ? `${path}${path.includes('?') ? '&' : '?'}${extra}` : path);

interface Operation {
  readonly id: string;
  /** Sends the operation with `extra` appended to its query string (and extra headers). */
  readonly send: (extra: string, headers?: Record<string, string>) => Promise<Raw>;
  /** A selection of its answer and what that answer must then be (called on the full answer). */
  readonly fields?: { readonly selector: string; readonly expected: (full: any) => unknown };
  /** A field its response schema does not have. */
  readonly unknownField: string;
  readonly public?: true;
}

const REPORT = () =>
  `/v2/reports?ids=channel==MINE&startDate=${fx.days[0]}&endDate=${fx.days[9]}&metrics=views,likes&dimensions=day`;

const operations: Operation[] = [
  {
    id: 'reports.query',
    send: (extra, headers) => raw(withQuery(REPORT(), extra), { headers }),
    fields: {
      selector: 'rows,columnHeaders(name)',
      expected: (full) => ({ columnHeaders: full.columnHeaders.map((h: any) => ({ name: h.name })), rows: full.rows }),
    },
    unknownField: 'columnHeaders(width)',
  },
  {
    id: 'groups.list',
    send: (extra, headers) => raw(withQuery('/v2/groups?mine=true', extra), { headers }),
    fields: {
      selector: 'items(id,snippet/title)',
      expected: (full) => ({ items: full.items.map((g: any) => ({ id: g.id, snippet: { title: g.snippet.title } })) }),
    },
    unknownField: 'items/name',
  },
  {
    id: 'groups.insert',
    send: (extra, headers) =>
      raw(withQuery('/v2/groups', extra), {
        method: 'POST',
        headers,
        body: JSON.stringify({ snippet: { title: 'sys' } }),
      }),
    fields: { selector: 'kind,snippet/title', expected: () => ({ kind: 'youtube#group', snippet: { title: 'sys' } }) },
    unknownField: 'snippet/name',
  },
  {
    id: 'groups.update',
    send: (extra, headers) =>
      raw(withQuery('/v2/groups', extra), {
        method: 'PUT',
        headers,
        body: JSON.stringify({ id: groupId, snippet: { title: 'Renamed' } }),
      }),
    fields: { selector: 'id', expected: () => ({ id: groupId }) },
    unknownField: 'title',
  },
  {
    id: 'groupItems.list',
    send: (extra, headers) => raw(withQuery(`/v2/groupItems?groupId=${groupId}`, extra), { headers }),
    fields: {
      selector: 'items/resource/id',
      expected: (full) => ({ items: full.items.map((i: any) => ({ resource: { id: i.resource.id } })) }),
    },
    unknownField: 'items/resource/title',
  },
  {
    id: 'groupItems.insert',
    send: (extra, headers) =>
      raw(withQuery('/v2/groupItems', extra), {
        method: 'POST',
        headers,
        body: JSON.stringify({ groupId, resource: { kind: 'youtube#video', id: fx.videoIds[1] } }),
      }),
    fields: { selector: 'resource', expected: () => ({ resource: { kind: 'youtube#video', id: fx.videoIds[1] } }) },
    unknownField: 'resource/title',
  },
  {
    // Deletes answer 204 (no body): checked here with a missing id, whose 400 body is what there is to render.
    id: 'groupItems.delete',
    send: (extra, headers) => raw(withQuery('/v2/groupItems', extra), { method: 'DELETE', headers }),
    unknownField: 'id',
  },
  {
    id: 'groups.delete',
    send: (extra, headers) => raw(withQuery('/v2/groups', extra), { method: 'DELETE', headers }),
    unknownField: 'kind',
  },
  {
    id: 'properties.get',
    send: (extra, headers) => raw(withQuery('/v1alpha/properties/1000', extra), { token: aliceAdmin, headers }),
    fields: {
      selector: 'name,displayName',
      expected: (full) => ({ name: 'properties/1000', displayName: full.displayName }),
    },
    unknownField: 'title',
  },
  {
    id: 'discovery.rest',
    send: (extra, headers) => raw(withQuery('/$discovery/rest?version=v2', extra), { token: null, headers }),
    fields: {
      selector: 'id,resources/reports/methods/query/id',
      expected: () => ({
        id: 'youtubeAnalytics:v2',
        resources: { reports: { methods: { query: { id: 'youtubeAnalytics.reports.query' } } } },
      }),
    },
    unknownField: 'a(',
    public: true,
  },
];

beforeAll(async () => {
  api = await startLocalApi();
  fx = await createReportFixture({ videos: 4, days: 20, a2Days: 0 });
  token = await api.token(fx.sub, ['video-analytics.readonly', 'video-platform']);
  aliceAdmin = await api.token('alice', ['analytics.readonly']);
  const group = await raw('/v2/groups', {
    method: 'POST',
    body: JSON.stringify({ snippet: { title: 'System parameters' } }),
  });
  groupId = group.json.id;
  const item = await raw('/v2/groupItems', {
    method: 'POST',
    body: JSON.stringify({ groupId, resource: { kind: 'youtube#video', id: fx.videoIds[0] } }),
  });
  itemId = item.json.id;
  expect(itemId).toBeTruthy();
}, 120_000);

afterAll(() => api?.close());

describe.each(operations.map((o) => [o.id, o] as const))('%s', (_id, op) => {
  it('pretty-prints by default and answers compact JSON with prettyPrint=false', async () => {
    const pretty = await op.send('');
    const compact = await op.send('prettyPrint=false');

    expect(pretty.status).toBe(compact.status);
    expect(pretty.text).toMatch(/^\{\n {2}"/);
    expect(compact.text).not.toContain('\n');
    expect(JSON.parse(compact.text).kind ?? JSON.parse(compact.text).error?.code).toStrictEqual(
      pretty.json.kind ?? pretty.json.error?.code,
    );
  });

  if (op.fields) {
    const { selector, expected } = op.fields;
    it(`fields=${selector} answers only those fields`, async () => {
      const full = await op.send('');
      const partial = await op.send(`fields=${encodeURIComponent(selector)}`);

      expect(partial.status, partial.text).toBe(200);
      expect(partial.json).toStrictEqual(expected(full.json));
    });

    it('the X-Goog-FieldMask header selects the same way', async () => {
      const viaParam = await op.send(`fields=${encodeURIComponent(selector)}`);
      const viaHeader = await op.send('', { 'X-Goog-FieldMask': selector });

      expect(viaHeader.status).toBe(200);
      expect(viaHeader.json).toStrictEqual(viaParam.json);
    });
  }

  it(`fields=${op.unknownField} → 400 invalidParameter, and the operation does not run`, async () => {
    const res = await op.send(`fields=${encodeURIComponent(op.unknownField)}`);

    expect(res.status, res.text).toBe(400);
    expect(res.json.error.errors[0]).toMatchObject({
      reason: 'invalidParameter',
      location: 'fields',
      locationType: 'parameter',
    });
    expect(res.json.error.message).toMatch(/^Invalid field selection /);
  });

  it('alt=json is accepted; alt=media and callback → 400 invalidParameter', async () => {
    const plain = await op.send('');
    expect((await op.send('alt=json')).status).toBe(plain.status);
    for (const extra of ['alt=media', 'alt=proto', 'callback=handle']) {
      const res = await op.send(extra);
      expect(res.status, `${extra}: ${res.text}`).toBe(400);
      expect(res.json.error.errors[0].reason).toBe('invalidParameter');
    }
  });

  it('quotaUser, $.xgafv and key are accepted and ignored', async () => {
    const plain = await op.send('prettyPrint=false');
    const extra = await op.send('prettyPrint=false&quotaUser=someone&%24.xgafv=2&key=AIzaFake');

    expect(extra.status).toBe(plain.status);
    if (op.id === 'reports.query' || op.id === 'properties.get' || op.id === 'discovery.rest')
      expect(extra.text).toBe(plain.text);
  });

  if (!op.public) {
    it('key without an OAuth token is still 401', async () => {
      const res = await op.send('key=AIzaFake', anonymous);

      expect(res.status).toBe(401);
      expect(res.json).toStrictEqual(gatewayErrors.UNAUTHORIZED);
    });
  }
});

describe('a refused selector writes nothing', () => {
  it('groups.insert with an unknown field: 400 and no new group', async () => {
    const before = (await raw('/v2/groups?mine=true')).json.items.length;
    const res = await raw('/v2/groups?fields=nope', {
      method: 'POST',
      body: JSON.stringify({ snippet: { title: 'never' } }),
    });
    const after = await raw('/v2/groups?mine=true');

    expect(res.status).toBe(400);
    expect(after.json.items.length).toBe(before);
    expect(after.json.items.map((g: any) => g.snippet.title)).not.toContain('never');
  });

  it('groupItems.delete with an unknown field: 400 and the item stays', async () => {
    const res = await raw(`/v2/groupItems?id=${encodeURIComponent(itemId)}&fields=nope`, { method: 'DELETE' });
    const items = await raw(`/v2/groupItems?groupId=${groupId}`);

    expect(res.status).toBe(400);
    expect(items.json.items.map((i: any) => i.id)).toContain(itemId);
  });
});
