/**
 * Connected channels, end to end (issue 12, "done when"): with the Reporting API stand-in running, `npm run connect`
 * stores three owners (two channels, one content owner), and `npm run sync` — the real commands, as child processes,
 * on DynamoDB Local — creates the missing jobs, follows every page, loads every report once (a second sync loads
 * nothing), answers a restated day with the newer report's figures even when the older one is listed later, reports
 * the owner whose refresh token was revoked without stopping the others, and the reach metrics answer by day and by
 * video through the official @googleapis/youtubeanalytics client.
 */
import { auth, youtubeAnalytics } from '@googleapis/youtubeanalytics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import { readSyncStates } from '../../functions/core/sync/sync-state';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { useOwnTable } from '../support/own-table';
import { ReportingApiStandin } from '../support/reporting-api-standin';
import { connectArgs, ownChannel, runCli } from '../support/sync-support';

useOwnTable('sync-e2e');

const A = 'UCsyncA';
const B = 'UCsyncB';
const CO = 'syncco';
const SUB = 'sync-user-a';
const ACCOUNTS = {
  a: {
    clientId: 'client-a.apps.example',
    clientSecret: 'secret-a-7f3k',
    refreshToken: '1//refresh-a-q9Zx',
    channel: A,
  },
  b: {
    clientId: 'client-b.apps.example',
    clientSecret: 'secret-b-2m8p',
    refreshToken: '1//refresh-b-Lr4t',
    channel: B,
  },
  b2: {
    clientId: 'client-b.apps.example',
    clientSecret: 'secret-b-2m8p',
    refreshToken: '1//refresh-b2-Wq1e',
    channel: B,
  },
  co: {
    clientId: 'client-co.apps.example',
    clientSecret: 'secret-co-5n6v',
    refreshToken: '1//refresh-co-Hh7u',
    contentOwners: [CO],
  },
};

const BASIC =
  'date,channel_id,video_id,live_or_on_demand,subscribed_status,country_code,views,engaged_views,watch_time_minutes';
const REACH_BASIC = 'date,channel_id,video_id,video_thumbnail_impressions,video_thumbnail_impressions_ctr';
const REACH_COMBINED =
  'date,channel_id,video_id,traffic_source_type,traffic_source_detail,operating_system,device_type,video_thumbnail_impressions,video_thumbnail_impressions_ctr';
const CO_BASIC =
  'date,channel_id,video_id,claimed_status,uploader_type,live_or_on_demand,subscribed_status,country_code,views';
const CO_REVENUE =
  'date,channel_id,video_id,claimed_status,uploader_type,country_code,estimated_partner_revenue,ad_impressions';

const csv = (header: string, rows: readonly (readonly (string | number)[])[]) =>
  `${[header, ...rows.map((r) => r.join(','))].join('\n')}\n`;
const ymd = (day: string) => day.replaceAll('-', '');
/** channel_basic_a3 of channel A for a day: two videos, views v1 and v2. */
const basicDay = (day: string, v1: number, v2: number) =>
  csv(BASIC, [
    [ymd(day), A, 'sa-v1', 'on_demand', 'subscribed', 'US', v1, v1, v1 * 2],
    [ymd(day), A, 'sa-v2', 'on_demand', 'not_subscribed', 'DE', v2, v2, v2 * 3],
  ]);
/**
 * Created in the order given, a few minutes apart (microseconds, as the API writes them), before the stand-in's
 * clock (which stamps the reports published without a createTime, and moves on).
 */
const created = (minute: number) => `2026-11-01T08:${String(minute).padStart(2, '0')}:00.000123Z`;

let standin: ReportingApiStandin;
let api: LocalApi;
let yt: ReturnType<typeof youtubeAnalytics>;

const run = (script: string, args: readonly string[]) =>
  runCli(script, args, {
    REPORTING_API_ROOT: standin.baseUrl,
    OAUTH_TOKEN_URL: standin.tokenUrl,
    SYNC_RETRY_BASE_MS: '1',
  });

