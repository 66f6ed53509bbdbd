/** Recognising DynamoDB condition failures and transaction cancellations (repositories only). */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

interface ErrorWithName {
  name?: string;
}

export const isConditionFailure = (err: unknown): boolean =>
  (err as ErrorWithName)?.name === 'ConditionalCheckFailedException';

export interface CancellationReason {
  Code?: string;
  Item?: Record<string, AttributeValue>;
}

export const isTransactionCanceled = (err: unknown): err is { CancellationReasons?: CancellationReason[] } =>
  (err as ErrorWithName)?.name === 'TransactionCanceledException';

/** Codes that may succeed if tried again (contention, throttling). */
const TRANSIENT = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded']);

export const isTransientCancellation = (reasons: CancellationReason[]): boolean =>
  reasons.some((r) => r.Code && TRANSIENT.has(r.Code));

/** The DocumentClient does not unmarshall items attached to condition failures; do it here. */
export const oldItem = (item: Record<string, AttributeValue> | undefined): Record<string, unknown> | undefined =>
  item ? unmarshall(item) : undefined;
