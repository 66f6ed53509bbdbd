/**
 * Authentication and authorization through real HTTP against the local API (same authorizer and handlers as the
 * cloud): every forged or misplaced credential is a 401 with the gateway body, a wrong scope a 403, unknown routes
 * 404, oversized bodies 413.
 */
import { type CryptoKey, exportSPKI, importJWK, type JWTHeaderParameters, type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayErrors, WWW_AUTHENTICATE } from '../../functions/_shared/error-envelope';
import { DEFAULT_SCOPE_BASE, type ScopeName, scopeUri } from '../../functions/core/scopes';
import { createIssuerKey, DEFAULT_AUDIENCE, LOCAL_ISSUER, mintToken } from '../../infra/local/local-issuer';
import { type LocalApi, startLocalApi } from '../support/local-api';

const PROPERTY = '/v1alpha/properties/1000';
const GROUPS = '/v2/groups?mine=true';
const uri = (name: ScopeName) => scopeUri(DEFAULT_SCOPE_BASE, name);
/** Forged tokens carry scopes that both routes accept, so only the forgery can explain a refusal. */
const BOTH_SCOPES = `${uri('analytics.readonly')} ${uri('video-analytics.readonly')}`;

let api: LocalApi;
let key: CryptoKey;
let foreignKey: CryptoKey;
let kid: string;
let spkiPem: string;

const now = () => Math.floor(Date.now() / 1000);
const b64url = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

function claims(overrides: Record<string, unknown> = {}): JWTPayload {
  const t = now();
  const c: Record<string, unknown> = {
    iss: LOCAL_ISSUER,
    aud: DEFAULT_AUDIENCE,
    sub: 'alice',
    scope: BOTH_SCOPES,
    iat: t,
    exp: t + 3600,
    ...overrides,
  };
  for (const [k, v] of Object.entries(c)) if (v === undefined) delete c[k];
  return c as JWTPayload;
}

async function sign(
  payload: JWTPayload = claims(),
  header: Record<string, unknown> = {},
  signingKey: CryptoKey | Uint8Array = key,
): Promise<string> {
  const h: Record<string, unknown> = { alg: 'RS256', kid, typ: 'JWT', ...header };
  for (const [k, v] of Object.entries(h)) if (v === undefined) delete h[k];
  return new SignJWT(payload).setProtectedHeader(h as JWTHeaderParameters).sign(signingKey);
}

const forgeries: [string, () => Promise<string>][] = [
  ['alg none, empty signature', async () => `${b64url({ alg: 'none', kid })}.${b64url(claims())}.`],
  [
    'alg none, non-empty signature',
    async () => `${b64url({ alg: 'none', kid })}.${b64url(claims())}.${b64url('signature')}`,
  ],
  [
    'HS256 signed with the RSA public key as HMAC secret (same kid)',
    () => sign(claims(), { alg: 'HS256' }, new TextEncoder().encode(spkiPem)),
  ],
  [
    'HS256 signed with the RSA modulus as HMAC secret (same kid)',
    () => sign(claims(), { alg: 'HS256' }, new TextEncoder().encode(String(api.issuerKey.publicJwk.n))),
  ],
  ['unknown kid', () => sign(claims(), { kid: 'no-such-key' })],
  ['missing kid', () => sign(claims(), { kid: undefined })],
  ['expired exp', () => sign(claims({ iat: now() - 7200, exp: now() - 60 }))],
  ['nbf in the future', () => sign(claims({ nbf: now() + 600 }))],
  ['missing exp', () => sign(claims({ exp: undefined }))],
  ['missing sub', () => sign(claims({ sub: undefined }))],
  ['wrong iss', () => sign(claims({ iss: 'https://evil.example' }))],
  ['wrong aud', () => sign(claims({ aud: 'someone-else' }))],
  ['aud array without ours', () => sign(claims({ aud: ['someone-else', 'another-api'] }))],
  [
    'tampered payload (re-encoded, signature kept)',
    async () => {
      const [h, , s] = (await sign(claims({ sub: 'mallory' }))).split('.');
      return `${h}.${b64url(claims({ sub: 'alice' }))}.${s}`;
    },
  ],
  ['signed by a foreign key with our kid', () => sign(claims(), {}, foreignKey)],
  ['garbage string', async () => 'this-is-not-a-jwt'],
  [
    'two-segment token',
    async () => {
      const [h, p] = (await sign()).split('.');
      return `${h}.${p}`;
    },
  ],
];

