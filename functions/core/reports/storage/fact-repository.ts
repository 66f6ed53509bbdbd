/**
 * DynamoDB adapter for fact cubes (access patterns F1/F2 in core/db/keys.ts). Reads are contiguous Query ranges
 * (never a Scan); writes are idempotent replacements keyed by (family, channel, variant, partition, period).
 */
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchWriteAll } from '../../db/batch-write';
import { keyReader } from '../../db/key-reader';
import { keys } from '../../db/keys';
import type { TableContext } from '../../directory/directory-repository';
import type { Cube } from './cube';
import {
  attributesSize,
  type CubeAttributes,
  type CubeColumns,
  chunkCount,
  concatCubes,
  decodeCube,
  encodeCube,
  projectionOf,
  type StoredCube,
  withChunkCount,
} from './cube-codec';

/** What a report read cost, for the bench and for logs. */
export interface ReadStats {
  items: number;
  bytes: number;
  queries: number;
}

export const newReadStats = (): ReadStats => ({ items: 0, bytes: 0, queries: 0 });

export function addStats(into: ReadStats, from: ReadStats): void {
  into.items += from.items;
  into.bytes += from.bytes;
  into.queries += from.queries;
}

export interface CubeAddress {
  readonly family: string;
  readonly channel: string;
  readonly variant: string;
  readonly partition?: string;
}

/** A stored cube: its period is `D#yyyy-mm-dd` or `M#yyyy-mm`. */
export interface PeriodCube {
  readonly period: string;
  readonly cube: StoredCube;
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
function encodeChunks(cube: Cube): CubeAttributes[] {
  const attributes = encodeCube(cube);
  if (attributesSize(attributes) <= MAX_CUBE_BYTES || cube.rows.length < 2) return [attributes];
  const half = Math.ceil(cube.rows.length / 2);
  return [
    ...encodeChunks({ grain: cube.grain, rows: cube.rows.slice(0, half) }),
    ...encodeChunks({ grain: cube.grain, rows: cube.rows.slice(half) }),
  ];
}

/** A ProjectionExpression (with its names) reading the sort key and the given cube columns. */
function projection(columns: CubeColumns | undefined) {
  if (!columns) return {};
  const names = ['sk', ...projectionOf(columns)];
  return {
    ProjectionExpression: names.map((_, i) => `#p${i}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#p${i}`, name])),
  };
}

const basePeriod = (sk: string) => sk.split('#').slice(0, 2).join('#');

