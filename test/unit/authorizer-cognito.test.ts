/**
 * The authorizer with a user pool (`-c userPool=true`): the REAL aws-jwt-verify CognitoJwtVerifier, given the pool's
 * public keys with cacheJwks (no network), next to the OIDC verifier of a team's own issuer. Tokens are signed here
 * with real RSA keys in the shapes Cognito issues: access tokens (no `aud`; `client_id`, `token_use: access`, `scope`
 * space-separated) and ID tokens (`aud` = client id, `token_use: id`), which must be refused.
 */
import type { Jwks } from 'aws-jwt-verify/jwk';
import { type CryptoKey, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Decide, makeDecide } from '../../functions/authorizer/decide';
import { anyOfVerifiers, createCognitoVerifier, createVerifier } from '../../functions/authorizer/verifier';
import { DEFAULT_SCOPE_BASE, type ScopeName, scopeUri } from '../../functions/core/scopes';

const POOL_ID = 'us-east-1_TeamPool1';
const POOL_ISSUER = `https://cognito-idp.us-east-1.amazonaws.com/${POOL_ID}`;
const PEOPLE_CLIENT = '4people0client0id0000000000';
const SERVICE_CLIENT = '7service0client0id000000000';
const OIDC_ISSUER = 'https://idp.team.invalid';
const OIDC_AUDIENCE = 'analytics-api';
const REPORTS = 'GET /v2/reports';
const GROUPS_INSERT = 'POST /v2/groups';
const uri = (name: ScopeName) => scopeUri(DEFAULT_SCOPE_BASE, name);

let poolKey: CryptoKey;
let oidcKey: CryptoKey;
let poolJwks: Jwks;
let oidcJwks: Jwks;
let cognitoOnly: Decide;
let both: Decide;

const now = () => Math.floor(Date.now() / 1000);

/** An access token as Cognito issues it (client credentials: `sub` is the client id). */
const accessClaims = (overrides: Record<string, unknown> = {}): JWTPayload => {
  const t = now();
  const base: Record<string, unknown> = {
    sub: SERVICE_CLIENT,
    token_use: 'access',
    scope: `${uri('video-analytics.readonly')} ${uri('video-platform')}`,
    auth_time: t,
    iss: POOL_ISSUER,
    exp: t + 3600,
    iat: t,
    version: 2,
    jti: 'a1b2c3',
    client_id: SERVICE_CLIENT,
    ...overrides,
  };
  for (const [k, v] of Object.entries(base)) if (v === undefined) delete base[k];
  return base as JWTPayload;
};

const sign = (payload: JWTPayload, key: CryptoKey = poolKey, kid = 'pool-key') =>
  new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid }).sign(key);

const bearer = async (payload: JWTPayload, key?: CryptoKey, kid?: string) => `Bearer ${await sign(payload, key, kid)}`;

beforeAll(async () => {
  const pool = await generateKeyPair('RS256', { extractable: true });
  const oidc = await generateKeyPair('RS256', { extractable: true });
  poolKey = pool.privateKey;
  oidcKey = oidc.privateKey;
  poolJwks = { keys: [{ ...(await exportJWK(pool.publicKey)), kid: 'pool-key', alg: 'RS256', use: 'sig' }] } as Jwks;
  oidcJwks = { keys: [{ ...(await exportJWK(oidc.publicKey)), kid: 'oidc-key', alg: 'RS256', use: 'sig' }] } as Jwks;
  const cognito = () =>
    createCognitoVerifier({ userPoolId: POOL_ID, clientIds: [PEOPLE_CLIENT, SERVICE_CLIENT], jwks: poolJwks });
  cognitoOnly = makeDecide(cognito(), DEFAULT_SCOPE_BASE);
  const own = createVerifier({
    issuer: OIDC_ISSUER,
    audience: OIDC_AUDIENCE,
    jwksUri: `${OIDC_ISSUER}/.well-known/jwks.json`,
    jwks: oidcJwks,
  });
  both = makeDecide(anyOfVerifiers([own, cognito()]), DEFAULT_SCOPE_BASE);
});

describe('Cognito access tokens', () => {
  it('a service token (client credentials) with the reports scope is allowed; its sub is the client id', async () => {
    const d = await cognitoOnly(REPORTS, await bearer(accessClaims()));

    expect(d.effect).toBe('allow');
    expect(d.effect === 'allow' && d.principal.sub).toBe(SERVICE_CLIENT);
  });

  it("a person's token (hosted UI, people client) carries the user's sub", async () => {
    const d = await cognitoOnly(
      GROUPS_INSERT,
      await bearer(accessClaims({ sub: '8f1c5a3e-person', client_id: PEOPLE_CLIENT, username: 'erin' })),
    );

    expect(d).toMatchObject({ effect: 'allow', principal: { sub: '8f1c5a3e-person' } });
  });

  it('Cognito scope strings are the service scopes: one missing for the route → 403', async () => {
    const d = await cognitoOnly(GROUPS_INSERT, await bearer(accessClaims({ scope: uri('video-analytics.readonly') })));

    expect(d).toEqual({ effect: 'deny', reason: 'insufficient_scope' });
  });

  it.each([
    ['an ID token (token_use id, aud = client id)', { token_use: 'id', aud: PEOPLE_CLIENT, client_id: undefined }],
    ['token_use missing', { token_use: undefined }],
    ['another app client', { client_id: 'some-other-client', sub: 'some-other-client' }],
    ['expired', { exp: now() - 60, iat: now() - 3660 }],
    ['no exp', { exp: undefined }],
    ['another user pool', { iss: 'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_OtherPool' }],
  ])('%s → 401', async (_, overrides) => {
    expect(await cognitoOnly(REPORTS, await bearer(accessClaims(overrides)))).toEqual({
      effect: 'deny',
      reason: 'unauthenticated',
    });
  });

  it("a token signed by a key that is not the pool's → 401", async () => {
    expect(await cognitoOnly(REPORTS, await bearer(accessClaims(), oidcKey, 'pool-key'))).toEqual({
      effect: 'deny',
      reason: 'unauthenticated',
    });
  });
});

describe('both issuers at once (the team’s own OIDC issuer and the user pool)', () => {
  const oidcClaims = (overrides: Record<string, unknown> = {}): JWTPayload => ({
    iss: OIDC_ISSUER,
    aud: OIDC_AUDIENCE,
    sub: 'erin@team',
    scope: uri('video-analytics.readonly'),
    iat: now(),
    exp: now() + 600,
    ...overrides,
  });

  it('accepts an access token of either', async () => {
    expect((await both(REPORTS, await bearer(accessClaims()))).effect).toBe('allow');
    const own = await both(REPORTS, await bearer(oidcClaims(), oidcKey, 'oidc-key'));
    expect(own).toMatchObject({ effect: 'allow', principal: { sub: 'erin@team' } });
  });

  it("refuses a Cognito ID token, and an OIDC token with the wrong audience or the pool's issuer", async () => {
    for (const token of [
      await bearer(accessClaims({ token_use: 'id', aud: PEOPLE_CLIENT, client_id: undefined })),
      await bearer(oidcClaims({ aud: 'someone-else' }), oidcKey, 'oidc-key'),
      // The pool's issuer, signed with the team's key: the pool's keys decide, and refuse it.
      await bearer(accessClaims(), oidcKey, 'oidc-key'),
    ]) {
      expect(await both(REPORTS, token)).toEqual({ effect: 'deny', reason: 'unauthenticated' });
    }
  });
});
