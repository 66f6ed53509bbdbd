/**
 * DynamoDB adapter of the directory file (access patterns D1–D7 in core/db/keys.ts): reads the records of the last
 * apply, holds the lease, and writes the difference between two directories.
 *
 * Consistency (docs/directory-file.md):
 * - One apply at a time: a lease item (D6) taken with a conditional Put and renewed while the apply runs. Every
 *   transaction carries a ConditionCheck on it, and each record (D5) is written only if it still holds what was read
 *   under the lease, so an apply whose lease ran out cannot interleave its writes with the next one's.
 * - A user's grants and record change in ONE transaction: a user removed loses all access at once.
 * - Every item write is conditional on its entity type: the directory never clobbers another kind of item.
 * - A change of a channel's link bumps the links revision (D7) in the same transaction; ingest's resource writes
 *   check it, then the channel's resources (D3) get their owners updated.
 */
import {
  DeleteCommand,
  GetCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, isTransactionCanceled } from '../db/conditions';
import * as keys from '../db/keys';
import { queryAll } from '../db/query-all';
import { backoff, DEFAULT_RETRY } from '../db/retry';
import { type TableKey, tableDefinition } from '../db/table-definition';
import { contentOwnerActor } from './directory';
import type { DirectoryFile } from './directory-file';
import { canonical, emptyDirectory } from './directory-file';
import {
  type AccessItem,
  accessItems,
  itemId,
  type ListedResource,
  linksOf,
  listedResources,
  sameAttributes,
} from './directory-items';
import { type HeldLease, takeLease } from './directory-lease';
import type { TableContext } from './directory-repository';
import {
  DirectoryConflictError,
  type DirectoryLease,
  type DirectoryStore,
  type WriteProgress,
} from './directory-service';
import { SECTIONS } from './directory-target';

/** Transactions hold 100 actions; one is the lease check, one may be the links revision. */
const ACTIONS_PER_TRANSACTION = 98;
/** A user's grants (at most MAX_USER_GRANTS) and record, beside the lease check. */
const USER_ACTIONS = 99;
const IN_FLIGHT = 16;

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const SECTION_OF_KIND = Object.fromEntries(SECTIONS.map((s) => [s.kind, s.section])) as Record<
  string,
  keyof DirectoryFile
>;

