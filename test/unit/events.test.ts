/**
 * The sample events in events/: well-formed templates that match the route table, consistent with themselves, and
 * fully filled by fillTemplate().
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCOPE_BASE, expandScope } from '../../functions/core/scopes';
import { kebabId, type RouteDef, routeKey, routes, routesByKey } from '../../functions/routes';
import { fillTemplate, type TemplateContext } from '../../infra/local/event-template';
import { createIssuerKey, DEFAULT_AUDIENCE } from '../../infra/local/local-issuer';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const EVENTS = path.join(ROOT, 'events');

const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(path.join(dir, d.name)) : d.name.endsWith('.json') ? [path.join(dir, d.name)] : [],
  );

const files = walk(EVENTS)
  .map((f) => path.relative(ROOT, f))
  .sort();
const isAuthorizerEvent = (rel: string) => rel.startsWith(`events${path.sep}authorizer${path.sep}`);
const proxyFiles = files.filter((f) => !isAuthorizerEvent(f));
const authorizerFiles = files.filter(isAuthorizerEvent);
const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');
const parse = (rel: string) => JSON.parse(read(rel)) as Record<string, any>;
/** Events of public routes (no authorizer: no token, no authorizer context). */
const isPublic = (rel: string) => {
  const e = parse(rel);
  return routesByKey.get(`${e.httpMethod} ${e.resource}`)?.public === true;
};
const authorizedFiles = proxyFiles.filter((f) => !isPublic(f));
const publicFiles = proxyFiles.filter(isPublic);

/** `${TOKEN:sub:scopes}` inside a header value. */
const TOKEN_PLACEHOLDER = /\$\{TOKEN:([^:}]*):([^}]*)\}/;

describe('events/: inventory', () => {
  it('finds both families and the authorizer events', () => {
    expect(proxyFiles.length).toBeGreaterThanOrEqual(routes.length);
    expect(authorizerFiles.length).toBeGreaterThanOrEqual(4);
  });

  it.each(files)('%s parses as a JSON object', (rel) => {
    const value = JSON.parse(read(rel));

    expect(value).toBeTypeOf('object');
    expect(Array.isArray(value)).toBe(false);
  });

  it.each((routes as readonly RouteDef[]).map((r) => [r.id, r] as const))('%s has its base event', (_id, route) => {
    expect(files).toContain(path.join('events', route.family, `${kebabId(route.id)}.json`));
  });

  it.each(proxyFiles)('%s is named after its route: <family>/<kebabId>[.<variant>].json', (rel) => {
    const e = parse(rel);
    const route = routesByKey.get(`${e.httpMethod} ${e.resource}`);
    const [family, name] = rel.split(path.sep).slice(1);

    expect(route).toBeDefined();
    expect(family).toBe(route?.family);
    expect(name).toMatch(new RegExp(`^${kebabId(route?.id ?? '')}(\\.[a-z0-9-]+)?\\.json$`));
  });
});

describe('events/: proxy events', () => {
  it.each(proxyFiles)('%s matches a route and is internally consistent', (rel) => {
    const e = parse(rel);
    const route = routesByKey.get(`${e.httpMethod} ${e.resource}`) as RouteDef;

    expect(route, `${e.httpMethod} ${e.resource}`).toBeDefined();
    expect(routeKey(route)).toBe(`${e.httpMethod} ${e.resource}`);
    expect(e.requestContext.httpMethod).toBe(e.httpMethod);
    expect(e.requestContext.resourcePath).toBe(e.resource);
    expect(e.requestContext.path).toBe(`/${e.requestContext.stage}${e.path}`);
    expect(e.isBase64Encoded).toBe(false);

    // The concrete path fits the template, and the path parameters are the ones it carries.
    const template = e.resource.replace(/[$.]/g, '\\$&'); // `/$discovery/rest`: `$` is a path character here
    const pattern = new RegExp(`^${template.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`);
    const m = pattern.exec(e.path);
    expect(m, e.path).not.toBeNull();
    const params = m?.groups ? { ...m.groups } : null;
    expect(e.pathParameters).toStrictEqual(params && Object.keys(params).length ? params : null);
  });

  it('has events of public routes too', () => {
    expect(publicFiles.length).toBeGreaterThan(0);
  });

  it.each(publicFiles)('%s (public route) carries neither a token nor an authorizer context', (rel) => {
    const e = parse(rel);

    expect(e.requestContext.authorizer).toBeUndefined();
    expect(Object.keys(e.headers).map((h) => h.toLowerCase())).not.toContain('authorization');
  });

  it.each(authorizedFiles)('%s has an authorizer context with sub and scope/exp placeholders', (rel) => {
    const e = parse(rel);
    const auth = e.requestContext.authorizer;

    expect(auth).toBeTypeOf('object');
    expect(auth.sub).toMatch(/^[a-z]+$/);
    expect(auth.principalId).toBe(auth.sub);
    expect(auth.scope).toMatch(/^\$\{SCOPE:[a-z.,-]+\}$/);
    expect(auth.exp).toBe('${EXP}');
  });

  it.each(authorizedFiles)('%s: the Bearer token placeholder is for the same sub and scopes as the context', (rel) => {
    const e = parse(rel);
    const header = e.headers.Authorization as string;
    const m = TOKEN_PLACEHOLDER.exec(header);

    expect(header).toMatch(/^Bearer \$\{TOKEN:[^}]+\}$/);
    expect(m?.[1]).toBe(e.requestContext.authorizer.sub);
    expect(`\${SCOPE:${m?.[2]}}`).toBe(e.requestContext.authorizer.scope);
  });

  it.each(proxyFiles)('%s: queryStringParameters and multiValueQueryStringParameters agree', (rel) => {
    const e = parse(rel);
    const single = e.queryStringParameters as Record<string, string> | null;
    const multi = e.multiValueQueryStringParameters as Record<string, string[]> | null;

    if (single === null) {
      expect(multi).toBeNull();
      return;
    }
    expect(Object.keys(single).length).toBeGreaterThan(0);
    expect(multi).not.toBeNull();
    expect(Object.keys(multi ?? {}).sort()).toStrictEqual(Object.keys(single).sort());
    for (const [k, v] of Object.entries(single)) {
      const values = multi?.[k] ?? [];
      expect(values.length).toBeGreaterThan(0);
      expect(values[values.length - 1]).toBe(v);
    }
  });

  it.each(proxyFiles)('%s: headers and multiValueHeaders agree', (rel) => {
    const e = parse(rel);
    const single = e.headers as Record<string, string>;
    const multi = e.multiValueHeaders as Record<string, string[]>;

    expect(Object.keys(multi).sort()).toStrictEqual(Object.keys(single).sort());
    for (const [k, v] of Object.entries(single)) expect(multi[k]?.at(-1)).toBe(v);
  });

  it.each(proxyFiles)('%s: a body only on POST/PUT, with a JSON content type', (rel) => {
    const e = parse(rel);

    if (e.body === null) {
      expect(e.headers['Content-Type']).toBeUndefined();
    } else {
      expect(['POST', 'PUT']).toContain(e.httpMethod);
      expect(typeof e.body).toBe('string');
      expect(e.headers['Content-Type']).toBe('application/json');
    }
  });
});

