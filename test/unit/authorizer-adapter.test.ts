/**
 * The REST REQUEST authorizer adapter (makeAuthorizer) over a real decide and a real verifier for the local issuer,
 * driven by the committed authorizer fixtures (events/authorizer/*.json) and by hand-built events.
 */
import path from 'node:path';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeAuthorizer } from '../../functions/authorizer/authorize';
import { makeDecide } from '../../functions/authorizer/decide';
import { createVerifier } from '../../functions/authorizer/verifier';
import { DEFAULT_SCOPE_BASE, scopeUri } from '../../functions/core/scopes';
import { policyAllows } from '../../infra/local/authorizer-cache';
import { loadEvent, type TemplateContext } from '../../infra/local/event-template';
import {
  createIssuerKey,
  DEFAULT_AUDIENCE,
  type IssuerKey,
  LOCAL_ISSUER,
  LOCAL_JWKS_URI,
  localJwks,
  mintToken,
} from '../../infra/local/local-issuer';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const fixture = (name: string) => path.join(ROOT, 'events', 'authorizer', name);
const GROUPS_ARN = 'arn:aws:execute-api:us-east-1:123456789012:abc123/v/GET/v2/groups';
const PROPERTY_ARN = 'arn:aws:execute-api:us-east-1:123456789012:abc123/v/GET/v1alpha/properties/1000';
const PROPERTY_ROUTE_ARN = 'arn:aws:execute-api:us-east-1:123456789012:abc123/v/GET/v1alpha/properties/*';

type Authorizer = ReturnType<typeof makeAuthorizer>;
let issuerKey: IssuerKey;
let ctx: TemplateContext;
let authorize: Authorizer;

const token = (sub: string, scopes: string[], extra: { expiresInSeconds?: number } = {}) =>
  mintToken(issuerKey, { sub, scopes, scopeBase: DEFAULT_SCOPE_BASE, ...extra });

/** A minimal REST REQUEST authorizer event, as API Gateway sends it. */
function event(
  resource: string,
  pathname: string,
  headers: Record<string, string> | null,
  methodArn: string,
  httpMethod = 'GET',
): APIGatewayRequestAuthorizerEvent {
  return {
    type: 'REQUEST',
    methodArn,
    resource,
    path: pathname,
    httpMethod,
    headers,
    multiValueHeaders: headers ? Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])) : null,
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    requestContext: {} as APIGatewayRequestAuthorizerEvent['requestContext'],
  };
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the authorizer to throw');
}

const expectUnauthorized = async (p: Promise<APIGatewayAuthorizerResult>) => {
  const err = await rejection(p);
  expect(err).toBeInstanceOf(Error);
  expect((err as Error).message).toBe('Unauthorized');
};

const allowPolicy = (principalId: string, resource: string, context: Record<string, string>) => ({
  principalId,
  policyDocument: {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: resource }],
  },
  context,
});

const expectDeny = (result: APIGatewayAuthorizerResult, resource: string) => {
  expect(result.policyDocument.Statement).toStrictEqual([
    { Action: 'execute-api:Invoke', Effect: 'Deny', Resource: resource },
  ]);
  expect(result.policyDocument.Version).toBe('2012-10-17');
  // A deny never carries an identity into the integration.
  expect(result.context?.sub).toBeUndefined();
  expect(result.context?.scope).toBeUndefined();
};

beforeAll(async () => {
  issuerKey = await createIssuerKey();
  ctx = { issuerKey, audience: DEFAULT_AUDIENCE, scopeBase: DEFAULT_SCOPE_BASE };
  const verifier = createVerifier({
    issuer: LOCAL_ISSUER,
    audience: DEFAULT_AUDIENCE,
    jwksUri: LOCAL_JWKS_URI,
    jwks: localJwks(issuerKey) as never,
  });
  authorize = makeAuthorizer(makeDecide(verifier, DEFAULT_SCOPE_BASE));
});

