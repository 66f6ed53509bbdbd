/**
 * The authorization decision with the REAL aws-jwt-verify verifier (preloaded JWKS, no network): the JWT attack
 * matrix of platform-notes §5.2, the Authorization header grammar, and the route × scope table.
 */
import type { Jwks } from 'aws-jwt-verify/jwk';
import {
  type CryptoKey,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  type JWTHeaderParameters,
  type JWTPayload,
  SignJWT,
} from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Decide, type Decision, makeDecide, type TokenVerifier } from '../../functions/authorizer/decide';
import { createVerifier } from '../../functions/authorizer/verifier';
import { DEFAULT_SCOPE_BASE, SCOPE_NAMES, type ScopeName, scopeUri } from '../../functions/core/scopes';
import { type RouteDef, routeKey, routes } from '../../functions/routes';

const ISSUER = 'https://issuer.unit-test.invalid';
const AUDIENCE = 'analytics-api-unit';
const KID = 'unit-test-key-1';
const PROPERTIES_GET = 'GET /v1alpha/properties/{propertiesId}';
const GROUPS_LIST = 'GET /v2/groups';
const uri = (name: ScopeName) => scopeUri(DEFAULT_SCOPE_BASE, name);
const READONLY = uri('analytics.readonly');

type Key = CryptoKey;
let privateKey: Key;
let foreignPrivateKey: Key;
let publicJwk: Record<string, unknown>;
let foreignPublicJwk: Record<string, unknown>;
let spkiPem: string;
let decide: Decide;

const now = () => Math.floor(Date.now() / 1000);
const b64url = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/** Claims of a valid token; `undefined` in overrides removes a claim. */
function claims(overrides: Record<string, unknown> = {}): JWTPayload {
  const t = now();
  const base: Record<string, unknown> = {
    iss: ISSUER,
    aud: AUDIENCE,
    sub: 'alice',
    scope: READONLY,
    iat: t,
    exp: t + 3600,
    ...overrides,
  };
  for (const [k, v] of Object.entries(base)) if (v === undefined) delete base[k];
  return base as JWTPayload;
}

async function sign(
  payload: JWTPayload = claims(),
  header: Partial<JWTHeaderParameters> & { kid?: string | undefined } = {},
  key: Key | Uint8Array = privateKey,
): Promise<string> {
  const h: Record<string, unknown> = { alg: 'RS256', kid: KID, typ: 'JWT', ...header };
  for (const [k, v] of Object.entries(h)) if (v === undefined) delete h[k];
  return new SignJWT(payload).setProtectedHeader(h as JWTHeaderParameters).sign(key);
}

const DENY_UNAUTHENTICATED: Decision = { effect: 'deny', reason: 'unauthenticated' };
const DENY_SCOPE: Decision = { effect: 'deny', reason: 'insufficient_scope' };

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  const foreign = await generateKeyPair('RS256', { extractable: true });
  privateKey = pair.privateKey;
  foreignPrivateKey = foreign.privateKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  foreignPublicJwk = { ...(await exportJWK(foreign.publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  spkiPem = await exportSPKI(pair.publicKey);
  const verifier = createVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    jwksUri: `${ISSUER}/.well-known/jwks.json`,
    jwks: { keys: [publicJwk] } as unknown as Jwks,
  });
  decide = makeDecide(verifier, DEFAULT_SCOPE_BASE);
});

describe('makeDecide with the real verifier: valid tokens', () => {
  it('allows a valid token with an accepted scope and returns the principal', async () => {
    const payload = claims({ scope: `${READONLY} https://example.com/other` });
    const d = await decide(PROPERTIES_GET, `Bearer ${await sign(payload)}`);

    expect(d.effect).toBe('allow');
    if (d.effect !== 'allow') return;
    expect(d.route.id).toBe('properties.get');
    expect(d.principal).toStrictEqual({
      sub: 'alice',
      scope: `${READONLY} https://example.com/other`,
      exp: payload.exp,
    });
  });

  it('accepts the scheme in lower case ("bearer")', async () => {
    const d = await decide(PROPERTIES_GET, `bearer ${await sign()}`);

    expect(d.effect).toBe('allow');
  });

  it('accepts the scheme in upper case ("BEARER") and several spaces before the token', async () => {
    const d = await decide(PROPERTIES_GET, `BEARER   ${await sign()}`);

    expect(d.effect).toBe('allow');
  });

  it('accepts analytics.edit for properties.get', async () => {
    const d = await decide(PROPERTIES_GET, `Bearer ${await sign(claims({ scope: uri('analytics.edit') }))}`);

    expect(d.effect).toBe('allow');
  });

  it('accepts an aud array that contains our audience', async () => {
    const d = await decide(PROPERTIES_GET, `Bearer ${await sign(claims({ aud: ['someone-else', AUDIENCE] }))}`);

    expect(d.effect).toBe('allow');
  });
});

