/**
 * Our discovery documents against Google's published ones (the compared parts, transcribed in
 * test/fixtures/discovery/ with their source and revision): method ids, paths, HTTP methods, parameter names, types
 * and locations, request and response schemas, schema property names and types, system parameters and `kind` values.
 * Every difference must be listed below with its reason, and every listed difference must still occur.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCOPE_BASE } from '../../functions/core/scopes';
import { discoveryDocument } from '../../functions/discovery/document';

type Doc = Record<string, any>;
const FIXTURES = path.resolve(import.meta.dirname, '..', 'fixtures', 'discovery');
const published = (file: string): Doc => JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8'));

const ROOT = 'https://api.example.test/v/';

/** Differences we keep on purpose. Each pattern must match at least one actual difference. */
const LISTED: readonly { match: RegExp; reason: string }[] = [
  {
    match: /^top batchPath=/,
    reason: 'No batch endpoint: a client that batched would get 404s, so the document does not offer one.',
  },
  { match: /^top mtlsRootUrl=/, reason: 'No mutual-TLS endpoint; the deployment has one root.' },
  {
    match: /^auth scope /,
    reason:
      "Scopes are this deployment's: `${SCOPE_BASE}/auth/<name>` with the service's scope names (service-spec §5), not Google's youtube / yt-analytics names; Admin API scopes for methods not served (analytics.manage.users*) are left out.",
  },
  {
    match: /^method \S+ scopes=/,
    reason:
      'Each method lists the scopes the authorizer accepts for it (least privilege, README "Tokens"), under SCOPE_BASE; Google lists all five YouTube scopes on every method.',
  },
];

const show = (v: unknown) => JSON.stringify(v);

/** A schema as a one-line fact: everything structural, nothing descriptive. */
function schemaFact(s: Doc | undefined): string {
  if (!s) return '-';
  const parts: string[] = [];
  for (const k of ['type', 'format', '$ref', 'enum', 'readOnly', 'deprecated', 'required', 'pattern', 'repeated']) {
    if (s[k] !== undefined) parts.push(`${k}=${show(s[k])}`);
  }
  if (s.items) parts.push(`items=(${schemaFact(s.items)})`);
  if (s.additionalProperties) parts.push(`additionalProperties=(${schemaFact(s.additionalProperties)})`);
  return parts.join(' ');
}

function methods(resources: Doc | undefined, out: Doc[] = []): Doc[] {
  for (const r of Object.values(resources ?? {})) {
    out.push(...(Object.values((r as Doc).methods ?? {}) as Doc[]));
    methods((r as Doc).resources, out);
  }
  return out;
}

/** Kind values as the schemas' `kind` descriptions state them. */
function kindsOf(doc: Doc): Record<string, string> {
  if (doc._kinds) return doc._kinds;
  const out: Record<string, string> = {};
  for (const [name, s] of Object.entries<Doc>(doc.schemas ?? {})) {
    const m = /The value is `([A-Za-z]+#[A-Za-z]+)`/.exec(s.properties?.kind?.description ?? '');
    if (m) out[name] = m[1] as string;
  }
  return out;
}

/** Everything the comparison covers, as lines. */
function facts(doc: Doc): Set<string> {
  const f = new Set<string>();
  // biome-ignore format: word list
  for (const k of ['id', 'name', 'version', 'kind', 'discoveryVersion', 'protocol', 'servicePath', 'basePath',
    'fullyEncodeReservedExpansion', 'version_module', 'batchPath', 'mtlsRootUrl']) {
    if (doc[k] !== undefined) f.add(`top ${k}=${show(doc[k])}`);
  }
  const scopes = doc.auth?.oauth2?.scopes ?? {};
  for (const s of Array.isArray(scopes) ? scopes : Object.keys(scopes)) f.add(`auth scope ${s}`);
  for (const [name, p] of Object.entries<Doc>(doc.parameters ?? {})) {
    f.add(`system parameter ${name} location=${p.location} ${schemaFact(p)} default=${show(p.default)}`);
  }
  for (const m of methods(doc.resources)) {
    const id = m.id as string;
    f.add(`method ${id}`);
    for (const k of ['httpMethod', 'path', 'flatPath', 'parameterOrder', 'request', 'response']) {
      f.add(`method ${id} ${k}=${show(m[k])}`);
    }
    f.add(`method ${id} scopes=${show([...(m.scopes ?? [])].sort())}`);
    for (const [name, p] of Object.entries<Doc>(m.parameters ?? {})) {
      f.add(`method ${id} parameter ${name} location=${p.location} ${schemaFact(p)}`);
    }
  }
  for (const [name, s] of Object.entries<Doc>(doc.schemas ?? {})) {
    f.add(`schema ${name} id=${show(s.id)} type=${show(s.type)}`);
    for (const [prop, ps] of Object.entries<Doc>(s.properties ?? {})) f.add(`schema ${name}.${prop} ${schemaFact(ps)}`);
  }
  for (const [schema, kind] of Object.entries(kindsOf(doc))) f.add(`kind ${schema}=${kind}`);
  return f;
}

