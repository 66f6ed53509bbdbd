/**
 * The Lambda bundles resolve AWS credentials from the environment only (BUNDLE_ALIASES, lambda-credentials.ts): a
 * module bundled with the stack's settings signs its DynamoDB Local calls with the environment's keys, and with none
 * there it fails with our message, not by looking up a profile the full chain would have used.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/constructs/api-function';
import { BUNDLE_FILE, esbuildOptions } from '../../infra/constructs/function-bundling';

const work = mkdtempSync(path.join(tmpdir(), 'lambda-credentials-'));
const bundle = path.join(work, BUNDLE_FILE);
afterAll(() => rmSync(work, { recursive: true, force: true }));

beforeAll(async () => {
  await build({
    ...esbuildOptions(REPO_ROOT, 'test/fixtures/lambda-credentials/list-tables.ts', work),
    logLevel: 'silent',
  });
  // A home with a default profile: the SDK's full chain would find these keys; the bundle must not.
  mkdirSync(path.join(work, 'home', '.aws'), { recursive: true });
  writeFileSync(
    path.join(work, 'home', '.aws', 'credentials'),
    '[default]\naws_access_key_id = fromprofile\naws_secret_access_key = fromprofile\n',
  );
});

/** Runs the bundle in a fresh process with only `env` (plus PATH and the endpoint) and returns what it printed. */
function run(env: Record<string, string>): Promise<string> {
  const base = { PATH: process.env.PATH ?? '', DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT ?? '' };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [bundle], { env: { ...base, ...env }, timeout: 30_000 }, (err, stdout) =>
      err ? reject(err) : resolve(stdout.trim()),
    );
  });
}

describe('the bundles read AWS credentials from the environment', () => {
  it('a bundled client signs with the environment keys (DynamoDB Local answers)', async () => {
    const out = await run({ AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', AWS_SESSION_TOKEN: 't' });
    expect(out).toMatch(/^TABLES=/);
    expect(JSON.parse(out.slice('TABLES='.length))).toContain(process.env.TABLE_NAME);
  });

  it('without keys in the environment it fails with our message, never reading a profile', async () => {
    const out = await run({ HOME: path.join(work, 'home'), AWS_PROFILE: 'default' });
    expect(out).toContain('ERROR=AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set');
  });
});
