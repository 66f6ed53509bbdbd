/** The REST (REQUEST) authorizer adapter: the only code that knows API Gateway's authorizer contract. */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { AUTHORIZER_OPERATION, METRIC } from '../_shared/metric-names';
import { MetricUnit, measured, withRequestContext } from '../_shared/observability';
import type { AuthorizerContext } from '../_shared/principal';
import type { Decide } from './decide';

const header = (headers: Record<string, string | undefined> | null, name: string): string | undefined => {
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(headers ?? {})) if (k.toLowerCase() === wanted) return v;
  return undefined;
};

/** API Gateway's exact string for a 401 from a REST authorizer. */
export const UNAUTHORIZED = 'Unauthorized';

/**
 * The method ARN of the request's route rather than of its concrete path: `{param}` segments become `*`. API Gateway
 * caches a decision under the token and the route (method and resource path) and evaluates the cached policy against
 * each later request's ARN, so a policy naming `/properties/1000` would refuse `/properties/1001` with the same token.
 */
export function routeArn(event: Pick<APIGatewayRequestAuthorizerEvent, 'methodArn' | 'httpMethod' | 'resource'>) {
  const [api, stage] = event.methodArn.split('/');
  return `${api}/${stage}/${event.httpMethod}${event.resource.replace(/\{[^/}]+\}/g, '*')}`;
}

/**
 * Allow → policy for this route's ARN (the cache key includes the route, so it never crosses routes).
 * Unauthenticated → throw "Unauthorized" (API Gateway's exact string for a 401). Insufficient scope → Deny (403).
 */
export const makeAuthorizer =
  (decide: Decide) =>
  async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
    const d = await decide(`${event.httpMethod} ${event.resource}`, header(event.headers, 'authorization'));
    if (d.effect === 'allow') {
      const context: AuthorizerContext = {
        sub: d.principal.sub,
        scope: d.principal.scope,
        exp: String(d.principal.exp),
      };
      return policy(d.principal.sub, 'Allow', routeArn(event), { ...context });
    }
    if (d.reason === 'unauthenticated') throw new Error(UNAUTHORIZED);
    return policy('anonymous', 'Deny', routeArn(event), { reason: d.reason });
  };

/**
 * The Lambda entry: makeAuthorizer with the request id in every log line and its 401s as a metric. A 401 is a
 * thrown "Unauthorized", which Lambda counts as a function error: the errors alarm subtracts these.
 */
export const makeLambdaAuthorizer = (decide: Decide) => {
  const authorize = makeAuthorizer(decide);
  return withRequestContext(
    AUTHORIZER_OPERATION,
    (event: APIGatewayRequestAuthorizerEvent) =>
      measured(AUTHORIZER_OPERATION, async (figures) => {
        try {
          return await authorize(event);
        } catch (error) {
          if (error instanceof Error && error.message === UNAUTHORIZED) {
            figures.add(METRIC.unauthenticated, MetricUnit.Count, 1);
          }
          throw error;
        }
      }),
    (event) => event.requestContext?.requestId,
  );
};

const policy = (
  principalId: string,
  effect: 'Allow' | 'Deny',
  resource: string,
  context: Record<string, string>,
): APIGatewayAuthorizerResult => ({
  principalId,
  policyDocument: {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: resource }],
  },
  context,
});