describe('makeDecide with the real verifier: JWT attack matrix → 401', () => {
  const attacks: [string, () => Promise<string>][] = [
    ['alg none, empty signature', async () => `${b64url({ alg: 'none', kid: KID, typ: 'JWT' })}.${b64url(claims())}.`],
    [
      'alg none, non-empty signature',
      async () => `${b64url({ alg: 'none', kid: KID, typ: 'JWT' })}.${b64url(claims())}.${b64url('signature')}`,
    ],
    ['alg NoNe (mixed case), empty signature', async () => `${b64url({ alg: 'NoNe', kid: KID })}.${b64url(claims())}.`],
    [
      'alg none with the original RS256 signature kept',
      async () => {
        const sig = (await sign()).split('.')[2];
        return `${b64url({ alg: 'none', kid: KID })}.${b64url(claims())}.${sig}`;
      },
    ],
    [
      'HS256 signed with the RSA public key PEM as HMAC secret (same kid)',
      () => sign(claims(), { alg: 'HS256' }, new TextEncoder().encode(spkiPem)),
    ],
    [
      'HS256 signed with the RSA modulus n as HMAC secret (same kid)',
      () => sign(claims(), { alg: 'HS256' }, new TextEncoder().encode(String(publicJwk.n))),
    ],
    [
      'HS256 signed with the public JWK JSON as HMAC secret (same kid)',
      () => sign(claims(), { alg: 'HS256' }, new TextEncoder().encode(JSON.stringify(publicJwk))),
    ],
    ['unknown kid', () => sign(claims(), { kid: 'no-such-key' })],
    ['kid path traversal', () => sign(claims(), { kid: '../../../../dev/null' })],
    ['missing kid', () => sign(claims(), { kid: undefined })],
    ['expired exp', () => sign(claims({ iat: now() - 7200, exp: now() - 60 }))],
    ['exp exactly one second ago', () => sign(claims({ exp: now() - 1 }))],
    ['nbf in the future', () => sign(claims({ nbf: now() + 600 }))],
    ['missing exp', () => sign(claims({ exp: undefined }))],
    ['exp as a string', () => sign(claims({ exp: String(now() + 3600) }))],
    ['missing sub', () => sign(claims({ sub: undefined }))],
    ['empty sub', () => sign(claims({ sub: '' }))],
    ['wrong iss', () => sign(claims({ iss: 'https://evil.example' }))],
    ['missing iss', () => sign(claims({ iss: undefined }))],
    ['wrong aud', () => sign(claims({ aud: 'someone-else' }))],
    ['missing aud', () => sign(claims({ aud: undefined }))],
    ['aud array without ours', () => sign(claims({ aud: ['someone-else', 'analytics-api'] }))],
    [
      'tampered payload (re-encoded, signature kept)',
      async () => {
        const [h, , s] = (await sign(claims({ sub: 'mallory' }))).split('.');
        return `${h}.${b64url(claims({ sub: 'alice' }))}.${s}`;
      },
    ],
    [
      'tampered payload: scope escalated, signature kept',
      async () => {
        const [h, , s] = (await sign(claims({ scope: 'https://example.com/nothing' }))).split('.');
        return `${h}.${b64url(claims())}.${s}`;
      },
    ],
    ['signed by a foreign key with our kid', () => sign(claims(), {}, foreignPrivateKey)],
    [
      'signed by a foreign key, embedded jwk header with our kid',
      () => sign(claims(), { jwk: foreignPublicJwk as JWTHeaderParameters['jwk'] }, foreignPrivateKey),
    ],
    [
      'signed by a foreign key, jku header pointing elsewhere',
      () => sign(claims(), { jku: 'https://evil.example/jwks.json', kid: 'evil' }, foreignPrivateKey),
    ],
    ['garbage string', async () => 'this-is-not-a-jwt'],
    ['garbage with three dots-separated segments', async () => 'aaaa.bbbb.cccc'],
    [
      'two-segment token',
      async () => {
        const [h, p] = (await sign()).split('.');
        return `${h}.${p}`;
      },
    ],
    ['four-segment token', async () => `${await sign()}.${b64url('extra')}`],
  ];

  it.each(attacks)('%s → deny unauthenticated', async (_name, forge) => {
    const token = await forge();

    expect(await decide(PROPERTIES_GET, `Bearer ${token}`)).toStrictEqual(DENY_UNAUTHENTICATED);
  });

  it('still accepts valid tokens after the attacks (no poisoned JWKS cache)', async () => {
    for (const [, forge] of attacks) await decide(PROPERTIES_GET, `Bearer ${await forge()}`);

    expect((await decide(PROPERTIES_GET, `Bearer ${await sign()}`)).effect).toBe('allow');
  });
});

