/**
 * The local credential store (access pattern S3): on a laptop the OAuth credentials live in the local table, which is
 * git-ignored data under .data/. A deployed stack keeps them in Secrets Manager (secrets-manager-store.ts) under the
 * same names, so the connection record is the same either way.
 */
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../db/keys';
import type { TableContext } from '../directory/directory-repository';
import { type CredentialStore, credentialsText, parseCredentials } from './connection';

export function tableCredentialStore({ db, tableName }: TableContext): CredentialStore {
  return {
    async save(name, credentials) {
      // Replacing the secret is the point of connecting again, so the Put is unconditional.
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...keys.localSecret(name), entity: 'LocalSecret', secret: credentialsText(credentials) },
        }),
      );
    },
    async read(name) {
      const out = await db.send(
        new GetCommand({ TableName: tableName, Key: keys.localSecret(name), ConsistentRead: true }),
      );
      return out.Item ? parseCredentials(name, out.Item.secret as string | undefined) : undefined;
    },
    async remove(name) {
      // Deleting what may not exist is a no-op by design (disconnect is repeatable).
      await db.send(new DeleteCommand({ TableName: tableName, Key: keys.localSecret(name) }));
    },
  };
}
