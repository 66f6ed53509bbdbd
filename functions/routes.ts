/**
 * THE route table: the API contract as plain data. It drives the CDK stack (infra/constructs/routed-rest-api.ts),
 * the authorizer's scope decision (functions/authorizer/decide.ts), the local server (infra/local/dev-server.ts),
 * the sample events (events/), the route tests (test/infra/routes.test.ts) and the discovery documents
 * (functions/discovery/: parameters, bodies and scopes of each operation).
 * Rules: import nothing but types and pure data; never aws-cdk-lib or handler modules.
 */
import type { ScopeName } from './core/scopes';
import type { SchemaName } from './schemas';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type TableAccess = 'read' | 'readWrite';
/** The two Google APIs, plus the service's own public pages (discovery documents, Query Explorer). */
export type ApiFamily = 'youtube-analytics' | 'analytics-admin' | 'discovery' | 'explorer';

/** An operation parameter as the discovery document describes it (system parameters are in system-parameters.ts). */
export interface ParameterDef {
  readonly type: 'string' | 'integer' | 'boolean';
  readonly location: 'query' | 'path';
  readonly description: string;
  readonly format?: 'int32';
  readonly required?: true;
  readonly pattern?: string;
}

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
  /** Answered without a token (no authorizer), as Google's discovery documents are. */
  readonly public?: true;
  /** Deployed only when this stack option is on (the local server always serves it). */
  readonly option?: 'explorer';
  /** Discovery: what the operation does, its own parameters and its body schemas. */
  readonly description?: string;
  readonly parameters?: Readonly<Record<string, ParameterDef>>;
  readonly request?: SchemaName;
  readonly response?: SchemaName;
  /** Discovery path when it differs from `path` (gRPC transcoding: `v1alpha/{+name}`); `path` is the flatPath. */
  readonly discoveryPath?: string;
}

const VIDEO_ANALYTICS = ['video-analytics.readonly', 'video-analytics-monetary.readonly'] as const;
const VIDEO_MANAGE = ['video-platform', 'video-platform-partner'] as const;
const VIDEO_ANY = [...VIDEO_ANALYTICS, ...VIDEO_MANAGE] as const;
const GA_READ = ['analytics.readonly', 'analytics.edit'] as const;

