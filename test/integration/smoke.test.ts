/**
 * The smoke test of a deployment (infra/cli/smoke-checks.ts), run in-process against the local server (same
 * authorizer and handlers as the cloud) with real tokens: every check holds for a channel owner; a caller who owns
 * nothing fails the checks that need a channel, and the group the run created is deleted all the same.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import * as keys from '../../functions/core/db/keys';
import { runSmoke, type SmokeCheck, summaryLine } from '../../infra/cli/smoke-checks';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { useOwnTable } from '../support/own-table';

useOwnTable('smoke');

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api.close());

const READS = ['video-analytics.readonly', 'analytics.readonly'];
const WRITES = ['video-analytics.readonly', 'video-platform'];

async function groupsOf(actor: string): Promise<unknown[]> {
  const db = createDocumentClient();
  try {
    const out = await db.send(
      new QueryCommand({
        TableName: process.env.TABLE_NAME,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.ownerPartition(actor) },
        ConsistentRead: true,
      }),
    );
    return out.Items ?? [];
  } finally {
    db.destroy();
  }
}

describe('runSmoke against the local server', () => {
  it('every check holds for a channel owner, and the run leaves no group behind', async () => {
    const seen: SmokeCheck[] = [];
    const result = await runSmoke({
      baseUrl: `${api.baseUrl}/`,
      token: await api.token('alice', READS),
      ownerToken: await api.token('alice', WRITES),
      video: 'alice-v0001',
      property: '1000',
      onCheck: (c) => seen.push(c),
    });

    expect(result.checks.filter((c) => !c.ok)).toEqual([]);
    expect(result.total).toBe(14);
    expect(seen).toEqual(result.checks);
    expect(summaryLine(result)).toBe('smoke: 14/14 checks hold');
    // All nine operations were called.
    const names = result.checks.map((c) => c.name).join('\n');
    for (const op of [
      'reports.query',
      'properties.get',
      'groups.list',
      'groups.insert',
      'groups.update',
      'groups.delete',
    ]) {
      expect(names).toContain(op);
    }
    for (const op of ['groupItems.insert', 'groupItems.list', 'groupItems.delete']) expect(names).toContain(op);
    expect(await groupsOf('channel:UCdemo-alice')).toEqual([]);
  });

  it('one token for everything, no --property: the 403 of properties.get is checked instead', async () => {
    const token = await api.token('alice', [...READS, 'video-platform']);
    const result = await runSmoke({ baseUrl: api.baseUrl, token, video: 'alice-v0002' });

    expect(result.checks.filter((c) => !c.ok)).toEqual([]);
    expect(result.checks.find((c) => c.name.startsWith('properties.get'))?.detail).toMatch(/^403 PERMISSION_DENIED/);
  });

  it('a caller owning no channel fails the channel checks; the group it created is deleted anyway', async () => {
    const token = await api.token('mallory', [...READS, 'video-platform']);
    const result = await runSmoke({ baseUrl: api.baseUrl, token, video: 'alice-v0001' });

    const failed = result.checks.filter((c) => !c.ok).map((c) => c.name);
    expect(failed).toEqual([
      'reports.query channel==MINE (views by day, last 30 days)',
      'groupItems.insert video alice-v0001',
      'groupItems.delete',
    ]);
    expect(result.checks.find((c) => c.name.startsWith('groupItems.insert'))?.detail).toMatch(
      /404 NOT_FOUND resourceNotFound/,
    );
    expect(summaryLine(result)).toBe(`smoke: ${result.total - 3}/${result.total} checks hold`);
    expect(await groupsOf('user:mallory')).toEqual([]);
  });

  it('without the right scope the group checks fail (403), and nothing is left to clean up', async () => {
    const result = await runSmoke({
      baseUrl: api.baseUrl,
      token: await api.token('alice', ['video-analytics.readonly']),
    });

    const insert = result.checks.find((c) => c.name === 'groups.insert');
    expect(insert).toMatchObject({ ok: false, detail: expect.stringMatching(/expected 200, got 403/) });
    expect(result.checks.filter((c) => c.detail.startsWith('not run')).length).toBe(6);
    expect(result.passed).toBeLessThan(result.total);
  });

  it('a base URL where nothing answers fails every check with the reason, and does not throw', async () => {
    const result = await runSmoke({ baseUrl: 'http://127.0.0.1:9', token: 'x', timeoutMs: 2_000 });

    expect(result.passed).toBe(0);
    expect(result.checks[0]?.detail).toMatch(/^request failed/);
  });
});