describe('makeDecide: Authorization header grammar', () => {
  const headers: [string, (token: string) => string | undefined][] = [
    ['no header', () => undefined],
    ['empty header', () => ''],
    ['Basic scheme', () => 'Basic x'],
    ['Basic scheme with credentials', () => 'Basic YWxpY2U6c2VjcmV0'],
    ['Token scheme', () => 'Token x'],
    ['Token scheme with a valid JWT', (t) => `Token ${t}`],
    ['"Bearer" with nothing', () => 'Bearer'],
    ['"Bearer " with only spaces', () => 'Bearer   '],
    ['the bare token without a scheme', (t) => t],
    ['extra words after the token', (t) => `Bearer ${t} extra`],
    ['two tokens', (t) => `Bearer ${t} ${t}`],
    ['scheme glued to the token', (t) => `Bearer${t}`],
    ['a tab instead of a space', (t) => `Bearer\t${t}`],
    ['leading space before the scheme', (t) => ` Bearer ${t}`],
    ['a comma-separated second credential', (t) => `Bearer ${t}, Basic x`],
  ];

  it.each(headers)('%s → deny unauthenticated', async (_name, header) => {
    const token = await sign();

    expect(await decide(PROPERTIES_GET, header(token))).toStrictEqual(DENY_UNAUTHENTICATED);
  });
});

describe('makeDecide: scopes', () => {
  it('refuses a token whose only scope is a foreign-base URI', async () => {
    const token = await sign(claims({ scope: 'https://evil.example/auth/analytics.readonly' }));

    expect(await decide(PROPERTIES_GET, `Bearer ${token}`)).toStrictEqual(DENY_SCOPE);
  });

  it('refuses a token whose only scope is the unexpanded short name', async () => {
    const token = await sign(claims({ scope: 'analytics.readonly' }));

    expect(await decide(PROPERTIES_GET, `Bearer ${token}`)).toStrictEqual(DENY_SCOPE);
  });

  it('refuses a token whose scope URI is only a prefix/suffix variant of ours', async () => {
    const token = await sign(claims({ scope: `${READONLY}x ${READONLY.slice(0, -1)} x${READONLY}` }));

    expect(await decide(PROPERTIES_GET, `Bearer ${token}`)).toStrictEqual(DENY_SCOPE);
  });

  it('refuses a token that carries the scopes only in an `scp` claim', async () => {
    const token = await sign(claims({ scope: undefined, scp: [READONLY, uri('analytics.edit')] }));

    expect(await decide(PROPERTIES_GET, `Bearer ${token}`)).toStrictEqual(DENY_SCOPE);
  });

  it('rejects a token whose scope claim is an array instead of a string (malformed claim → 401)', async () => {
    const token = await sign(claims({ scope: [READONLY] }));

    expect(await decide(PROPERTIES_GET, `Bearer ${token}`)).toStrictEqual(DENY_UNAUTHENTICATED);
  });

  it('refuses a token without any scope claim', async () => {
    const token = await sign(claims({ scope: undefined }));

    expect(await decide(PROPERTIES_GET, `Bearer ${token}`)).toStrictEqual(DENY_SCOPE);
  });

  it('refuses analytics scopes on groups.list', async () => {
    const token = await sign(claims({ scope: `${READONLY} ${uri('analytics.edit')}` }));

    expect(await decide(GROUPS_LIST, `Bearer ${token}`)).toStrictEqual(DENY_SCOPE);
  });

  it('answers unknown_route for a route key not in the table, before looking at the token', async () => {
    expect(await decide('GET /v2/nope', `Bearer ${await sign()}`)).toStrictEqual({
      effect: 'deny',
      reason: 'unknown_route',
    });
    expect(await decide('PATCH /v2/groups', undefined)).toStrictEqual({ effect: 'deny', reason: 'unknown_route' });
    expect(await decide('GET /v1alpha/properties/1000', `Bearer ${await sign()}`)).toStrictEqual({
      effect: 'deny',
      reason: 'unknown_route',
    });
  });
});

