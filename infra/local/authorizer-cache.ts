/**
 * API Gateway's authorizer results cache, for the local server. The stack caches a decision for
 * `authorizerCacheTtlSeconds` under its identity sources (the Authorization header, the HTTP method and the resource
 * path: infra/constructs/routed-rest-api.ts), and the gateway evaluates the policy, cached or fresh, against the
 * method ARN of each request. A thrown Unauthorized (401) is not kept.
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';

export type Authorize = (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

/** More distinct callers than a local server sees; beyond it the oldest decision goes first. */
const MAX_ENTRIES = 10_000;

export function cachingAuthorizer(authorize: Authorize, ttlSeconds: number, now: () => number = Date.now): Authorize {
  if (ttlSeconds <= 0) return authorize;
  const decisions = new Map<string, { result: APIGatewayAuthorizerResult; until: number }>();
  return async (event) => {
    const authorization = event.headers?.authorization ?? event.headers?.Authorization;
    // Without the identity source the gateway never calls the authorizer, so there is nothing to keep.
    if (authorization === undefined) return authorize(event);
    const key = `${authorization}\n${event.httpMethod}\n${event.resource}`;
    const cached = decisions.get(key);
    if (cached && cached.until > now()) return cached.result;
    const result = await authorize(event);
    decisions.delete(key);
    if (decisions.size >= MAX_ENTRIES) decisions.delete(decisions.keys().next().value as string);
    decisions.set(key, { result, until: now() + ttlSeconds * 1000 });
    return result;
  };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Compiled policy resources: a local server sees a handful of routes, each checked on every request. */
const patterns = new Map<string, RegExp>();

/** An execute-api policy resource (`*` matches any run of characters) against a method ARN. */
function resourceMatches(resource: string, methodArn: string): boolean {
  if (resource === methodArn) return true;
  if (!resource.includes('*')) return false;
  let pattern = patterns.get(resource);
  if (!pattern) {
    pattern = new RegExp(`^${resource.split('*').map(escapeRegExp).join('.*')}$`);
    if (patterns.size < 1000) patterns.set(resource, pattern);
  }
  return pattern.test(methodArn);
}

/** Whether the policy lets a request to `methodArn` through: an Allow that covers it and no Deny that does. */
export function policyAllows(result: APIGatewayAuthorizerResult, methodArn: string): boolean {
  const covering = result.policyDocument.Statement.filter((s) => {
    const resources = 'Resource' in s ? s.Resource : [];
    return (Array.isArray(resources) ? resources : [resources]).some((r) => resourceMatches(String(r), methodArn));
  });
  return covering.some((s) => s.Effect === 'Allow') && !covering.some((s) => s.Effect === 'Deny');
}
