/**
 * The discovery documents (`GET /$discovery/rest?version=v2 | v1alpha`), generated from the route table, the schemas
 * and the report catalog, in the shape of Google's published `youtubeAnalytics:v2` and `analyticsadmin:v1alpha`
 * documents. `rootUrl` is the deployment's own; scopes are under SCOPE_BASE. Differences from Google's documents are
 * listed, with their reasons, in test/unit/discovery-compare.test.ts.
 */

import { SYSTEM_PARAMETERS } from '../_shared/system-parameters';
import { KNOWN_DIMENSIONS, KNOWN_METRICS, REPORTS } from '../core/reports/catalog/catalog';
import { SCOPE_NAMES, type ScopeName, scopeUri } from '../core/scopes';
import { type ApiFamily, type ParameterDef, type RouteDef, routes } from '../routes';
import { type JsonSchema, type SchemaName, schemaNamed } from '../schemas';

interface ApiInfo {
  readonly family: ApiFamily;
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly title: string;
  readonly canonicalName: string;
  readonly description: string;
  readonly scopes: Readonly<Partial<Record<ScopeName, string>>>;
}

/** The two documents, by the `version` they answer to. */
export const DISCOVERY_APIS: Readonly<Record<string, ApiInfo>> = {
  v2: {
    family: 'youtube-analytics',
    id: 'youtubeAnalytics:v2',
    name: 'youtubeAnalytics',
    version: 'v2',
    title: 'YouTube Analytics API',
    canonicalName: 'YouTube Analytics',
    description: 'Reports, groups and group items, wire-compatible with the YouTube Analytics API v2 (self-hosted).',
    scopes: {
      'video-analytics.readonly': 'View analytics reports for your video content',
      'video-analytics-monetary.readonly': 'View monetary and non-monetary analytics reports for your video content',
      'video-platform': 'Manage your account (channel owners manage groups with it)',
      'video-platform-partner': 'View and manage your assets and associated content (content owners)',
    },
  },
  v1alpha: {
    family: 'analytics-admin',
    id: 'analyticsadmin:v1alpha',
    name: 'analyticsadmin',
    version: 'v1alpha',
    title: 'Google Analytics Admin API',
    canonicalName: 'Google Analytics Admin',
    description: 'properties.get, wire-compatible with the Google Analytics Admin API v1alpha (self-hosted).',
    scopes: {
      'analytics.edit': 'Edit analytics management entities',
      'analytics.readonly': 'See and download your analytics data',
    },
  },
};

/** Bumped when the documents change shape (clients only show it). */
export const DISCOVERY_REVISION = '20261124';

const REPORTS_LINK = 'See docs/reports-catalog.md for the supported combinations.';

/** The catalog's vocabulary, appended to the reports.query parameters that take it. */
const catalogNotes: Readonly<Record<string, string>> = {
  dimensions: `Known dimensions: ${KNOWN_DIMENSIONS.join(', ')}. ${REPORTS.length} reports accept them in set combinations. ${REPORTS_LINK}`,
  metrics: `Known metrics: ${KNOWN_METRICS.join(', ')}. ${REPORTS_LINK}`,
  filters: `Filter names are dimension names. ${REPORTS_LINK}`,
};

function parameter(route: RouteDef, name: string, def: ParameterDef) {
  const note = route.id === 'reports.query' ? catalogNotes[name] : undefined;
  return {
    description: note ? `${def.description} ${note}` : def.description,
    ...(def.format ? { format: def.format } : {}),
    location: def.location,
    ...(def.pattern ? { pattern: def.pattern } : {}),
    ...(def.required ? { required: true } : {}),
    type: def.type,
  };
}

function method(api: ApiInfo, route: RouteDef, scopeBase: string) {
  const params = Object.entries(route.parameters ?? {}).sort(([a], [b]) => a.localeCompare(b));
  const flatPath = route.path.slice(1);
  return {
    description: route.description ?? route.id,
    flatPath,
    httpMethod: route.method,
    id: `${api.name}.${route.id}`,
    parameterOrder: params.filter(([, p]) => p.required).map(([n]) => n),
    parameters: Object.fromEntries(params.map(([n, p]) => [n, parameter(route, n, p)])),
    path: route.discoveryPath ?? flatPath,
    ...(route.request ? { request: { $ref: route.request } } : {}),
    ...(route.response ? { response: { $ref: route.response } } : {}),
    scopes: [...route.anyOfScopes].map((s) => scopeUri(scopeBase, s)).sort(),
  };
}

/** Every schema `names` refer to, transitively. */
function reachable(names: readonly SchemaName[]): SchemaName[] {
  const seen = new Set<SchemaName>();
  const visit = (s: JsonSchema): void => {
    if (s.$ref && !seen.has(s.$ref)) {
      seen.add(s.$ref);
      visit(schemaNamed(s.$ref));
    }
    for (const p of Object.values(s.properties ?? {})) visit(p);
    if (s.items) visit(s.items);
    if (s.additionalProperties) visit(s.additionalProperties);
  };
  for (const n of names) visit({ $ref: n });
  return [...seen].sort();
}

/** The discovery document of `version` served from `rootUrl`, or undefined for a version this API does not have. */
export function discoveryDocument(version: string, rootUrl: string, scopeBase: string) {
  const api = Object.hasOwn(DISCOVERY_APIS, version) ? DISCOVERY_APIS[version] : undefined;
  if (!api) return undefined;
  const own = (routes as readonly RouteDef[]).filter((r) => r.family === api.family);

  const resources: Record<string, { methods: Record<string, ReturnType<typeof method>> }> = {};
  for (const route of own) {
    const [resource, name] = route.id.split('.') as [string, string];
    resources[resource] ??= { methods: {} };
    resources[resource].methods[name] = method(api, route, scopeBase);
  }
  const used = reachable(own.flatMap((r) => [r.request, r.response].filter((n): n is SchemaName => n !== undefined)));
  const scopes = SCOPE_NAMES.filter((s) => api.scopes[s] !== undefined);

  return {
    auth: {
      oauth2: {
        scopes: Object.fromEntries(scopes.map((s) => [scopeUri(scopeBase, s), { description: api.scopes[s] }])),
      },
    },
    basePath: '',
    baseUrl: rootUrl,
    canonicalName: api.canonicalName,
    description: api.description,
    discoveryVersion: 'v1',
    documentationLink: `${rootUrl}`,
    fullyEncodeReservedExpansion: true,
    id: api.id,
    kind: 'discovery#restDescription',
    name: api.name,
    ownerDomain: new URL(rootUrl).hostname,
    ownerName: 'analytics-api (self-hosted)',
    parameters: Object.fromEntries(
      Object.entries(SYSTEM_PARAMETERS).map(([name, p]) => [name, { ...p, location: 'query' }]),
    ),
    protocol: 'rest',
    resources: Object.fromEntries(Object.entries(resources).sort(([a], [b]) => a.localeCompare(b))),
    revision: DISCOVERY_REVISION,
    rootUrl,
    schemas: Object.fromEntries(used.map((n) => [n, { ...schemaNamed(n) }])),
    servicePath: '',
    title: api.title,
    version: api.version,
    version_module: true,
  };
}