const lineOf = (out: string, owner: string) => out.split('\n').find((l) => l.startsWith(`${owner}:`)) ?? '';

async function query(params: Record<string, string | number>) {
  const res = await yt.reports.query({
    ids: 'channel==MINE',
    startDate: '2026-10-01',
    endDate: '2026-10-31',
    ...params,
  });
  return res.data.rows ?? [];
}

beforeAll(async () => {
  standin = await ReportingApiStandin.start();
  for (const a of Object.values(ACCOUNTS)) standin.addAccount(a);
  standin.setReportTypes('channel', [
    { id: 'channel_basic_a2', name: 'User activity (old)' },
    { id: 'channel_basic_a3', name: 'User activity' },
    { id: 'channel_reach_basic_a1', name: 'Reach' },
    { id: 'channel_reach_combined_a1', name: 'Reach, combined' },
    { id: 'channel_annotations_a1', name: 'Annotations (retired)', deprecateTime: '2026-01-01T00:00:00Z' },
    { id: 'channel_unknown_future_a1', name: 'Something this product does not read' },
  ]);
  standin.setReportTypes('contentOwner', [
    { id: 'content_owner_basic_a4', name: 'User activity' },
    { id: 'content_owner_estimated_revenue_a1', name: 'Revenue', systemManaged: true },
  ]);

  // Channel A already has a channel_basic_a3 job with six days (two pages of four); day 3 was restated: the newer
  // report is listed first, the older one last.
  standin.addJob(A, 'channel_basic_a3');
  for (const [i, day] of [
    '2026-10-01',
    '2026-10-02',
    '2026-10-03',
    '2026-10-04',
    '2026-10-05',
    '2026-10-06',
  ].entries()) {
    const restated = day === '2026-10-03';
    standin.publish(A, 'channel_basic_a3', {
      day,
      csv: restated ? basicDay(day, 999, 1) : basicDay(day, 10 * (i + 1), 5 * (i + 1)),
      createTime: created(restated ? 40 : i),
      id: restated ? 'a-basic-03-restated' : undefined,
    });
  }
  standin.publish(A, 'channel_basic_a3', {
    day: '2026-10-03',
    csv: basicDay('2026-10-03', 30, 15),
    createTime: created(2),
    id: 'a-basic-03-original',
  });
  // Reach reports appear once the sync creates their jobs (YouTube generates nothing before).
  standin.publish(A, 'channel_reach_basic_a1', {
    day: '2026-10-01',
    csv: csv(REACH_BASIC, [
      ['20261001', A, 'sa-v1', 1000, 0.05],
      ['20261001', A, 'sa-v2', 400, 0.1],
    ]),
  });
  standin.publish(A, 'channel_reach_basic_a1', {
    day: '2026-10-02',
    csv: csv(REACH_BASIC, [
      ['20261002', A, 'sa-v1', 2000, 0.04],
      ['20261002', A, 'sa-v3', 100, 0.2],
    ]),
  });
  standin.publish(A, 'channel_reach_basic_a1', {
    day: '2026-10-03',
    csv: csv(REACH_BASIC, [['20261003', A, 'sa-v2', 300, 0.0333]]),
  });
  standin.publish(A, 'channel_reach_combined_a1', {
    day: '2026-10-01',
    csv: csv(REACH_COMBINED, [
      ['20261001', A, 'sa-v1', 5, 'what-to-watch', 4, 104, 700, 0.06],
      ['20261001', A, 'sa-v1', 7, 'sa-v2', 2, 101, 300, 0.02],
      ['20261001', A, 'sa-v2', 3, 'what-to-watch', 4, 104, 400, 0.1],
    ]),
  });
  standin.publish(B, 'channel_basic_a3', { day: '2026-10-01', csv: basicDay('2026-10-01', 1, 1).replaceAll(A, B) });
  // The content owner: a system-managed revenue job YouTube keeps, and user activity once its job exists.
  standin.addSystemJob(CO, 'content_owner_estimated_revenue_a1');
  standin.publish(CO, 'content_owner_estimated_revenue_a1', {
    day: '2026-10-02',
    csv: csv(CO_REVENUE, [['20261002', 'UCcoX', 'co-v1', 'claimed', 'self', 'US', '12.50', 4000]]),
  });
  for (const day of ['2026-10-01', '2026-10-02']) {
    standin.publish(CO, 'content_owner_basic_a4', {
      day,
      csv: csv(CO_BASIC, [[ymd(day), 'UCcoX', 'co-v1', 'claimed', 'self', 'on_demand', 'subscribed', 'US', 42]]),
    });
  }

  const db = createDocumentClient(process.env.DYNAMODB_ENDPOINT);
  await ownChannel({ db, tableName: process.env.TABLE_NAME as string }, SUB, A, ['sa-v1', 'sa-v2', 'sa-v3']);
  db.destroy();
  api = await startLocalApi();
  const oauth = new auth.OAuth2();
  oauth.setCredentials({ access_token: await api.token(SUB, ['video-analytics.readonly']) });
  yt = youtubeAnalytics({ version: 'v2', rootUrl: `${api.baseUrl}/`, auth: oauth });
}, 120_000);

