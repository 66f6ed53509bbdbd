/**
 * THE route table: the API contract as plain data. It drives the CDK stack (infra/constructs/routed-rest-api.ts),
 * the authorizer's scope decision (functions/authorizer/decide.ts), the local server (infra/local/dev-server.ts),
 * the sample events (events/) and the route tests (test/infra/routes.test.ts).
 * Rules: import nothing but types and pure data; never aws-cdk-lib or handler modules.
 */
import type { ScopeName } from './core/scopes';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type TableAccess = 'read' | 'readWrite';
export type ApiFamily = 'youtube-analytics' | 'analytics-admin';

export interface RouteDef {
  /** Google method id, verbatim; CDK construct ids and event file names derive from it. */
  readonly id: string;
  readonly family: ApiFamily;
  readonly method: Method;
  /** API Gateway template syntax. */
  readonly path: `/${string}`;
  /** Module exporting `handler`. */
  readonly entry: `functions/${string}.ts`;
  /** Google semantics: the token needs at least one of these. */
  readonly anyOfScopes: readonly ScopeName[];
  /** Least-privilege table access for the operation's function. */
  readonly table: TableAccess;
  readonly memoryMb?: number;
  /** The operation hands out page tokens, so its function gets the signing secret. */
  readonly pageTokens?: true;
}

const VIDEO_ANALYTICS = ['video-analytics.readonly', 'video-analytics-monetary.readonly'] as const;
const VIDEO_MANAGE = ['video-platform', 'video-platform-partner'] as const;
const VIDEO_ANY = [...VIDEO_ANALYTICS, ...VIDEO_MANAGE] as const;
const GA_READ = ['analytics.readonly', 'analytics.edit'] as const;

export const routes = [
  {
    id: 'reports.query',
    family: 'youtube-analytics',
    method: 'GET',
    path: '/v2/reports',
    entry: 'functions/youtube-analytics/reports-query.ts',
    anyOfScopes: VIDEO_ANALYTICS,
    table: 'read',
    memoryMb: 1024,
  },
  {
    id: 'groups.list',
    family: 'youtube-analytics',
    method: 'GET',
    path: '/v2/groups',
    entry: 'functions/youtube-analytics/groups-list.ts',
    anyOfScopes: VIDEO_ANY,
    table: 'read',
    pageTokens: true,
  },
  {
    id: 'groups.insert',
    family: 'youtube-analytics',
    method: 'POST',
    path: '/v2/groups',
    entry: 'functions/youtube-analytics/groups-insert.ts',
    anyOfScopes: VIDEO_MANAGE,
    table: 'readWrite',
  },
  {
    id: 'groups.update',
    family: 'youtube-analytics',
    method: 'PUT',
    path: '/v2/groups',
    entry: 'functions/youtube-analytics/groups-update.ts',
    anyOfScopes: VIDEO_MANAGE,
    table: 'readWrite',
  },
  {
    id: 'groups.delete',
    family: 'youtube-analytics',
    method: 'DELETE',
    path: '/v2/groups',
    entry: 'functions/youtube-analytics/groups-delete.ts',
    anyOfScopes: VIDEO_MANAGE,
    table: 'readWrite',
  },
  {
    id: 'groupItems.list',
    family: 'youtube-analytics',
    method: 'GET',
    path: '/v2/groupItems',
    entry: 'functions/youtube-analytics/group-items-list.ts',
    anyOfScopes: VIDEO_ANY,
    table: 'read',
  },
  {
    id: 'groupItems.insert',
    family: 'youtube-analytics',
    method: 'POST',
    path: '/v2/groupItems',
    entry: 'functions/youtube-analytics/group-items-insert.ts',
    anyOfScopes: VIDEO_MANAGE,
    table: 'readWrite',
  },
  {
    id: 'groupItems.delete',
    family: 'youtube-analytics',
    method: 'DELETE',
    path: '/v2/groupItems',
    entry: 'functions/youtube-analytics/group-items-delete.ts',
    anyOfScopes: VIDEO_MANAGE,
    table: 'readWrite',
  },
  {
    id: 'properties.get',
    family: 'analytics-admin',
    method: 'GET',
    path: '/v1alpha/properties/{propertyId}',
    entry: 'functions/analytics-admin/properties-get.ts',
    anyOfScopes: GA_READ,
    table: 'read',
  },
] as const satisfies readonly RouteDef[];

export type RouteId = (typeof routes)[number]['id'];

/** The key API Gateway gives a REST authorizer and a proxy event: `${httpMethod} ${resource}`. */
export const routeKey = (r: Pick<RouteDef, 'method' | 'path'>): string => `${r.method} ${r.path}`;

export const routesByKey: ReadonlyMap<string, RouteDef> = new Map(routes.map((r) => [routeKey(r), r]));
export const routesById: ReadonlyMap<string, RouteDef> = new Map(routes.map((r) => [r.id, r]));

/** `groupItems.insert` → `group-items-insert`: the handler and event file stem. */
export const kebabId = (id: string): string => id.replace('.', '-').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** `groupItems.insert` → `GroupItemsInsert`: CDK construct id stem. */
export const pascalId = (id: string): string =>
  id
    .split('.')
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');

/** Matches a concrete request path against the route templates; path parameters are decoded. */
export function matchRoute(
  method: string,
  pathname: string,
): { route: RouteDef; pathParameters: Record<string, string> } | { route: undefined; pathMatched: boolean } {
  let pathMatched = false;
  for (const route of routes as readonly RouteDef[]) {
    const params = matchPath(route.path, pathname);
    if (!params) continue;
    pathMatched = true;
    if (route.method === method) return { route, pathParameters: params };
  }
  return { route: undefined, pathMatched };
}

function matchPath(template: string, pathname: string): Record<string, string> | undefined {
  const t = template.split('/');
  const p = pathname.split('/');
  if (t.length !== p.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < t.length; i++) {
    const seg = t[i] as string;
    const actual = p[i] as string;
    const param = /^\{(\w+)\}$/.exec(seg)?.[1];
    if (param) {
      if (!actual) return undefined;
      try {
        params[param] = decodeURIComponent(actual);
      } catch {
        return undefined;
      }
    } else if (seg !== actual) return undefined;
  }
  return params;
}
