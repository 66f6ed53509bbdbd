/**
 * A report's bare reads: the DynamoDB calls the report service makes to answer it, recorded once in this process, then
 * sent again as they are through the bench's own client, each as soon as the call it followed has answered (the call
 * that answered last before it started: a round's calls start together after the round before, a Query's next page
 * after its page). Timed interleaved with the API and DuckDB, it is what DynamoDB Local alone takes to serve what the
 * report reads: the floor under the API's p50 on this store, as the groups section's bare calls are for a group
 * operation. Shown, not judged.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from '../functions/core/directory/directory-repository';
import { answerThrough } from './reports-capacity';

interface Sent {
  readonly type: new (input: Record<string, unknown>) => unknown;
  readonly input: Record<string, unknown>;
  /** The call that answered last before this one started (none for the first round). */
  readonly after?: number;
}

/** The calls of one report; `replay` sends them again and resolves when every one has answered. */
export interface BareReads {
  readonly calls: number;
  replay(): Promise<void>;
}

export async function recordBareReads(
  table: TableContext,
  caller: { sub: string; scopes: readonly string[] },
  query: Record<string, string>,
): Promise<BareReads> {
  const sent: Sent[] = [];
  let lastAnswered: number | undefined;
  const send = async (command: { constructor: Sent['type']; input: Record<string, unknown> }) => {
    const i = sent.length;
    sent.push({
      type: command.constructor,
      input: structuredClone(command.input),
      ...(lastAnswered === undefined ? {} : { after: lastAnswered }),
    });
    try {
      return await table.db.send(command as never);
    } finally {
      lastAnswered = i;
    }
  };
  const recording = Object.create(table.db) as DynamoDBDocumentClient;
  Object.defineProperty(recording, 'send', { value: send });
  await answerThrough(table, recording, caller, query);
  return {
    calls: sent.length,
    async replay() {
      const done: Promise<unknown>[] = [];
      for (const s of sent) {
        const go = () => table.db.send(new s.type(s.input) as never);
        done.push(s.after === undefined ? go() : (done[s.after] as Promise<unknown>).then(go));
      }
      await Promise.all(done);
    },
  };
}
