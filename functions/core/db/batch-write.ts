/**
 * BatchWriteItem for derived data (fact cubes, exchange rates): 25 requests a call, several calls in flight, and the
 * unprocessed items retried with backoff until every request is written.
 *
 * Calls in flight are capped per document client, across every batchWriteAll running on it: a load writes the days'
 * items while it computes the next ones, and two months load at once, so without a shared cap a large day put a few
 * hundred 400 KB calls on the wire together (the SDK queues past 50 sockets). DynamoDB Local answered such a burst
 * by resetting every open connection ("socket hang up", whole months of a 10,000-video channel lost on a slow
 * machine); in the cloud it is a burst of throttling. A few calls in flight keep a 2-core loader busy.
 */
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { backoff, DEFAULT_RETRY } from './retry';

/** BatchWriteItem calls one document client has in flight at most, however many writes share it. */
export const MAX_WRITES_IN_FLIGHT = 16;

/** A counting semaphore: `take` resolves once fewer than `limit` holders hold it. */
class Slots {
  private held = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}
  take(): Promise<void> | undefined {
    if (this.held < this.limit) {
      this.held++;
      return undefined;
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held--;
  }
}

const slotsByClient = new WeakMap<DynamoDBDocumentClient, Slots>();

export async function batchWriteAll(
  db: DynamoDBDocumentClient,
  tableName: string,
  requests: readonly Record<string, unknown>[],
  inFlight = 12,
): Promise<void> {
  let slots = slotsByClient.get(db);
  if (!slots) {
    slots = new Slots(MAX_WRITES_IN_FLIGHT);
    slotsByClient.set(db, slots);
  }
  const shared = slots;
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      let pending = requests.slice(next, next + 25);
      next += 25;
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0) await backoff(Math.min(attempt, 6), DEFAULT_RETRY);
        await shared.take();
        try {
          const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending as never } }));
          pending = (out.UnprocessedItems?.[tableName] as Record<string, unknown>[] | undefined) ?? [];
        } finally {
          shared.give();
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, Math.ceil(requests.length / 25)) }, worker));
}
