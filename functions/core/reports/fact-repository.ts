/**
 * DynamoDB adapter for fact cubes (access patterns F1/F2 in core/db/keys.ts). Reads are contiguous Query ranges
 * (never a Scan); writes are idempotent replacements keyed by (family, channel, variant, partition, period).
 */
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchWriteAll } from '../db/batch-write';
import { keys } from '../db/keys';
import type { TableContext } from '../directory/directory-repository';
import { type Cube, decodeCube, encodeCube } from './cube';

/** What a report read cost, for the bench and for logs. */
export interface ReadStats {
  items: number;
  bytes: number;
  queries: number;
}

export const newReadStats = (): ReadStats => ({ items: 0, bytes: 0, queries: 0 });

export interface CubeAddress {
  readonly family: string;
  readonly channel: string;
  readonly variant: string;
  readonly partition?: string;
}

/** A stored cube: its period is `D#yyyy-mm-dd` or `M#yyyy-mm`. */
export interface PeriodCube {
  readonly period: string;
  readonly cube: Cube;
}

export interface MonthManifest {
  /** Partition values written per partitioned variant (to remove the ones a reload no longer has). */
  partitions: Record<string, string[]>;
  /** Cubes of this month stored in more than one chunk. */
  chunked?: (CubeAddress & { period: string })[];
  /** Days loaded, with the file that supplied each. */
  days: Record<string, { file: string; rows: number; reportType: string; loadedAt: string }>;
}

const MAX_CUBE_BYTES = 350 * 1024;

/** Splits a cube whose encoding would exceed the item size limit into chunks that each fit. */
function encodeChunks(cube: Cube): Uint8Array[] {
  const bytes = encodeCube(cube);
  if (bytes.length <= MAX_CUBE_BYTES || cube.rows.length < 2) return [bytes];
  const half = Math.ceil(cube.rows.length / 2);
  return [
    ...encodeChunks({ grain: cube.grain, rows: cube.rows.slice(0, half) }),
    ...encodeChunks({ grain: cube.grain, rows: cube.rows.slice(half) }),
  ];
}

const basePeriod = (sk: string) => sk.split('#').slice(0, 2).join('#');

export const dynamoFactRepository = ({ db, tableName }: TableContext) => {
  const batchWrite = (requests: Record<string, unknown>[]) => batchWriteAll(db, tableName, requests);

  return {
    /** Cubes of one variant/partition whose period lies in [fromSk, toSk], in period order (chunks merged). */
    async read(address: CubeAddress, fromSk: string, toSk: string, stats: ReadStats): Promise<PeriodCube[]> {
      const pk = keys.factPartition(address.family, address.channel, address.variant, address.partition);
      const out: PeriodCube[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await db.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
            ExpressionAttributeValues: { ':pk': pk, ':from': fromSk, ':to': `${toSk}#~` },
            ExclusiveStartKey,
          }),
        );
        stats.queries++;
        for (const item of page.Items ?? []) {
          const bytes = item.cube as Uint8Array;
          stats.items++;
          stats.bytes += bytes.length + String(item.pk).length + String(item.sk).length;
          const period = basePeriod(String(item.sk));
          const cube = decodeCube(bytes);
          const last = out[out.length - 1];
          if (last && last.period === period)
            out[out.length - 1] = { period, cube: { grain: cube.grain, rows: [...last.cube.rows, ...cube.rows] } };
          else out.push({ period, cube });
        }
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return out;
    },

    /**
     * Writes cubes, replacing what was stored for the same address and period; returns those that needed more
     * than one chunk (their extra chunks are removed before the next rewrite). Facts are
     * derived data keyed deterministically, so these are upserts by design; BatchWriteItem takes no conditions.
     */
    async write(
      cubes: readonly (CubeAddress & { period: string; cube: Cube })[],
    ): Promise<(CubeAddress & { period: string })[]> {
      const requests: Record<string, unknown>[] = [];
      const chunked: (CubeAddress & { period: string })[] = [];
      for (const c of cubes) {
        const pk = keys.factPartition(c.family, c.channel, c.variant, c.partition);
        const chunks = encodeChunks(c.cube);
        if (chunks.length > 1) {
          const { cube: _cube, ...address } = c;
          chunked.push(address);
        }
        chunks.forEach((bytes, i) => {
          requests.push({
            PutRequest: { Item: { pk, sk: i === 0 ? c.period : `${c.period}#${i}`, entity: 'FactCube', cube: bytes } },
          });
        });
      }
      await batchWrite(requests);
      return chunked;
    },

    /** Removes every chunk of the given cubes (a partition a reload no longer has, stale chunks). */
    async remove(cubes: readonly (CubeAddress & { period: string })[]): Promise<void> {
      const requests: Record<string, unknown>[] = [];
      for (const c of cubes) {
        const pk = keys.factPartition(c.family, c.channel, c.variant, c.partition);
        const found = await db.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
            ExpressionAttributeValues: { ':pk': pk, ':from': c.period, ':to': `${c.period}#~` },
            ProjectionExpression: 'pk, sk',
            ConsistentRead: true,
          }),
        );
        for (const Key of found.Items ?? []) requests.push({ DeleteRequest: { Key } });
      }
      // Deleting derived items of a period being rewritten; idempotent, so unconditional.
      await batchWrite(requests);
    },

    async readManifest(family: string, channel: string, month: string): Promise<MonthManifest | undefined> {
      const out = await db.send(
        new GetCommand({ TableName: tableName, Key: keys.factManifest(family, channel, month), ConsistentRead: true }),
      );
      return out.Item ? (out.Item.manifest as MonthManifest) : undefined;
    },

    async writeManifest(family: string, channel: string, month: string, manifest: MonthManifest): Promise<void> {
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...keys.factManifest(family, channel, month), entity: 'FactManifest', manifest },
          // Replaces the manifest of this month, and only ever a manifest.
          ConditionExpression: 'attribute_not_exists(pk) OR entity = :entity',
          ExpressionAttributeValues: { ':entity': 'FactManifest' },
        }),
      );
    },
  };
};

export type FactRepository = ReturnType<typeof dynamoFactRepository>;
