/**
 * What the connect and sync commands work on: the target table (target-table.ts) and its credential store: the
 * local table's own secrets, or Secrets Manager in the deployed table's region.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CredentialStore } from '../../functions/core/sync/connection';
import { tableCredentialStore } from '../../functions/core/sync/credential-store';
import { secretsManagerStore } from '../../functions/core/sync/secrets-manager-store';
import type { TargetTable } from './target-table';

export function credentialStoreOf(table: TargetTable): { store: CredentialStore; close: () => void } {
  if (table.local) return { store: tableCredentialStore(table), close: () => undefined };
  const client = new SecretsManagerClient({ region: table.region, maxAttempts: 5 });
  return { store: secretsManagerStore(client), close: () => client.destroy() };
}

/** `2026-10-03T09:12:45.123456000Z` → `2026-10-03 09:12:45Z`, for tables. */
export const shortTime = (t: string | undefined) => (t ? `${t.slice(0, 10)} ${t.slice(11, 19)}Z` : '-');
