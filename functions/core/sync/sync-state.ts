/**
 * The sync state of connected owners, for the operator commands (`connect --list`, ingest-status): last success,
 * checkpoint, last error, needs re-consent, the last run's counts. Never the credentials.
 */
import type { TableContext } from '../directory/directory-repository';
import type { SyncState } from './connection';
import { parseOwner } from './owner';
import { dynamoSyncRepository } from './sync-repository';

/**
 * Every connected owner's state (one Query), or the given owners' (channel ids `UC…` or content-owner ids; owners
 * that are not connected are left out). Ordered by owner type, then id.
 */
export async function readSyncStates(ctx: TableContext, owners?: readonly string[]): Promise<SyncState[]> {
  const repo = dynamoSyncRepository(ctx);
  const connections = owners ? await repo.get(owners.map(parseOwner)) : await repo.list();
  return connections
    .map(({ secretName: _, ...state }) => state)
    .sort((a, b) =>
      a.owner.type === b.owner.type ? (a.owner.id < b.owner.id ? -1 : 1) : a.owner.type < b.owner.type ? -1 : 1,
    );
}
