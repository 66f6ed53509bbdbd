/**
 * What the Lambda bundles carry (esbuild, with the stack's settings): no function carries a Google client library
 * (the sync worker talks to the Reporting API over fetch; google-auth-library and its HTTP stack were 290 KB of it),
 * nor the SDK's default credential chain (credentials come from the environment, as Lambda sets them), nor zod (the
 * directory file's schema is for operators, never for a request or the ingest), nor Powertools (logs and EMF metrics
 * are written in-house: Logger and Metrics cost 20 and 13 KB and their set-up at every cold start).
 * The functions that only read facts (reports.query, the sync worker) carry the families' shapes but not the
 * ingest's cell parsers (families.ts), and reports.query not the catalog's example queries (report-examples.ts) nor
 * its README rendering. An HTTP function carries its own response's schemas (for the `fields` check), not the route
 * table; reports.query the filter value lists, not the ingest's code tables; the ingest not the metric definitions;
 * each function the table keys it builds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes';
import { REPO_ROOT } from '../../infra/constructs/api-function';
import { esbuildOptions } from '../../infra/constructs/function-bundling';

const work = mkdtempSync(path.join(tmpdir(), 'bundles-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** What the bundle of `entry` holds, by input file (bytes it puts in the output). */
async function inputsOf(entry: string): Promise<Record<string, { bytesInOutput: number }>> {
  const out = await build({
    ...esbuildOptions(REPO_ROOT, entry, path.join(work, entry)),
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  return Object.values(out.metafile.outputs).find((o) => o.entryPoint)?.inputs ?? {};
}

/** The bundle of `entry`, as text. */
async function textOf(entry: string): Promise<string> {
  const out = await build({
    ...esbuildOptions(REPO_ROOT, entry, path.join(work, 'text', entry)),
    write: false,
    logLevel: 'silent',
  });
  return out.outputFiles.find((f) => f.path.endsWith('.mjs'))?.text ?? '';
}

/** Our own source files that put bytes in the bundle. */
async function sourcesOf(entry: string): Promise<Set<string>> {
  const inputs = await inputsOf(entry);
  return new Set(Object.keys(inputs).filter((f) => f.startsWith('functions/') && (inputs[f]?.bytesInOutput ?? 0) > 0));
}

async function packagesOf(entry: string): Promise<Set<string>> {
  const packages = new Set<string>();
  for (const input of Object.keys(await inputsOf(entry))) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    if (m) packages.add(m[1] as string);
  }
  return packages;
}

const UNWANTED = [
  ...['google-auth-library', 'gaxios', 'googleapis-common', 'googleapis', 'zod'],
  // The SDK's default credential chain and the STS, SSO and sign-in clients it brings (lambda-credentials.ts).
  ...['@aws-sdk/credential-provider-node', '@aws-sdk/nested-clients', '@aws-sdk/credential-provider-sso'],
];
const unwanted = (pkg: string) => UNWANTED.includes(pkg) || pkg.startsWith('@aws-lambda-powertools/');

describe('Lambda bundles', () => {
  it('the sync worker carries the S3 and Secrets Manager clients (the check below can see packages)', async () => {
    const worker = await packagesOf('functions/sync/worker.ts');
    expect(worker.has('@aws-sdk/client-s3')).toBe(true);
    expect(worker.has('@aws-sdk/client-secrets-manager')).toBe(true);
  }, 60_000);

  it('no function carries a Google client library, zod, Powertools or the SDK default credential chain', async () => {
    const entries = [
      'functions/authorizer/handler.ts',
      'functions/ingest/s3-ingest.ts',
      'functions/sync/dispatch.ts',
      'functions/sync/worker.ts',
      ...new Set(routes.map((r) => r.entry)),
    ];
    for (const entry of entries) {
      const packages = await packagesOf(entry);
      expect([...packages].filter(unwanted), entry).toEqual([]);
    }
  }, 120_000);

  it('only the ingest carries the cell parsers; reports.query carries no example queries', async () => {
    const CATALOG = 'functions/core/reports/catalog';
    const ingest = await sourcesOf('functions/ingest/s3-ingest.ts');
    expect(ingest.has(`${CATALOG}/families.ts`)).toBe(true);
    expect(ingest.has(`${CATALOG}/family-shapes.ts`)).toBe(true);
    const query = await sourcesOf('functions/youtube-analytics/reports-query.ts');
    expect(query.has(`${CATALOG}/family-shapes.ts`)).toBe(true);
    expect(query.has(`${CATALOG}/catalog.ts`)).toBe(true);
    for (const file of ['families.ts', 'report-examples.ts', 'catalog-table.ts'])
      expect(query.has(`${CATALOG}/${file}`), file).toBe(false);
    expect((await sourcesOf('functions/sync/worker.ts')).has(`${CATALOG}/families.ts`)).toBe(false);
  }, 60_000);

  it('an HTTP function carries its own response schema, not the route table nor the other schemas', async () => {
    const query = await textOf('functions/youtube-analytics/reports-query.ts');
    expect(query).toContain('A report: column headers and rows.'); // QueryResponse's description (the check can see)
    expect(query).not.toContain('An analytics group: a collection of channels'); // Group's
    expect(query).not.toContain('Returns an analytics report.'); // the route table's description of reports.query
    expect(query).not.toContain('Legacy media upload protocol'); // the system parameters' discovery descriptions
    const sources = await sourcesOf('functions/youtube-analytics/groups-list.ts');
    expect(sources.has('functions/_shared/http-handler.ts')).toBe(true);
    expect(sources.has('functions/routes.ts')).toBe(false);
  }, 60_000);

  it('reports.query carries the filter value lists, not the ingest code tables; the ingest not the metric definitions', async () => {
    const query = await textOf('functions/youtube-analytics/reports-query.ts');
    expect(query).toContain('SHORTS_CONTENT_LINKS'); // an insightTrafficSourceType value (ANALYTICS_VALUES)
    expect(query).not.toContain('AGE_13_17'); // an export's age-group code (AGE_GROUPS, the ingest's)
    expect(query).not.toContain('LEASE#FACT#'); // the ingest's lease keys (keys are imported one by one)
    const ingest = await textOf('functions/ingest/s3-ingest.ts');
    expect(ingest).toContain('AGE_13_17');
    expect(ingest).toContain('LEASE#FACT#');
    expect(ingest).not.toContain('playbackBasedCpm'); // a metric of METRICS (and of the catalog, which the ingest lacks)
  }, 60_000);
});