const headerVariants: [string, (valid: string) => string][] = [
  ['Basic scheme', () => 'Basic YWxpY2U6c2VjcmV0'],
  ['Token scheme with a valid token', (t) => `Token ${t}`],
  ['"Bearer" with nothing', () => 'Bearer'],
  ['the bare valid token without a scheme', (t) => t],
  ['extra words after a valid token', (t) => `Bearer ${t} extra`],
];

const targets = [
  ['properties.get', PROPERTY],
  ['groups.list', GROUPS],
] as const;

/** The exact gateway 401: body, challenge header, and no resource data. */
function expectUnauthorized(res: { status: number; headers: Headers; body: any }) {
  expect(res.status).toBe(401);
  expect(res.body).toStrictEqual(gatewayErrors.UNAUTHORIZED);
  expect(res.headers.get('www-authenticate')).toBe(WWW_AUTHENTICATE);
  expect(res.headers.get('content-type')).toBe('application/json; charset=UTF-8');
  expect(JSON.stringify(res.body)).not.toContain('displayName');
}

beforeAll(async () => {
  api = await startLocalApi();
  key = (await importJWK(api.issuerKey.privateJwk, 'RS256')) as CryptoKey;
  kid = String(api.issuerKey.privateJwk.kid);
  spkiPem = await exportSPKI((await importJWK(api.issuerKey.publicJwk, 'RS256', { extractable: true })) as CryptoKey);
  const foreign = await createIssuerKey();
  foreignKey = (await importJWK({ ...foreign.privateJwk, kid }, 'RS256')) as CryptoKey;
});
afterAll(() => api.close());

describe('control: the token builder makes tokens the server accepts', () => {
  it('an unforged token reads properties/1000', async () => {
    const res = await api.call(PROPERTY, { token: await sign() });

    expect(res.status).toBe(200);
    expect(res.body.name).toBe('properties/1000');
  });

  it('an unforged token passes the authorizer on /v2/groups', async () => {
    const res = await api.call(GROUPS, { token: await sign() });

    expect([401, 403, 404]).not.toContain(res.status);
  });
});

describe.each(targets)('%s: credentials that are not a valid Authorization header → 401', (_id, target) => {
  it('no Authorization header', async () => {
    expectUnauthorized(await api.call(target));
  });

  it.each(['access_token', 'oauth_token'])('a valid token in the query string only (?%s=)', async (param) => {
    const valid = await sign();
    const sep = target.includes('?') ? '&' : '?';

    expectUnauthorized(await api.call(`${target}${sep}${param}=${encodeURIComponent(valid)}`));
  });

  it('a valid token in another header or a cookie only', async () => {
    const valid = await sign();
    const res = await api.call(target, {
      method: 'GET',
      headers: { 'X-Access-Token': valid, Cookie: `access_token=${valid}` },
    });

    expectUnauthorized(res);
  });

  it.each(forgeries)('Bearer <%s>', async (_name, forge) => {
    expectUnauthorized(await api.call(target, { token: await forge() }));
  });

  it.each(headerVariants)('Authorization: %s', async (_name, header) => {
    const valid = await sign();

    expectUnauthorized(await api.call(target, { headers: { Authorization: header(valid) } }));
  });

  it('a token minted with expiresInSeconds: -60', async () => {
    const scopes = ['analytics.readonly', 'video-analytics.readonly'];

    expectUnauthorized(await api.call(target, { token: await api.token('alice', scopes, { expiresInSeconds: -60 }) }));
  });

  it('a token for another audience', async () => {
    const scopes = ['analytics.readonly', 'video-analytics.readonly'];

    expectUnauthorized(
      await api.call(target, { token: await api.token('alice', scopes, { audience: 'someone-else' }) }),
    );
  });

  it('a token of another issuer string', async () => {
    const scopes = ['analytics.readonly', 'video-analytics.readonly'];

    expectUnauthorized(
      await api.call(target, { token: await api.token('alice', scopes, { issuer: 'https://evil.example' }) }),
    );
  });

  it('a token signed by another issuer key', async () => {
    const other = await createIssuerKey();
    const token = await mintToken(other, {
      sub: 'alice',
      scopes: ['analytics.readonly', 'video-analytics.readonly'],
      scopeBase: DEFAULT_SCOPE_BASE,
    });

    expectUnauthorized(await api.call(target, { token }));
  });
});

