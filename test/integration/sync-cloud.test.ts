/**
 * The cloud path of the sync, with real AWS SDK clients against loopback stand-ins (Secrets Manager, SQS, S3: AWS
 * cannot run here; see aws-standin.ts) and DynamoDB Local: `connect --table --region` keeps the credentials in one
 * Secrets Manager secret per owner and the connection in the table; the scheduled dispatcher queues one message per
 * connected owner (not the ones that need re-consent); the worker syncs its owner and writes each report to the
 * exports bucket as <owner>/<report_type>/<YYYYMMDD>.csv.gz with its report id and createTime as metadata; the
 * bucket's ingest function loads it; `--disconnect` deletes the secret, and connecting again works at once.
 */
import { gunzipSync } from 'node:zlib';
import type { S3Event, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import type { IngestSummary } from '../../functions/core/reports/ingest/ingest-service';
import { dynamoFactWriter } from '../../functions/core/reports/storage/fact-writer';
import { secretName } from '../../functions/core/sync/owner';
import { readSyncStates } from '../../functions/core/sync/sync-state';
import { AwsStandin } from '../support/aws-standin';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { useOwnTable } from '../support/own-table';
import { ReportingApiStandin } from '../support/reporting-api-standin';
import { connectArgs, ownChannel, runCli } from '../support/sync-support';

useOwnTable('sync-cloud');

const CHANNEL = 'UCcloudSync';
const REVOKED = 'UCcloudRevoked';
const SUB = 'cloud-user';
const ACCOUNT = {
  clientId: 'cloud-client',
  clientSecret: 'cloud-secret-x1',
  refreshToken: '1//cloud-refresh',
  channel: CHANNEL,
};
const GONE = {
  clientId: 'gone-client',
  clientSecret: 'gone-secret',
  refreshToken: '1//gone-refresh',
  channel: REVOKED,
};
const HEADER = 'date,channel_id,video_id,live_or_on_demand,subscribed_status,country_code,views';

let reporting: ReportingApiStandin;
let aws: AwsStandin;
let api: LocalApi;
const tableName = () => process.env.TABLE_NAME as string;

const run = (args: readonly string[]) =>
  runCli('connect', [...args, '--table', tableName(), '--region', 'us-east-1'], {
    ...aws.env,
    REPORTING_API_ROOT: reporting.baseUrl,
    OAUTH_TOKEN_URL: reporting.tokenUrl,
  });

const connect = (a: typeof ACCOUNT) => run(connectArgs(a.channel, a));

beforeAll(async () => {
  reporting = await ReportingApiStandin.start();
  aws = await AwsStandin.start();
  reporting.addAccount(ACCOUNT);
  reporting.addAccount(GONE);
  reporting.setReportTypes('channel', [{ id: 'channel_basic_a3', name: 'User activity' }]);
  for (const [i, day] of ['2026-08-30', '2026-08-31'].entries()) {
    reporting.publish(CHANNEL, 'channel_basic_a3', {
      day,
      csv: `${HEADER}\n${day.replaceAll('-', '')},${CHANNEL},cv1,on_demand,subscribed,US,${7 + i}\n`,
      id: `cloud-report-${i}`,
    });
  }
  // The handlers read their settings (and the SDK its endpoints) from the environment of this worker.
  Object.assign(process.env, aws.env, {
    REPORTING_API_ROOT: reporting.baseUrl,
    OAUTH_TOKEN_URL: reporting.tokenUrl,
    EXPORTS_BUCKET: 'exports',
    SYNC_QUEUE_URL: aws.queueUrl('sync'),
    SYNC_RETRY_BASE_MS: '1',
  });
  const db = createDocumentClient(process.env.DYNAMODB_ENDPOINT);
  await ownChannel({ db, tableName: tableName() }, SUB, CHANNEL, ['cv1']);
  db.destroy();
  api = await startLocalApi();
}, 120_000);

afterAll(async () => {
  await api?.close();
  await reporting?.close();
  await aws?.close();
});

describe('the sync in the cloud', () => {
  it('connect --table keeps the credentials in Secrets Manager, the connection in the table, and prints no secret', async () => {
    for (const account of [ACCOUNT, GONE]) {
      const out = await connect(account);
      expect(out.stderr).toBe('');
      expect(out.code).toBe(0);
      expect(out.stdout).toContain(
        `Secrets Manager (${secretName(tableName(), { type: 'channel', id: account.channel })})`,
      );
      expect(out.stdout).not.toContain(account.clientSecret);
    }
    const stored = aws.secrets.get(secretName(tableName(), { type: 'channel', id: CHANNEL }));
    expect(JSON.parse(stored?.value ?? '{}')).toEqual({
      clientId: ACCOUNT.clientId,
      clientSecret: ACCOUNT.clientSecret,
      refreshToken: ACCOUNT.refreshToken,
    });
    const states = await readSyncStates({ db: createDocumentClient(), tableName: tableName() });
    expect(states.map((s) => s.owner.id)).toEqual([REVOKED, CHANNEL]); // ordered by id
  }, 120_000);

  it('the dispatcher queues one message per connected owner, leaving out owners that need re-consent', async () => {
    // REVOKED's token stops working; a worker run marks it, and the next dispatch leaves it out.
    reporting.revoke(GONE.refreshToken);
    const { handler: worker } = await import('../../functions/sync/worker');
    await worker(sqsEvent([JSON.stringify({ owner: `channel:${REVOKED}` })]));
    const [revoked] = await readSyncStates({ db: createDocumentClient(), tableName: tableName() }, [REVOKED]);
    expect(revoked?.needsReconsent).toBe(true);

    const { handler: dispatch } = await import('../../functions/sync/dispatch');
    expect(await dispatch({})).toEqual({ owners: 1, needsReconsent: 1 });
    expect(aws.messages.map((m) => [m.queueUrl, JSON.parse(m.body)])).toEqual([
      [aws.queueUrl('sync'), { owner: `channel:${CHANNEL}` }],
    ]);
  });

  it('the worker writes each report to the exports bucket with its report id and createTime; the ingest loads it', async () => {
    const { handler: worker } = await import('../../functions/sync/worker');
    const out = await worker(sqsEvent(aws.messages.map((m) => m.body)));
    expect(out.batchItemFailures).toEqual([]);
    const keys = [...aws.objects.keys()].sort();
    expect(keys).toEqual([
      `exports/${CHANNEL}/channel_basic_a3/20260830.csv.gz`,
      `exports/${CHANNEL}/channel_basic_a3/20260831.csv.gz`,
    ]);
    const first = aws.objects.get(keys[0] as string);
    expect(first?.metadata['report-id']).toBe('cloud-report-0');
    expect(first?.metadata['create-time']).toMatch(/^2026-11-01T10:\d\d:\d\d\.\d{6}Z$/);
    expect(gunzipSync(first?.body as Buffer).toString()).toContain(`20260830,${CHANNEL},cv1`);
    const [state] = await readSyncStates({ db: createDocumentClient(), tableName: tableName() }, [CHANNEL]);
    expect(state?.lastRun).toMatchObject({ found: 2, loaded: 2, failed: 0 });

    // The bucket's ingest function (S3 event) loads what the worker wrote: one GetObject per file, its metadata with
    // the bytes (no HeadObject first); an object gone from the bucket since its event fails alone, to be retried.
    const { handler: ingest } = await import('../../functions/ingest/s3-ingest');
    aws.s3Requests.length = 0;
    const gone = `${CHANNEL}/channel_basic_a3/20260829.csv.gz`;
    const summary = (await ingest(s3Event([...keys.map((k) => k.slice('exports/'.length)), gone]))) as IngestSummary;
    expect(aws.s3Requests.sort()).toEqual([...keys, `exports/${gone}`].map((k) => `GET ${k}`).sort());
    expect(summary.loaded).toBe(2);
    expect(summary.failed).toEqual([{ file: gone, message: expect.stringContaining('does not exist') }]);
    const manifest = await dynamoFactWriter({ db: createDocumentClient(), tableName: tableName() }).readManifest(
      'CB',
      CHANNEL,
      '2026-08',
    );
    expect(manifest?.days['2026-08-30']).toMatchObject({
      reportId: 'cloud-report-0',
      createTime: first?.metadata['create-time'],
    });
    const token = await api.token(SUB, ['video-analytics.readonly']);
    const res = await api.call(
      `/v2/reports?ids=channel==MINE&startDate=2026-08-01&endDate=2026-08-31&metrics=views&dimensions=day&sort=day`,
      { token },
    );
    expect(res.body.rows).toEqual([
      ['2026-08-30', 7],
      ['2026-08-31', 8],
    ]);
  });

  it('--disconnect deletes the secret at once, so the owner can be connected again straight away', async () => {
    const name = secretName(tableName(), { type: 'channel', id: CHANNEL });
    const out = await run(['--disconnect', '--owner', CHANNEL]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`Disconnected ${CHANNEL}`);
    expect(aws.secrets.has(name)).toBe(false);
    expect((await connect(ACCOUNT)).code).toBe(0);
    expect(aws.secrets.has(name)).toBe(true);
  }, 120_000);
});

function sqsEvent(bodies: readonly string[]): SQSEvent {
  return {
    Records: bodies.map((body, i) => ({
      messageId: `m${i}`,
      receiptHandle: `h${i}`,
      body,
      attributes: {} as SQSEvent['Records'][number]['attributes'],
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:sync',
      awsRegion: 'us-east-1',
    })),
  };
}

function s3Event(keys: readonly string[]): S3Event {
  return {
    Records: keys.map((key) => ({
      s3: { bucket: { name: 'exports' }, object: { key: encodeURIComponent(key).replaceAll('%2F', '/') } },
    })) as unknown as S3Event['Records'],
  };
}
