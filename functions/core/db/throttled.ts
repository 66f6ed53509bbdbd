/**
 * DynamoDB's answers to more requests than a table or the account takes, once the client's own retries (three
 * attempts with backoff: wire-client.ts) are spent. The caller should retry later: a 503, never a 500.
 */
const THROTTLED = new Set(['ThrottlingException', 'ProvisionedThroughputExceededException', 'RequestLimitExceeded']);

export const isThrottled = (err: unknown): boolean => THROTTLED.has((err as { name?: string })?.name ?? '');
