/**
 * What the Lambda bundles carry (esbuild, as the stack bundles them): the Google OAuth client and its HTTP stack go
 * only into the sync worker, never into the API's functions (one shared import once put them in every bundle), and
 * no function carries the whole `googleapis` package.
 */
import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

async function packagesOf(entry: string): Promise<Set<string>> {
  const out = await build({
    entryPoints: [path.join(ROOT, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    mainFields: ['module', 'main'],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const packages = new Set<string>();
  for (const input of Object.keys(out.metafile.inputs)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    if (m) packages.add(m[1] as string);
  }
  return packages;
}

const GOOGLE = ['google-auth-library', 'gaxios', 'googleapis-common', 'googleapis'];

describe('Lambda bundles', () => {
  it('the sync worker carries google-auth-library, not googleapis', async () => {
    const worker = await packagesOf('functions/sync/worker.ts');
    expect(worker.has('google-auth-library')).toBe(true);
    expect(worker.has('googleapis')).toBe(false);
    expect(worker.has('googleapis-common')).toBe(false);
  }, 60_000);

  it('the API functions, the authorizer, the ingest and the dispatcher carry no Google client', async () => {
    const entries = [
      'functions/authorizer/handler.ts',
      'functions/ingest/s3-ingest.ts',
      'functions/sync/dispatch.ts',
      ...new Set(routes.map((r) => r.entry)),
    ];
    for (const entry of entries) {
      const packages = await packagesOf(entry);
      expect(
        GOOGLE.filter((p) => packages.has(p)),
        entry,
      ).toEqual([]);
    }
  }, 120_000);
});
