/**
 * BatchGetItem for derived data read by key (fact cubes): 100 keys a call and the unprocessed keys retried with
 * backoff until every key is answered; items come back in no particular order. (Groups read theirs with a bounded
 * retry and their own errors: group-repository.ts.)
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
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await backoff(Math.min(attempt, 6), DEFAULT_RETRY);
      const out = await db.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ...options } } }));
      onCall();
      found.push(...(out.Responses?.[tableName] ?? []));
      pending = (out.UnprocessedKeys?.[tableName]?.Keys as Record<string, unknown>[] | undefined) ?? [];
    }
  }
  return found;
}
