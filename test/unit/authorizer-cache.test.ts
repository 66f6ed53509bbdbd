/**
 * The local server's copy of API Gateway's authorizer results cache (infra/local/authorizer-cache.ts): decisions kept
 * under token, method and resource for the TTL, 401s never kept, policies evaluated against each request's ARN.
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { type Authorize, cachingAuthorizer, policyAllows } from '../../infra/local/authorizer-cache';

const API = 'arn:aws:execute-api:us-east-1:123456789012:abc123/v';

const event = (authorization: string | undefined, httpMethod = 'GET', resource = '/v2/groups') =>
  ({
    type: 'REQUEST',
    methodArn: `${API}/${httpMethod}${resource}`,
    resource,
    httpMethod,
    headers: authorization === undefined ? {} : { authorization },
  }) as unknown as APIGatewayRequestAuthorizerEvent;

const policy = (effect: 'Allow' | 'Deny', resource: string | string[]): APIGatewayAuthorizerResult => ({
  principalId: 'p',
  policyDocument: {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: resource }],
  },
});

/** An authorizer that counts its calls: Allow for tokens starting with `ok`, 401 otherwise. */
function counting(): { authorize: Authorize; calls: () => number } {
  let calls = 0;
  return {
    calls: () => calls,
    authorize: async (e) => {
      calls++;
      if (!e.headers?.authorization?.startsWith('ok')) throw new Error('Unauthorized');
      return policy('Allow', e.methodArn);
    },
  };
}

describe('cachingAuthorizer', () => {
  it('reuses a decision for the same token, method and resource until the TTL runs out', async () => {
    let now = 1_000_000;
    const inner = counting();
    const authorize = cachingAuthorizer(inner.authorize, 60, () => now);

    await authorize(event('ok-1'));
    await authorize(event('ok-1'));
    now += 59_999;
    await authorize(event('ok-1'));
    expect(inner.calls()).toBe(1);

    now += 1;
    await authorize(event('ok-1'));
    expect(inner.calls()).toBe(2);
  });

  it('keys on each identity source: another token, method or resource is decided afresh', async () => {
    const inner = counting();
    const authorize = cachingAuthorizer(inner.authorize, 60);

    await authorize(event('ok-1'));
    await authorize(event('ok-2'));
    await authorize(event('ok-1', 'POST'));
    await authorize(event('ok-1', 'GET', '/v2/groupItems'));

    expect(inner.calls()).toBe(4);
  });

  it('never keeps a 401, nor decides for a request without the Authorization header', async () => {
    const inner = counting();
    const authorize = cachingAuthorizer(inner.authorize, 60);

    await expect(authorize(event('bad'))).rejects.toThrow('Unauthorized');
    await expect(authorize(event('bad'))).rejects.toThrow('Unauthorized');
    await expect(authorize(event(undefined))).rejects.toThrow('Unauthorized');

    expect(inner.calls()).toBe(3);
  });

  it('a TTL of 0 keeps nothing (the stack with caching off)', async () => {
    const inner = counting();
    const authorize = cachingAuthorizer(inner.authorize, 0);

    await authorize(event('ok-1'));
    await authorize(event('ok-1'));

    expect(inner.calls()).toBe(2);
  });
});

describe('policyAllows', () => {
  const arn = `${API}/GET/v1alpha/properties/1000`;

  it('needs an Allow whose resource covers the ARN (* spans any characters)', () => {
    expect(policyAllows(policy('Allow', arn), arn)).toBe(true);
    expect(policyAllows(policy('Allow', `${API}/GET/v1alpha/properties/*`), arn)).toBe(true);
    expect(policyAllows(policy('Allow', [`${API}/GET/v2/groups`, `${API}/*`]), arn)).toBe(true);
    expect(policyAllows(policy('Allow', `${API}/GET/v1alpha/properties/1001`), arn)).toBe(false);
    expect(policyAllows(policy('Allow', `${API}/POST/v1alpha/properties/*`), arn)).toBe(false);
  });

  it('a Deny that covers the ARN wins; a Deny elsewhere does not matter', () => {
    const both = (deny: string): APIGatewayAuthorizerResult => ({
      principalId: 'p',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [
          { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: `${API}/*` },
          { Action: 'execute-api:Invoke', Effect: 'Deny', Resource: deny },
        ],
      },
    });

    expect(policyAllows(both(arn), arn)).toBe(false);
    expect(policyAllows(both(`${API}/GET/v2/groups`), arn)).toBe(true);
    expect(policyAllows(policy('Deny', arn), arn)).toBe(false);
  });

  it('treats the ARN literally: regular-expression characters in it match only themselves', () => {
    expect(policyAllows(policy('Allow', `${API}/GET/v1alpha/properties/1.00`), arn)).toBe(false);
  });
});
