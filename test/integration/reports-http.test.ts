/**
 * reports.query over real HTTP (the local API: authorizer, handler, DynamoDB Local): the demo users' rights,
 * data ingested through the real ingest path showing up in reports, the planner's X-Items-Read, column types,
 * scopes and the group filter (api-contract.md §A.1, §A.3, §A.6.2).
 *
 * The tests of the first describe run in order: dave starts without facts, then gets generated exports.
 */
import { randomBytes } from 'node:crypto';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import * as keys from '../../functions/core/db/keys';
import { loadDirectory } from '../../functions/core/directory/directory-loader';
import type { TableContext } from '../../functions/core/directory/directory-repository';
import { bytesFile } from '../../functions/core/reports/ingest/ingest-file';
import { dynamoIngestStores, type IngestFile, ingestFiles } from '../../functions/core/reports/ingest/ingest-service';
import { type DayExport, type GeneratorOptions, generateDays } from '../../infra/generator/export-generator';
import { type LocalApi, startLocalApi } from '../support/local-api';

type Wire = Awaited<ReturnType<LocalApi['call']>>;

let api: LocalApi;
let table: TableContext;

beforeAll(async () => {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  const tableName = process.env.TABLE_NAME;
  if (!endpoint || !tableName) throw new Error('DynamoDB Local is not running: use the integration project');
  table = { db: createDocumentClient(endpoint), tableName };
  api = await startLocalApi();
});

afterAll(async () => {
  await api?.close();
  table?.db.destroy();
});

const analytics = (sub: string) => api.token(sub, ['video-analytics.readonly']);

function reports(token: string | undefined, params: Record<string, string>): Promise<Wire> {
  const qs = new URLSearchParams(params).toString();
  return api.call(`/v2/reports?${qs}`, token === undefined ? {} : { token });
}

/** A Google error body: HTTP status, error.code, error.status and errors[0].reason. */
function expectGoogleError(res: Wire, code: number, status: string, reason: string): void {
  const shown = JSON.stringify(res.body);
  expect(res.status, shown).toBe(code);
  expect(res.body?.error?.code, shown).toBe(code);
  expect(res.body?.error?.status, shown).toBe(status);
  expect(res.body?.error?.errors?.[0]?.reason, shown).toBe(reason);
}

function expectOk(res: Wire): void {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.kind).toBe('youtubeAnalytics#resultTable');
}

const itemsRead = (res: Wire) => Number(res.headers.get('x-items-read'));

const isoDay = (yyyymmdd: string) => `${yyyymmdd.slice(0, 4)}-${yyyymmdd.slice(4, 6)}-${yyyymmdd.slice(6, 8)}`;

function filesOf(days: readonly DayExport[], channel: string): IngestFile[] {
  return days.map((day) => {
    const bytes = Buffer.from(`${[day.header, ...day.rows].map((r) => r.join(',')).join('\n')}\n`);
    return bytesFile(`exports/${channel}/channel_basic_a3/${day.date}.csv`, bytes);
  });
}

function columnSum(days: readonly DayExport[], column: string): number {
  let total = 0;
  for (const day of days) {
    const i = day.header.indexOf(column);
    for (const r of day.rows) total += Number(r[i] || 0);
  }
  return total;
}

async function ingest(days: readonly DayExport[], channel: string) {
  const summary = await ingestFiles(dynamoIngestStores(table), filesOf(days, channel));
  expect(summary.rejected, JSON.stringify(summary.rejected)).toEqual([]);
  return summary;
}

