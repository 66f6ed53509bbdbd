/** A REST proxy event as API Gateway hands it to a handler once the authorizer allowed it (by default alice). */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { DEFAULT_SCOPE_BASE, scopeUri } from '../../functions/core/scopes';

const inAnHour = () => String(Math.floor(Date.now() / 1000) + 3600);

/** `authorizer`: the authorizer context (default: alice with video-platform, valid for an hour); null for none. */
export function proxyEvent(
  overrides: Partial<APIGatewayProxyEvent> = {},
  authorizer?: Record<string, unknown> | null,
  requestId = 'req-123',
): APIGatewayProxyEvent {
  return {
    resource: '/v2/groups',
    path: '/v2/groups',
    httpMethod: 'GET',
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      requestId,
      authorizer:
        authorizer === undefined
          ? { sub: 'alice', scope: scopeUri(DEFAULT_SCOPE_BASE, 'video-platform'), exp: inAnHour() }
          : authorizer,
    } as unknown as APIGatewayProxyEvent['requestContext'],
    ...overrides,
  };
}