describe('valid token without an accepted scope → 403 ACCESS_DENIED', () => {
  it('properties.get with only video scopes', async () => {
    const token = await api.token('alice', [
      'video-analytics.readonly',
      'video-analytics-monetary.readonly',
      'video-platform',
      'video-platform-partner',
    ]);
    const res = await api.call(PROPERTY, { token });

    expect(res.status).toBe(403);
    expect(res.body).toStrictEqual(gatewayErrors.ACCESS_DENIED);
    expect(JSON.stringify(res.body)).not.toContain('displayName');
  });

  it.each([
    ['the unexpanded short name', 'analytics.readonly'],
    ['a foreign-base scope URI', 'https://evil.example/auth/analytics.readonly'],
    ['the broader analytics scope, not in the accepted list', 'https://www.googleapis.com/auth/analytics'],
  ])('properties.get with %s', async (_name, scope) => {
    const res = await api.call(PROPERTY, { token: await sign(claims({ scope })) });

    expect(res.status).toBe(403);
    expect(res.body).toStrictEqual(gatewayErrors.ACCESS_DENIED);
  });

  it('/v2/groups with only analytics scopes', async () => {
    const token = await api.token('alice', ['analytics.readonly', 'analytics.edit']);
    const res = await api.call(GROUPS, { token });

    expect(res.status).toBe(403);
    expect(res.body).toStrictEqual(gatewayErrors.ACCESS_DENIED);
  });

  it('POST /v2/groups with only a read-only video scope', async () => {
    const token = await api.token('alice', ['video-analytics.readonly']);
    const res = await api.call('/v2/groups', {
      token,
      method: 'POST',
      body: JSON.stringify({ snippet: { title: 'x' } }),
    });

    expect(res.status).toBe(403);
    expect(res.body).toStrictEqual(gatewayErrors.ACCESS_DENIED);
  });
});

describe('unknown routes → 404 gateway body', () => {
  // `/` is the Query Explorer page (public) and `/$discovery/rest` the discovery documents: both are routes.
  it.each(['/v2/nope', '/v1alpha/properties/1/extra', '/v1alpha/1234', '/v1alpha/properties', '/v2', '/v2/groups/1'])(
    'GET %s',
    async (path) => {
      const anonymous = await api.call(path);
      const withToken = await api.call(path, { token: await sign() });

      for (const res of [anonymous, withToken]) {
        expect(res.status).toBe(404);
        expect(res.body).toStrictEqual(gatewayErrors.MISSING_AUTHENTICATION_TOKEN);
      }
    },
  );

  it.each([
    ['PATCH', '/v2/groups'],
    ['POST', PROPERTY],
    ['DELETE', PROPERTY],
    ['PUT', '/v2/reports'],
  ])('wrong method on a known path: %s %s', async (method, path) => {
    const res = await api.call(path, { method, token: await sign() });

    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual(gatewayErrors.MISSING_AUTHENTICATION_TOKEN);
  });
});

describe('request size', () => {
  const MiB = 1024 * 1024;

  it('a body over 1 MiB → 413 REQUEST_TOO_LARGE, before authentication', async () => {
    const res = await api.call('/v2/groups', { method: 'POST', body: 'x'.repeat(MiB + 1) });

    expect(res.status).toBe(413);
    expect(res.body).toStrictEqual(gatewayErrors.REQUEST_TOO_LARGE);
  });

  it('a body of exactly 1 MiB is not refused for its size', async () => {
    const res = await api.call('/v2/groups', { method: 'POST', body: 'x'.repeat(MiB) });

    expectUnauthorized(res);
  });
});
