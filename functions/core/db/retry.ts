/** Bounded retries with full-jitter exponential backoff, for contention that may clear on its own. */
export interface RetryPolicy {
  readonly attempts: number;
  readonly baseDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 20 };

export const backoff = (attempt: number, policy: RetryPolicy): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * policy.baseDelayMs * 2 ** attempt));
