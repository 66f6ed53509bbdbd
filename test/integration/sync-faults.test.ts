/**
 * The sync's error paths, driven in-process through the real sync service, the real Reporting API client
 * (over HTTP to the stand-in) and the real ingest on DynamoDB Local: 429 and 5xx are retried,
 * then left for the next run with the checkpoint before them; a download cut off half-way leaves no partial day;
 * a report of another channel is refused; two runs of one owner never overlap; a run out of time defers the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import { dynamoDirectoryRepository, type TableContext } from '../../functions/core/directory/directory-repository';
import { dynamoGroupRepository } from '../../functions/core/groups/group-repository';
import { dynamoIngestStores } from '../../functions/core/reports/ingest/ingest-service';
import { parseReportRequest } from '../../functions/core/reports/query/report-request';
import { queryReport } from '../../functions/core/reports/query/report-service';
import { dynamoFactRepository, newReadStats } from '../../functions/core/reports/storage/fact-repository';
import { dynamoRateRepository } from '../../functions/core/reports/storage/rate-repository';
import { connectOwner, disconnectOwner } from '../../functions/core/sync/connect-service';
import { tableCredentialStore } from '../../functions/core/sync/credential-store';
import { type ConnectedOwner, parseOwner } from '../../functions/core/sync/owner';
import { ingestSink } from '../../functions/core/sync/report-sink';
import { reportingApi } from '../../functions/core/sync/reporting-api';
import { dynamoSyncRepository } from '../../functions/core/sync/sync-repository';
import { type SyncDeps, syncOwner } from '../../functions/core/sync/sync-service';
import { readSyncStates } from '../../functions/core/sync/sync-state';
import { useOwnTable } from '../support/own-table';
import { ReportingApiStandin } from '../support/reporting-api-standin';
import { ownChannel } from '../support/sync-support';

useOwnTable('sync-faults');

const HEADER = 'date,channel_id,video_id,live_or_on_demand,subscribed_status,country_code,views';
const dayCsv = (channel: string, day: string, views: number) =>
  `${HEADER}\n${day.replaceAll('-', '')},${channel},${channel}-v1,on_demand,subscribed,US,${views}\n`;

let standin: ReportingApiStandin;
let table: TableContext;
let deps: SyncDeps;
let n = 0;

/** A fresh channel: connected, owned by a fresh user, with an existing channel_basic_a3 job and `days` reports. */
async function freshChannel(days: readonly string[]): Promise<{ owner: ConnectedOwner; sub: string; ids: string[] }> {
  const channel = `UCfault${++n}${Date.now().toString(36)}`;
  const sub = `fault-user-${n}`;
  const account = { clientId: `c${n}`, clientSecret: `s${n}`, refreshToken: `r${n}`, channel };
  standin.addAccount(account);
  standin.setReportTypes('channel', [{ id: 'channel_basic_a3', name: 'User activity' }]);
  standin.addJob(channel, 'channel_basic_a3');
  const ids = days.map((day, i) =>
    standin.publish(channel, 'channel_basic_a3', { day, csv: dayCsv(channel, day, 10 + i) }),
  );
  // A video belongs to one channel: each test's channel has a video of its own.
  await ownChannel(table, sub, channel, [`${channel}-v1`]);
  const owner = parseOwner(channel);
  await connectOwner({ repo: deps.repo, credentials: deps.credentials, tableName: table.tableName }, owner, account);
  return { owner, sub, ids };
}

async function views(sub: string, channel: string): Promise<unknown[][]> {
  const req = parseReportRequest({
    ids: `channel==${channel}`,
    startDate: '2026-09-01',
    endDate: '2026-09-30',
    metrics: 'views',
    dimensions: 'day',
    sort: 'day',
  });
  const reportDeps = {
    directory: dynamoDirectoryRepository(table),
    groups: dynamoGroupRepository(table),
    facts: dynamoFactRepository(table),
    rates: dynamoRateRepository(table),
  };
  const out = await queryReport(
    reportDeps,
    { sub, scopes: new Set(['video-analytics.readonly']) },
    req,
    newReadStats(),
  );
  return out.rows ?? [];
}

const media = (id: string) => new RegExp(`/${id}$`);

beforeAll(async () => {
  standin = await ReportingApiStandin.start();
  table = { db: createDocumentClient(process.env.DYNAMODB_ENDPOINT), tableName: process.env.TABLE_NAME as string };
  deps = {
    repo: dynamoSyncRepository(table),
    credentials: tableCredentialStore(table),
    api: (credentials, owner) =>
      reportingApi({
        root: standin.baseUrl,
        tokenUrl: standin.tokenUrl,
        credentials,
        owner,
        retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
      }),
    sink: ingestSink(dynamoIngestStores(table), dynamoRateRepository(table)),
  };
});

afterAll(async () => {
  await standin?.close();
  table?.db.destroy();
});

