/**
 * Google's Python client (googleapiclient, Debian python3-googleapi, run by /usr/bin/python3) built from the
 * discovery documents this API serves (`discoveryServiceUrl`), against the local API with minted tokens:
 * reports.query (whole and with `fields`), the group and group item lifecycle, properties.get, and errors
 * surfacing as HttpError with our body. The script is test/python/google_client_lifecycle.py.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { createReportFixture, type ReportFixture } from '../support/report-fixtures';

const PYTHON = '/usr/bin/python3';
const SCRIPT = path.resolve(import.meta.dirname, '..', 'python', 'google_client_lifecycle.py');

let api: LocalApi;
let fx: ReportFixture;
let out: any;
let direct: any;

function runPython(input: unknown): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(JSON.stringify(input));
  });
}

beforeAll(async () => {
  api = await startLocalApi();
  fx = await createReportFixture({ videos: 5, days: 30, a2Days: 0 });
  const report = {
    ids: 'channel==MINE',
    startDate: fx.days[0] as string,
    endDate: fx.days[29] as string,
    metrics: 'views,estimatedMinutesWatched',
    dimensions: 'day',
    sort: 'day',
    maxResults: 20,
  };
  const reportsToken = await api.token(fx.sub, ['video-analytics.readonly']);
  direct = (
    await api.call(`/v2/reports?${new URLSearchParams({ ...report, maxResults: '20' })}`, { token: reportsToken })
  ).body;
  const run = await runPython({
    discoveryServiceUrl: `${api.baseUrl}/$discovery/rest?version={apiVersion}`,
    reportsToken,
    groupsToken: await api.token(fx.sub, ['video-platform']),
    adminToken: await api.token('alice', ['analytics.readonly']),
    report,
    videoId: fx.videoIds[2],
  });
  if (run.code !== 0) throw new Error(`python exited ${run.code}:\n${run.stderr.slice(-3000)}`);
  out = JSON.parse(run.stdout);
}, 120_000);

afterAll(() => api?.close());

describe('googleapiclient built from the served discovery document', () => {
  it('reports.query answers what the API answers over plain HTTP', () => {
    expect(direct.rows).toHaveLength(20);
    expect(out.report).toStrictEqual(direct);
    expect(out.report.kind).toBe('youtubeAnalytics#resultTable');
  });

  it('reports.query with fields=rows gets only the rows', () => {
    expect(out.reportRows).toStrictEqual({ rows: direct.rows });
  });

  it('a refused query raises HttpError carrying our Google error body', () => {
    expect(out.error.status).toBe(400);
    expect(out.error.body.error).toMatchObject({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message: 'Unknown identifier (nope) given in field parameters.metrics.',
    });
  });

  it('runs the group and group item lifecycle', () => {
    const g = out.groups;
    expect(g.created).toMatchObject({ kind: 'youtube#group', snippet: { title: 'From Python' } });
    expect(g.updated).toMatchObject({ id: g.created.id, snippet: { title: 'Renamed from Python' } });
    expect(g.item).toMatchObject({
      kind: 'youtube#groupItem',
      groupId: g.created.id,
      resource: { kind: 'youtube#video', id: fx.videoIds[2] },
    });
    expect(g.listed.kind).toBe('youtube#groupListResponse');
    expect(g.listed.items.map((i: any) => i.id)).toEqual([g.created.id]);
    expect(g.listed.items[0].contentDetails).toMatchObject({ itemCount: '1', itemType: 'youtube#video' });
    expect(g.mine.items.map((i: any) => i.id)).toContain(g.created.id);
    expect(g.items.kind).toBe('youtube#groupItemListResponse');
    expect(g.items.items.map((i: any) => i.id)).toEqual([g.item.id]);
    // 204 No Content: the client's empty answer.
    expect(g.deletedItem).toStrictEqual({});
    expect(g.itemsAfter.items).toEqual([]);
    expect(g.deletedGroup).toStrictEqual({});
    expect(g.listedAfter.items).toEqual([]);
  });

  it('analyticsadmin properties.get reads properties/1000 (path v1alpha/{+name})', () => {
    expect(out.property).toMatchObject({
      name: 'properties/1000',
      displayName: 'Alice Cooks - Web',
      account: 'accounts/100',
    });
  });

  it('a property the caller may not read raises HttpError 403 with our body', () => {
    expect(out.propertyError.status).toBe(403);
    expect(out.propertyError.body.error.status).toBe('PERMISSION_DENIED');
  });
});
