/**
 * Wire compatibility: the official @googleapis/analyticsadmin client (v1alpha), pointed at the local API on
 * loopback, reads a property and surfaces a 403 exactly as it does against Google.
 */
import { analyticsadmin, auth } from '@googleapis/analyticsadmin';
import { GaxiosError } from 'gaxios';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalApi, startLocalApi } from '../support/local-api';

let api: LocalApi;

const client = (token: string) => {
  const oauth = new auth.OAuth2();
  oauth.setCredentials({ access_token: token });
  return analyticsadmin({ version: 'v1alpha', rootUrl: `${api.baseUrl}/`, auth: oauth });
};

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api.close());

describe('@googleapis/analyticsadmin v1alpha against the local API', () => {
  it('talks only to the loopback server', () => {
    const root = new URL(api.baseUrl);

    expect(root.protocol).toBe('http:');
    expect(root.hostname).toBe('127.0.0.1');
  });

  it('properties.get returns data deep-equal to the raw HTTP JSON', async () => {
    const token = await api.token('alice', ['analytics.readonly']);
    const res = await client(token).properties.get({ name: 'properties/1000' });
    const raw = await api.call('/v1alpha/properties/1000', { token });

    expect(res.status).toBe(200);
    expect(raw.status).toBe(200);
    expect(res.data).toStrictEqual(raw.body);
    expect(res.data.name).toBe('properties/1000');
    expect(res.data.displayName).toBe('Alice Cooks - Web');
    expect(String(res.config.url)).toBe(`${api.baseUrl}/v1alpha/properties/1000`);
  });

  it('properties.get of a trashed subproperty carries deleteTime and expireTime', async () => {
    const token = await api.token('alice', ['analytics.edit']);
    const res = await client(token).properties.get({ name: 'properties/1001' });

    expect(res.data.parent).toBe('properties/1000');
    expect(res.data.deleteTime).toBe('2026-11-01T09:00:00.000Z');
    expect(res.data.expireTime).toBe('2026-12-06T09:00:00.000Z');
  });

  it("bob's call on properties/1000 rejects with a GaxiosError 403 'The caller does not have permission'", async () => {
    const token = await api.token('bob', ['analytics.readonly']);
    const err = await rejection(client(token).properties.get({ name: 'properties/1000' }, { retry: false }));

    expect(err).toBeInstanceOf(GaxiosError);
    const g = err as GaxiosError;
    expect(g.status).toBe(403);
    expect(g.message).toBe('The caller does not have permission');
    expect(g.response?.data).toStrictEqual({
      error: {
        code: 403,
        message: 'The caller does not have permission',
        errors: [{ message: 'The caller does not have permission', domain: 'global', reason: 'forbidden' }],
        status: 'PERMISSION_DENIED',
      },
    });
  });

  it('an expired token surfaces as a GaxiosError 401 after one request', async () => {
    const token = await api.token('alice', ['analytics.readonly'], { expiresInSeconds: -60 });
    const err = await rejection(client(token).properties.get({ name: 'properties/1000' }, { retry: false }));

    expect(err).toBeInstanceOf(GaxiosError);
    expect((err as GaxiosError).status).toBe(401);
    expect((err as GaxiosError).message).toMatch(/^Request had invalid authentication credentials\./);
  });

  it('a malformed name surfaces as a GaxiosError 400', async () => {
    const token = await api.token('alice', ['analytics.readonly']);
    const err = await rejection(client(token).properties.get({ name: 'properties/abc' }, { retry: false }));

    expect(err).toBeInstanceOf(GaxiosError);
    expect((err as GaxiosError).status).toBe(400);
    expect((err as GaxiosError).message).toBe(
      "The value for the 'name' field was invalid but must be in format 'properties/123'.",
    );
  });
});