export function dynamoDirectoryStore(ctx: TableContext): DirectoryStore {
  const { db, tableName } = ctx;

  async function read(): Promise<DirectoryFile> {
    const items = await queryAll(db, {
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.directoryRecordPartition },
      ProjectionExpression: 'kind, doc',
      ConsistentRead: true,
    });
    const dir = emptyDirectory();
    for (const item of items) {
      const section = SECTION_OF_KIND[String(item.kind)];
      if (section) (dir[section] as unknown[]).push(JSON.parse(String(item.doc)));
    }
    return canonical(dir);
  }

  /** Runs the actions in transactions that each also check the lease (and, when asked, bump the links revision). */
  async function transact(
    held: HeldLease,
    batches: { actions: TransactItem[]; bumpLinks: boolean }[],
    tick: (n: number) => void,
  ) {
    for (const { actions, bumpLinks } of batches) {
      held.assertHeld();
      const extra: TransactItem[] = [held.check];
      if (bumpLinks) {
        // Unconditional: a counter only ever incremented, and the lease check beside it guards the transaction.
        extra.push({
          Update: {
            TableName: tableName,
            Key: keys.directoryLinksRevision,
            UpdateExpression: 'SET entity = :entity ADD rev :one',
            ExpressionAttributeValues: { ':entity': 'DirectoryLinksRevision', ':one': 1 },
          },
        });
      }
      const TransactItems = [...actions, ...extra];
      for (let attempt = 0; ; attempt++) {
        try {
          await db.send(new TransactWriteCommand({ TransactItems }));
          break;
        } catch (err) {
          if (!isTransactionCanceled(err)) throw err;
          const reasons = err.CancellationReasons ?? [];
          const failed = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
          if (failed === actions.length)
            throw new DirectoryConflictError('the directory lease was taken by another apply');
          if (failed >= 0) throw new DirectoryConflictError(conflictMessage(TransactItems[failed]));
          // TransactionConflict with ingest or a reader's transaction: retry.
          if (attempt >= DEFAULT_RETRY.attempts * 2) throw err;
          await backoff(Math.min(attempt, 6), DEFAULT_RETRY);
        }
      }
      tick(actions.length);
    }
  }

  /** Single-item writes, IN_FLIGHT at a time, while the lease holds. */
  async function each<T>(held: HeldLease, list: readonly T[], run: (t: T) => Promise<void>, tick: (n: number) => void) {
    let next = 0;
    const worker = async () => {
      while (next < list.length) {
        held.assertHeld();
        await run(list[next++] as T);
        tick(1);
      }
    };
    await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, list.length) }, worker));
  }

  const update = async (
    input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName'>,
    skipOnCondition = false,
  ) => {
    try {
      await db.send(new UpdateCommand({ TableName: tableName, ...input }));
      return true;
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      if (skipOnCondition) return false;
      throw new DirectoryConflictError(
        `${itemLabel(input.Key as TableKey)} is not a directory entry; nothing overwrites it`,
      );
    }
  };

  async function write(
    lease: DirectoryLease,
    current: DirectoryFile,
    target: DirectoryFile,
    onProgress?: (p: WriteProgress) => void,
  ): Promise<{ writes: number }> {
    const held = lease as HeldLease;
    const before = accessItems(current);
    const after = accessItems(target);
    const [oldLinks, newLinks] = [linksOf(current), linksOf(target)];
    const linkChanged = (channelId: string) =>
      oldLinks.get(channelId)?.contentOwnerId !== newLinks.get(channelId)?.contentOwnerId;

    // Access items: what to put (new or different) and delete (gone), records apart (they go last).
    const puts: AccessItem[] = [];
    const deletes: AccessItem[] = [];
    for (const [id, item] of after) {
      const old = before.get(id);
      if (!old || !sameAttributes(old.attributes, item.attributes)) puts.push(item);
    }
    for (const [id, item] of before) if (!after.has(id)) deletes.push(item);
    const isRecord = (i: AccessItem) => i.key.pk === keys.directoryRecordPartition;
    const putAction = (i: AccessItem): TransactItem => {
      const old = before.get(itemId(i.key));
      // A record is written only over what was read under the lease; other items only over their own kind.
      const record = isRecord(i);
      return {
        Put: {
          TableName: tableName,
          Item: { ...i.key, ...i.attributes },
          ConditionExpression:
            record && old
              ? 'doc = :was'
              : record
                ? 'attribute_not_exists(pk)'
                : 'attribute_not_exists(pk) OR entity = :entity',
          ExpressionAttributeValues:
            record && old ? { ':was': old.attributes.doc } : record ? undefined : { ':entity': i.attributes.entity },
        },
      };
    };
    const deleteAction = (i: AccessItem): TransactItem => ({
      Delete: {
        TableName: tableName,
        Key: i.key,
        ConditionExpression: isRecord(i) ? 'doc = :was' : 'attribute_not_exists(pk) OR entity = :entity',
        ExpressionAttributeValues: isRecord(i) ? { ':was': i.attributes.doc } : { ':entity': i.attributes.entity },
      },
    });
    const movesLink = (i: AccessItem) => i.linkOf !== undefined && linkChanged(i.linkOf);

    // Resources the file lists: join (phase A) before the access items, leave (phase B) after them.
    const [oldListed, newListed] = [listedResources(current), listedResources(target)];
    const joins = [...newListed.values()].filter((r) => {
      const old = oldListed.get(`${r.kind}#${r.id}`);
      return (
        !old ||
        old.channelId !== r.channelId ||
        !sameAttributes({ l: old.listedBy, o: old.owners }, { l: r.listedBy, o: r.owners })
      );
    });
    const leaves = [...oldListed.values()].filter((r) => {
      const now = newListed.get(`${r.kind}#${r.id}`);
      return [...r.listedBy].some((s) => !now?.listedBy.has(s)) || [...r.owners].some((o) => !now?.owners.has(o));
    });
    const relinked = [...new Set([...oldLinks.keys(), ...newLinks.keys()])].filter(linkChanged).sort();

    const others = (list: AccessItem[]) => list.filter((i) => i.user === undefined && !isRecord(i));
    const users = [
      ...new Set([...puts, ...deletes].map((i) => i.user).filter((u): u is string => u !== undefined)),
    ].sort();
    const records = [...puts, ...deletes].filter((i) => isRecord(i) && i.user === undefined);
    const total = joins.length + puts.length + deletes.length + leaves.length + relinked.length;
    let done = 0;
    const tick = (phase: string) => (n: number) => {
      done += n;
      onProgress?.({ done, total, phase });
    };

    await each(held, joins, (r) => joinResource(r), tick('resources listed'));
    await transact(
      held,
      batches(others(puts).map((i) => ({ action: putAction(i), bump: movesLink(i) }))),
      tick('entries'),
    );
    for (const user of users) {
      // The user's grants and record in one transaction (the file allows no more grants than one holds), adds first
      // if a change of every grant at once needs two.
      const mine = [
        ...puts.filter((i) => i.user === user).map(putAction),
        ...deletes.filter((i) => i.user === user).map(deleteAction),
      ];
      await transact(
        held,
        batches(
          mine.map((action) => ({ action, bump: false })),
          USER_ACTIONS,
        ),
        tick('users'),
      );
    }
    await transact(
      held,
      batches(others(deletes).map((i) => ({ action: deleteAction(i), bump: movesLink(i) }))),
      tick('entries removed'),
    );
    await each(
      held,
      leaves,
      (r) => leaveResource(r, newListed.get(`${r.kind}#${r.id}`), newLinks),
      tick('resources unlisted'),
    );
    for (const channelId of relinked) {
      held.assertHeld();
      await relink(channelId, oldLinks.get(channelId)?.contentOwnerId, newLinks.get(channelId)?.contentOwnerId);
      tick('links')(1);
    }
    const recordActions = records.map((i) => ({
      action: after.has(itemId(i.key)) ? putAction(i) : deleteAction(i),
      bump: false,
    }));
    await transact(held, batches(recordActions), () => undefined);
    return { writes: done };
  }

  /** The file lists a resource: it joins `listedBy`, and the owners the listing justifies join `owners`. */
  async function joinResource(r: ListedResource): Promise<void> {
    const entity = `Directory${r.kind}`;
    await update({
      Key: keys.directoryEntry(r.kind, r.id),
      UpdateExpression: `SET entity = :entity, id = :id${r.channelId ? ', channelId = :channel, gsi1pk = :gpk, gsi1sk = :gsk' : ''} ADD listedBy :listed, #owners :owners`,
      ConditionExpression: 'attribute_not_exists(pk) OR entity = :entity',
      ExpressionAttributeNames: { '#owners': 'owners' },
      ExpressionAttributeValues: {
        ':entity': entity,
        ':id': r.id,
        ':listed': new Set(r.listedBy),
        ':owners': new Set(r.owners),
        ...(r.channelId
          ? {
              ':channel': r.channelId,
              ':gpk': keys.channelResourcesGsi(r.channelId, r.kind, r.id).gsi1pk,
              ':gsk': keys.channelResourcesGsi(r.channelId, r.kind, r.id).gsi1sk,
            }
          : {}),
      },
    });
  }

  /**
   * The file no longer lists a resource (or lists it with fewer owners): it leaves `listedBy`; owners nothing else
   * justifies (a link, an export that named it) leave `owners`; an entry nobody lists and no export named goes.
   */
  async function leaveResource(
    was: ListedResource,
    now: ListedResource | undefined,
    links: ReadonlyMap<string, { contentOwnerId: string }>,
  ): Promise<void> {
    const key = keys.directoryEntry(was.kind, was.id);
    const entity = `Directory${was.kind}`;
    const stored = (await db.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;
    if (!stored || stored.entity !== entity) return;
    const gone = [...was.listedBy].filter((s) => !now?.listedBy.has(s));
    const seenBy = (stored.seenBy as Set<string> | undefined) ?? new Set<string>();
    const channelId = (stored.channelId as string | undefined) ?? now?.channelId;
    const link = channelId ? links.get(channelId)?.contentOwnerId : undefined;
    const unjustified = [...was.owners].filter(
      (o) =>
        !now?.owners.has(o) &&
        !seenBy.has(o) &&
        o.startsWith('contentOwner:') &&
        o !== (link ? contentOwnerActor(link) : ''),
    );
    if (gone.length > 0 || unjustified.length > 0) {
      await update(
        {
          Key: key,
          UpdateExpression: `DELETE ${[...(gone.length ? ['listedBy :gone'] : []), ...(unjustified.length ? ['#owners :unjustified'] : [])].join(', ')}`,
          // Ingest may have named it meanwhile: then its owners stay (the next apply finds nothing to do).
          ConditionExpression: `entity = :entity${unjustified.map((_, i) => ` AND NOT contains(seenBy, :u${i})`).join('')}`,
          ExpressionAttributeNames: unjustified.length ? { '#owners': 'owners' } : undefined,
          ExpressionAttributeValues: {
            ':entity': entity,
            ...(gone.length ? { ':gone': new Set(gone) } : {}),
            ...(unjustified.length ? { ':unjustified': new Set(unjustified) } : {}),
            ...Object.fromEntries(unjustified.map((o, i) => [`:u${i}`, o])),
          },
        },
        true,
      );
    }
    if (!now) {
      try {
        await db.send(
          new DeleteCommand({
            TableName: tableName,
            Key: key,
            ConditionExpression: 'entity = :entity AND attribute_not_exists(listedBy) AND attribute_not_exists(seenBy)',
            ExpressionAttributeValues: { ':entity': entity },
          }),
        );
      } catch (err) {
        if (!isConditionFailure(err)) throw err; // still listed or named by an export: it stays
      }
    }
  }

  /** A channel's link changed: every resource of the channel (listed or recorded by ingest) follows (D3). */
  async function relink(channelId: string, was: string | undefined, now: string | undefined): Promise<void> {
    const resources = await queryAll(db, {
      TableName: tableName,
      IndexName: tableDefinition.globalIndexes[0].name,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.channelResourcesPartition(channelId) },
      ProjectionExpression: 'pk, sk, entity, listedBy, seenBy',
    });
    const add = now ? contentOwnerActor(now) : undefined;
    const remove = was ? contentOwnerActor(was) : undefined;
    let next = 0;
    const worker = async () => {
      while (next < resources.length) {
        const item = resources[next++] as Record<string, unknown>;
        const key = { pk: String(item.pk), sk: String(item.sk) };
        const values = { ':entity': item.entity };
        if (add) {
          await update(
            {
              Key: key,
              UpdateExpression: 'ADD #owners :add',
              ConditionExpression: 'entity = :entity',
              ExpressionAttributeNames: { '#owners': 'owners' },
              ExpressionAttributeValues: { ...values, ':add': new Set([add]) },
            },
            true,
          );
        }
        if (remove) {
          // The former content owner keeps what it lists or what its own exports named (a claim).
          await update(
            {
              Key: key,
              UpdateExpression: 'DELETE #owners :remove',
              ConditionExpression: 'entity = :entity AND NOT contains(listedBy, :was) AND NOT contains(seenBy, :was)',
              ExpressionAttributeNames: { '#owners': 'owners' },
              ExpressionAttributeValues: { ...values, ':remove': new Set([remove]), ':was': remove },
            },
            true,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, resources.length) }, worker));
  }

  return {
    read,
    lease: (holder, options) => takeLease(ctx, holder, options),
    write,
  };
}

/** Groups actions into transactions; those that move a link carry the links revision bump. */
function batches(
  list: { action: TransactItem; bump: boolean }[],
  size = ACTIONS_PER_TRANSACTION,
): { actions: TransactItem[]; bumpLinks: boolean }[] {
  const out: { actions: TransactItem[]; bumpLinks: boolean }[] = [];
  for (let at = 0; at < list.length; at += size) {
    const part = list.slice(at, at + size);
    out.push({ actions: part.map((p) => p.action), bumpLinks: part.some((p) => p.bump) });
  }
  return out;
}

const itemLabel = (key: TableKey) => `the item ${key.pk} / ${key.sk}`;

function conflictMessage(action: TransactItem | undefined): string {
  const key = (action?.Put?.Item ?? action?.Delete?.Key ?? action?.Update?.Key) as TableKey | undefined;
  if (!key) return 'a write was refused';
  if (key.pk === keys.directoryRecordPartition) {
    return `${itemLabel(key)} changed since this apply read it (another apply ran while this one's lease had run out): run apply again`;
  }
  return `${itemLabel(key)} is not a directory item; nothing overwrites it`;
}
