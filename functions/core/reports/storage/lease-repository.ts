/**
 * Leases (access pattern L1 in core/db/keys.ts): loads of one (report type, owner, month) never interleave, and one
 * owner's blocks are rewritten by one load at a time. A lease is an item with a holder, an expiry and a fence (a
 * counter raised by every acquisition); taking it is one conditional UpdateItem, so it works the same from any
 * number of Lambdas and from a laptop. A holder that dies leaves it to expire; a holder renews it while it works and
 * checks, before each write, that it still holds it with time to spare (see the ingest's lease guard), and its
 * commit is a transaction with a ConditionCheck on the lease, so a holder whose lease expired cannot commit.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../../db/conditions';
import type { TableKey } from '../../db/table-definition';
import type { TableContext } from '../../directory/directory-repository';

export interface Lease {
  readonly key: TableKey;
  readonly holder: string;
  readonly fence: number;
  /** Epoch milliseconds. */
  readonly expiresAt: number;
}

const LEASE_ENTITY = 'Lease';
/** The condition of every write by a holder: the lease is still its own (same holder, same fence). */
const HELD = 'holder = :holder AND fence = :fence';
/** What letting a lease go writes: no holder, and expired. */
const RELEASE = 'REMOVE holder SET expiresAt = :zero';

export const dynamoLeaseRepository = ({ db, tableName }: TableContext) => {
  /** Applies `update` to the lease item if `lease` still holds it (holder and fence); false when it was lost. */
  const updateHeld = async (lease: Lease, update: string, values: Record<string, unknown>): Promise<boolean> => {
    try {
      await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: lease.key,
          UpdateExpression: update,
          ConditionExpression: HELD,
          ExpressionAttributeValues: { ...values, ':holder': lease.holder, ':fence': lease.fence },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  };

  return {
    /** Takes the lease when it is free, expired, or already ours; undefined when someone else holds it. */
    async acquire(key: TableKey, holder: string, ttlMs: number, now = Date.now()): Promise<Lease | undefined> {
      const expiresAt = now + ttlMs;
      try {
        const out = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: key,
            UpdateExpression:
              'SET entity = :entity, holder = :holder, expiresAt = :expires, fence = if_not_exists(fence, :zero) + :one',
            ConditionExpression:
              '(attribute_not_exists(pk) OR entity = :entity) AND (attribute_not_exists(holder) OR holder = :holder OR expiresAt < :now)',
            ExpressionAttributeValues: {
              ':entity': LEASE_ENTITY,
              ':holder': holder,
              // Seconds for the table's TTL (a lease nobody released disappears); the check uses the same value.
              ':expires': Math.ceil(expiresAt / 1000),
              ':now': Math.floor(now / 1000),
              ':zero': 0,
              ':one': 1,
            },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return { key, holder, fence: Number(out.Attributes?.fence), expiresAt: Math.ceil(expiresAt / 1000) * 1000 };
      } catch (err) {
        if (isConditionFailure(err)) return undefined;
        throw err;
      }
    },

    /** Extends a lease still ours (same holder and fence); undefined when it was lost. */
    async renew(lease: Lease, ttlMs: number, now = Date.now()): Promise<Lease | undefined> {
      const expiresAt = Math.ceil((now + ttlMs) / 1000);
      const held = await updateHeld(lease, 'SET expiresAt = :expires', { ':expires': expiresAt });
      return held ? { ...lease, expiresAt: expiresAt * 1000 } : undefined;
    },

    /** Lets the lease go (if still ours; one already lost has nothing to release): the next load need not wait. */
    async release(lease: Lease): Promise<void> {
      await updateHeld(lease, RELEASE, { ':zero': 0 });
    },

    /** A transaction part that fails unless `lease` is still held (holder and fence). */
    check(lease: Lease) {
      return {
        ConditionCheck: {
          TableName: tableName,
          Key: lease.key,
          ConditionExpression: HELD,
          ExpressionAttributeValues: { ':holder': lease.holder, ':fence': lease.fence },
        },
      };
    },

    /**
     * The same, letting the lease go when the transaction commits: a load's last write releases its lease in the
     * same round trip instead of one more after it.
     */
    releasing(lease: Lease) {
      return {
        Update: {
          TableName: tableName,
          Key: lease.key,
          UpdateExpression: RELEASE,
          ConditionExpression: HELD,
          ExpressionAttributeValues: { ':holder': lease.holder, ':fence': lease.fence, ':zero': 0 },
        },
      };
    },
  };
};

export type LeaseRepository = ReturnType<typeof dynamoLeaseRepository>;
