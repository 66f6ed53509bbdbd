/**
 * Writes the sample events in events/ (`npm run events`): one realistic REST proxy event per operation and per
 * main error case, and authorizer events. They are templates (see event-template.ts); review the diff, commit.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { kebabId, type RouteDef, routes, routesById } from '../../functions/routes';
import { ROOT } from './settings';

interface Sample {
  variant?: string;
  sub?: string;
  scopes?: string;
  pathname?: string;
  query?: Record<string, string>;
  body?: unknown;
}

const ALICE_VIDEO = 'video-analytics.readonly,video-platform';
const samples: Record<string, Sample[]> = {
  'reports.query': [
    {
      scopes: 'video-analytics.readonly',
      query: {
        ids: 'channel==MINE',
        startDate: '2026-01-01',
        endDate: '2026-01-31',
        metrics: 'views,estimatedMinutesWatched',
        dimensions: 'day',
        sort: 'day',
      },
    },
    {
      variant: 'missing-metrics',
      scopes: 'video-analytics.readonly',
      query: { ids: 'channel==MINE', startDate: '2026-01-01', endDate: '2026-01-31' },
    },
  ],
  'groups.list': [
    { scopes: ALICE_VIDEO, query: { mine: 'true' } },
    { variant: 'by-id', scopes: ALICE_VIDEO, query: { id: 'GROUP_ID_1,GROUP_ID_2' } },
    { variant: 'no-selector', scopes: ALICE_VIDEO, query: {} },
    {
      variant: 'content-owner',
      sub: 'bob',
      scopes: 'video-platform-partner',
      query: { mine: 'true', onBehalfOfContentOwner: 'demo-co' },
    },
  ],
  'groups.insert': [
    {
      scopes: 'video-platform',
      body: { snippet: { title: 'Best of 2026' }, contentDetails: { itemType: 'youtube#video' } },
    },
    { variant: 'missing-title', scopes: 'video-platform', body: { snippet: {} } },
    { variant: 'malformed-body', scopes: 'video-platform', body: '{"snippet": {"title": ' },
    {
      variant: 'foreign-content-owner',
      sub: 'mallory',
      scopes: 'video-platform-partner',
      query: { onBehalfOfContentOwner: 'demo-co' },
      body: { snippet: { title: 'Not mine' } },
    },
  ],
  'groups.update': [
    { scopes: 'video-platform', body: { id: 'GROUP_ID', snippet: { title: 'Renamed group' } } },
    {
      variant: 'stale-etag',
      scopes: 'video-platform',
      body: { id: 'GROUP_ID', etag: '"stale"', snippet: { title: 'Renamed' } },
    },
  ],
  'groups.delete': [
    { scopes: 'video-platform', query: { id: 'GROUP_ID' } },
    { variant: 'missing-id', scopes: 'video-platform', query: {} },
  ],
  'groupItems.list': [
    { scopes: ALICE_VIDEO, query: { groupId: 'GROUP_ID' } },
    { variant: 'missing-group-id', scopes: ALICE_VIDEO, query: {} },
  ],
  'groupItems.insert': [
    { scopes: 'video-platform', body: { groupId: 'GROUP_ID', resource: { kind: 'youtube#video', id: 'alice-v0001' } } },
    {
      variant: 'foreign-video',
      scopes: 'video-platform',
      body: { groupId: 'GROUP_ID', resource: { kind: 'youtube#video', id: 'carol-v0001' } },
    },
    {
      variant: 'kind-not-allowed',
      scopes: 'video-platform',
      body: { groupId: 'GROUP_ID', resource: { kind: 'youtube#channel', id: 'UCdemo-alice' } },
    },
  ],
  'groupItems.delete': [{ scopes: 'video-platform', query: { id: 'GROUP_ITEM_ID' } }],
  'discovery.rest': [
    { query: { version: 'v2' } },
    { variant: 'v1alpha', query: { version: 'v1alpha' } },
    { variant: 'unknown-version', query: { version: 'v9' } },
  ],
  'explorer.page': [{}],
  'properties.get': [
    { scopes: 'analytics.readonly', pathname: '/v1alpha/properties/1000' },
    { variant: 'no-access', sub: 'bob', scopes: 'analytics.readonly', pathname: '/v1alpha/properties/1000' },
    { variant: 'malformed-name', scopes: 'analytics.readonly', pathname: '/v1alpha/properties/abc' },
  ],
};

const headers = (token: string | undefined) => ({
  Accept: 'application/json',
  ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
  Host: 'abc123.execute-api.us-east-1.amazonaws.com',
  'User-Agent': 'google-api-nodejs-client/8.0.3 (gzip)',
  'X-Amzn-Trace-Id': 'Root=1-67a1b2c3-0123456789abcdef01234567',
  'X-Forwarded-For': '203.0.113.10',
  'X-Forwarded-Port': '443',
  'X-Forwarded-Proto': 'https',
});

const multi = <T>(o: Record<string, T> | null) =>
  o ? Object.fromEntries(Object.entries(o).map(([k, v]) => [k, [v]])) : null;

function requestContext(route: RouteDef, pathname: string, sub: string, scopes: string, withAuthorizer: boolean) {
  return {
    accountId: '123456789012',
    apiId: 'abc123',
    resourceId: 'r1x2y3',
    stage: 'v',
    requestId: '0f0e0d0c-1111-2222-3333-444455556666',
    extendedRequestId: 'Ab1CdEfGhIjKlM=',
    requestTime: '22/Nov/2026:10:00:00 +0000',
    requestTimeEpoch: 1795341600000,
    path: `/v${pathname}`,
    protocol: 'HTTP/1.1',
    httpMethod: route.method,
    resourcePath: route.path,
    domainName: 'abc123.execute-api.us-east-1.amazonaws.com',
    identity: { sourceIp: '203.0.113.10', userAgent: 'google-api-nodejs-client/8.0.3 (gzip)' },
    ...(withAuthorizer
      ? { authorizer: { principalId: sub, sub, scope: `\${SCOPE:${scopes}}`, exp: '${EXP}', integrationLatency: 12 } }
      : {}),
  };
}

function proxyEvent(route: RouteDef, s: Sample) {
  const sub = s.sub ?? 'alice';
  const scopes = s.scopes ?? route.anyOfScopes.join(',');
  const pathname = s.pathname ?? route.path;
  const query = s.query && Object.keys(s.query).length ? s.query : null;
  // Public routes have no authorizer: no token, no authorizer context.
  const h = headers(route.public ? undefined : `\${TOKEN:${sub}:${scopes}}`);
  const body = s.body === undefined ? null : typeof s.body === 'string' ? s.body : JSON.stringify(s.body);
  if (body) Object.assign(h, { 'Content-Type': 'application/json' });
  return {
    resource: route.path,
    path: pathname,
    httpMethod: route.method,
    headers: h,
    multiValueHeaders: multi(h),
    queryStringParameters: query,
    multiValueQueryStringParameters: multi(query),
    pathParameters: route.path.includes('{propertiesId}') ? { propertiesId: pathname.split('/').pop() } : null,
    stageVariables: null,
    requestContext: requestContext(route, pathname, sub, scopes, !route.public),
    body,
    isBase64Encoded: false,
  };
}

function authorizerEvent(route: RouteDef, authorization: string | undefined) {
  const h: Record<string, string> = headers('');
  if (authorization === undefined) delete h.Authorization;
  else h.Authorization = authorization;
  return {
    type: 'REQUEST',
    methodArn: `arn:aws:execute-api:us-east-1:123456789012:abc123/v/${route.method}${route.path}`,
    resource: route.path,
    path: route.path,
    httpMethod: route.method,
    headers: h,
    multiValueHeaders: multi(h),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    requestContext: requestContext(route, route.path, '', '', false),
  };
}

const write = (rel: string, data: unknown) => {
  const file = path.join(ROOT, 'events', rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  console.log(`events/${rel}`);
};

for (const route of routes as readonly RouteDef[]) {
  for (const s of samples[route.id] ?? [{}]) {
    write(`${route.family}/${kebabId(route.id)}${s.variant ? `.${s.variant}` : ''}.json`, proxyEvent(route, s));
  }
}
const groupsList = routesById.get('groups.list') as RouteDef;
write('authorizer/allow.json', authorizerEvent(groupsList, 'Bearer ${TOKEN:alice:video-platform}'));
write('authorizer/insufficient-scope.json', authorizerEvent(groupsList, 'Bearer ${TOKEN:alice:analytics.readonly}'));
write('authorizer/missing-header.json', authorizerEvent(groupsList, undefined));
write('authorizer/malformed-header.json', authorizerEvent(groupsList, 'Basic YWxpY2U6c2VjcmV0'));
