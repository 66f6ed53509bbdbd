/**
 * DynamoDB adapter of the connected-owner sync (access patterns S1, S2, S4 in core/db/keys.ts): connections and
 * their sync state, the per-owner lease, and which report each (family, owner, day) was loaded from.
 */
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from '../db/batch-get';
import { isConditionFailure } from '../db/conditions';
import * as keys from '../db/keys';
import { queryAll } from '../db/query-all';
import type { TableContext } from '../directory/directory-repository';
import type { Connection, RunSummary, SyncError } from './connection';
import { type ConnectedOwner, ownerKey, ownerOfKey } from './owner';

/** The report a day was loaded from, and reports of that day skipped as older (S4). */
export interface DayRecord {
  readonly reportId?: string;
  readonly createTime?: string;
  readonly reportType?: string;
  /** Orders reports of one (family, owner, day): a newer version, then a newer createTime, wins. */
  readonly rank?: string;
  readonly skipped: ReadonlySet<string>;
}

export interface LoadedReport {
  readonly reportId: string;
  readonly createTime: string;
  readonly reportType: string;
  readonly rank: string;
}

export interface RunResult {
  readonly summary: RunSummary;
  readonly checkpoint?: string;
  /** Undefined: the run had no failure (lastSuccess is set, lastError cleared). */
  readonly error?: SyncError;
}

