/**
 * DynamoDB adapter for groups and group items (access patterns G1–G3 and D2 in core/db/keys.ts): the only code
 * that knows their keys, condition expressions and SDK errors. Every rule that could race is a condition:
 * - an item insert is ONE transaction: Put item (must not exist) + Update group (exists, active, fewer than 500
 *   items, same kind) + ConditionCheck directory entry (the acting owner may group it);
 * - an item delete is ONE transaction: Delete item (must exist) + Update group (exists, active);
 * - a group delete fences the group (status = deleting; every insert requires active), drains its items with
 *   strongly consistent reads, then removes the group; a retry of an interrupted delete resumes the drain.
 */
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { type CancellationReason, isConditionFailure, isTransactionCanceled, oldItem } from '../db/conditions';
import * as keys from '../db/keys';
import { backoff, DEFAULT_RETRY, type RetryPolicy } from '../db/retry';
import type { ResourceKind } from '../directory/directory';
import type { TableContext } from '../directory/directory-repository';
import {
  directoryKindOf,
  effectiveItemType,
  type Group,
  type GroupItem,
  groupItemId,
  MAX_ITEMS_PER_GROUP,
  newEtag,
} from './group';
import { groupErrors } from './group-errors';
import { dynamoGroupReader, type GroupReader, queryAllItems, toGroup, toItem, translate } from './group-reader';

export interface GroupRepository extends GroupReader {
  create(group: Group): Promise<void>;
  getMany(actor: string, ids: readonly string[]): Promise<Group[]>;
  /** Active groups of `actor` in id order, after `afterId`; `more` tells whether any remain. */
  listPage(actor: string, afterId: string | undefined, limit: number): Promise<{ groups: Group[]; more: boolean }>;
  updateTitle(actor: string, id: string, title: string, expectedEtag?: string): Promise<Group>;
  /** Fence: no item can be added once this returns. Resumes a delete already under way. */
  beginDelete(actor: string, id: string): Promise<void>;
  /** Removes every item of a fenced group; returns how many it removed. */
  drainItems(actor: string, id: string): Promise<number>;
  finishDelete(actor: string, id: string): Promise<void>;
  /** Adds the resource, or returns the membership that already exists (created false). */
  insertItem(
    actor: string,
    groupId: string,
    kind: ResourceKind,
    resourceId: string,
  ): Promise<{ item: GroupItem; created: boolean }>;
  deleteItem(actor: string, groupId: string, kind: ResourceKind, resourceId: string, itemId: string): Promise<void>;
}

const codeAt = (reasons: CancellationReason[], i: number) => reasons[i]?.Code ?? 'None';
const failedAt = (reasons: CancellationReason[], i: number) => codeAt(reasons, i) === 'ConditionalCheckFailed';
const TRANSIENT = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded']);

