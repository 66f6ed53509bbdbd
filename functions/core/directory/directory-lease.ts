/**
 * The directory lease (access pattern D6): one apply at a time. Taken with a conditional write when free or run out,
 * renewed while the apply runs, released at its end; every transaction of the apply checks it (`check`).
 */
import { GetCommand, type TransactWriteCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../db/conditions';
import * as keys from '../db/keys';
import type { TableContext } from './directory-repository';
import { DirectoryBusyError, DirectoryConflictError, type DirectoryLease } from './directory-service';

/** How long a lease lasts without renewal (a crashed apply's lease runs out after this). */
export const LEASE_MS = 60_000;
const RENEW_MS = 15_000;

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface HeldLease extends DirectoryLease {
  readonly check: TransactItem;
  /** Throws when a renewal found the lease taken by someone else. */
  assertHeld(): void;
}

export async function takeLease(
  { db, tableName }: TableContext,
  holder: string,
  options: { waitMs?: number; onWait?: (heldBy: string) => void } = {},
): Promise<HeldLease> {
  const deadline = Date.now() + (options.waitMs ?? 0);
  const key = keys.directoryLease;
  for (let attempt = 0; ; attempt++) {
    const now = Date.now();
    try {
      await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: 'SET entity = :entity, holder = :me, leaseUntil = :until, since = :since',
          ConditionExpression: 'attribute_not_exists(pk) OR leaseUntil < :now',
          ExpressionAttributeValues: {
            ':entity': 'DirectoryLease',
            ':me': holder,
            ':until': now + LEASE_MS,
            ':since': new Date(now).toISOString(),
            ':now': now,
          },
        }),
      );
      break;
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      const held = await db.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
      const heldBy = `${String(held.Item?.holder ?? 'another apply')} since ${String(held.Item?.since ?? '?')}`;
      if (Date.now() >= deadline) {
        throw new DirectoryBusyError(
          `another apply holds the directory (${heldBy}); try again when it ends (a crashed apply's lease runs out after ${LEASE_MS / 1000} s)`,
        );
      }
      options.onWait?.(heldBy);
      await new Promise((r) => setTimeout(r, Math.min(250 * 2 ** Math.min(attempt, 3), 2_000)));
    }
  }
  let lost: Error | undefined;
  const renew = async () => {
    try {
      await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: 'SET leaseUntil = :until',
          ConditionExpression: 'holder = :me',
          ExpressionAttributeValues: { ':me': holder, ':until': Date.now() + LEASE_MS },
        }),
      );
    } catch (err) {
      lost ??= isConditionFailure(err)
        ? new DirectoryConflictError('the directory lease was taken by another apply')
        : (err as Error);
    }
  };
  const timer = setInterval(() => void renew(), RENEW_MS);
  timer.unref();
  const held: HeldLease = {
    holder,
    check: {
      ConditionCheck: {
        TableName: tableName,
        Key: key,
        ConditionExpression: 'holder = :me',
        ExpressionAttributeValues: { ':me': holder },
      },
    },
    assertHeld() {
      if (lost) throw lost;
    },
    async release() {
      clearInterval(timer);
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: key,
            UpdateExpression: 'SET leaseUntil = :zero REMOVE holder',
            ConditionExpression: 'holder = :me',
            ExpressionAttributeValues: { ':me': holder, ':zero': 0 },
          }),
        );
      } catch (err) {
        if (!isConditionFailure(err)) throw err; // already taken over: nothing of ours to release
      }
    },
  };
  return held;
}
