/**
 * Checks on the route table itself and on the dependency rule. Handlers are read as text, never imported: their
 * module scope builds DynamoDB clients.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kebabId, matchRoute, type RouteDef, routeKey, routes } from '../../functions/routes';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const table = routes as readonly RouteDef[];
const duplicates = (xs: readonly string[]) => xs.filter((x, i) => xs.indexOf(x) !== i);

describe('route table', () => {
  it.each(table.map((r) => [r.id, r] as const))('%s: entry exists and exports handler', (_id, route) => {
    const file = path.join(ROOT, route.entry);

    expect(existsSync(file), route.entry).toBe(true);
    expect(readFileSync(file, 'utf8')).toMatch(/^export const handler\b/m);
  });

  it('has no two routes with the same method and path', () => {
    expect(duplicates(table.map(routeKey))).toEqual([]);
  });

  it('has unique ids', () => {
    expect(duplicates(table.map((r) => r.id))).toEqual([]);
  });

  it('requires at least one scope on every route behind the authorizer', () => {
    expect(table.filter((r) => !r.public && r.anyOfScopes.length === 0).map((r) => r.id)).toEqual([]);
  });

  it('keeps public routes to the pages Google also serves without a token (no scopes, no table writes)', () => {
    const open = table.filter((r) => r.public);

    expect(open.map((r) => r.id).sort()).toEqual(['discovery.rest', 'explorer.page']);
    for (const r of open) {
      expect(r.anyOfScopes, r.id).toEqual([]);
      expect(r.table, r.id).toBe('read');
    }
  });

  it('describes every API operation for the discovery documents (parameters and a response schema)', () => {
    const api = table.filter((r) => r.family === 'youtube-analytics' || r.family === 'analytics-admin');

    expect(api.filter((r) => !r.response || !r.parameters || !r.description).map((r) => r.id)).toEqual([]);
  });

  it.each(table.map((r) => [r.id, r] as const))('%s: has a sample event', (_id, route) => {
    const event = path.join('events', route.family, `${kebabId(route.id)}.json`);

    expect(existsSync(path.join(ROOT, event)), event).toBe(true);
  });

  it.each(['youtube-analytics', 'analytics-admin'])('references every handler file in functions/%s', (folder) => {
    const files = readdirSync(path.join(ROOT, 'functions', folder)).filter((f) => f.endsWith('.ts'));
    const entries = new Set(table.map((r) => r.entry));

    expect(files.length).toBeGreaterThan(0);
    expect(files.map((f) => `functions/${folder}/${f}`).filter((f) => !entries.has(f as RouteDef['entry']))).toEqual(
      [],
    );
  });
});

describe('matchRoute', () => {
  const concrete = (route: RouteDef) => route.path.replace('{propertiesId}', '1000');

  it.each(table.map((r) => [r.id, r] as const))('%s: is found from a concrete path', (_id, route) => {
    const match = matchRoute(route.method, concrete(route));

    expect(match.route?.id).toBe(route.id);
  });

  it('extracts path parameters', () => {
    expect(matchRoute('GET', '/v1alpha/properties/1000')).toMatchObject({ pathParameters: { propertiesId: '1000' } });
  });

  it.each(table.map((r) => [r.id, r] as const))('%s: a wrong method only matches the path', (_id, route) => {
    const used = new Set(table.filter((r) => r.path === route.path).map((r) => r.method));
    const wrong = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].find((m) => !used.has(m as RouteDef['method'])) as string;

    expect(matchRoute(wrong, concrete(route))).toEqual({ route: undefined, pathMatched: true });
  });

  it('matches nothing for an unknown path', () => {
    expect(matchRoute('GET', '/v2/unknown')).toEqual({ route: undefined, pathMatched: false });
  });
});

describe('dependency rule: functions/core imports no adapters', () => {
  // Relative targets (from the repo root) and packages that belong to the outer layers.
  const FORBIDDEN_PATHS = [
    'functions/_shared',
    'functions/authorizer',
    'functions/youtube-analytics',
    'functions/analytics-admin',
    'infra',
  ];
  const FORBIDDEN_PACKAGES = [/^aws-cdk-lib(\/|$)/, /^constructs$/, /^aws-lambda$/];
  const IMPORT =
    /(?:^|\n)\s*(?:import|export)\s(?:[^'"]*?\sfrom\s)?\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

  /** Forbidden specifiers imported by `source`, a file at repo-relative path `file`. */
  const violations = (file: string, source: string): string[] =>
    [...source.matchAll(IMPORT)]
      .map((m) => (m[1] ?? m[2]) as string)
      .filter((spec) => {
        if (!spec.startsWith('.')) return FORBIDDEN_PACKAGES.some((re) => re.test(spec));
        const target = path.posix.join(path.posix.dirname(file), spec);
        return FORBIDDEN_PATHS.some((p) => target === p || target.startsWith(`${p}/`));
      });

  const coreFiles = (readdirSync(path.join(ROOT, 'functions/core'), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `functions/core/${f.split(path.sep).join('/')}`);

  it('detects forbidden imports (self-check of the scanner)', () => {
    const sample = [
      "import { env } from '../../_shared/env';",
      "import type { APIGatewayProxyEvent } from 'aws-lambda';",
      "import {\n  Stack,\n} from 'aws-cdk-lib';",
      "export { x } from '../../../infra/config';",
      "const m = await import('../../authorizer/decide');",
      "import { keys } from '../db/keys';",
      "import { QueryCommand } from '@aws-sdk/lib-dynamodb';",
    ].join('\n');

    expect(violations('functions/core/groups/group-service.ts', sample)).toEqual([
      '../../_shared/env',
      'aws-lambda',
      'aws-cdk-lib',
      '../../../infra/config',
      '../../authorizer/decide',
    ]);
  });

  it('scans the domain folder', () => {
    expect(coreFiles).toContain('functions/core/db/table-definition.ts');
  });

  it.each(coreFiles)('%s imports only inward', (file) => {
    expect(violations(file, readFileSync(path.join(ROOT, file), 'utf8'))).toEqual([]);
  });
});
