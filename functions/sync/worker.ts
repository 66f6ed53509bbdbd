/**
 * The sync worker: one SQS message, one connected owner, synced by the same code as `npm run sync`, with the
 * credentials from Secrets Manager and the reports written to the exports bucket (whose ingest function loads them).
 * An owner's failure (refused token, API errors, rejected reports) is recorded in its sync state, not retried here:
 * the next scheduled run tries again. Only an unexpected crash returns the message (and, after three, the DLQ).
 */
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as env from '../_shared/env';
import { logger } from '../_shared/logger';
import { withRequestContext } from '../_shared/observability';
import { reportingApiFromEnv } from '../_shared/sync-deps';
import { tableContext } from '../_shared/table';
import { bucketSink } from '../core/sync/bucket-sink';
import { ownerOfMessage } from '../core/sync/dispatch';
import { secretsManagerStore } from '../core/sync/secrets-manager-store';
import { dynamoSyncRepository } from '../core/sync/sync-repository';
import { type SyncDeps, syncOwner } from '../core/sync/sync-service';

const s3 = new S3Client({});
const secrets = new SecretsManagerClient({});
/** Time kept back from the Lambda's limit to write the run's result. */
const RESERVE_MS = 60_000;

export const handler = withRequestContext(
  'sync.worker',
  async (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
    const bucket = env.exportsBucket();
    if (!bucket) throw new Error('EXPORTS_BUCKET is not set');
    const deps: SyncDeps = {
      repo: dynamoSyncRepository(tableContext()),
      credentials: secretsManagerStore(secrets),
      api: reportingApiFromEnv,
      sink: bucketSink(s3, bucket),
    };
    const batchItemFailures: { itemIdentifier: string }[] = [];
    for (const record of event.Records) {
      const owner = ownerOfMessage(record.body);
      if (!owner) {
        logger.error('malformed sync message dropped', { messageId: record.messageId });
        continue;
      }
      try {
        const left = context?.getRemainingTimeInMillis() ?? 15 * 60_000;
        const result = await syncOwner(deps, owner, { deadline: Date.now() + left - RESERVE_MS });
        const log = result.status === 'ok' || result.status === 'busy' ? logger.info : logger.error;
        log.call(logger, 'owner synced', {
          owner: owner.id,
          status: result.status,
          ...result.summary,
          deferred: result.deferred,
          ...(result.error ? { reason: result.error } : {}),
        });
      } catch (err) {
        logger.error('sync crashed', { owner: owner.id, error: err as Error });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  },
);