function differences(ours: Doc, theirs: Doc): string[] {
  const a = facts(ours);
  const b = facts(theirs);
  return [
    ...[...b].filter((x) => !a.has(x)).map((x) => `missing: ${x}`),
    ...[...a].filter((x) => !b.has(x)).map((x) => `extra: ${x}`),
  ];
}

const listed = (d: string) => LISTED.some((l) => l.match.test(d.replace(/^(missing|extra): /, '')));

const cases = [
  ['youtubeAnalytics:v2', 'v2', 'youtubeAnalytics.v2.json'],
  ['analyticsadmin:v1alpha', 'v1alpha', 'analyticsadmin.v1alpha.json'],
] as const;

describe.each(cases)('discovery document %s against the published one', (_id, version, fixture) => {
  const ours = discoveryDocument(version, ROOT, DEFAULT_SCOPE_BASE) as Doc;
  const theirs = published(fixture);
  const diffs = differences(ours, theirs);

  it('has no difference that is not listed with a reason', () => {
    expect(diffs.filter((d) => !listed(d))).toEqual([]);
  });

  it('compares the methods, parameters and schemas (the comparison is not empty)', () => {
    const f = facts(theirs);
    expect([...f].filter((x) => x.startsWith('method ') && x.includes(' parameter ')).length).toBeGreaterThan(0);
    expect([...f].filter((x) => x.startsWith('schema ')).length).toBeGreaterThan(10);
    expect([...f].filter((x) => x.startsWith('system parameter ')).length).toBe(11);
  });

  it('roots every path at the deployment: rootUrl and baseUrl are the root it was asked for', () => {
    expect(ours.rootUrl).toBe(ROOT);
    expect(ours.baseUrl).toBe(ROOT);
    expect(ours.servicePath).toBe('');
  });

  it('lists scopes under SCOPE_BASE only', () => {
    const scopes = [...Object.keys(ours.auth.oauth2.scopes), ...methods(ours.resources).flatMap((m) => m.scopes)];
    expect(scopes.length).toBeGreaterThan(0);
    for (const s of scopes) expect(s.startsWith(`${DEFAULT_SCOPE_BASE}/auth/`), s).toBe(true);
  });
});

describe('the comparison itself', () => {
  const all = cases.flatMap(([, version, fixture]) =>
    differences(discoveryDocument(version, ROOT, DEFAULT_SCOPE_BASE) as Doc, published(fixture)),
  );

  it.each(LISTED.map((l) => [l.match.source, l] as const))('listed difference %s still occurs', (_src, l) => {
    expect(all.some((d) => l.match.test(d.replace(/^(missing|extra): /, '')))).toBe(true);
  });

  it('detects a renamed parameter, a changed type and a dropped schema property', () => {
    const ours = discoveryDocument('v2', ROOT, DEFAULT_SCOPE_BASE) as Doc;
    const broken = structuredClone(ours);
    const q = broken.resources.reports.methods.query.parameters;
    q.maxRows = q.maxResults;
    delete q.maxResults;
    q.startIndex.type = 'string';
    delete broken.schemas.Group.properties.etag;
    const unlisted = differences(broken, published('youtubeAnalytics.v2.json')).filter((d) => !listed(d));

    expect(unlisted).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^missing: method youtubeAnalytics.reports.query parameter maxResults /),
        expect.stringMatching(/^extra: method youtubeAnalytics.reports.query parameter maxRows /),
        expect.stringMatching(/^extra: method youtubeAnalytics.reports.query parameter startIndex .*"string"/),
        'missing: schema Group.etag type="string"',
      ]),
    );
  });

  it('answers only the two versions', () => {
    expect(discoveryDocument('v1', ROOT, DEFAULT_SCOPE_BASE)).toBeUndefined();
    expect(discoveryDocument('constructor', ROOT, DEFAULT_SCOPE_BASE)).toBeUndefined();
  });
});
