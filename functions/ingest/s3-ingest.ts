/**
 * Ingest Lambda: Reporting API export files landing in the stack's bucket are loaded into the fact cubes by the same
 * ingest service `npm run import` runs locally. Events: an SQS batch whose bodies are S3 event notifications (the
 * stack's queue), or an S3 event itself. A message's files load together (ingestFiles, one lease per month); the
 * reply names the messages to retry (`batchItemFailures`): those with a file that failed for a reason a retry can
 * overcome (the month busy, throttling). A malformed file is rejected (recorded in the table with file, line, column
 * and reason), not retried. `s3:TestEvent` messages are acknowledged and ignored; a body that is no S3 notification
 * is failed, so it ends in the dead-letter queue where it can be seen.
 */
import { randomUUID } from 'node:crypto';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Context, S3Event, S3EventRecord, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../_shared/logger';
import { INGEST_OPERATION } from '../_shared/metric-names';
import { publishIngestMetrics, withRequestContext } from '../_shared/observability';
import { tableContext } from '../_shared/table';
import { dynamoResourceSink } from '../core/directory/resource-sink';
import type { IngestFile } from '../core/reports/ingest/ingest-file';
import {
  dynamoIngestStores,
  type IngestStores,
  type IngestSummary,
  ingestFiles,
  type ResourceSink,
} from '../core/reports/ingest/ingest-service';
import { DEFAULT_LEASE } from '../core/reports/ingest/lease-keeper';
import { dynamoRateRepository, type RateRepository } from '../core/reports/storage/rate-repository';

/** Reads export objects: the one adapter that differs between the cloud and `import --as-lambda`. */
export interface ObjectReader {
  /**
   * The object in one request: its bytes as a stream and its user metadata (`report-id`, `create-time`), which
   * GetObject returns with the bytes (a HeadObject first cost a round trip per file).
   */
  get(bucket: string, key: string): Promise<{ body: AsyncIterable<Uint8Array>; metadata: Record<string, string> }>;
}

export const s3ObjectReader = (s3 = new S3Client({})): ObjectReader => ({
  async get(bucket, key) {
    const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return {
      body: (out.Body as AsyncIterable<Uint8Array> | undefined) ?? (async function* () {})(),
      metadata: out.Metadata ?? {},
    };
  },
});

/** S3 event keys are URL-encoded, with '+' for spaces. */
export const objectKey = (raw: string) => decodeURIComponent(raw.replace(/\+/g, ' '));

export interface IngestHandlerDeps {
  readonly stores: IngestStores;
  readonly rates: RateRepository;
  readonly objects: ObjectReader;
  /** Records the videos and playlists each owner's files name (the directory's resources). */
  readonly resources?: ResourceSink;
  /** How long a load waits for a month another load holds before its message is retried (default 60 s). */
  readonly leaseWaitMs?: number;
  /** Told each invocation's summary (metrics; the local runner's totals). */
  readonly onSummary?: (summary: IngestSummary) => void;
}

type Incoming = SQSEvent | S3Event;

const isSqs = (event: Incoming): event is SQSEvent =>
  event.Records.length > 0 && (event.Records[0] as { eventSource?: string }).eventSource === 'aws:sqs';

/** The S3 records of a message body; 'test' for s3:TestEvent; undefined when it is no S3 notification. */
function s3RecordsOf(body: string): S3EventRecord[] | 'test' | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const value = parsed as { Event?: string; Records?: S3EventRecord[] };
  if (value?.Event === 's3:TestEvent') return 'test';
  if (!Array.isArray(value?.Records)) return undefined;
  return value.Records.filter((r) => r?.s3?.object?.key !== undefined && r?.s3?.bucket?.name !== undefined);
}