export const dynamoGroupRepository = (table: TableContext, retry: RetryPolicy = DEFAULT_RETRY): GroupRepository => {
  const { db, tableName } = table;
  /**
   * Runs a transaction, retrying only cancellations whose every non-None reason is transient; returns the
   * reasons of a cancellation caused by a condition (for classification by index), or undefined on success.
   */
  async function transact(input: TransactWriteCommandInput): Promise<CancellationReason[] | undefined> {
    let last: CancellationReason[] = [];
    for (let attempt = 0; attempt < retry.attempts; attempt++) {
      try {
        await db.send(new TransactWriteCommand(input));
        return undefined;
      } catch (err) {
        if (!isTransactionCanceled(err)) translate(err);
        last = (err as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [];
        const transient = last.some((r) => TRANSIENT.has(r.Code ?? ''));
        const conditional = last.some((r) => r.Code === 'ConditionalCheckFailed');
        // A condition that failed next to a conflict may pass once the other transaction lands: retry those too.
        if (!transient) {
          if (conditional) return last;
          throw err; // ValidationError and friends: a bug, not the caller's fault
        }
      }
      if (attempt + 1 < retry.attempts) await backoff(attempt, retry);
    }
    if (last.some((r) => r.Code === 'TransactionConflict')) throw groupErrors.contention();
    throw groupErrors.overloaded();
  }

  return {
    ...dynamoGroupReader(table),

    async create(g) {
      try {
        await db.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...keys.group(g.actor, g.id), entity: 'Group', ...g },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      } catch (err) {
        // Ids carry 80 random bits; a collision means a retried request with a reused id: a conflict.
        if (isConditionFailure(err)) throw groupErrors.contention();
        translate(err);
      }
    },

    async getMany(actor, ids) {
      const found = new Map<string, Group>();
      let pending: Record<string, unknown>[] = ids.map((id) => keys.group(actor, id));
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt >= retry.attempts) throw groupErrors.overloaded();
        if (attempt > 0) await backoff(attempt, retry);
        const out = await db
          .send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true } } }))
          .catch(translate);
        for (const item of out.Responses?.[tableName] ?? []) found.set(String(item.id), toGroup(item));
        pending = (out.UnprocessedKeys?.[tableName]?.Keys as Record<string, unknown>[] | undefined) ?? [];
      }
      return ids.map((id) => found.get(id)).filter((g): g is Group => g !== undefined);
    },

    async listPage(actor, afterId, limit) {
      const groups: Group[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined = afterId ? keys.group(actor, afterId) : undefined;
      // Read one more than a page to know whether more remain; skip groups being deleted.
      while (groups.length <= limit) {
        const out = await db
          .send(
            new QueryCommand({
              TableName: tableName,
              KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
              ExpressionAttributeValues: { ':pk': keys.ownerPartition(actor), ':prefix': keys.groupSkPrefix },
              ConsistentRead: true,
              Limit: limit + 1 - groups.length,
              ExclusiveStartKey,
            }),
          )
          .catch(translate);
        for (const item of out.Items ?? []) if (item.status !== 'deleting') groups.push(toGroup(item));
        ExclusiveStartKey = out.LastEvaluatedKey;
        if (!ExclusiveStartKey) break;
      }
      return { groups: groups.slice(0, limit), more: groups.length > limit };
    },

    async updateTitle(actor, id, title, expectedEtag) {
      try {
        const out = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.group(actor, id),
            UpdateExpression: 'SET title = :title, etag = :newEtag',
            ConditionExpression: `attribute_exists(pk) AND #status = :active${expectedEtag ? ' AND etag = :expected' : ''}`,
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':title': title,
              ':newEtag': newEtag(),
              ':active': 'active',
              ...(expectedEtag ? { ':expected': expectedEtag } : {}),
            },
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return toGroup(out.Attributes ?? {});
      } catch (err) {
        if (!isConditionFailure(err)) translate(err);
        const old = oldItem((err as { Item?: never }).Item);
        if (old?.status !== 'active') throw groupErrors.groupNotFound(id);
        throw groupErrors.etagMismatch();
      }
    },

    async beginDelete(actor, id) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.group(actor, id),
            UpdateExpression: 'SET #status = :deleting, etag = :newEtag',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':deleting': 'deleting', ':newEtag': newEtag() },
          }),
        );
      } catch (err) {
        if (isConditionFailure(err)) throw groupErrors.groupNotFound(id);
        translate(err);
      }
    },

    async drainItems(actor, id) {
      // Strongly consistent base-table reads see every insert that committed before the fence.
      const items = await queryAllItems(table, {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.ownerPartition(actor), ':prefix': keys.groupItemSkPrefix(id) },
        ProjectionExpression: 'pk, sk',
        ConsistentRead: true,
      });
      for (let i = 0; i < items.length; i += 25) {
        // Unconditional by necessity (BatchWriteItem takes no conditions) and safe: the group is fenced, so no
        // other request writes these items any more, and deleting an already deleted item is a no-op.
        let requests: Record<string, unknown>[] = items.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
        for (let attempt = 0; requests.length > 0; attempt++) {
          if (attempt >= retry.attempts * 2) throw groupErrors.overloaded();
          if (attempt > 0) await backoff(attempt, retry);
          const out = await db
            .send(new BatchWriteCommand({ RequestItems: { [tableName]: requests as never } }))
            .catch(translate);
          requests = (out.UnprocessedItems?.[tableName] as Record<string, unknown>[] | undefined) ?? [];
        }
      }
      return items.length;
    },

    async finishDelete(actor, id) {
      try {
        await db.send(
          new DeleteCommand({
            TableName: tableName,
            Key: keys.group(actor, id),
            ConditionExpression: '#status = :deleting',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':deleting': 'deleting' },
          }),
        );
      } catch (err) {
        // Already gone: a concurrent retry of the same delete finished first.
        if (!isConditionFailure(err)) translate(err);
      }
    },

    async insertItem(actor, groupId, kind, resourceId) {
      const dirKind = directoryKindOf[kind];
      const item: GroupItem = {
        id: groupItemId(groupId, kind, resourceId),
        groupId,
        kind,
        resourceId,
        etag: newEtag(),
      };
      const reasons = await transact({
        TransactItems: [
          {
            Put: {
              TableName: tableName,
              Item: { ...keys.groupItem(actor, groupId, dirKind, resourceId), entity: 'GroupItem', ...item },
              ConditionExpression: 'attribute_not_exists(pk)',
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
          {
            Update: {
              TableName: tableName,
              Key: keys.group(actor, groupId),
              UpdateExpression: 'SET itemCount = itemCount + :one, itemType = :kind, etag = :newEtag',
              ConditionExpression:
                'attribute_exists(pk) AND #status = :active AND itemCount < :max AND ' +
                '(attribute_not_exists(itemType) OR itemType = :kind OR (itemCount = :zero AND attribute_not_exists(declaredItemType)))',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ':one': 1,
                ':zero': 0,
                ':kind': kind,
                ':newEtag': newEtag(),
                ':active': 'active',
                ':max': MAX_ITEMS_PER_GROUP,
              },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
          {
            ConditionCheck: {
              TableName: tableName,
              Key: keys.directoryEntry(dirKind, resourceId),
              ConditionExpression: 'contains(#owners, :actor)',
              ExpressionAttributeNames: { '#owners': 'owners' },
              ExpressionAttributeValues: { ':actor': actor },
            },
          },
        ],
      });
      if (!reasons) return { item, created: true };
      // Classified by index: 0 the item, 1 the group, 2 the directory entry.
      const group = failedAt(reasons, 1) ? oldItem(reasons[1]?.Item) : undefined;
      if (failedAt(reasons, 1) && group?.status !== 'active') throw groupErrors.groupNotFound(groupId);
      if (failedAt(reasons, 2)) throw groupErrors.resourceNotFound(kind, resourceId);
      const existing = failedAt(reasons, 0) ? oldItem(reasons[0]?.Item) : undefined;
      if (existing) return { item: toItem(existing), created: false };
      if (!group) throw groupErrors.contention();
      const current = toGroup(group);
      const groupKind = effectiveItemType(current);
      if (groupKind && groupKind !== kind) throw groupErrors.itemTypeMismatch(groupKind, kind);
      if (current.itemCount >= MAX_ITEMS_PER_GROUP) throw groupErrors.itemLimitReached(MAX_ITEMS_PER_GROUP);
      throw groupErrors.contention();
    },

    async deleteItem(actor, groupId, kind, resourceId, itemId) {
      const reasons = await transact({
        TransactItems: [
          {
            Delete: {
              TableName: tableName,
              Key: keys.groupItem(actor, groupId, directoryKindOf[kind], resourceId),
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
          {
            Update: {
              TableName: tableName,
              Key: keys.group(actor, groupId),
              UpdateExpression: 'SET itemCount = itemCount - :one, etag = :newEtag',
              ConditionExpression: 'attribute_exists(pk) AND #status = :active',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':one': 1, ':newEtag': newEtag(), ':active': 'active' },
            },
          },
        ],
      });
      // Either the membership or its (active) group is missing: to the caller, the item does not exist.
      if (reasons) throw groupErrors.groupItemNotFound(itemId);
    },
  };
};