export const dynamoFactRepository = ({ db, tableName }: TableContext) => {
  const reader = keyReader({ db, tableName });
  const batchWrite = (requests: Record<string, unknown>[]) => batchWriteAll(db, tableName, requests);

  /** Stores each cube as one item or several chunks; the number of items each took. */
  const put = async (cubes: readonly (CubeAddress & { period: string; cube: Cube })[]): Promise<number[]> => {
    const requests: Record<string, unknown>[] = [];
    const counts = cubes.map((c) => {
      const pk = keys.factPartition(c.family, c.channel, c.variant, c.partition);
      const chunks = encodeChunks(c.cube);
      // The first chunk says how many there are, so a read by key (readPeriods) knows what else to fetch.
      if (chunks.length > 1) chunks[0] = withChunkCount(chunks[0] as CubeAttributes, chunks.length);
      chunks.forEach((attributes, i) => {
        requests.push({
          PutRequest: { Item: { pk, sk: i === 0 ? c.period : `${c.period}#${i}`, entity: 'FactCube', ...attributes } },
        });
      });
      return chunks.length;
    });
    await batchWrite(requests);
    return counts;
  };

  /** Cube items by key (in no particular order), counted as a Query's items are: sort key and columns. */
  const getMany = async (
    wanted: readonly { pk: string; sk: string }[],
    stats: ReadStats,
    columns?: CubeColumns,
  ): Promise<Record<string, unknown>[]> => {
    // Through the shared reader: read in the same turn as the directory's keys, they go out in one request.
    const items = await reader.get(wanted, {
      ...(columns ? { attributes: projectionOf(columns) } : {}),
      onCall: () => {
        stats.queries++;
      },
    });
    for (const item of items) {
      stats.items++;
      stats.bytes += attributesSize(item as CubeAttributes) - 2 - String(item.pk).length;
    }
    return items;
  };

  /** The keys of every stored chunk of one cube (one page: a cube has a few chunks at most). */
  const chunkKeys = async (c: CubeAddress & { period: string }): Promise<Record<string, unknown>[]> => {
    const found = await db.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': keys.factPartition(c.family, c.channel, c.variant, c.partition),
          ':from': c.period,
          ':to': `${c.period}#~`,
        },
        ProjectionExpression: 'pk, sk',
        ConsistentRead: true,
      }),
    );
    return found.Items ?? [];
  };

  return {
    /**
     * Cubes of one variant/partition whose period lies in [fromSk, toSk], in period order (chunks merged). With
     * `columns`, only those grain dimensions and measures are read (see decodeCube).
     */
    async read(
      address: CubeAddress,
      fromSk: string,
      toSk: string,
      stats: ReadStats,
      columns?: CubeColumns,
    ): Promise<PeriodCube[]> {
      const pk = keys.factPartition(address.family, address.channel, address.variant, address.partition);
      const out: PeriodCube[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await db.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
            ExpressionAttributeValues: { ':pk': pk, ':from': fromSk, ':to': `${toSk}#~` },
            ...projection(columns),
            ExclusiveStartKey,
          }),
        );
        stats.queries++;
        for (const item of page.Items ?? []) {
          stats.items++;
          stats.bytes += attributesSize(item as CubeAttributes);
          const period = basePeriod(String(item.sk));
          const cube = decodeCube(item);
          const last = out[out.length - 1];
          if (last && last.period === period) out[out.length - 1] = { period, cube: concatCubes(last.cube, cube) };
          else out.push({ period, cube });
        }
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return out;
    },

    /**
     * The cubes of one variant/partition at the given periods, by key in one BatchGetItem (a Query each would cost a
     * request each): blocks of months, which are not contiguous. Periods not stored are absent from the map.
     */
    async readPeriods(
      address: CubeAddress,
      periods: readonly string[],
      stats: ReadStats,
      columns?: CubeColumns,
    ): Promise<Map<string, StoredCube>> {
      const pk = keys.factPartition(address.family, address.channel, address.variant, address.partition);
      const items = await getMany(
        periods.map((sk) => ({ pk, sk })),
        stats,
        columns,
      );
      const out = new Map<string, StoredCube>();
      const more: { period: string; chunks: number }[] = [];
      for (const item of items) {
        const period = String(item.sk);
        out.set(period, decodeCube(item));
        const chunks = chunkCount(item as CubeAttributes);
        if (chunks > 1) more.push({ period, chunks });
      }
      if (more.length > 0) {
        const rest = await getMany(
          more.flatMap(({ period, chunks }) =>
            Array.from({ length: chunks - 1 }, (_, i) => ({ pk, sk: `${period}#${i + 1}` })),
          ),
          stats,
          columns,
        );
        const bySk = new Map(rest.map((item) => [String(item.sk), item]));
        for (const { period, chunks } of more) {
          const tail = Array.from({ length: chunks - 1 }, (_, i) => bySk.get(`${period}#${i + 1}`));
          // A chunk gone missing (a rewrite in progress): the period is left out, as if not stored.
          if (tail.some((chunk) => chunk === undefined)) out.delete(period);
          else
            out.set(
              period,
              tail.reduce(
                (cube, chunk) => concatCubes(cube, decodeCube(chunk as Record<string, unknown>)),
                out.get(period) as StoredCube,
              ),
            );
        }
      }
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
      const counts = await put(cubes);
      return cubes.filter((_, i) => (counts[i] as number) > 1).map(({ cube: _cube, ...address }) => address);
    },

    /**
     * Writes cubes like `write`, then removes the chunks a cube had beyond those it has now, so a cube that needs
     * fewer chunks than before never reads stale ones (for cubes without a manifest to track them: the blocks).
     */
    async replace(cubes: readonly (CubeAddress & { period: string; cube: Cube })[]): Promise<void> {
      const counts = await put(cubes);
      const stale: Record<string, unknown>[] = [];
      for (const [i, c] of cubes.entries()) {
        for (const Key of await chunkKeys(c)) {
          const chunk = String(Key.sk).slice(c.period.length + 1);
          if (chunk !== '' && Number(chunk) >= (counts[i] as number)) stale.push({ DeleteRequest: { Key } });
        }
      }
      // Chunks past the cube's end, of a period just rewritten; idempotent, so unconditional.
      await batchWrite(stale);
    },

    /** Removes every chunk of the given cubes (a partition a reload no longer has, stale chunks). */
    async remove(cubes: readonly (CubeAddress & { period: string })[]): Promise<void> {
      const requests: Record<string, unknown>[] = [];
      for (const c of cubes) {
        for (const Key of await chunkKeys(c)) requests.push({ DeleteRequest: { Key } });
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
