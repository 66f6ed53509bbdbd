/**
 * The discovery documents over HTTP: public (no token), rooted at the server the client called, the same document the
 * generator makes, and Google's 404 for a version this API does not have.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCOPE_BASE } from '../../functions/core/scopes';
import { discoveryDocument } from '../../functions/discovery/document';
import { type LocalApi, startLocalApi } from '../support/local-api';

let api: LocalApi;

beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api?.close());

describe('GET /$discovery/rest', () => {
  it.each([
    ['v2', 'youtubeAnalytics:v2'],
    ['v1alpha', 'analyticsadmin:v1alpha'],
  ])('version=%s serves %s without a token, rooted at this server', async (version, id) => {
    const res = await api.call(`/$discovery/rest?version=${version}`);
    const root = `${api.baseUrl}/`;

    expect(res.status).toBe(200);
    expect(res.body.id).toBe(id);
    expect(res.body.kind).toBe('discovery#restDescription');
    expect(res.body.rootUrl).toBe(root);
    expect(res.body.baseUrl).toBe(root);
    expect(res.body).toStrictEqual(discoveryDocument(version, root, DEFAULT_SCOPE_BASE));
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('a token, valid or not, changes nothing (the route has no authorizer)', async () => {
    const anonymous = await api.call('/$discovery/rest?version=v2');
    const garbage = await api.call('/$discovery/rest?version=v2', { token: 'not-a-token' });

    expect(garbage.status).toBe(200);
    expect(garbage.body).toStrictEqual(anonymous.body);
  });

  it('follows the Host the client used (a proxy or another name for the server)', async () => {
    const body = await new Promise<string>((resolve, reject) => {
      const req = request(`${api.baseUrl}/$discovery/rest?version=v2`, {
        headers: { Host: 'analytics.localhost:9999' },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString('utf8');
        });
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end();
    });

    expect(JSON.parse(body).rootUrl).toBe('http://analytics.localhost:9999/');
  });

  it.each(['v9', 'v1', '', 'V2'])('version=%j → 404 NOT_FOUND in Google’s shape', async (version) => {
    const res = await api.call(`/$discovery/rest?version=${version}`);

    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({
      code: 404,
      status: 'NOT_FOUND',
      message: 'Requested entity was not found.',
    });
    expect(res.body.error.errors[0].reason).toBe('notFound');
  });

  it('without version → 404; the path only answers GET', async () => {
    expect((await api.call('/$discovery/rest')).status).toBe(404);
    expect((await api.call('/$discovery/rest?version=v2', { method: 'POST', body: '{}' })).status).toBe(404);
  });
});
