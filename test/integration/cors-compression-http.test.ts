/**
 * CORS and compression of the local server, as the stack's API Gateway answers (functions/_shared/transport.ts):
 * preflights without a token on every route path, Access-Control-Allow-Origin on every answer (the handlers' and the
 * gateway's own 401 / 403 / 404), and gzip for bodies from MIN_COMPRESSION_BYTES on. Raw node:http requests, so
 * the encoding on the wire is what is checked.
 */
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORS_ALLOW_HEADERS, MIN_COMPRESSION_BYTES } from '../../functions/_shared/transport';
import { type RouteDef, routes } from '../../functions/routes';
import { chooseEncoding } from '../../infra/local/http-send';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { createReportFixture, type ReportFixture } from '../support/report-fixtures';

let api: LocalApi;
let fx: ReportFixture;
let token: string;

interface Wire {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function send(method: string, path: string, headers: Record<string, string> = {}): Promise<Wire> {
  return new Promise((resolve, reject) => {
    const req = request(`${api.baseUrl}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const ORIGIN = 'http://127.0.0.1:5999';
const concrete = (path: string) => path.replace('{propertiesId}', '1000');

beforeAll(async () => {
  api = await startLocalApi();
  // Six videos over 320 days: the generator's activity depends on the run's ids, and two videos sometimes left fewer than
  // 200 days with rows (188 in one CI run); six leave at least 300 in 200 tries.
  fx = await createReportFixture({ videos: 6, days: 320, start: '2025-09-01', a2Days: 0 });
  token = await api.token(fx.sub, ['video-analytics.readonly', 'video-platform']);
}, 180_000);
afterAll(() => api?.close());

describe('CORS preflight', () => {
  const paths = [...new Set((routes as readonly RouteDef[]).map((r) => r.path))];

  it.each(paths)(
    'OPTIONS %s → 204 without a token, allowing its methods, Authorization and Content-Type',
    async (p) => {
      const res = await send('OPTIONS', concrete(p), {
        Origin: ORIGIN,
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'authorization,content-type,x-goog-api-client',
      });
      const methods = (routes as readonly RouteDef[]).filter((r) => r.path === p).map((r) => r.method);

      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(String(res.headers['access-control-allow-methods']).split(',')).toEqual([...methods, 'OPTIONS']);
      const allowed = String(res.headers['access-control-allow-headers']).toLowerCase().split(',');
      for (const h of ['authorization', 'content-type', 'x-goog-api-client']) expect(allowed).toContain(h);
      expect(allowed).toHaveLength(CORS_ALLOW_HEADERS.length);
      expect(Number(res.headers['access-control-max-age'])).toBeGreaterThan(0);
    },
  );

  it('OPTIONS on a path no route serves → the gateway 404, with CORS headers', async () => {
    const res = await send('OPTIONS', '/v2/nothing', { Origin: ORIGIN });

    expect(res.status).toBe(404);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('Access-Control-Allow-Origin on every answer', () => {
  const cases: [string, () => Promise<Wire>, number][] = [
    [
      '200 of an operation',
      () => send('GET', '/v2/groups?mine=true', { Origin: ORIGIN, Authorization: `Bearer ${token}` }),
      200,
    ],
    ['400 of an operation', () => send('GET', '/v2/groups', { Origin: ORIGIN, Authorization: `Bearer ${token}` }), 400],
    ['401 of the gateway', () => send('GET', '/v2/groups?mine=true', { Origin: ORIGIN }), 401],
    [
      '403 of the gateway',
      () => send('GET', '/v1alpha/properties/1000', { Origin: ORIGIN, Authorization: `Bearer ${token}` }),
      403,
    ],
    ['404 of the gateway', () => send('GET', '/v2/nothing', { Origin: ORIGIN }), 404],
    ['200 of a public page', () => send('GET', '/$discovery/rest?version=v2', { Origin: ORIGIN }), 200],
  ];

  it.each(cases)('%s', async (_name, call, status) => {
    const res = await call();

    expect(res.status).toBe(status);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-expose-headers'])).toMatch(/X-Items-Read, X-Bytes-Read/);
  });
});

describe('compression', () => {
  const report = () =>
    `/v2/reports?ids=channel==MINE&startDate=${fx.days[0]}&endDate=${fx.days.at(-1)}&metrics=views,likes,estimatedMinutesWatched&dimensions=day&sort=-day&maxResults=200`;

  it('a 200-row report travels gzip-encoded and decodes to the same JSON, with X-Items-Read', async () => {
    const plain = await send('GET', report(), { Authorization: `Bearer ${token}` });
    const zipped = await send('GET', report(), {
      Authorization: `Bearer ${token}`,
      'Accept-Encoding': 'gzip, deflate, br',
    });

    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(String(zipped.headers.vary)).toContain('Accept-Encoding');
    const decoded = JSON.parse(gunzipSync(zipped.body).toString('utf8'));
    expect(decoded).toStrictEqual(JSON.parse(plain.body.toString('utf8')));
    const daysWithRows = new Set(fx.rawRows.map((r) => r.date)).size;
    expect(daysWithRows).toBeGreaterThanOrEqual(200);
    expect(decoded.rows).toHaveLength(200);
    expect(zipped.body.length).toBeLessThan(plain.body.length / 4);
    expect(Number(zipped.headers['x-items-read'])).toBeGreaterThan(0);
    expect(zipped.headers['x-items-read']).toBe(plain.headers['x-items-read']);
  });

  it(`a body under ${MIN_COMPRESSION_BYTES} bytes travels as it is`, async () => {
    const res = await send('GET', '/v2/nothing', { 'Accept-Encoding': 'gzip' });

    expect(res.body.length).toBeLessThan(MIN_COMPRESSION_BYTES);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(res.body.toString('utf8')).error.code).toBe(404);
  });

  it('honours q=0 refusals', () => {
    expect(chooseEncoding('gzip;q=0, deflate')).toBe('deflate');
    expect(chooseEncoding('*;q=0')).toBeUndefined();
    expect(chooseEncoding('br')).toBeUndefined();
    expect(chooseEncoding('*')).toBe('gzip');
    expect(chooseEncoding(undefined)).toBeUndefined();
  });
});