const query = (description: string, extra: Partial<ParameterDef> = {}): ParameterDef => ({
  type: 'string',
  location: 'query',
  description,
  ...extra,
});
const ON_BEHALF = {
  onBehalfOfContentOwner: query(
    'Act for this content owner (CMS id), which the caller must manage; needs the video-platform-partner scope.',
  ),
};

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
    description: 'Returns an analytics report.',
    response: 'QueryResponse',
    parameters: {
      currency: query('ISO 4217 code financial metrics are converted to (default USD). Pattern: [A-Z]{3}.'),
      dimensions: query('Comma-separated dimensions, e.g. `day` or `ageGroup,gender`.'),
      endDate: query('Last day of the report, YYYY-MM-DD. Required.'),
      filters: query('Filters joined by `;`, e.g. `video==VIDEO_ID;country==IT`.'),
      ids: query('Whose data: `channel==MINE`, `channel==CHANNEL_ID` or `contentOwner==OWNER_NAME`. Required.'),
      includeHistoricalChannelData: query(
        'Content-owner reports: include channel data from before the channel was linked.',
        { type: 'boolean' },
      ),
      maxResults: query('Maximum number of rows (at least 1).', { type: 'integer', format: 'int32' }),
      metrics: query('Comma-separated metrics, e.g. `views,likes`. Required.'),
      sort: query('Comma-separated dimensions or metrics to sort by; a leading `-` sorts descending.'),
      startDate: query('First day of the report, YYYY-MM-DD. Required.'),
      startIndex: query('1-based index of the first row, for paging with maxResults.', {
        type: 'integer',
        format: 'int32',
      }),
    },
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
    description: "Returns the caller's groups, all of them (mine=true, paged) or by ID.",
    response: 'ListGroupsResponse',
    parameters: {
      id: query('Comma-separated group IDs (at most 50). Either this or mine=true.'),
      mine: query("True for all of the caller's groups.", { type: 'boolean' }),
      ...ON_BEHALF,
      pageToken: query('The nextPageToken of the previous page.'),
    },
  },
  {
    id: 'groups.insert',
    family: 'youtube-analytics',
    method: 'POST',
    path: '/v2/groups',
    entry: 'functions/youtube-analytics/groups-insert.ts',
    anyOfScopes: VIDEO_MANAGE,
    table: 'readWrite',
    description: 'Creates a group.',
    parameters: ON_BEHALF,
    request: 'Group',
    response: 'Group',
  },
  {
    id: 'groups.update',
    family: 'youtube-analytics',
    method: 'PUT',
    path: '/v2/groups',
    entry: 'functions/youtube-analytics/groups-update.ts',
    anyOfScopes: VIDEO_MANAGE,
    table: 'readWrite',
    description: "Changes a group's title.",
    parameters: ON_BEHALF,
    request: 'Group',
    response: 'Group',
  },
  {
    id: 'groups.delete',
    family: 'youtube-analytics',
    method: 'DELETE',
    path: '/v2/groups',
    entry: 'functions/youtube-analytics/groups-delete.ts',
    anyOfScopes: VIDEO_MANAGE,
    table: 'readWrite',
    description: 'Deletes a group and its items.',
    parameters: { id: query('The ID of the group to delete.'), ...ON_BEHALF },
    response: 'EmptyResponse',
  },
  {
    id: 'groupItems.list',
    family: 'youtube-analytics',
    method: 'GET',
    path: '/v2/groupItems',
    entry: 'functions/youtube-analytics/group-items-list.ts',
    anyOfScopes: VIDEO_ANY,
    table: 'read',
    description: 'Returns the items of a group.',
    parameters: { groupId: query('The ID of the group.'), ...ON_BEHALF },
    response: 'ListGroupItemsResponse',
  },
  {
    id: 'groupItems.insert',
    family: 'youtube-analytics',
    method: 'POST',
    path: '/v2/groupItems',
    entry: 'functions/youtube-analytics/group-items-insert.ts',
    anyOfScopes: VIDEO_MANAGE,
    table: 'readWrite',
    description: 'Adds an item to a group.',
    parameters: ON_BEHALF,
    request: 'GroupItem',
    response: 'GroupItem',
  },
  {
    id: 'groupItems.delete',
    family: 'youtube-analytics',
    method: 'DELETE',
    path: '/v2/groupItems',
    entry: 'functions/youtube-analytics/group-items-delete.ts',
    anyOfScopes: VIDEO_MANAGE,
    table: 'readWrite',
    description: 'Removes an item from a group.',
    parameters: { id: query('The ID of the group item to remove.'), ...ON_BEHALF },
    response: 'EmptyResponse',
  },
  {
    id: 'properties.get',
    family: 'analytics-admin',
    method: 'GET',
    path: '/v1alpha/properties/{propertiesId}',
    entry: 'functions/analytics-admin/properties-get.ts',
    anyOfScopes: GA_READ,
    table: 'read',
    description: 'Returns one property.',
    discoveryPath: 'v1alpha/{+name}',
    parameters: {
      name: {
        type: 'string',
        location: 'path',
        required: true,
        pattern: '^properties/[^/]+$',
        description: 'The property: `properties/{property_id}`, e.g. `properties/1000`.',
      },
    },
    response: 'GoogleAnalyticsAdminV1alphaProperty',
  },
  {
    id: 'discovery.rest',
    family: 'discovery',
    method: 'GET',
    path: '/$discovery/rest',
    entry: 'functions/discovery/discovery-rest.ts',
    anyOfScopes: [],
    table: 'read',
    public: true,
  },
  {
    id: 'explorer.page',
    family: 'explorer',
    method: 'GET',
    path: '/',
    entry: 'functions/explorer/explorer-page.ts',
    anyOfScopes: [],
    table: 'read',
    public: true,
    option: 'explorer',
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

/** The routes a stack deploys: every route without an option, plus those whose option is on. */
export const deployedRoutes = (options: { readonly explorer: boolean }): readonly RouteDef[] =>
  (routes as readonly RouteDef[]).filter((r) => !r.option || options[r.option]);

/** A route's template split once into its segments: a literal, or the name of a `{param}`. */
const compiledRoutes = (routes as readonly RouteDef[]).map((route) => ({
  route,
  segments: route.path.split('/').map((seg) => {
    const param = /^\{(\w+)\}$/.exec(seg)?.[1];
    return param ? { param } : { literal: seg };
  }),
}));

/** Matches a concrete request path against the route templates; path parameters are decoded. */
export function matchRoute(
  method: string,
  pathname: string,
): { route: RouteDef; pathParameters: Record<string, string> } | { route: undefined; pathMatched: boolean } {
  const parts = pathname.split('/');
  let pathMatched = false;
  for (const { route, segments } of compiledRoutes) {
    const params = matchPath(segments, parts);
    if (!params) continue;
    pathMatched = true;
    if (route.method === method) return { route, pathParameters: params };
  }
  return { route: undefined, pathMatched };
}

function matchPath(
  segments: readonly ({ param: string } | { literal: string })[],
  parts: readonly string[],
): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i] as { param?: string; literal?: string };
    const actual = parts[i] as string;
    if (seg.param !== undefined) {
      if (!actual) return undefined;
      try {
        params[seg.param] = decodeURIComponent(actual);
      } catch {
        return undefined;
      }
    } else if (seg.literal !== actual) return undefined;
  }
  return params;
}
