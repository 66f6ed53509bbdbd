/** Turns a local HTTP request into the events API Gateway (REST, proxy integration) gives Lambda. */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import type { RouteDef } from '../../functions/routes';

export const LOCAL_ACCOUNT = '123456789012';
export const LOCAL_API_ID = 'local';
export const LOCAL_STAGE = 'local';

export interface LocalRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
  sourceIp?: string;
}

function headerMaps(headers: IncomingHttpHeaders) {
  const single: Record<string, string> = Object.create(null);
  const multi: Record<string, string[]> = Object.create(null);
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    // API Gateway keeps the client's header-name casing; Node lower-cases them. Handlers must not care.
    single[name] = values[values.length - 1] as string;
    multi[name] = values;
  }
  return { single, multi };
}

/**
 * The name/value pairs of a query, as URLSearchParams decodes them. Without `%` or `+` decoding changes nothing, so
 * the pairs are split off the text directly (the common case, and cheaper than building the URLSearchParams).
 */
function queryPairs(url: URL): Iterable<[string, string]> {
  const search = url.search.slice(1);
  if (search.includes('%') || search.includes('+')) return url.searchParams;
  const pairs: [string, string][] = [];
  for (const part of search.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    pairs.push(eq < 0 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)]);
  }
  return pairs;
}

function queryMaps(url: URL): { single: Record<string, string> | null; multi: Record<string, string[]> | null } {
  if (url.search === '') return { single: null, multi: null };
  // Prototype-free maps: a parameter named `constructor` or `__proto__` is just a name (as on API Gateway).
  const single: Record<string, string> = Object.create(null);
  const multi: Record<string, string[]> = Object.create(null);
  let any = false;
  for (const [name, value] of queryPairs(url)) {
    any = true;
    single[name] = value;
    const values = multi[name];
    if (values) values.push(value);
    else multi[name] = [value];
  }
  return any ? { single, multi } : { single: null, multi: null };
}

interface RequestParts {
  readonly h: ReturnType<typeof headerMaps>;
  readonly q: ReturnType<typeof queryMaps>;
  context?: { readonly requestId: string; readonly value: ReturnType<typeof buildRequestContext> };
}

/**
 * What a request's authorizer event and proxy event share, built once for both (read-only). One slot, not a map:
 * the two events of a request are built one after the other; another request between them only costs a rebuild.
 */
let lastParts: { readonly req: LocalRequest; readonly parts: RequestParts } | undefined;
function partsOf(req: LocalRequest): RequestParts {
  if (lastParts?.req !== req) lastParts = { req, parts: { h: headerMaps(req.headers), q: queryMaps(req.url) } };
  return lastParts.parts;
}

export const methodArn = (route: RouteDef, pathname: string) =>
  `arn:aws:execute-api:us-east-1:${LOCAL_ACCOUNT}:${LOCAL_API_ID}/${LOCAL_STAGE}/${route.method}${pathname}`;

function requestContext(req: LocalRequest, route: RouteDef, requestId: string) {
  const parts = partsOf(req);
  if (parts.context?.requestId !== requestId) {
    parts.context = { requestId, value: buildRequestContext(req, route, requestId) };
  }
  return parts.context.value;
}

function buildRequestContext(req: LocalRequest, route: RouteDef, requestId: string) {
  const now = Date.now();
  return {
    accountId: LOCAL_ACCOUNT,
    apiId: LOCAL_API_ID,
    resourceId: route.id,
    stage: LOCAL_STAGE,
    requestId,
    extendedRequestId: requestId,
    requestTime: new Date(now).toUTCString(),
    requestTimeEpoch: now,
    // The path as the client called it: the local server is like a custom domain mapped at the root (no stage).
    path: req.url.pathname,
    protocol: 'HTTP/1.1',
    httpMethod: route.method,
    resourcePath: route.path,
    domainName: req.url.host,
    identity: {
      sourceIp: req.sourceIp ?? '127.0.0.1',
      userAgent: String(req.headers['user-agent'] ?? ''),
      accessKey: null,
      accountId: null,
      apiKey: null,
      apiKeyId: null,
      caller: null,
      clientCert: null,
      cognitoAuthenticationProvider: null,
      cognitoAuthenticationType: null,
      cognitoIdentityId: null,
      cognitoIdentityPoolId: null,
      principalOrgId: null,
      user: null,
      userArn: null,
    },
  };
}

export function toAuthorizerEvent(
  req: LocalRequest,
  route: RouteDef,
  pathParameters: Record<string, string>,
  requestId: string,
): APIGatewayRequestAuthorizerEvent {
  const { h, q } = partsOf(req);
  return {
    type: 'REQUEST',
    methodArn: methodArn(route, req.url.pathname),
    resource: route.path,
    path: req.url.pathname,
    httpMethod: route.method,
    headers: h.single,
    multiValueHeaders: h.multi,
    queryStringParameters: q.single,
    multiValueQueryStringParameters: q.multi,
    pathParameters,
    stageVariables: null,
    requestContext: requestContext(
      req,
      route,
      requestId,
    ) as unknown as APIGatewayRequestAuthorizerEvent['requestContext'],
  };
}

export function toProxyEvent(
  req: LocalRequest,
  route: RouteDef,
  pathParameters: Record<string, string>,
  authorizer: Record<string, string>,
  requestId: string = randomUUID(),
): APIGatewayProxyEvent {
  const { h, q } = partsOf(req);
  return {
    resource: route.path,
    path: req.url.pathname,
    httpMethod: route.method,
    headers: h.single,
    multiValueHeaders: h.multi,
    queryStringParameters: q.single,
    multiValueQueryStringParameters: q.multi,
    pathParameters: Object.keys(pathParameters).length ? pathParameters : null,
    stageVariables: null,
    requestContext: {
      ...requestContext(req, route, requestId),
      authorizer: { ...authorizer, integrationLatency: 0 },
    } as unknown as APIGatewayProxyEvent['requestContext'],
    body: req.body === '' ? null : req.body,
    isBase64Encoded: false,
  };
}