describe('makeDecide: every route × every scope', () => {
  const table = routes as readonly RouteDef[];
  const tokens = new Map<string, string>();
  beforeAll(async () => {
    for (const name of SCOPE_NAMES) tokens.set(name, await sign(claims({ scope: uri(name) })));
    for (const route of table) {
      const others = SCOPE_NAMES.filter((n) => !route.anyOfScopes.includes(n));
      tokens.set(route.id, await sign(claims({ scope: others.map(uri).join(' ') })));
    }
  });

  const cases = table.flatMap((route) => SCOPE_NAMES.map((name) => [route.id, name, route] as const));

  it.each(cases)('%s with only %s', async (_id, name, route) => {
    const d = await decide(routeKey(route), `Bearer ${tokens.get(name)}`);

    if (route.anyOfScopes.includes(name)) {
      expect(d.effect).toBe('allow');
      if (d.effect === 'allow') expect(d.route.id).toBe(route.id);
    } else {
      expect(d).toStrictEqual(DENY_SCOPE);
    }
  });

  it.each(table.map((r) => [r.id, r] as const))(
    '%s refuses a token holding every scope not in its list',
    async (_id, route) => {
      expect(SCOPE_NAMES.filter((n) => !route.anyOfScopes.includes(n)).length).toBeGreaterThan(0);

      expect(await decide(routeKey(route), `Bearer ${tokens.get(route.id)}`)).toStrictEqual(DENY_SCOPE);
    },
  );
});

describe('makeDecide: verifier failures', () => {
  it('maps a verifier rejecting with a plain TypeError to unauthenticated (never a 500)', async () => {
    const failing: TokenVerifier = {
      verify: async () => {
        throw new TypeError('fetch failed');
      },
    };

    expect(await makeDecide(failing, DEFAULT_SCOPE_BASE)(PROPERTIES_GET, 'Bearer abc.def.ghi')).toStrictEqual(
      DENY_UNAUTHENTICATED,
    );
  });

  it('maps a verifier throwing synchronously to unauthenticated', async () => {
    const failing: TokenVerifier = {
      verify: () => {
        throw new TypeError('Protocol "http:" not supported');
      },
    };

    expect(await makeDecide(failing, DEFAULT_SCOPE_BASE)(PROPERTIES_GET, 'Bearer abc.def.ghi')).toStrictEqual(
      DENY_UNAUTHENTICATED,
    );
  });

  it('does not call the verifier when the header carries no bearer token', async () => {
    let calls = 0;
    const counting: TokenVerifier = {
      verify: async () => {
        calls++;
        return { sub: 'alice', scope: READONLY, exp: now() + 60 };
      },
    };
    const d = makeDecide(counting, DEFAULT_SCOPE_BASE);

    expect(await d(PROPERTIES_GET, 'Basic x')).toStrictEqual(DENY_UNAUTHENTICATED);
    expect(calls).toBe(0);
    expect((await d(PROPERTIES_GET, 'Bearer abc')).effect).toBe('allow');
    expect(calls).toBe(1);
  });
});
