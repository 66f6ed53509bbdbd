/**
 * The read side of the group repository (access patterns G1 and G3 in core/db/keys.ts): a group and its items, by
 * strongly consistent Query. Apart from group-repository.ts so that reports.query, which only reads a group to
 * filter by it, carries none of the write paths and their commands.
 */
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import * as keys from '../db/keys';
import { queryAll } from '../db/query-all';
import { isThrottled } from '../db/throttled';
import type { ResourceKind } from '../directory/directory';
import type { TableContext } from '../directory/directory-repository';
import type { Group, GroupItem } from './group';
import { groupErrors } from './group-errors';

export interface GroupReader {
  /** Strongly consistent; includes groups being deleted (callers treat those as missing). */
  get(actor: string, id: string): Promise<Group | undefined>;
  listItems(actor: string, groupId: string): Promise<GroupItem[]>;
}

/** SDK errors that are not about our conditions become domain errors here; anything else is a bug (500). */
export function translate(err: unknown): never {
  const name = (err as { name?: string })?.name ?? '';
  if (isThrottled(err)) throw groupErrors.overloaded();
  if (name === 'TransactionConflictException') throw groupErrors.contention();
  throw err;
}

export const toGroup = (item: Record<string, unknown>): Group => {
  const group: { -readonly [K in keyof Group]: Group[K] } = {
    id: String(item.id),
    actor: String(item.actor),
    title: String(item.title),
    itemCount: Number(item.itemCount),
    status: item.status === 'deleting' ? 'deleting' : 'active',
    etag: String(item.etag),
    publishedAt: String(item.publishedAt),
  };
  if (item.declaredItemType) group.declaredItemType = item.declaredItemType as ResourceKind;
  if (item.itemType) group.itemType = item.itemType as ResourceKind;
  return group;
};

export const toItem = (item: Record<string, unknown>): GroupItem => ({
  id: String(item.id),
  groupId: String(item.groupId),
  kind: item.kind as ResourceKind,
  resourceId: String(item.resourceId),
  etag: String(item.etag),
});

/** Every page of a Query, SDK errors translated. */
export const queryAllItems = ({ db }: TableContext, input: Omit<QueryCommandInput, 'ExclusiveStartKey'>) =>
  queryAll(db, input).catch(translate);

export const dynamoGroupReader = (table: TableContext): GroupReader => ({
  async get(actor, id) {
    const [item] = await queryAllItems(table, {
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :pk AND sk = :sk',
      ExpressionAttributeValues: { ':pk': keys.group(actor, id).pk, ':sk': keys.group(actor, id).sk },
      ConsistentRead: true,
    });
    return item ? toGroup(item) : undefined;
  },

  async listItems(actor, groupId) {
    const items = await queryAllItems(table, {
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.ownerPartition(actor), ':prefix': keys.groupItemSkPrefix(groupId) },
      ConsistentRead: true,
    });
    return items.map(toItem);
  },
});
