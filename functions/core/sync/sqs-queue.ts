/** The sync queue on SQS (only this module knows its calls): SendMessageBatch, ten messages a call. */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SyncQueue } from './dispatch';

export function sqsSyncQueue(client: SQSClient, queueUrl: string): SyncQueue {
  return {
    async send(messages) {
      const failed: string[] = [];
      for (let at = 0; at < messages.length; at += 10) {
        const batch = messages.slice(at, at + 10);
        const out = await client.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: batch.map((m, i) => ({ Id: String(at + i), MessageBody: JSON.stringify(m) })),
          }),
        );
        for (const f of out.Failed ?? [])
          failed.push(`${batch[Number(f.Id) - at]?.owner}: ${f.Code} ${f.Message ?? ''}`);
      }
      if (failed.length > 0) throw new Error(`could not queue the sync of ${failed.join('; ')}`);
    },
  };
}