export interface SyncRepository {
  /** Creates the connection or replaces its credentials' name, keeping its sync state; clears re-consent. */
  connect(owner: ConnectedOwner, secretName: string, at: string): Promise<Connection>;
  /** Removes the connection; false when there was none. */
  disconnect(owner: ConnectedOwner): Promise<Connection | undefined>;
  list(): Promise<Connection[]>;
  get(owners: readonly ConnectedOwner[]): Promise<Connection[]>;
  /** Takes the owner's lease until `until`; undefined when another run holds it (or the owner is not connected). */
  acquire(owner: ConnectedOwner, leaseId: string, now: string, until: string): Promise<Connection | 'held' | undefined>;
  /** Renews the lease until `until` and saves the checkpoint mid-run, so a run cut short keeps what it loaded. */
  saveProgress(owner: ConnectedOwner, leaseId: string, until: string, checkpoint: string | undefined): Promise<void>;
  /** Writes the run's result and releases the lease. */
  finish(owner: ConnectedOwner, leaseId: string, result: RunResult): Promise<void>;
  /** Marks the owner `needs re-consent`, unless it was connected again (new credentials) since `connectedAt`. */
  markReconsent(owner: ConnectedOwner, connectedAt: string): Promise<void>;
  readDays(owner: ConnectedOwner, family: string, from: string, to: string): Promise<Map<string, DayRecord>>;
  /** Records a loaded report unless the day already holds one that ranks higher; false then. */
  recordLoaded(owner: ConnectedOwner, family: string, day: string, report: LoadedReport): Promise<boolean>;
  recordSkipped(owner: ConnectedOwner, family: string, day: string, reportIds: readonly string[]): Promise<void>;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function toConnection(item: Record<string, unknown>): Connection {
  const lastError = item.lastError as SyncError | undefined;
  const lastRun = item.lastRun as RunSummary | undefined;
  return {
    owner: ownerOfKey(String(item.sk)),
    secretName: String(item.secretName),
    connectedAt: String(item.connectedAt),
    needsReconsent: item.needsReconsent === true,
    ...(str(item.lastSuccess) ? { lastSuccess: str(item.lastSuccess) } : {}),
    ...(str(item.checkpoint) ? { checkpoint: str(item.checkpoint) } : {}),
    ...(lastError ? { lastError } : {}),
    ...(lastRun ? { lastRun } : {}),
  };
}

export function dynamoSyncRepository({ db, tableName }: TableContext): SyncRepository {
  const update = async (
    key: Record<string, string>,
    expression: string,
    condition: string,
    values: Record<string, unknown>,
    names?: Record<string, string>,
  ) =>
    db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: expression,
        ConditionExpression: condition,
        ExpressionAttributeValues: values,
        ...(names ? { ExpressionAttributeNames: names } : {}),
        ReturnValues: 'ALL_NEW',
      }),
    );

  return {
    async connect(owner, secretName, at) {
      // An upsert on purpose (no condition): connecting again replaces the credentials and keeps the sync state. A
      // running sync writes only under its lease, and its re-consent mark only while connectedAt is unchanged.
      const out = await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.connection(ownerKey(owner)),
          UpdateExpression:
            'SET entity = :entity, secretName = :secret, connectedAt = :at, needsReconsent = :no REMOVE lastError',
          ExpressionAttributeValues: { ':entity': 'Connection', ':secret': secretName, ':at': at, ':no': false },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toConnection(out.Attributes ?? {});
    },

    async disconnect(owner) {
      try {
        const out = await db.send(
          new DeleteCommand({
            TableName: tableName,
            Key: keys.connection(ownerKey(owner)),
            ConditionExpression: 'attribute_exists(pk)',
            ReturnValues: 'ALL_OLD',
          }),
        );
        return out.Attributes ? toConnection(out.Attributes) : undefined;
      } catch (err) {
        if (isConditionFailure(err)) return undefined;
        throw err;
      }
    },

    async list() {
      const items = await queryAll(db, {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.connectionsPartition },
        ConsistentRead: true,
      });
      return items.map(toConnection);
    },

    async get(owners) {
      const items = await batchGetAll(
        db,
        tableName,
        owners.map((o) => keys.connection(ownerKey(o))),
        { ConsistentRead: true },
      );
      const byKey = new Map(items.map((i) => [String(i.sk), toConnection(i)]));
      return owners.flatMap((o) => byKey.get(ownerKey(o)) ?? []);
    },

    async acquire(owner, leaseId, now, until) {
      try {
        const out = await update(
          keys.connection(ownerKey(owner)),
          'SET leaseId = :lease, leaseUntil = :until',
          'attribute_exists(pk) AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)',
          { ':lease': leaseId, ':until': until, ':now': now },
        );
        return toConnection(out.Attributes ?? {});
      } catch (err) {
        if (!isConditionFailure(err)) throw err;
        const held = await db.send(
          new GetCommand({ TableName: tableName, Key: keys.connection(ownerKey(owner)), ConsistentRead: true }),
        );
        return held.Item ? 'held' : undefined;
      }
    },

    async saveProgress(owner, leaseId, until, checkpoint) {
      await update(
        keys.connection(ownerKey(owner)),
        `SET leaseUntil = :until${checkpoint ? ', checkpoint = :c' : ''}`,
        'leaseId = :lease',
        { ':until': until, ':lease': leaseId, ...(checkpoint ? { ':c': checkpoint } : {}) },
      );
    },

    async finish(owner, leaseId, result) {
      const values: Record<string, unknown> = { ':run': result.summary, ':lease': leaseId };
      const set = ['lastRun = :run'];
      const remove = ['leaseId', 'leaseUntil'];
      if (result.checkpoint) {
        set.push('checkpoint = :c');
        values[':c'] = result.checkpoint;
      }
      if (result.error) {
        set.push('lastError = :e');
        values[':e'] = result.error;
      } else {
        set.push('lastSuccess = :at');
        values[':at'] = result.summary.at;
        remove.push('lastError');
      }
      try {
        await update(
          keys.connection(ownerKey(owner)),
          `SET ${set.join(', ')} REMOVE ${remove.join(', ')}`,
          'leaseId = :lease',
          values,
        );
      } catch (err) {
        // Disconnected (or the lease expired and another run took it) meanwhile: that state is newer than ours.
        if (!isConditionFailure(err)) throw err;
      }
    },

    async markReconsent(owner, connectedAt) {
      try {
        await update(keys.connection(ownerKey(owner)), 'SET needsReconsent = :yes', 'connectedAt = :at', {
          ':yes': true,
          ':at': connectedAt,
        });
      } catch (err) {
        if (!isConditionFailure(err)) throw err; // connected again with new credentials: nothing to mark
      }
    },

    async readDays(owner, family, from, to) {
      const items = await queryAll(db, {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': keys.syncedPartition(ownerKey(owner), family),
          ':from': keys.syncedDay('', '', from).sk,
          ':to': keys.syncedDay('', '', to).sk,
        },
        ConsistentRead: true,
      });
      const days = new Map<string, DayRecord>();
      for (const item of items) {
        days.set(String(item.sk).slice(2), {
          ...(str(item.reportId) ? { reportId: str(item.reportId) } : {}),
          ...(str(item.createTime) ? { createTime: str(item.createTime) } : {}),
          ...(str(item.reportType) ? { reportType: str(item.reportType) } : {}),
          ...(str(item.rank) ? { rank: str(item.rank) } : {}),
          skipped: new Set((item.skipped as Set<string> | undefined) ?? []),
        });
      }
      return days;
    },

    async recordLoaded(owner, family, day, report) {
      try {
        await update(
          keys.syncedDay(ownerKey(owner), family, day),
          'SET entity = :entity, reportId = :id, createTime = :ct, reportType = :type, #rank = :rank, loadedAt = :now',
          'attribute_not_exists(#rank) OR #rank < :rank',
          {
            ':entity': 'SyncedDay',
            ':id': report.reportId,
            ':ct': report.createTime,
            ':type': report.reportType,
            ':rank': report.rank,
            ':now': new Date().toISOString(),
          },
          { '#rank': 'rank' },
        );
        return true;
      } catch (err) {
        if (isConditionFailure(err)) return false;
        throw err;
      }
    },

    async recordSkipped(owner, family, day, reportIds) {
      if (reportIds.length === 0) return;
      // ADD to a string set is idempotent: recording the same skipped report twice changes nothing, so no condition.
      await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.syncedDay(ownerKey(owner), family, day),
          UpdateExpression: 'SET entity = :entity ADD skipped :ids',
          ExpressionAttributeValues: { ':entity': 'SyncedDay', ':ids': new Set(reportIds) },
        }),
      );
    },
  };
}
