/**
 * The scheduled fan-out: one message per connected owner, so each owner is synced by a worker of its own and one
 * slow or broken owner never delays the others. Owners that need re-consent are left out (their refresh token is
 * refused until `connect` runs again); they stay listed by `connect --list`.
 */
import type { ConnectedOwner } from './owner';
import { ownerKey, ownerOfKey } from './owner';
import type { SyncRepository } from './sync-repository';

/** The body of a sync message. */
export interface SyncMessage {
  readonly owner: string;
}

export interface SyncQueue {
  /** Sends the messages (in batches the queue takes); throws naming any it could not send. */
  send(messages: readonly SyncMessage[]): Promise<void>;
}

export async function dispatchSync(
  repo: SyncRepository,
  queue: SyncQueue,
): Promise<{ sent: ConnectedOwner[]; needsReconsent: ConnectedOwner[] }> {
  const connections = await repo.list();
  const ready = connections.filter((c) => !c.needsReconsent);
  await queue.send(ready.map((c) => ({ owner: ownerKey(c.owner) })));
  return {
    sent: ready.map((c) => c.owner),
    needsReconsent: connections.filter((c) => c.needsReconsent).map((c) => c.owner),
  };
}

/** The owner a message names; undefined for a malformed one (it is dropped, not retried). */
export function ownerOfMessage(body: string): ConnectedOwner | undefined {
  try {
    const message = JSON.parse(body) as Partial<SyncMessage>;
    return typeof message.owner === 'string' ? ownerOfKey(message.owner) : undefined;
  } catch {
    return undefined;
  }
}
