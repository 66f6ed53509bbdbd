/**
 * What ingest-status reads (access patterns I1, I2, F2 and F4 in core/db/keys.ts): the (owner, report type) pairs
 * ingest has loaded, with the months they have data in, their month manifests and months whose blocks are due, and
 * the files ingest rejected (recorded here too).
 */
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../../db/conditions';
import { keyReader } from '../../db/key-reader';
import * as keys from '../../db/keys';
import { queryAll } from '../../db/query-all';
import type { TableContext } from '../../directory/directory-repository';
import type { MonthManifest } from './fact-writer';

const OWNER_ENTITY = 'IngestOwner';
const REJECTED_ENTITY = 'RejectedFile';
/** A rejection record is kept this long unless a later load of the file clears it (DynamoDB TTL). */
const REJECTED_TTL_DAYS = 180;

export interface LoadedOwner {
  readonly owner: string;
  readonly family: string;
  readonly ownerType: 'channel' | 'contentOwner';
  /** Months (yyyy-mm) with a loaded day. */
  readonly months: readonly string[];
}

export interface RejectedFile {
  /** The path or object key. */
  readonly file: string;
  readonly reason: string;
  readonly line?: number;
  readonly column?: string;
  /** The owner and report type its path names, when it does. */
  readonly owner?: string;
  readonly reportType?: string;
  readonly at: string;
}

export const dynamoIngestStatusRepository = ({ db, tableName }: TableContext) => ({
  /** A transaction part recording that `owner` has `family` data in `month` (part of a load's commit). */
  ownerLoaded(owner: string, family: string, ownerType: 'channel' | 'contentOwner', month: string) {
    return {
      Update: {
        TableName: tableName,
        Key: keys.ingestOwner(owner, family),
        UpdateExpression: 'SET entity = :e, #owner = :owner, #family = :family, ownerType = :type ADD months :m',
        ConditionExpression: 'attribute_not_exists(pk) OR entity = :e',
        ExpressionAttributeNames: { '#owner': 'owner', '#family': 'family' },
        ExpressionAttributeValues: {
          ':e': OWNER_ENTITY,
          ':owner': owner,
          ':family': family,
          ':type': ownerType,
          ':m': new Set([month]),
        },
      },
    };
  },

  /** The (owner, report type) pairs loaded, of one owner or all. */
  async owners(owner?: string): Promise<LoadedOwner[]> {
    const items = await queryAll(db, {
      TableName: tableName,
      KeyConditionExpression: owner ? 'pk = :pk AND begins_with(sk, :owner)' : 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.ingestOwnersPartition, ...(owner ? { ':owner': `${owner}#` } : {}) },
      ConsistentRead: true,
    });
    return items.map((item) => ({
      owner: String(item.owner),
      family: String(item.family),
      ownerType: item.ownerType === 'contentOwner' ? 'contentOwner' : 'channel',
      months: [...((item.months as Set<string> | undefined) ?? [])].sort(),
    }));
  },

  /** The month manifests of an owner's family over [fromMonth, toMonth]. */
  async manifests(
    family: string,
    owner: string,
    fromMonth: string,
    toMonth: string,
  ): Promise<Map<string, MonthManifest>> {
    const items = await queryAll(db, {
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': keys.factManifestPartition(family, owner),
        ':from': keys.factMonthSk(fromMonth),
        ':to': keys.factMonthSk(toMonth),
      },
      ConsistentRead: true,
    });
    return new Map(items.map((item) => [String(item.sk).slice(2), item.manifest as MonthManifest]));
  },

  /** The months of an owner's family whose blocks a load has yet to rewrite (F4). */
  async blocksDue(family: string, owner: string): Promise<string[]> {
    const out = await db.send(
      new GetCommand({
        TableName: tableName,
        Key: keys.blocksToWrite(family, owner),
        ProjectionExpression: 'months',
        ConsistentRead: true,
      }),
    );
    return [...((out.Item?.months as Set<string> | undefined) ?? [])].sort();
  },

  async recordRejected(rejected: RejectedFile, now = new Date()): Promise<void> {
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...keys.rejectedFile(rejected.file),
          entity: REJECTED_ENTITY,
          ...rejected,
          expiresAt: Math.floor(now.getTime() / 1000) + REJECTED_TTL_DAYS * 86_400,
        },
        // Replaces an earlier rejection of the same file, and only that.
        ConditionExpression: 'attribute_not_exists(pk) OR entity = :e',
        ExpressionAttributeValues: { ':e': REJECTED_ENTITY },
      }),
    );
  },

  /** The files among these with a rejection recorded (by key: most loaded files have none, so clear only these). */
  async rejectedAmong(files: readonly string[]): Promise<Set<string>> {
    const found = await keyReader({ db, tableName }).get(
      files.map((file) => keys.rejectedFile(file)),
      { attributes: ['pk', 'sk'], consistent: true },
    );
    return new Set(found.map((item) => String(item.sk)));
  },

  /** Deletes the rejection records of these files (rejectedAmong says which have one). */
  async clearRejected(files: readonly string[]): Promise<void> {
    for (const file of files) {
      try {
        await db.send(
          new DeleteCommand({
            TableName: tableName,
            Key: keys.rejectedFile(file),
            ConditionExpression: 'entity = :e',
            ExpressionAttributeValues: { ':e': REJECTED_ENTITY },
          }),
        );
      } catch (err) {
        if (!isConditionFailure(err)) throw err; // cleared meanwhile
      }
    }
  },

  async rejected(): Promise<RejectedFile[]> {
    const items = await queryAll(db, {
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.rejectedPartition },
      ConsistentRead: true,
    });
    return items.map((item) => ({
      file: String(item.file),
      reason: String(item.reason),
      ...(item.line !== undefined ? { line: Number(item.line) } : {}),
      ...(item.column !== undefined ? { column: String(item.column) } : {}),
      ...(item.owner !== undefined ? { owner: String(item.owner) } : {}),
      ...(item.reportType !== undefined ? { reportType: String(item.reportType) } : {}),
      at: String(item.at),
    }));
  },
});

export type IngestStatusRepository = ReturnType<typeof dynamoIngestStatusRepository>;
