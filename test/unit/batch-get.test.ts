/**
 * batchGetAll (core/db/batch-get.ts): unprocessed keys are asked again until every key is answered, at once after a
 * partial answer (a size limit), with backoff after an empty one (throttling). DynamoDB Local never leaves keys
 * unprocessed, so a stub client injects the partial answers; the timers are fake, so a wait shows as a pending timer.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { batchGetAll } from '../../functions/core/db/batch-get';

const TABLE = 't';
const keys = Array.from({ length: 5 }, (_, i) => ({ pk: 'P', sk: `S${i}` }));

/** A client answering each call with `answers[call]` of the keys it was asked (the rest unprocessed). */
function stub(answers: number[]) {
  const asked: number[] = [];
  const db = {
    async send(command: { input: { RequestItems: Record<string, { Keys: Record<string, unknown>[] }> } }) {
      const pending = command.input.RequestItems[TABLE]?.Keys ?? [];
      asked.push(pending.length);
      const n = Math.min(answers[asked.length - 1] ?? pending.length, pending.length);
      const rest = pending.slice(n);
      return {
        Responses: { [TABLE]: pending.slice(0, n).map((k) => ({ ...k, v: 1 })) },
        ...(rest.length > 0 ? { UnprocessedKeys: { [TABLE]: { Keys: rest } } } : {}),
      };
    },
  };
  return { db: db as unknown as DynamoDBDocumentClient, asked };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('batchGetAll', () => {
  it('asks for the rest at once after a partial answer, until every key is answered', async () => {
    const { db, asked } = stub([2, 1, 2]);
    const found = await batchGetAll(db, TABLE, keys);
    expect(found.map((i) => i.sk).sort()).toEqual(keys.map((k) => k.sk));
    expect(asked).toEqual([5, 3, 2]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('waits before asking again after an answer with nothing in it, then goes on', async () => {
    // Full jitter may draw a wait under 1 ms, which a fake timer fires at once: fix the draw at half the range.
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const { db, asked } = stub([0, 0, 5]);
    let done = false;
    const read = batchGetAll(db, TABLE, keys).then((found) => {
      done = true;
      return found;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(asked).toEqual([5]);
    expect(done).toBe(false);
    expect(vi.getTimerCount()).toBe(1);
    await vi.runAllTimersAsync();
    expect((await read).length).toBe(5);
    expect(asked).toEqual([5, 5, 5]);
  });
});