describe('makeAuthorizer: hand-built events', () => {
  it('Allow: policy on exactly event.methodArn, context {sub, scope, exp as string}', async () => {
    const t = await token('alice', ['video-platform']);
    const result = await authorize(event('/v2/groups', '/v2/groups', { Authorization: `Bearer ${t}` }, GROUPS_ARN));

    expect(result).toStrictEqual(
      allowPolicy('alice', GROUPS_ARN, {
        sub: 'alice',
        scope: scopeUri(DEFAULT_SCOPE_BASE, 'video-platform'),
        exp: String(decodeJwt(t).exp),
      }),
    );
    expect(typeof result.context?.exp).toBe('string');
  });

  it('Allow for properties.get covers its route (path parameters as *): a cached decision serves every property', async () => {
    const t = await token('bob', ['analytics.edit']);
    const result = await authorize(
      event(
        '/v1alpha/properties/{propertiesId}',
        '/v1alpha/properties/1000',
        { Authorization: `Bearer ${t}` },
        PROPERTY_ARN,
      ),
    );

    expect(result).toStrictEqual(
      allowPolicy('bob', PROPERTY_ROUTE_ARN, {
        sub: 'bob',
        scope: scopeUri(DEFAULT_SCOPE_BASE, 'analytics.edit'),
        exp: String(decodeJwt(t).exp),
      }),
    );
    // API Gateway checks the cached policy against the ARN of each later request of the route, and of no other.
    expect(policyAllows(result, PROPERTY_ARN.replace(/1000$/, '1001'))).toBe(true);
    expect(policyAllows(result, PROPERTY_ARN.replace('/GET/', '/DELETE/'))).toBe(false);
    expect(policyAllows(result, GROUPS_ARN)).toBe(false);
  });

  it('finds the Authorization header whatever its casing', async () => {
    const t = await token('alice', ['video-platform']);
    const result = await authorize(event('/v2/groups', '/v2/groups', { authorization: `Bearer ${t}` }, GROUPS_ARN));

    expect(result.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow', Resource: GROUPS_ARN });
  });

  it('insufficient scope: Deny policy on the method ARN (403), not a throw', async () => {
    const t = await token('alice', ['analytics.readonly']);
    const result = await authorize(event('/v2/groups', '/v2/groups', { Authorization: `Bearer ${t}` }, GROUPS_ARN));

    expectDeny(result, GROUPS_ARN);
    expect(result.context).toStrictEqual({ reason: 'insufficient_scope' });
  });

  it('unknown route: Deny', async () => {
    const t = await token('alice', ['video-platform']);
    const arn = GROUPS_ARN.replace('/GET/v2/groups', '/GET/v2/nope');
    const result = await authorize(event('/v2/nope', '/v2/nope', { Authorization: `Bearer ${t}` }, arn));

    expectDeny(result, arn);
  });

  it('no headers at all → throws exactly "Unauthorized"', async () => {
    await expectUnauthorized(authorize(event('/v2/groups', '/v2/groups', null, GROUPS_ARN)));
  });

  it('expired token → throws exactly "Unauthorized"', async () => {
    const t = await token('alice', ['video-platform'], { expiresInSeconds: -60 });

    await expectUnauthorized(
      authorize(event('/v2/groups', '/v2/groups', { Authorization: `Bearer ${t}` }, GROUPS_ARN)),
    );
  });

  it('token of another issuer key → throws exactly "Unauthorized"', async () => {
    const other = await createIssuerKey();
    const t = await mintToken(other, { sub: 'alice', scopes: ['video-platform'], scopeBase: DEFAULT_SCOPE_BASE });

    await expectUnauthorized(
      authorize(event('/v2/groups', '/v2/groups', { Authorization: `Bearer ${t}` }, GROUPS_ARN)),
    );
  });

  it('bare token without the Bearer scheme → throws exactly "Unauthorized"', async () => {
    const t = await token('alice', ['video-platform']);

    await expectUnauthorized(authorize(event('/v2/groups', '/v2/groups', { Authorization: t }, GROUPS_ARN)));
  });
});

describe('makeAuthorizer: the committed fixtures in events/authorizer', () => {
  it('allow.json → Allow on its methodArn with the principal of the fixture token', async () => {
    const e = await loadEvent<APIGatewayRequestAuthorizerEvent>(fixture('allow.json'), ctx);
    const result = await authorize(e);

    expect(result.principalId).toBe('alice');
    expect(result.policyDocument.Statement).toStrictEqual([
      { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: e.methodArn },
    ]);
    expect(result.context).toMatchObject({ sub: 'alice', scope: scopeUri(DEFAULT_SCOPE_BASE, 'video-platform') });
    expect(Number(result.context?.exp)).toBeGreaterThan(Date.now() / 1000);
  });

  it('insufficient-scope.json → Deny on its methodArn', async () => {
    const e = await loadEvent<APIGatewayRequestAuthorizerEvent>(fixture('insufficient-scope.json'), ctx);
    const result = await authorize(e);

    expectDeny(result, e.methodArn);
    expect(result.context).toStrictEqual({ reason: 'insufficient_scope' });
  });

  it('missing-header.json → throws exactly "Unauthorized"', async () => {
    const e = await loadEvent<APIGatewayRequestAuthorizerEvent>(fixture('missing-header.json'), ctx);

    expect(Object.keys(e.headers ?? {}).map((k) => k.toLowerCase())).not.toContain('authorization');
    await expectUnauthorized(authorize(e));
  });

  it('malformed-header.json → throws exactly "Unauthorized"', async () => {
    const e = await loadEvent<APIGatewayRequestAuthorizerEvent>(fixture('malformed-header.json'), ctx);

    await expectUnauthorized(authorize(e));
  });
});
