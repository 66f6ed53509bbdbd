/**
 * The README's "Deploy for your team" runs: every code block of the section carries a marker
 * (`<!-- readme-test: run -->`, `<!-- readme-test: file NAME -->`, or `<!-- readme-test: aws-only (reason) -->`), and
 * the runnable blocks run in order, in bash, against the local server and this file's table in DynamoDB Local, with
 * what the AWS-only blocks would have set ($API_URL, $TOKEN, $TABLE, $REGION) given local values. The files they
 * read and write go to a temporary folder.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { useOwnTable } from '../support/own-table';

useOwnTable('readme');

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const work = mkdtempSync(path.join(tmpdir(), 'readme-deploy-'));
const run = promisify(execFile);

interface Block {
  readonly marker: string;
  readonly lang: string;
  readonly body: string;
}

/** The fenced blocks of the section, each with the marker comment just above it ('' when there is none). */
function sectionBlocks(): Block[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Deploy for your team\n');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end);
  const blocks: Block[] = [];
  const fence = /(?:<!-- readme-test: ([^>]*?) -->\n)?```(\w*)\n([\s\S]*?)\n```/g;
  for (const m of section.matchAll(fence)) blocks.push({ marker: m[1] ?? '', lang: m[2] ?? '', body: m[3] ?? '' });
  return blocks;
}

/** Files the blocks name, moved to the temporary folder (npm runs its scripts from the repository root). */
const localPaths = (body: string) =>
  body
    .replaceAll('./exports', path.join(work, 'exports'))
    .replace(/(?<![\w/.-])(directory|exported)\.yaml/g, (name) => path.join(work, name));

let api: LocalApi;
const SERVICE_SUB = '4f0c6mvq8k3p1examplesvc0id';

beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(async () => {
  await api.close();
  rmSync(work, { recursive: true, force: true });
});

describe('README "Deploy for your team"', () => {
  const blocks = sectionBlocks();

  it('marks every block: run, a file, or AWS-only with the reason', () => {
    expect(blocks.length).toBeGreaterThan(8);
    for (const b of blocks) expect(b.marker, b.body.slice(0, 80)).toMatch(/^(run|file \S+|aws-only \(.+\))$/);
    expect(blocks.filter((b) => b.marker === 'run').length).toBeGreaterThanOrEqual(4);
  });

  it('runs every runnable block in order against the local server', async () => {
    const env = {
      ...process.env,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // What the AWS-only blocks set, for the local server and this file's table.
      API_URL: api.baseUrl,
      TOKEN: await api.token(SERVICE_SUB, ['video-analytics.readonly', 'video-platform', 'analytics.readonly']),
      TABLE: process.env.TABLE_NAME as string,
      REGION: 'us-east-1',
    };
    const outputs: string[] = [];
    for (const b of blocks) {
      if (b.marker.startsWith('file ')) writeFileSync(path.join(work, b.marker.slice(5)), `${b.body}\n`);
      if (b.marker !== 'run') continue;
      const result = await run('bash', ['-euo', 'pipefail', '-c', localPaths(b.body)], {
        cwd: ROOT,
        env,
        timeout: 180_000,
        maxBuffer: 16 * 1024 * 1024,
      }).catch((err: { stdout?: string; stderr?: string }) => {
        throw new Error(`block failed:\n${b.body}\n--- stdout\n${err.stdout}\n--- stderr\n${err.stderr}`);
      });
      outputs.push(result.stdout);
    }
    const [directory, exportsImport, smoke, client] = outputs;
    expect(directory).toContain(`+ user ${SERVICE_SUB}: channels UCf3fN5mM1p9g4Kq2Zx8aB7w; reads accounts/4242`);
    expect(directory).toMatch(/Applied: 5 added, 0 changed, 0 removed/);
    expect(readFileSync(path.join(work, 'exported.yaml'), 'utf8')).toContain(`sub: "${SERVICE_SUB}"`);
    expect(existsSync(path.join(work, 'exports'))).toBe(true);
    expect(exportsImport).toMatch(/Imported 30 of 30 files/);
    expect(smoke?.trim().split('\n').at(-1)).toBe('smoke: 14/14 checks hold');
    expect(client).toMatch(/\[ '2026-10-01', \d+, \d+/);
  }, 600_000);
});