afterAll(async () => {
  await api?.close();
  await standin?.close();
});

describe('connect, then sync, against the Reporting API stand-in', () => {
  it('connect checks the credentials, stores them, and refuses wrong ones without storing anything', async () => {
    const wrong = await run('connect', connectArgs(A, { ...ACCOUNTS.a, clientSecret: 'not-the-secret' }));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('invalid_client');
    expect(wrong.stderr).toContain('Nothing was stored');
    expect(wrong.stderr).not.toContain('not-the-secret');
    expect(await readSyncStates({ db: createDocumentClient(), tableName: process.env.TABLE_NAME as string })).toEqual(
      [],
    );

    for (const [owner, account] of [
      [A, ACCOUNTS.a],
      [B, ACCOUNTS.b],
      [CO, ACCOUNTS.co],
    ] as const) {
      const out = await run('connect', connectArgs(owner, account));
      expect(out.stderr).toBe('');
      expect(out.code).toBe(0);
      expect(out.stdout).toContain(`Connected ${owner === CO ? 'content owner' : 'channel'} ${owner}`);
      expect(out.stdout).not.toContain(account.clientSecret);
      expect(out.stdout).not.toContain(account.refreshToken);
    }
    // The verification refreshed each token and listed report types (on behalf of the content owner for it).
    const typeCalls = standin.requests.filter((r) => r.path === '/v1/reportTypes' && r.status === 200);
    expect(typeCalls.some((r) => r.query.onBehalfOfContentOwner === CO)).toBe(true);
  }, 120_000);

  it('the first sync creates the missing jobs, follows every page, loads every report; the revoked owner is reported and the others go on', async () => {
    standin.revoke(ACCOUNTS.b.refreshToken);
    const out = await run('sync', []);
    expect(out.code, out.stdout + out.stderr).toBe(1); // B failed
    // A: 7 channel_basic reports (one an older restatement), 3 + 1 reach reports.
    expect(lineOf(out.stdout, A)).toBe(`${A}: 11 reports found, 10 loaded, 1 skipped, 0 failed; 2 jobs created`);
    expect(lineOf(out.stdout, B)).toMatch(new RegExp(`^${B}: 0 reports found.* — NEEDS RE-CONSENT .*invalid_grant`));
    expect(lineOf(out.stdout, CO)).toBe(`${CO}: 3 reports found, 3 loaded, 0 skipped, 0 failed; 1 jobs created`);

    // Jobs: the two reach types for A (not the older channel_basic_a2, the deprecated or the unknown type), and
    // content_owner_basic_a4 on behalf of the content owner (the system-managed revenue job is read, not created).
    const creates = standin.requests.filter((r) => r.method === 'POST' && r.path === '/v1/jobs');
    expect(creates.map((r) => r.query.onBehalfOfContentOwner ?? 'channel').sort()).toEqual(['channel', 'channel', CO]);
    expect(
      standin
        .jobsOf(A)
        .map((j) => j.reportTypeId)
        .sort(),
    ).toEqual(['channel_basic_a3', 'channel_reach_basic_a1', 'channel_reach_combined_a1']);
    expect(
      standin
        .jobsOf(CO)
        .map((j) => j.reportTypeId)
        .sort(),
    ).toEqual(['content_owner_basic_a4', 'content_owner_estimated_revenue_a1']);
    // Every page: the seven channel_basic reports came in pages of four; report types in pages of five.
    const pages = standin.requests.filter((r) => /\/reports$/.test(r.path) && r.query.pageToken !== undefined);
    expect(pages.length).toBeGreaterThan(0);
    expect(standin.requests.some((r) => r.path === '/v1/reportTypes' && r.query.pageToken !== undefined)).toBe(true);
    expect(standin.requests.some((r) => r.path === '/v1/jobs' && r.query.includeSystemManaged === 'true')).toBe(true);
    // Downloads asked for gzip and got it; the older restatement was never downloaded.
    const downloads = standin.requests.filter((r) => r.path.startsWith('/v1/media/'));
    expect(downloads).toHaveLength(13);
    for (const d of downloads) {
      expect(d.acceptEncoding).toContain('gzip');
      expect(d.gzip).toBe(true);
    }
    expect(downloads.some((d) => d.path.endsWith('/a-basic-03-original'))).toBe(false);
  }, 180_000);

  it('the restated day answers the newer report, though the older one was listed later', async () => {
    const rows = await query({ metrics: 'views', dimensions: 'day', sort: 'day' });
    expect(rows).toEqual([
      ['2026-10-01', 15],
      ['2026-10-02', 30],
      ['2026-10-03', 1000],
      ['2026-10-04', 60],
      ['2026-10-05', 75],
      ['2026-10-06', 90],
    ]);
  });

  it('reach metrics answer by day and by video through the official client; the click rate is recomputed', async () => {
    const byDay = await query({
      metrics: 'videoThumbnailImpressions,videoThumbnailImpressionsClickRate',
      dimensions: 'day',
      sort: 'day',
    });
    expect(byDay.map((r) => r.slice(0, 2))).toEqual([
      ['2026-10-01', 1400],
      ['2026-10-02', 2100],
      ['2026-10-03', 300],
    ]);
    expect(byDay[0]?.[2]).toBeCloseTo(90 / 1400, 12);
    expect(byDay[1]?.[2]).toBeCloseTo(100 / 2100, 12);
    expect(byDay[2]?.[2]).toBeCloseTo(0.0333, 12);

    const byVideo = await query({
      metrics: 'videoThumbnailImpressions,videoThumbnailImpressionsClickRate',
      dimensions: 'video',
      sort: '-videoThumbnailImpressions',
      maxResults: 10,
    });
    expect(byVideo.map((r) => r.slice(0, 2))).toEqual([
      ['sa-v1', 3000],
      ['sa-v2', 700],
      ['sa-v3', 100],
    ]);
    // Clicks (impressions × rate, per row) summed, then divided: never the average of the rates.
    expect(byVideo[0]?.[2]).toBeCloseTo(130 / 3000, 12);
    expect(byVideo[1]?.[2]).toBeCloseTo((40 + 300 * 0.0333) / 700, 12);
    expect(byVideo[2]?.[2]).toBeCloseTo(0.2, 12);

    const byDevice = await query({
      metrics: 'videoThumbnailImpressions,videoThumbnailImpressionsClickRate',
      dimensions: 'deviceType',
      sort: 'deviceType',
    });
    expect(byDevice).toEqual([
      ['DESKTOP', 300, expect.closeTo(0.02, 12)],
      ['MOBILE', 1100, expect.closeTo((42 + 40) / 1100, 12)],
    ]);
  });

  it('a second sync loads nothing', async () => {
    const before = standin.requests.filter((r) => r.path.startsWith('/v1/media/')).length;
    const out = await run('sync', []);
    expect(lineOf(out.stdout, A)).toBe(`${A}: 0 reports found, 0 loaded, 0 skipped, 0 failed`);
    expect(lineOf(out.stdout, CO)).toBe(`${CO}: 0 reports found, 0 loaded, 0 skipped, 0 failed`);
    expect(standin.requests.filter((r) => r.path.startsWith('/v1/media/')).length).toBe(before);
    // It listed after the checkpoint (minus the overlap), not from the beginning.
    const listings = standin.requests.filter((r) => /\/reports$/.test(r.path)).slice(-3);
    for (const l of listings) expect(l.query.createdAfter).toBeDefined();
  }, 120_000);

  it('a later restatement replaces its day; an older report arriving after a newer one is skipped and recorded', async () => {
    // A restatement created now (after the checkpoint), and a report created before the one 10-06 was loaded from
    // that shows up only now (within the overlap re-listed before the checkpoint).
    standin.publish(A, 'channel_basic_a3', {
      day: '2026-10-05',
      csv: basicDay('2026-10-05', 500, 0),
    });
    standin.publish(A, 'channel_basic_a3', {
      day: '2026-10-06',
      csv: basicDay('2026-10-06', 12345, 0),
      createTime: created(1),
      id: 'a-basic-06-stale',
    });
    const out = await run('sync', ['--owner', A]);
    expect(out.code, out.stdout + out.stderr).toBe(0);
    expect(lineOf(out.stdout, A)).toBe(`${A}: 2 reports found, 1 loaded, 1 skipped, 0 failed`);
    const rows = await query({ metrics: 'views', dimensions: 'day', sort: 'day', filters: 'video==sa-v1' });
    expect(rows.slice(4)).toEqual([
      ['2026-10-05', 500],
      ['2026-10-06', 60],
    ]);
    const [state] = await readSyncStates({ db: createDocumentClient(), tableName: process.env.TABLE_NAME as string }, [
      A,
    ]);
    expect(state?.lastRun?.skippedReports).toEqual([
      expect.objectContaining({ reportId: 'a-basic-06-stale', reportType: 'channel_basic_a3', day: '2026-10-06' }),
    ]);
  }, 120_000);

  it('connect --list shows each owner’s state and no secret; connecting again clears re-consent', async () => {
    const list = await run('connect', ['--list']);
    expect(list.code).toBe(0);
    const row = (owner: string) => list.stdout.split('\n').find((l) => l.startsWith(`${owner} `)) ?? '';
    expect(row(A)).toMatch(/channel .* 2 found, 1 loaded, 1 skipped, 0 failed +ok$/);
    expect(row(B)).toMatch(/NEEDS RE-CONSENT$/);
    expect(row(CO)).toMatch(/content owner .* ok$/);
    expect(list.stdout).toContain(`${B}: last error`);
    for (const a of Object.values(ACCOUNTS)) {
      expect(list.stdout).not.toContain(a.clientSecret);
      expect(list.stdout).not.toContain(a.refreshToken);
    }

    expect((await run('connect', connectArgs(B, ACCOUNTS.b2))).code).toBe(0);
    const again = await run('sync', ['--owner', B]);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(lineOf(again.stdout, B)).toBe(`${B}: 1 reports found, 1 loaded, 0 skipped, 0 failed; 3 jobs created`);
    const [state] = await readSyncStates({ db: createDocumentClient(), tableName: process.env.TABLE_NAME as string }, [
      B,
    ]);
    expect(state?.needsReconsent).toBe(false);
    expect(state?.lastError).toBeUndefined();
    expect(state?.lastSuccess).toBeDefined();
  }, 180_000);
});
