/**
 * BatchWriteItem for derived data (fact cubes, exchange rates): 25 requests a call, several calls in flight, and the
 * unprocessed items retried with backoff until every request is written.
 */
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { backoff, DEFAULT_RETRY } from './retry';

export async function batchWriteAll(
  db: DynamoDBDocumentClient,
  tableName: string,
  requests: readonly Record<string, unknown>[],
  inFlight = 12,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      let pending = requests.slice(next, next + 25);
      next += 25;
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0) await backoff(Math.min(attempt, 6), DEFAULT_RETRY);
        const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending as never } }));
        pending = (out.UnprocessedItems?.[tableName] as Record<string, unknown>[] | undefined) ?? [];
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}