describe('sync faults', () => {
  it('429 (with Retry-After) and 503 are retried with backoff and the run succeeds', async () => {
    const { owner, sub } = await freshChannel(['2026-09-01', '2026-09-02']);
    standin.fail({ path: /\/reports$/ }, 429, 2, 0);
    standin.fail({ path: /^\/v1\/media\// }, 503, 1);
    standin.fail({ method: 'POST', path: /^\/token$/ }, 503, 1);
    const result = await syncOwner(deps, owner);
    expect(result.status).toBe('ok');
    expect(result.summary).toMatchObject({ found: 2, loaded: 2, failed: 0 });
    expect(standin.requests.filter((r) => r.status === 429 || r.status === 503)).toHaveLength(4);
    expect(await views(sub, owner.id)).toEqual([
      ['2026-09-01', 10],
      ['2026-09-02', 11],
    ]);
  });

  it('a report still failing after the retries is left for the next run; the checkpoint stays before it', async () => {
    const { owner, sub, ids } = await freshChannel(['2026-09-03', '2026-09-04', '2026-09-05']);
    standin.fail({ path: media(ids[1] as string) }, 500, 3); // every try of this run
    const first = await syncOwner(deps, owner);
    expect(first.status).toBe('failed');
    expect(first.summary).toMatchObject({ found: 3, loaded: 2, failed: 1 });
    expect(first.error).toContain('gave up after 3 tries');
    const [state] = await readSyncStates(table, [owner.id]);
    expect(state?.lastError?.message).toContain(ids[1]);
    expect(state?.lastSuccess).toBeUndefined();
    expect(await views(sub, owner.id)).toEqual([
      ['2026-09-03', 10],
      ['2026-09-05', 12],
    ]);

    const second = await syncOwner(deps, owner);
    expect(second.status).toBe('ok');
    expect(second.summary).toMatchObject({ found: 1, loaded: 1, failed: 0 });
    expect((await views(sub, owner.id)).map((r) => r[0])).toEqual(['2026-09-03', '2026-09-04', '2026-09-05']);
    const [after] = await readSyncStates(table, [owner.id]);
    expect(after?.lastError).toBeUndefined();
    expect(after?.lastSuccess).toBeDefined();
  });

  it('a download cut off half-way never leaves a partial day', async () => {
    const bigDay = '2026-09-06';
    const { owner, sub, ids } = await freshChannel([]);
    const rows = Array.from({ length: 400 }, (_, i) => `20260906,${owner.id},v${i},on_demand,subscribed,US,1`);
    const id = standin.publish(owner.id, 'channel_basic_a3', { day: bigDay, csv: `${HEADER}\n${rows.join('\n')}\n` });
    ids.push(id);
    standin.truncate(media(id), 3);
    const first = await syncOwner(deps, owner);
    expect(first.summary).toMatchObject({ found: 1, loaded: 0, failed: 1 });
    expect(await views(sub, owner.id)).toEqual([]);

    const second = await syncOwner(deps, owner);
    expect(second.summary).toMatchObject({ found: 1, loaded: 1, failed: 0 });
    expect(await views(sub, owner.id)).toEqual([[bigDay, 400]]);
  });

  it('refuses a report of another channel (credentials of the wrong account)', async () => {
    const { owner, sub } = await freshChannel([]);
    standin.publish(owner.id, 'channel_basic_a3', { day: '2026-09-07', csv: dayCsv('UCsomeoneelse', '2026-09-07', 5) });
    const result = await syncOwner(deps, owner);
    expect(result.status).toBe('failed');
    expect(result.error).toContain("it holds channel UCsomeoneelse's data");
    expect(await views(sub, owner.id)).toEqual([]);
  });

  it('two runs of one owner never overlap: the second is told the owner is busy', async () => {
    const { owner } = await freshChannel(['2026-09-08']);
    const [a, b] = await Promise.all([syncOwner(deps, owner), syncOwner(deps, owner)]);
    expect([a.status, b.status].sort()).toEqual(['busy', 'ok']);
    expect(a.summary.loaded + b.summary.loaded).toBe(1);
  });

  it('a run out of time defers the rest without an error and without moving the checkpoint', async () => {
    const { owner } = await freshChannel(['2026-09-09', '2026-09-10']);
    const result = await syncOwner(deps, owner, { deadline: Date.now() - 1 });
    expect(result).toMatchObject({ status: 'ok', deferred: 2 });
    expect(result.summary).toMatchObject({ found: 2, loaded: 0, failed: 0 });
    const [state] = await readSyncStates(table, [owner.id]);
    expect(state?.checkpoint).toBeUndefined();
    expect((await syncOwner(deps, owner)).summary).toMatchObject({ found: 2, loaded: 2 });
  });

  it('an owner not connected, or disconnected, is refused and its credentials are gone', async () => {
    const { owner } = await freshChannel([]);
    const connectDeps = { repo: deps.repo, credentials: deps.credentials, tableName: table.tableName };
    const removed = await disconnectOwner(connectDeps, owner);
    expect(removed?.owner).toEqual(owner);
    expect(await deps.credentials.read(removed?.secretName as string)).toBeUndefined();
    expect((await syncOwner(deps, owner)).status).toBe('not-connected');
    expect(await disconnectOwner(connectDeps, owner)).toBeUndefined();
  });
});
