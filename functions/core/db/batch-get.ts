/**
 * BatchGetItem for derived data read by key (fact cubes): 100 keys a call and the unprocessed keys asked again until
 * every key is answered; items come back in no particular order. A call that answered some keys stopped at a size
 * limit (16 MB a call, 1 MB of one partition: a region's twelve months at 10,000 videos are 1.56 MB), so the rest go
 * at once; one that answered none was throttled, and waits with backoff, longer each time. (Groups read theirs with a
 * bounded retry and their own errors: group-repository.ts.)
 */
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { backoff, DEFAULT_RETRY } from './retry';

export async function batchGetAll(
  db: DynamoDBDocumentClient,
  tableName: string,
  keys: readonly Record<string, unknown>[],
  options: {
    ProjectionExpression?: string;
    ExpressionAttributeNames?: Record<string, string>;
    ConsistentRead?: boolean;
  } = {},
  onCall: () => void = () => undefined,
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  for (let at = 0; at < keys.length; at += 100) {
    let pending = keys.slice(at, at + 100);
    for (let stalled = 0; pending.length > 0; ) {
      if (stalled > 0) await backoff(Math.min(stalled, 6), DEFAULT_RETRY);
      const out = await db.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ...options } } }));
      onCall();
      const items = out.Responses?.[tableName] ?? [];
      found.push(...items);
      pending = (out.UnprocessedKeys?.[tableName]?.Keys as Record<string, unknown>[] | undefined) ?? [];
      stalled = items.length > 0 ? 0 : stalled + 1;
    }
  }
  return found;
}
