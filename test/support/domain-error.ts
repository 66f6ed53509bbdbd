/** The DomainError a piece of domain code throws, for tests that check which 4xx a request earns. */
import { expect } from 'vitest';
import { DomainError } from '../../functions/core/errors';

/** The DomainError `fn` throws (fails the test when it throws something else or nothing). */
export function caught(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (err) {
    expect(err, String(err)).toBeInstanceOf(DomainError);
    return err as DomainError;
  }
  throw new Error('expected a DomainError, nothing was thrown');
}