export function createIngestHandler(deps: IngestHandlerDeps) {
  /** The record's object as a file; its report id and createTime are the object's metadata, known once it is open. */
  const fileOf = (record: S3EventRecord): IngestFile => {
    const bucket = record.s3.bucket.name;
    const key = objectKey(record.s3.object.key);
    let metadata: Record<string, string> = {};
    return {
      name: key,
      get reportId() {
        return metadata['report-id'] || undefined;
      },
      get createTime() {
        return metadata['create-time'] || undefined;
      },
      async open() {
        const object = await deps.objects.get(bucket, key);
        metadata = object.metadata;
        return object.body;
      },
    };
  };

  const load = async (records: readonly S3EventRecord[], context?: Context): Promise<IngestSummary> => {
    const created = records.filter((r) => String(r.eventName ?? 'ObjectCreated').startsWith('ObjectCreated'));
    const files = created.map(fileOf);
    const remaining = context?.getRemainingTimeInMillis?.();
    const waitMs = Math.min(
      deps.leaseWaitMs ?? DEFAULT_LEASE.waitMs,
      remaining ? Math.max(1000, remaining / 3) : Infinity,
    );
    const summary = await ingestFiles(deps.stores, files, {
      rates: deps.rates,
      holder: context?.awsRequestId ?? `ingest-${randomUUID()}`,
      lease: { ...DEFAULT_LEASE, waitMs },
      concurrency: 1,
      ...(deps.resources ? { resources: deps.resources } : {}),
    });
    for (const r of summary.rejected) logger.error('export file rejected', { file: r.file, reason: r.message });
    for (const s of summary.skipped) logger.info('export file skipped', { file: s.file, reason: s.reason });
    for (const f of summary.failed)
      logger.warn('export file not loaded, will be retried', { file: f.file, reason: f.message });
    logger.info('ingested', {
      files: summary.files,
      loaded: summary.loaded,
      rows: summary.rows,
      days: summary.days,
      rejected: summary.rejected.length,
      skipped: summary.skipped.length,
      failed: summary.failed.length,
      seconds: summary.seconds,
    });
    // Lag: from the earliest S3 event time of the files loaded to now (what an operator's alarm watches).
    const notLoaded = new Set(summary.failed.map((f) => f.file));
    const times = created
      .filter((r) => !notLoaded.has(objectKey(r.s3.object.key)) && r.eventTime)
      .map((r) => Date.parse(r.eventTime))
      .filter((t) => Number.isFinite(t));
    publishIngestMetrics({
      files: summary.loaded,
      rows: summary.rows,
      seconds: summary.seconds,
      rejected: summary.rejected.length,
      ...(times.length > 0 ? { lagSeconds: Math.max(0, (Date.now() - Math.min(...times)) / 1000) } : {}),
    });
    deps.onSummary?.(summary);
    return summary;
  };

  return async (event: Incoming, context?: Context): Promise<SQSBatchResponse | IngestSummary> => {
    if (!isSqs(event)) return load((event as S3Event).Records, context);
    const batchItemFailures: { itemIdentifier: string }[] = [];
    const byMessage = new Map<string, S3EventRecord[]>();
    for (const message of event.Records) {
      const records = s3RecordsOf(message.body);
      if (records === 'test') continue;
      if (records === undefined) {
        logger.error('queue message is not an S3 event notification', { messageId: message.messageId });
        batchItemFailures.push({ itemIdentifier: message.messageId });
        continue;
      }
      byMessage.set(message.messageId, records);
    }
    if (byMessage.size === 0) return { batchItemFailures };
    const summary = await load([...byMessage.values()].flat(), context);
    const failed = new Set(summary.failed.map((f) => f.file));
    for (const [messageId, records] of byMessage) {
      if (records.some((r) => failed.has(objectKey(r.s3.object.key))))
        batchItemFailures.push({ itemIdentifier: messageId });
    }
    return { batchItemFailures };
  };
}

let deployed: ReturnType<typeof createIngestHandler> | undefined;

export const handler = withRequestContext(INGEST_OPERATION, (event: Incoming, context?: Context) => {
  deployed ??= createIngestHandler({
    stores: dynamoIngestStores(tableContext()),
    rates: dynamoRateRepository(tableContext()),
    objects: s3ObjectReader(),
    resources: dynamoResourceSink(tableContext()),
    ...(process.env.INGEST_LEASE_WAIT_SECONDS
      ? { leaseWaitMs: Number(process.env.INGEST_LEASE_WAIT_SECONDS) * 1000 }
      : {}),
  });
  return deployed(event, context);
});