describe('events/authorizer: REQUEST authorizer events', () => {
  it.each(authorizerFiles)('%s is a REQUEST event whose methodArn ends with its method and resource', (rel) => {
    const e = parse(rel);

    expect(e.type).toBe('REQUEST');
    expect(typeof e.methodArn).toBe('string');
    expect(e.methodArn.endsWith(`${e.httpMethod}${e.resource}`)).toBe(true);
    expect(e.methodArn).toMatch(/^arn:aws:execute-api:[a-z0-9-]+:\d{12}:[a-z0-9]+\/[^/]+\/[A-Z]+\//);
    expect(routesByKey.has(`${e.httpMethod} ${e.resource}`)).toBe(true);
    expect(e.requestContext.authorizer).toBeUndefined();
  });

  const withToken = authorizerFiles.filter((rel) => read(rel).includes('${TOKEN'));

  it('allow.json and insufficient-scope.json carry a token placeholder', () => {
    expect(withToken).toStrictEqual([
      path.join('events', 'authorizer', 'allow.json'),
      path.join('events', 'authorizer', 'insufficient-scope.json'),
    ]);
  });

  it.each(withToken)('%s: the token placeholder is presented as a Bearer credential', (rel) => {
    const e = parse(rel);
    const header = e.headers.Authorization as string;

    expect(header).toMatch(/^Bearer \$\{TOKEN:[^}]+\}$/);
    expect(e.multiValueHeaders.Authorization).toStrictEqual([header]);
  });

  it('the four documented cases exist', () => {
    for (const name of ['allow', 'insufficient-scope', 'missing-header', 'malformed-header']) {
      expect(authorizerFiles).toContain(path.join('events', 'authorizer', `${name}.json`));
    }
  });
});

describe('events/: fillTemplate', () => {
  let ctx: TemplateContext;
  beforeAll(async () => {
    ctx = { issuerKey: await createIssuerKey(), audience: DEFAULT_AUDIENCE, scopeBase: DEFAULT_SCOPE_BASE };
  });

  it.each(files)('%s: no placeholder is left and the result is still JSON', async (rel) => {
    const filled = await fillTemplate(read(rel), ctx);

    expect(filled).not.toContain('${');
    expect(() => JSON.parse(filled)).not.toThrow();
  });

  it.each(authorizedFiles)('%s: the minted token carries the sub and scope of the authorizer context', async (rel) => {
    const e = JSON.parse(await fillTemplate(read(rel), ctx));
    const auth = e.requestContext.authorizer;
    const jwt = String(e.headers.Authorization).replace(/^Bearer /, '');
    const claims = decodeJwt(jwt);

    expect(claims.sub).toBe(auth.sub);
    expect(claims.scope).toBe(auth.scope);
    expect(claims.aud).toBe(DEFAULT_AUDIENCE);
    expect(e.multiValueHeaders.Authorization).toStrictEqual([`Bearer ${jwt}`]);
    const exp = Number(auth.exp);
    const now = Date.now() / 1000;
    expect(exp).toBeGreaterThan(now + 3000);
    expect(exp).toBeLessThan(now + 3700);
    for (const s of String(auth.scope).split(' '))
      expect(s).toMatch(/^https:\/\/www\.googleapis\.com\/auth\/[a-z.-]+$/);
  });

  it('expands ${SCOPE:a,b} to space-separated URIs', async () => {
    expect(await fillTemplate('${SCOPE:analytics.readonly,video-platform}', ctx)).toBe(
      `${expandScope(DEFAULT_SCOPE_BASE, 'analytics.readonly')} ${expandScope(DEFAULT_SCOPE_BASE, 'video-platform')}`,
    );
  });
});
