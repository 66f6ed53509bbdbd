/**
 * The stack's bundling and the cold-start bench's cannot drift: CDK bundles a function through ApiFunction (esbuild's
 * CLI, run by aws-lambda-nodejs) and esbuildOptions() bundles the same entry through esbuild's API; the two bundles
 * must be the same bytes. The entry holds the SDK, so the bytes cover BUNDLE_ALIASES too (CDK passes it as `--alias`).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiFunction, REPO_ROOT } from '../../infra/constructs/api-function';
import { BUNDLE_FILE, esbuildOptions } from '../../infra/constructs/function-bundling';

const work = mkdtempSync(path.join(tmpdir(), 'function-bundling-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('function bundling', () => {
  it('esbuildOptions() builds the same bundle as the stack', async () => {
    const entry = 'functions/youtube-analytics/groups-list.ts';
    const outdir = path.join(work, 'cdk.out');
    const app = new App({ outdir });
    const fn = new ApiFunction(new Stack(app, 'Bundling'), 'Fn', { entry });
    expect(fn.entry).toBe(entry);
    app.synth();
    const staged = readdirSync(outdir)
      .filter((name) => name.startsWith('asset.'))
      .map((name) => path.join(outdir, name, BUNDLE_FILE));
    expect(staged).toHaveLength(1);

    const benchDir = path.join(work, 'bench');
    await build({ ...esbuildOptions(REPO_ROOT, entry, benchDir), logLevel: 'silent' });
    const cdkBundle = readFileSync(staged[0] as string);
    const benchBundle = readFileSync(path.join(benchDir, BUNDLE_FILE));
    expect(benchBundle.length).toBeGreaterThan(10_000);
    expect(benchBundle.toString()).toContain('this bundle reads no other source'); // lambda-credentials.ts, aliased
    expect(benchBundle.equals(cdkBundle)).toBe(true);
  });
});
