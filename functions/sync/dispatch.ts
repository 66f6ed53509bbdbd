/**
 * Scheduled (EventBridge, every 6 hours by default): queues one sync message per connected owner; the worker syncs
 * each owner on its own (infra/constructs/connected-sync.ts).
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import * as env from '../_shared/env';
import { logger } from '../_shared/logger';
import { withRequestContext } from '../_shared/observability';
import { tableContext } from '../_shared/table';
import { dispatchSync } from '../core/sync/dispatch';
import { sqsSyncQueue } from '../core/sync/sqs-queue';
import { dynamoSyncRepository } from '../core/sync/sync-repository';

const sqs = new SQSClient({});

export const handler = withRequestContext('sync.dispatch', async (_event: unknown) => {
  const queueUrl = env.syncQueueUrl();
  if (!queueUrl) throw new Error('SYNC_QUEUE_URL is not set');
  const { sent, needsReconsent } = await dispatchSync(
    dynamoSyncRepository(tableContext()),
    sqsSyncQueue(sqs, queueUrl),
  );
  for (const owner of needsReconsent) logger.warn('owner needs re-consent: not synced', { owner: owner.id });
  logger.info('sync dispatched', { owners: sent.length, needsReconsent: needsReconsent.length });
  return { owners: sent.length, needsReconsent: needsReconsent.length };
});
