/**
 * Issue 11's "done when", end to end against the local server, with the operator commands spawned as an operator runs
 * them (`--table` pointed at this file's table in DynamoDB Local): a directory file adding a user and a channel is
 * planned, applied (a second plan says `No changes.`), exported identically; the user's token queries the channel
 * after `import` of its exports and groups a video that only those exports name; `apply --prune` without the user
 * takes the access away; `smoke` passes; `synth -c userPool=true` has the pool, the six scopes, both clients and the
 * Cognito-aware authorizer.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonical, parseDirectoryFile } from '../../functions/core/directory/directory-file';
import { SCOPE_NAMES } from '../../functions/core/scopes';
import { directoryToYaml, readDirectoryText } from '../../infra/cli/directory-yaml';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { useOwnTable } from '../support/own-table';

useOwnTable('team');

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const work = mkdtempSync(path.join(tmpdir(), 'team-deploy-'));
let api: LocalApi;

/** Runs an operator command as `npx tsx <script> ...`; resolves with its exit code and both outputs. */
async function cli(script: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('npx', ['tsx', script, ...args], {
      cwd: ROOT,
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

const target = () => ['--table', process.env.TABLE_NAME as string, '--region', 'us-east-1'];
const directory = (...args: string[]) => cli('infra/cli/directory.ts', ...args, ...target());

/** The exported directory with `edit` applied, in the canonical layout export prints. */
function edited(exported: string, edit: (doc: Record<string, any[]>) => void): string {
  const read = readDirectoryText('export', exported);
  if (!read.ok) throw new Error(read.messages.join('\n'));
  const doc = read.doc as Record<string, any[]>;
  edit(doc);
  const parsed = parseDirectoryFile(doc);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return directoryToYaml(canonical(parsed.file));
}

beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(async () => {
  await api.close();
  rmSync(work, { recursive: true, force: true });
});

describe('from a directory file to the first query, with the operator commands', () => {
  const file = path.join(work, 'directory.yaml');
  let exported = '';
  let newbieFile = '';

  it('plans, applies (then "No changes."), and exports identically a file adding a user and a channel', async () => {
    const first = await directory('export');
    expect(first.code).toBe(0);
    expect(first.stdout.startsWith('users:\n')).toBe(true);
    expect(first.stderr).toMatch(/^Exported 5 users, 3 channels, 1 content owners, 2 accounts, 3 properties/m);
    exported = first.stdout;

    newbieFile = edited(exported, (doc) => {
      doc.users?.push({ sub: 'newbie', channels: ['UCnewbie'] });
      doc.channels?.push({ id: 'UCnewbie', title: 'Newbie Streams' });
    });
    writeFileSync(file, newbieFile);

    const plan = await directory('plan', file);
    expect(plan).toMatchObject({ code: 0 });
    expect(plan.stdout.split('\n')).toEqual([
      '+ user newbie: channels UCnewbie',
      '+ channel UCnewbie: "Newbie Streams"',
      `Plan: 2 to add, 0 to change, 0 to remove (table ${process.env.TABLE_NAME} in us-east-1).`,
      '',
    ]);
    const apply = await directory('apply', file);
    expect(apply.code).toBe(0);
    expect(apply.stdout).toMatch(/^Applied: 2 added, 0 changed, 0 removed \(\d+ writes/m);
    expect(await directory('plan', file)).toMatchObject({ code: 0, stdout: 'No changes.\n' });
    expect((await directory('export')).stdout).toBe(newbieFile);
  });

  it("imports the channel's exports; the user's token queries the channel and groups a video only the exports name", async () => {
    const exportsDir = path.join(work, 'exports');
    const generated = await cli(
      'infra/generator/generate.ts',
      ...['--channel', 'UCnewbie', '--videos', '30', '--days', '20', '--start', '2026-10-01'],
      ...['--video-prefix', 'newbie-v', '--video-width', '3', '--out', exportsDir],
    );
    expect(generated.code).toBe(0);
    const imported = await cli('infra/cli/import.ts', exportsDir, ...target());
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/^Imported 20 of 20 files/m);

    const reader = await api.token('newbie', ['video-analytics.readonly']);
    const q =
      '/v2/reports?ids=channel==MINE&startDate=2026-10-01&endDate=2026-10-20&metrics=views&dimensions=video&sort=-views&maxResults=10';
    const report = await api.call(q, { token: reader });
    expect(report.status).toBe(200);
    expect(report.body.rows.length).toBeGreaterThan(0);
    const topVideo = report.body.rows[0][0] as string;
    expect(topVideo).toMatch(/^newbie-v\d{3}$/);
    // The file lists no video of UCnewbie: this one is groupable because the import recorded it.
    expect(readFileSync(file, 'utf8')).not.toContain('newbie-v');

    const writer = await api.token('newbie', ['video-platform']);
    const group = await api.call('/v2/groups', {
      token: writer,
      method: 'POST',
      body: JSON.stringify({ snippet: { title: 'best' } }),
    });
    expect(group.status).toBe(200);
    const insert = (id: string) =>
      api.call('/v2/groupItems', {
        token: writer,
        method: 'POST',
        body: JSON.stringify({ groupId: group.body.id, resource: { kind: 'youtube#video', id } }),
      });
    expect((await insert(topVideo)).status).toBe(200);
    const nowhere = await insert('newbie-v999');
    expect([nowhere.status, nowhere.body.error.errors[0].reason]).toEqual([404, 'resourceNotFound']);
    // Another channel's owner cannot group it.
    const alice = await api.token('alice', ['video-platform']);
    const aliceGroup = await api.call('/v2/groups', {
      token: alice,
      method: 'POST',
      body: JSON.stringify({ snippet: { title: 'x' } }),
    });
    const stolen = await api.call('/v2/groupItems', {
      token: alice,
      method: 'POST',
      body: JSON.stringify({ groupId: aliceGroup.body.id, resource: { kind: 'youtube#video', id: topVideo } }),
    });
    expect(stolen.status).toBe(404);
  });

  it('npm run smoke passes against the local server with the new user’s tokens', async () => {
    const smoke = await cli(
      'infra/cli/smoke.ts',
      ...[
        '--base-url',
        api.baseUrl,
        '--token',
        await api.token('newbie', ['video-analytics.readonly', 'analytics.readonly']),
      ],
      ...['--owner-token', await api.token('newbie', ['video-analytics.readonly', 'video-platform'])],
    );
    expect(smoke.code, smoke.stdout).toBe(0);
    const lines = smoke.stdout.trim().split('\n');
    expect(lines.at(-1)).toBe('smoke: 14/14 checks hold');
    expect(lines.filter((l) => l.startsWith('ok  '))).toHaveLength(14);
  });

  it('apply --prune with the user removed takes their access away', async () => {
    const withoutNewbie = edited(newbieFile, (doc) => {
      doc.users = (doc.users ?? []).filter((u) => u.sub !== 'newbie');
    });
    writeFileSync(file, withoutNewbie);
    const plan = await directory('plan', file, '--prune');
    expect(plan.stdout.split('\n')[0]).toBe('- user newbie: channels UCnewbie');
    const apply = await directory('apply', file, '--prune');
    expect(apply.code).toBe(0);
    expect(apply.stdout).toMatch(/^Applied: 0 added, 0 changed, 1 removed/m);

    const reader = await api.token('newbie', ['video-analytics.readonly']);
    const report = await api.call(
      '/v2/reports?ids=channel==MINE&startDate=2026-10-01&endDate=2026-10-20&metrics=views',
      {
        token: reader,
      },
    );
    expect([report.status, report.body.error.status]).toEqual([403, 'PERMISSION_DENIED']);
    expect((await directory('plan', file, '--prune')).stdout).toBe('No changes.\n');
  });

  it('an invalid file: the issues with their lines on stderr, exit 1, nothing written', async () => {
    const bad = path.join(work, 'bad.yaml');
    writeFileSync(bad, 'users:\n  - sub: zed\n    channels: [UCnowhere]\n');
    const result = await directory('apply', bad);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      `${bad}:3:16: users[0].channels[0]: channel UCnowhere is defined neither in the file nor in the table`,
    );
    expect(result.stderr).toContain('nothing was written');
    expect(await directory('plan', file, '--prune')).toMatchObject({ stdout: 'No changes.\n' });
  });

  it('npm run synth -- -c userPool=true synthesizes the pool, the six scopes, both clients and the Cognito-aware authorizer', async () => {
    const out = path.join(work, 'cdk.out');
    const synth = await run('npx', ['cdk', 'synth', '--quiet', '-c', 'userPool=true', '-o', out], {
      cwd: ROOT,
      timeout: 240_000,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((err: { stderr?: string }) => {
      throw new Error(`cdk synth failed: ${err.stderr}`);
    });
    expect(synth).toBeDefined();
    const template = JSON.parse(readFileSync(path.join(out, 'AnalyticsApi.template.json'), 'utf8'));
    const resources = Object.values(template.Resources) as { Type: string; Properties: any }[];
    const ofType = (type: string) => resources.filter((r) => r.Type === type);
    expect(ofType('AWS::Cognito::UserPool')).toHaveLength(1);
    expect(
      ofType('AWS::Cognito::UserPoolResourceServer')[0]
        ?.Properties.Scopes.map((s: any) => s.ScopeName)
        .sort(),
    ).toEqual([...SCOPE_NAMES].sort());
    const flows = ofType('AWS::Cognito::UserPoolClient').map((c) => c.Properties.AllowedOAuthFlows.join());
    expect(flows.sort()).toEqual(['client_credentials', 'code']);
    const authorizer = ofType('AWS::Lambda::Function').find(
      (f) => f.Properties.Environment?.Variables?.COGNITO_USER_POOL_ID,
    );
    expect(authorizer?.Properties.Environment.Variables.COGNITO_CLIENT_IDS).toBeDefined();
  }, 300_000);
});