/** A fresh user owning a fresh channel with the given videos. */
async function freshOwner(videos: string[] = []): Promise<{ sub: string; channel: string }> {
  const tag = `${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
  const sub = `http-user-${tag}`;
  const channel = `UChttp${tag}`;
  await loadDirectory(table, {
    users: [{ sub, channels: [channel] }],
    channels: [{ id: channel, title: `http ${tag}`, videos, playlists: [] }],
    contentOwners: [],
    accounts: [],
    properties: [],
  });
  return { sub, channel };
}

// ---------------------------------------------------------------------------------------------------------------

const DAVE: GeneratorOptions = {
  channel: 'UCdemo-dave',
  videos: 100,
  days: 40,
  start: '2026-02-10',
  seed: 777,
  videoPrefix: 'dave-v',
  videoWidth: 3,
  version: 'a3',
  gzip: false,
};
const DAVE_RANGE = { startDate: '2026-02-10', endDate: '2026-03-21' };

describe('dave: from no facts to generated exports', () => {
  it('without facts, a no-dimension report is one row of zeros', async () => {
    const res = await reports(await analytics('dave'), {
      ids: 'channel==MINE',
      ...DAVE_RANGE,
      metrics: 'views,likes,estimatedMinutesWatched,averageViewDuration,averageViewPercentage,subscribersGained',
    });
    expectOk(res);
    expect(res.body.rows).toEqual([[0, 0, 0, 0, 0, 0]]);
    expect(itemsRead(res)).toBe(0);
    const byDay = await reports(await analytics('dave'), {
      ids: 'channel==UCdemo-dave',
      ...DAVE_RANGE,
      metrics: 'views',
      dimensions: 'day',
    });
    expectOk(byDay);
    expect(Object.hasOwn(byDay.body, 'rows')).toBe(false);
  });

  it('after ingesting 40 days × 100 videos, the day-by-day report matches the CSV sums', async () => {
    const days = [...generateDays(DAVE)];
    expect(days).toHaveLength(40);
    expect(new Set(days.flatMap((d) => d.rows.map((r) => r[d.header.indexOf('video_id')]))).has('dave-v001')).toBe(
      true,
    );
    const summary = await ingest(days, 'UCdemo-dave');
    expect(summary.days).toBe(40);

    const res = await reports(await analytics('dave'), {
      ids: 'channel==MINE',
      ...DAVE_RANGE,
      metrics: 'views,likes,subscribersGained',
      dimensions: 'day',
      sort: 'day',
    });
    expectOk(res);
    const rows = res.body.rows as [string, number, number, number][];
    const sum = (i: 1 | 2 | 3) => rows.reduce((n, r) => n + r[i], 0);
    expect(sum(1)).toBe(columnSum(days, 'views'));
    expect(sum(2)).toBe(columnSum(days, 'likes'));
    expect(sum(3)).toBe(columnSum(days, 'subscribers_gained'));
    const expectedDays = days.filter((d) => d.rows.length > 0);
    expect(rows.map((r) => r[0])).toEqual(expectedDays.map((d) => isoDay(d.date)));
    for (const d of expectedDays) {
      expect(rows.find((r) => r[0] === isoDay(d.date))?.[1], d.date).toBe(columnSum([d], 'views'));
    }

    // the same total without dimensions, and by month
    const total = await reports(await analytics('dave'), { ids: 'channel==MINE', ...DAVE_RANGE, metrics: 'views' });
    expect(total.body.rows).toEqual([[columnSum(days, 'views')]]);
    const top = await reports(await analytics('dave'), {
      ids: 'channel==MINE',
      ...DAVE_RANGE,
      metrics: 'views',
      dimensions: 'video',
      sort: '-views',
      maxResults: '200',
    });
    expectOk(top);
    expect((top.body.rows as [string, number][]).every(([v]) => /^dave-v\d{3}$/.test(v))).toBe(true);
    expect((top.body.rows as [string, number][]).reduce((n, r) => n + r[1], 0)).toBeLessThanOrEqual(
      columnSum(days, 'views'),
    );
  }, 120_000);
});

describe('who may see what', () => {
  it("dave asking for alice's channel → 403 forbidden", async () => {
    const res = await reports(await analytics('dave'), {
      ids: 'channel==UCdemo-alice',
      ...DAVE_RANGE,
      metrics: 'views',
    });
    expectGoogleError(res, 403, 'PERMISSION_DENIED', 'forbidden');
  });

  it('mallory (no channel) asking for channel==MINE → 403 forbidden', async () => {
    const res = await reports(await analytics('mallory'), { ids: 'channel==MINE', ...DAVE_RANGE, metrics: 'views' });
    expectGoogleError(res, 403, 'PERMISSION_DENIED', 'forbidden');
  });

  it('channel==MINE follows the directory from one request to the next (facts read early are only a guess)', async () => {
    const tag = `${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
    const sub = `http-mine-${tag}`;
    const later = `UChttpZ${tag}`; // the caller's only channel at first
    const earlier = `UChttpA${tag}`; // sorts first, so channel==MINE means it once granted
    await loadDirectory(table, {
      users: [{ sub, channels: [later] }],
      channels: [later, earlier].map((id) => ({ id, title: id, videos: [], playlists: [] })),
      contentOwners: [],
      accounts: [],
      properties: [],
    });
    const small = { ...DAVE, videos: 5, days: 3, start: '2026-04-01' };
    const laterDays = [...generateDays({ ...small, channel: later, seed: 1, videoPrefix: 'mz' })];
    const earlierDays = [...generateDays({ ...small, channel: earlier, seed: 2, videoPrefix: 'ma' })];
    await ingest(laterDays, later);
    await ingest(earlierDays, earlier);
    expect(columnSum(laterDays, 'views')).not.toBe(columnSum(earlierDays, 'views'));
    const token = await analytics(sub);
    const q = { ids: 'channel==MINE', startDate: '2026-04-01', endDate: '2026-04-03', metrics: 'views' };
    const first = await reports(token, q);
    expectOk(first);
    expect(first.body.rows).toEqual([[columnSum(laterDays, 'views')]]);
    // A second grant: channel==MINE now means the other channel, although the last answer was for the first.
    await loadDirectory(table, {
      users: [{ sub, channels: [earlier] }],
      channels: [],
      contentOwners: [],
      accounts: [],
      properties: [],
    });
    const second = await reports(token, q);
    expectOk(second);
    expect(second.body.rows).toEqual([[columnSum(earlierDays, 'views')]]);
    // No channel left: 403, whatever was read early.
    await Promise.all(
      [earlier, later].map((c) =>
        table.db.send(new DeleteCommand({ TableName: table.tableName, Key: keys.userOwnsChannel(sub, c) })),
      ),
    );
    expectGoogleError(await reports(token, q), 403, 'PERMISSION_DENIED', 'forbidden');
  });

  it('contentOwner==demo-co: bob (its manager) → 200; mallory and alice → 403; no entity filter → 400', async () => {
    const params = { ids: 'contentOwner==demo-co', ...DAVE_RANGE, metrics: 'views', filters: 'claimedStatus==claimed' };
    const res = await reports(await analytics('bob'), params);
    expectOk(res);
    expect((res.body as { rows: unknown[][] }).rows).toHaveLength(1);
    expectGoogleError(await reports(await analytics('mallory'), params), 403, 'PERMISSION_DENIED', 'forbidden');
    expectGoogleError(await reports(await analytics('alice'), params), 403, 'PERMISSION_DENIED', 'forbidden');
    const { filters: _entity, ...unfiltered } = params;
    expectGoogleError(await reports(await analytics('bob'), unfiltered), 400, 'INVALID_ARGUMENT', 'badRequest');
  });

  it('the grant is read with the links (one request); a grant on the user side only (earlier releases) still counts', async () => {
    const t = randomBytes(4).toString('hex');
    const [co, sub] = [`co-${t}`, `manager-${t}`];
    await loadDirectory(table, {
      users: [{ sub, contentOwners: [co] }],
      channels: [{ id: `UClinked-${t}`, title: 'linked' }],
      contentOwners: [
        { id: co, displayName: 'Grants', linkedChannels: [{ channelId: `UClinked-${t}`, linkedSince: '2026-01-01' }] },
      ],
      accounts: [],
      properties: [],
    });
    const params = { ids: `contentOwner==${co}`, ...DAVE_RANGE, metrics: 'views', filters: 'claimedStatus==claimed' };
    expectOk(await reports(await analytics(sub), params));
    // Another manager's grant sorts before this one's: it must not admit a caller who has none.
    expectGoogleError(await reports(await analytics(`nobody-${t}`), params), 403, 'PERMISSION_DENIED', 'forbidden');
    await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: keys.contentOwnerManager(co, sub) }));
    expectOk(await reports(await analytics(sub), params));
    await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: keys.userManagesContentOwner(sub, co) }));
    expectGoogleError(await reports(await analytics(sub), params), 403, 'PERMISSION_DENIED', 'forbidden');
  });

  it('a token with only video-platform → 403 insufficientPermissions', async () => {
    const token = await api.token('dave', ['video-platform']);
    const res = await reports(token, { ids: 'channel==MINE', ...DAVE_RANGE, metrics: 'views' });
    expectGoogleError(res, 403, 'PERMISSION_DENIED', 'insufficientPermissions');
  });

  it('the monetary scope alone is accepted', async () => {
    const token = await api.token('dave', ['video-analytics-monetary.readonly']);
    expectOk(await reports(token, { ids: 'channel==MINE', ...DAVE_RANGE, metrics: 'views' }));
  });

  it('no token → 401', async () => {
    const res = await reports(undefined, { ids: 'channel==MINE', ...DAVE_RANGE, metrics: 'views' });
    expectGoogleError(res, 401, 'UNAUTHENTICATED', 'authError');
    expect(res.headers.get('www-authenticate')).toBeTruthy();
  });

  it('parameter errors come back as Google 400 bodies', async () => {
    const token = await analytics('dave');
    const unknown = await reports(token, { ids: 'channel==MINE', ...DAVE_RANGE, metrics: 'impressions' });
    expectGoogleError(unknown, 400, 'INVALID_ARGUMENT', 'badRequest');
    expect(unknown.body.error.message).toBe('Unknown identifier (impressions) given in field parameters.metrics.');
    const missing = await reports(token, { ids: 'channel==MINE', ...DAVE_RANGE });
    expectGoogleError(missing, 400, 'INVALID_ARGUMENT', 'required');
    const unsupported = await reports(token, {
      ids: 'channel==MINE',
      ...DAVE_RANGE,
      metrics: 'views',
      dimensions: 'video,day',
    });
    expectGoogleError(unsupported, 400, 'INVALID_ARGUMENT', 'badRequest');
    expect(unsupported.body.error.message).toMatch(/^The query is not supported\. /);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('what a report costs and how it is typed', () => {
  let owner: { sub: string; channel: string };
  let days: DayExport[];

  beforeAll(async () => {
    owner = await freshOwner();
    // 2026-04-25 … 2026-07-10: whole May and June plus partial April and July
    days = [
      ...generateDays({
        ...DAVE,
        channel: owner.channel,
        videos: 50,
        days: 77,
        start: '2026-04-25',
        videoPrefix: 'cv',
      }),
    ];
    await ingest(days, owner.channel);
  }, 120_000);

  it('X-Items-Read: a 2-month channel-level monthly report reads 2 items; shifted by 3 days, 1 + 1 + 3', async () => {
    const token = await analytics(owner.sub);
    const base = { ids: 'channel==MINE', metrics: 'views,likes', dimensions: 'month', sort: 'month' };
    const whole = await reports(token, { ...base, startDate: '2026-05-01', endDate: '2026-06-30' });
    expectOk(whole);
    expect(itemsRead(whole)).toBe(2);
    expect(Number(whole.headers.get('x-bytes-read'))).toBeGreaterThan(0);
    const inRange = (from: string, to: string) => days.filter((d) => d.date >= from && d.date <= to);
    expect(whole.body.rows).toEqual([
      [
        '2026-05',
        columnSum(inRange('20260501', '20260531'), 'views'),
        columnSum(inRange('20260501', '20260531'), 'likes'),
      ],
      [
        '2026-06',
        columnSum(inRange('20260601', '20260630'), 'views'),
        columnSum(inRange('20260601', '20260630'), 'likes'),
      ],
    ]);

    const shifted = await reports(token, { ...base, startDate: '2026-05-04', endDate: '2026-07-03' });
    expectOk(shifted);
    // June, then 4–31 May from May's by-day item (one item, its other days left out), then 1–3 July day by day.
    expect(itemsRead(shifted)).toBe(1 + 1 + 3);
    expect(shifted.body.rows).toEqual([
      [
        '2026-05',
        columnSum(inRange('20260504', '20260531'), 'views'),
        columnSum(inRange('20260504', '20260531'), 'likes'),
      ],
      [
        '2026-06',
        columnSum(inRange('20260601', '20260630'), 'views'),
        columnSum(inRange('20260601', '20260630'), 'likes'),
      ],
      [
        '2026-07',
        columnSum(inRange('20260701', '20260703'), 'views'),
        columnSum(inRange('20260701', '20260703'), 'likes'),
      ],
    ]);
  });

  it('X-Items-Read does not grow with the number of videos for channel-level reports', async () => {
    const token = await analytics(owner.sub);
    const res = await reports(token, {
      ids: 'channel==MINE',
      startDate: '2026-05-01',
      endDate: '2026-06-30',
      metrics: 'views',
      dimensions: 'day',
    });
    expectOk(res);
    expect(itemsRead(res)).toBe(2);
    const oneVideo = await reports(token, {
      ids: 'channel==MINE',
      startDate: '2026-05-01',
      endDate: '2026-06-30',
      metrics: 'views',
      dimensions: 'day',
      filters: 'video==cv001',
    });
    expectOk(oneVideo);
    // `vd`: one item per day of the video's bucket group (61 days), whatever the number of videos.
    expect(itemsRead(oneVideo)).toBeLessThanOrEqual(61);
    const top = await reports(token, {
      ids: 'channel==MINE',
      startDate: '2026-05-04',
      endDate: '2026-07-03',
      metrics: 'views',
      dimensions: 'video',
      sort: '-views',
      maxResults: '10',
    });
    expectOk(top);
    expect(itemsRead(top)).toBeLessThanOrEqual(1 + 31);
  });

  it('columnHeaders carry the data types; INTEGER cells are JSON integers, dimensions strings', async () => {
    const token = await analytics(owner.sub);
    const res = await reports(token, {
      ids: 'channel==MINE',
      startDate: '2026-05-01',
      endDate: '2026-05-20',
      metrics: 'views,averageViewPercentage,estimatedMinutesWatched,averageViewDuration,likes,cardClickRate',
      dimensions: 'day',
      sort: 'day',
    });
    expectOk(res);
    expect(res.body.columnHeaders).toEqual([
      { name: 'day', columnType: 'DIMENSION', dataType: 'STRING' },
      { name: 'views', columnType: 'METRIC', dataType: 'INTEGER' },
      { name: 'averageViewPercentage', columnType: 'METRIC', dataType: 'FLOAT' },
      { name: 'estimatedMinutesWatched', columnType: 'METRIC', dataType: 'INTEGER' },
      { name: 'averageViewDuration', columnType: 'METRIC', dataType: 'INTEGER' },
      { name: 'likes', columnType: 'METRIC', dataType: 'INTEGER' },
      { name: 'cardClickRate', columnType: 'METRIC', dataType: 'FLOAT' },
    ]);
    const rows = res.body.rows as unknown[][];
    expect(rows.length).toBeGreaterThan(10);
    const headers = res.body.columnHeaders as { dataType: string }[];
    let fractional = 0;
    for (const row of rows) {
      expect(row).toHaveLength(headers.length);
      headers.forEach((h, i) => {
        const cell = row[i];
        if (h.dataType === 'STRING') expect(cell).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        else if (h.dataType === 'INTEGER') expect(Number.isInteger(cell), `${JSON.stringify(row)}[${i}]`).toBe(true);
        else {
          expect(typeof cell).toBe('number');
          if (!Number.isInteger(cell)) fractional++;
        }
      });
    }
    expect(fractional).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('the group filter', () => {
  it("a playlist group, or another owner's group, cannot filter a video report (400); the owner's video group can", async () => {
    const x = await freshOwner(['gx-v1', 'gx-v2']);
    const y = await freshOwner(['gy-v1']);
    const manage = (sub: string) => api.token(sub, ['video-platform']);
    const createGroup = async (sub: string, itemType: string) => {
      const res = await api.call('/v2/groups', {
        token: await manage(sub),
        method: 'POST',
        body: JSON.stringify({ snippet: { title: `${itemType} group` }, contentDetails: { itemType } }),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.id as string;
    };
    const playlists = await createGroup(x.sub, 'youtube#playlist');
    const xVideos = await createGroup(x.sub, 'youtube#video');
    const item = await api.call('/v2/groupItems', {
      token: await manage(x.sub),
      method: 'POST',
      body: JSON.stringify({ groupId: xVideos, resource: { kind: 'youtube#video', id: 'gx-v1' } }),
    });
    expect(item.status, JSON.stringify(item.body)).toBe(200);
    const yVideos = await createGroup(y.sub, 'youtube#video');

    const token = await analytics(x.sub);
    const params = { ids: 'channel==MINE', startDate: '2026-05-01', endDate: '2026-05-31', metrics: 'views' };
    const byPlaylists = await reports(token, { ...params, filters: `group==${playlists}` });
    expectGoogleError(byPlaylists, 400, 'INVALID_ARGUMENT', 'badRequest');
    expect(byPlaylists.body.error.message).toContain(`group==${playlists}`);
    expect(byPlaylists.body.error.errors[0].location).toBe('filters');

    const foreign = await reports(token, { ...params, filters: `group==${yVideos}` });
    expectGoogleError(foreign, 400, 'INVALID_ARGUMENT', 'badRequest');
    expect(foreign.body.error.message).toContain(`group==${yVideos}`);

    const unknown = await reports(token, { ...params, filters: 'group==no-such-group' });
    expectGoogleError(unknown, 400, 'INVALID_ARGUMENT', 'badRequest');

    const own = await reports(token, { ...params, filters: `group==${xVideos}` });
    expectOk(own);
    expect(own.body.rows).toEqual([[0]]);
  });
});
