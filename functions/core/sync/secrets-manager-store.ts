/**
 * The cloud credential store: one Secrets Manager secret per connected owner (names from owner.ts). Only this module
 * knows Secrets Manager's calls and errors. A secret deleted by `connect --disconnect` is removed at once (no recovery
 * window), so the owner can be connected again straight away; one still pending deletion is restored and replaced.
 */
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  RestoreSecretCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { type CredentialStore, credentialsText, parseCredentials } from './connection';

const errorName = (err: unknown) => (err as { name?: string })?.name;

export function secretsManagerStore(client: SecretsManagerClient): CredentialStore {
  return {
    async save(name, credentials) {
      const SecretString = credentialsText(credentials);
      try {
        await client.send(
          new CreateSecretCommand({
            Name: name,
            SecretString,
            Description: 'OAuth credentials of a connected YouTube owner (analytics-api sync)',
          }),
        );
        return;
      } catch (err) {
        const name_ = errorName(err);
        if (name_ === 'InvalidRequestException') {
          // Scheduled for deletion: bring it back, then replace its value.
          await client.send(new RestoreSecretCommand({ SecretId: name }));
        } else if (name_ !== 'ResourceExistsException') throw err;
      }
      await client.send(new PutSecretValueCommand({ SecretId: name, SecretString }));
    },
    async read(name) {
      try {
        const out = await client.send(new GetSecretValueCommand({ SecretId: name }));
        return parseCredentials(name, out.SecretString);
      } catch (err) {
        if (errorName(err) === 'ResourceNotFoundException') return undefined;
        throw err;
      }
    },
    async remove(name) {
      try {
        await client.send(new DeleteSecretCommand({ SecretId: name, ForceDeleteWithoutRecovery: true }));
      } catch (err) {
        if (errorName(err) !== 'ResourceNotFoundException') throw err;
      }
    },
  };
}
