/**
 * Connecting an owner: its OAuth credentials go to the credential store (Secrets Manager in the cloud, the local
 * table on a laptop) and the connection record to the table. Connecting again replaces the credentials, keeps the
 * checkpoint and clears `needs re-consent`. Disconnecting removes both (the loaded data stays).
 */
import { invalidArgument } from '../errors';
import type { Connection, CredentialStore, OAuthCredentials } from './connection';
import { type ConnectedOwner, secretName } from './owner';
import type { ReportingApi } from './reporting-api';
import type { SyncRepository } from './sync-repository';

export interface ConnectDeps {
  readonly repo: SyncRepository;
  readonly credentials: CredentialStore;
  readonly tableName: string;
  readonly now?: () => Date;
}

export function checkCredentials(c: OAuthCredentials): void {
  for (const [name, value] of [
    ['client id', c.clientId],
    ['client secret', c.clientSecret],
    ['refresh token', c.refreshToken],
  ] as const) {
    if (value.trim() === '' || /\s/.test(value))
      throw invalidArgument('invalidValue', `the ${name} is empty or has spaces`);
  }
}

/**
 * Stores the owner's credentials and its connection. With `verify`, the credentials are tried first (a token
 * refresh and reportTypes.list, on behalf of a content owner), so a wrong secret or token is reported now, not at
 * the next scheduled run.
 */
export async function connectOwner(
  deps: ConnectDeps,
  owner: ConnectedOwner,
  credentials: OAuthCredentials,
  verify?: (credentials: OAuthCredentials, owner: ConnectedOwner) => ReportingApi,
): Promise<Connection> {
  checkCredentials(credentials);
  if (verify) await verify(credentials, owner).reportTypes();
  const name = secretName(deps.tableName, owner);
  await deps.credentials.save(name, credentials);
  return deps.repo.connect(owner, name, (deps.now?.() ?? new Date()).toISOString());
}

/** Removes the owner's connection and credentials; undefined when it was not connected. */
export async function disconnectOwner(deps: ConnectDeps, owner: ConnectedOwner): Promise<Connection | undefined> {
  const removed = await deps.repo.disconnect(owner);
  // The secret goes even when the record was already gone (a disconnect interrupted half-way is finished).
  await deps.credentials.remove(removed?.secretName ?? secretName(deps.tableName, owner));
  return removed;
}
