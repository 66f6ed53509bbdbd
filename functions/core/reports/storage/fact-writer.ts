/**
 * DynamoDB adapter for what ingest writes and reads back (access patterns F1–F4 in core/db/keys.ts): fact cubes in
 * ingest's form (units.ts), by-day items, backups of restated days, month manifests and the months whose blocks are
 * due. Every write happens under a lease (lease-repository.ts); the `guard` each writer is given throws before a
 * write when the lease can no longer be trusted. Cube items are derived data keyed deterministically: BatchWriteItem
 * takes no condition, and the lease is what keeps two loads from writing them at once.
 */
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchWriteAll } from '../../db/batch-write';
import { isConditionFailure } from '../../db/conditions';
import { keyReader } from '../../db/key-reader';
import * as keys from '../../db/keys';
import { queryAll } from '../../db/query-all';
import type { TableKey } from '../../db/table-definition';
import type { TableContext } from '../../directory/directory-repository';
import { attributesSize, type CubeAttributes, HEADER } from './cube-codec';
import {
  basePeriod,
  type ChunkHeader,
  type CubeAddress,
  chunkHeader,
  chunkIndex,
  chunkSk,
  rowChunks,
} from './fact-repository';
import { ChunkIndexBuilder, HeadBuilder, type HeadSettings } from './heads';
import type { Lease, LeaseRepository } from './lease-repository';
import { isPieceSk, pieceBase, piecePeriod } from './month-pieces';
import { decodeUnitCube, encodeToFit, encodeUnitCube } from './unit-codec';
import { concatUnits, type Dicts, emptyUnitCube, rollupUnits, sliceUnits, type UnitCube } from './units';

/** A cube's largest chunk: room under DynamoDB's 400 KB item limit for the key and header. */
export const MAX_CUBE_BYTES = 350 * 1024;
/** Rows a cube writer holds before it encodes them (larger cubes are written a block at a time). */
export const BLOCK_ROWS = 100_000;

/** Called (and awaited) before every write of a load: throws once the write may not go out. */
export type Guard = () => void | Promise<void>;

export const FACT_ENTITY = 'FactCube';
const MANIFEST_ENTITY = 'FactManifest';
const BLOCKS_ENTITY = 'FactBlocksDue';

/** A flat cube stored in several chunks, and their generation (so a rewrite can remove them). */
export interface ChunkRef {
  readonly pk: string;
  readonly period: string;
  readonly gen: string;
  readonly chunks: number;
}

/** One day of a month as loaded. */
export interface DayRecord {
  /** The file's name (base name of a path, or the object key). */
  readonly file: string;
  readonly rows: number;
  readonly reportType: string;
  readonly loadedAt: string;
  /** The Reporting API report and its createTime, when the file said (S3 metadata). */
  readonly reportId?: string;
  readonly createTime?: string;
}

/** A by-day item key's packing: bytes of each day's segment, and the days each item holds (in item order). */
export interface Packing {
  /** Bytes of each day's value in a shared item (days too large to share are in `big`). */
  sizes: Record<string, number>;
  /** The days each item holds, in item order. */
  items: string[][];
  /** Days with part items of their own, and how many. */
  big?: Record<string, number>;
  /** The month is one cube in its month item (ingest/by-day-month-cube.ts), of these bytes; then no day is packed. */
  cube?: number;
}

/** A load that wrote part of its month and did not commit (manifest.pending): the next load finishes it. */
export interface PendingLoad {
  readonly ver: number;
  readonly days: readonly string[];
  /** Days whose previous full-day cube was backed up (O#<day>) before it was replaced. */
  readonly backedUp: readonly string[];
  /** The records the days get at commit. */
  readonly records: Readonly<Record<string, DayRecord>>;
  readonly startedAt: string;
  /** The month is rebuilt from all its days (a manifest of an earlier release). */
  readonly rebuild?: boolean;
  /** The load writes the days' pieces of the month cubes (month-pieces.ts), not the month cubes. */
  readonly pieces?: boolean;
  /** The compaction number the load writes on month cubes or pieces. */
  readonly pb?: number;
  /** A compaction: the piece days it folds into the month cubes, and the backed-up days it takes out of them. */
  readonly fold?: readonly string[];
  readonly subtract?: readonly string[];
}

export interface MonthManifest {
  /** Raised by every committed load; a load's chunks carry it as their generation. 0: nothing loaded yet. */
  ver: number;
  /** Days loaded (yyyy-mm-dd), with the file that supplied each. */
  days: Record<string, DayRecord>;
  /** Partition values written per region-partitioned variant (to remove the ones a reload no longer has). */
  partitions: Record<string, string[]>;
  /** Cubes of this month stored in more than one chunk. */
  chunked: ChunkRef[];
  /** By-day item keys (`d`, `gd`, `vd#g07`) → packing. */
  packing: Record<string, Packing>;
  /**
   * Daily variants' storage groups (`vb#g07`) → days (dd) stored in more than one part → how many; `00`: the parts
   * of the group's month item (by-day-items.ts monthItems), when it has one.
   */
  parts?: Record<string, Record<string, number>>;
  /**
   * Days (dd) the daily variants may hold as day items, beside or instead of a month item (by-day-items.ts);
   * absent (manifests before month items): every day loaded.
   */
  daily?: string[];
  pending?: PendingLoad;
  /** The compaction number of the month cubes (month-pieces.ts); absent: 0. */
  pb?: number;
  /**
   * Days held as pieces since the last compaction (dd); each with the regional partitions it wrote pieces in, per
   * variant (manifests of the release before regional marks; now empty).
   */
  pieces?: Record<string, Record<string, string[]>>;
  /** Regional partitions marked since the last compaction (month-pieces.ts), per variant. */
  marks?: Record<string, string[]>;
  /** A manifest of an earlier release (no `ver`): its month is rebuilt from the stored days. */
  legacy?: boolean;
}

export const emptyManifest = (): MonthManifest => ({ ver: 0, days: {}, partitions: {}, chunked: [], packing: {} });

/**
 * The cubes stored in more than one chunk (a manifest's list), kept up to date as cubes are rewritten: a rewrite under
 * another generation, or into fewer chunks, leaves the earlier chunks past the first stale (the first is overwritten).
 */
export class ChunkRegistry {
  private readonly refs: Map<string, ChunkRef>;
  /** Chunk keys no cube points to any more, to delete once the cubes' first chunks are written. */
  readonly stale: TableKey[] = [];

  constructor(refs: readonly ChunkRef[]) {
    this.refs = new Map(refs.map((c) => [`${c.pk}|${c.period}`, c]));
  }

  /** Notes that cube (pk, period) was written as `chunks` chunks of generation `gen`. */
  written(pk: string, period: string, gen: string, chunks: number): void {
    const id = `${pk}|${period}`;
    const before = this.refs.get(id);
    if (before && (before.gen !== gen || before.chunks > chunks)) {
      for (let i = before.gen === gen ? chunks : 1; i < before.chunks; i++)
        this.stale.push({ pk, sk: keys.factChunkSk(period, before.gen, i) });
    }
    this.refs.delete(id);
    if (chunks > 1) this.refs.set(id, { pk, period, gen, chunks });
  }

  /** Forgets cube (pk, period), which is being deleted: the keys of its chunks past the first. */
  removed(pk: string, period: string): TableKey[] {
    const id = `${pk}|${period}`;
    const before = this.refs.get(id);
    this.refs.delete(id);
    if (!before) return [];
    return Array.from({ length: before.chunks - 1 }, (_, i) => ({
      pk,
      sk: keys.factChunkSk(period, before.gen, i + 1),
    }));
  }

  list(): ChunkRef[] {
    return [...this.refs.values()];
  }
}

/**
 * Encodes a flat cube a block of rows at a time (BLOCK_ROWS; within a block, halving until each chunk fits), so a
 * cube of millions of rows never has to be in memory at once. Chunks after the first are handed to `write` as they
 * are made; the first is kept until `finish`, which knows the count. The same rows always give the same chunks.
 *
 * With `head` (heads.ts), a cube of `head.from` rows or more is headed: every
 * chunk of rows goes to `write` (1…n) and the first item `finish` returns is the head, naming n + 1 chunks and each
 * measure's threshold, and each row chunk's first video when the rows came in the canonical order (the chunk index,
 * heads.ts). Whether a cube is headed is known at its first block: the first is encoded either when
 * BLOCK_ROWS (more than that) rows have come, or at `finish`, with every row counted.
 */
export class CubeWriter {
  private buffer: UnitCube[] = [];
  private buffered = 0;
  private first: CubeAttributes | undefined;
  private count = 0;
  private rows = 0;
  private heads: HeadBuilder | undefined;
  private index: ChunkIndexBuilder | undefined;
  private decided = false;

  constructor(
    private readonly grain: readonly string[],
    private readonly dicts: Dicts,
    private readonly measures: readonly number[],
    private readonly gen: string,
    private readonly write: (chunk: number, attributes: CubeAttributes) => Promise<void>,
    private readonly head?: HeadSettings,
  ) {}

  async append(cube: UnitCube): Promise<void> {
    if (cube.size === 0) return;
    this.buffer.push(cube);
    this.buffered += cube.size;
    this.rows += cube.size;
    while (this.buffered >= BLOCK_ROWS) await this.flush(BLOCK_ROWS);
  }

  private async flush(limit: number): Promise<void> {
    const block = takeRows(this.buffer, limit);
    this.buffered -= block.size;
    if (!this.decided) {
      this.decided = true;
      if (this.head && this.rows >= this.head.from) {
        this.heads = new HeadBuilder(this.head);
        this.index = new ChunkIndexBuilder();
      }
    }
    this.heads?.add(block);
    for (const piece of encodeToFit(block, (c) => encodeUnitCube(c), attributesSize, MAX_CUBE_BYTES)) {
      this.index?.add(piece.cube);
      if (this.heads) await this.write(this.count + 1, piece.encoded);
      else if (this.first === undefined) this.first = piece.encoded;
      else await this.write(this.count, piece.encoded);
      this.count++;
    }
  }

  /** The first chunk's attributes (its header naming the chunks when there are several), and the chunk count. */
  async finish(): Promise<{ first: CubeAttributes; chunks: number; rows: number }> {
    if (this.buffered > 0) await this.flush(this.buffered);
    if (this.heads) {
      const { head, thresholds } = this.heads.finish();
      const chunks = this.count + 1;
      const index = this.index?.finish();
      const header = { c: chunks, x: this.gen, hd: thresholds, ...(index ? { ix: index } : {}) };
      return { first: encodeUnitCube(head, header), chunks, rows: this.rows };
    }
    if (this.first === undefined) {
      return { first: encodeUnitCube(emptyUnitCube(this.grain, this.dicts, this.measures)), chunks: 1, rows: 0 };
    }
    if (this.count === 1) return { first: this.first, chunks: 1, rows: this.rows };
    const head = JSON.parse(String(this.first[HEADER])) as Record<string, unknown>;
    return {
      first: { ...this.first, [HEADER]: JSON.stringify({ ...head, c: this.count, x: this.gen }) },
      chunks: this.count,
      rows: this.rows,
    };
  }
}

/** The first `limit` rows of a queue of cubes (removed from it), as one cube. */
function takeRows(queue: UnitCube[], limit: number): UnitCube {
  const parts: UnitCube[] = [];
  let n = 0;
  while (queue.length > 0 && n < limit) {
    const head = queue[0] as UnitCube;
    const take = Math.min(head.size, limit - n);
    if (take === head.size) {
      parts.push(head);
      queue.shift();
    } else {
      parts.push(sliceUnits(head, 0, take));
      queue[0] = sliceUnits(head, take, head.size);
    }
    n += take;
  }
  return concatUnits(parts);
}

export const dynamoFactWriter = ({ db, tableName }: TableContext) => {
  // Cubes opened together (a compaction's open days, read back to fold them in) read their items in one BatchGetItem.
  const reader = keyReader({ db, tableName });
  const itemAt = async (key: TableKey) => (await reader.get([key], { consistent: true }))[0];
  const queryItems = async (
    pk: string,
    from: string,
    to: string,
    projection?: string,
  ): Promise<Record<string, unknown>[]> =>
    queryAll(db, {
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': pk, ':from': from, ':to': to },
      ConsistentRead: true,
      ...(projection ? { ProjectionExpression: projection } : {}),
    });

  const putItems = async (items: readonly Record<string, unknown>[], guard: Guard) => {
    await guard();
    // Derived cube items written under the month's lease (see the module comment): no condition to express.
    await batchWriteAll(
      db,
      tableName,
      items.map((Item) => ({ PutRequest: { Item } })),
    );
  };

  const deleteKeys = async (keysToDelete: readonly TableKey[], guard: Guard) => {
    if (keysToDelete.length === 0) return;
    await guard();
    // Derived items of a month under its lease (stale chunks, partitions no longer present, backups): idempotent.
    await batchWriteAll(
      db,
      tableName,
      keysToDelete.map((Key) => ({ DeleteRequest: { Key } })),
    );
  };

  return {
    /**
     * A flat cube's chunks in order, as ingest's units, a chunk at a time (a month's by-video-and-slices cube can be
     * large). Undefined when the period has no cube. `mv` is the manifest version the cube was written at.
     */
    async openCube(
      address: CubeAddress | { pk: string },
      period: string,
      dicts: Dicts,
      measures: readonly number[],
    ): Promise<{ header: ChunkHeader; mv?: number; chunks: AsyncIterable<UnitCube> } | undefined> {
      const pk =
        'pk' in address
          ? address.pk
          : keys.factPartition(address.family, address.channel, address.variant, address.partition);
      const first = await itemAt({ pk, sk: period });
      if (!first) return undefined;
      const header = chunkHeader(first);
      const chunkSks = Array.from({ length: header.chunks - 1 }, (_, i) => chunkSk(period, header, i + 1));
      const readChunk = async (sk: string) => {
        const item = await itemAt({ pk, sk });
        if (!item || chunkIndex(sk, period, header) < 0) throw new Error(`${pk} ${sk}: a chunk is missing`);
        return decodeUnitCube(item, dicts, measures);
      };
      async function* chunks() {
        // A headed cube's first item is its head (heads.ts): its rows are the other chunks.
        if (!header.head) yield decodeUnitCube(first as Record<string, unknown>, dicts, measures);
        // One chunk ahead: the next read overlaps the caller's work on this one.
        let next = chunkSks.length > 0 ? readChunk(chunkSks[0] as string) : undefined;
        for (let i = 0; i < chunkSks.length; i++) {
          const cube = await (next as Promise<UnitCube>);
          next = i + 1 < chunkSks.length ? readChunk(chunkSks[i + 1] as string) : undefined;
          yield cube;
        }
      }
      return { header, ...(first.mv !== undefined ? { mv: Number(first.mv) } : {}), chunks: chunks() };
    },

    /**
     * A month's flat cube as ingest's units: its compacted cube plus its pieces of the same compaction
     * (month-pieces.ts), added exactly. One Query of the month's items; undefined when it has neither.
     */
    async openMonth(
      pk: string,
      month: string,
      dicts: Dicts,
      measures: readonly number[],
    ): Promise<UnitCube | undefined> {
      const period = keys.factMonthSk(month);
      const items = await queryItems(pk, period, `${period}#~`);
      const groups = new Map<string, Record<string, unknown>[]>();
      for (const item of items) {
        const sk = String(item.sk);
        const at = isPieceSk(sk) ? piecePeriod(sk) : basePeriod(sk);
        const list = groups.get(at);
        if (list) list.push(item);
        else groups.set(at, [item]);
      }
      const number = pieceBase(groups.get(period)?.find((i) => i.sk === period));
      const parts: UnitCube[] = [];
      for (const [at, list] of groups) {
        const first = list.find((i) => i.sk === at);
        if (!first || (at !== period && pieceBase(first) !== number)) continue;
        const header = chunkHeader(first);
        const ordered = new Array<Record<string, unknown> | undefined>(header.chunks);
        for (const item of list) {
          const i = chunkIndex(String(item.sk), at, header);
          if (i >= 0 && i < header.chunks) ordered[i] = item;
        }
        if (ordered.some((i) => i === undefined)) throw new Error(`${pk} ${at}: a chunk is missing`);
        parts.push(
          ...rowChunks(ordered, header).map((item) => decodeUnitCube(item as Record<string, unknown>, dicts, measures)),
        );
      }
      if (parts.length === 0) return undefined;
      const grain = (parts[0] as UnitCube).grain;
      return groups.size === 1 ? concatUnits(parts) : rollupUnits(parts, grain, measures);
    },

    /** Writes a flat cube through a CubeWriter: chunks after the first at once (new generation), the first at `finish`. */
    cubeWriter(
      pk: string,
      period: string,
      grain: readonly string[],
      dicts: Dicts,
      measures: readonly number[],
      gen: string,
      guard: Guard,
      /** Told each chunk item after the first as it goes out (a copy of the cube is written elsewhere too). */
      onChunk?: (item: Record<string, unknown>) => void,
      /** How to head the cube (heads.ts), when it is large enough. */
      head?: HeadSettings,
    ) {
      let pending: Record<string, unknown>[] = [];
      const drain = async () => {
        const items = pending;
        pending = [];
        if (items.length > 0) await putItems(items, guard);
      };
      const writer = new CubeWriter(
        grain,
        dicts,
        measures,
        gen,
        async (chunk, attributes) => {
          const item = { pk, sk: keys.factChunkSk(period, gen, chunk), entity: FACT_ENTITY, ...attributes };
          onChunk?.(item);
          pending.push(item);
          if (pending.length >= 25) await drain();
        },
        head,
      );
      return {
        append: (cube: UnitCube) => writer.append(cube),
        /** Writes the chunks still held; returns the first chunk's item (the caller writes it last) and the count. */
        async finish(
          extra: Record<string, unknown> = {},
        ): Promise<{ item: Record<string, unknown>; chunks: number; rows: number }> {
          const done = await writer.finish();
          await drain();
          return {
            item: { pk, sk: period, entity: FACT_ENTITY, ...done.first, ...extra },
            chunks: done.chunks,
            rows: done.rows,
          };
        },
      };
    },

    putItems,
    deleteKeys,

    /** Keys of the chunks of `period` other than generation `keep` (stale ones), from a keys-only Query. */
    async staleChunks(pk: string, period: string, keep: string | undefined): Promise<TableKey[]> {
      const items = await queryItems(pk, `${period}#`, `${period}#~`, 'pk, sk');
      return items
        .filter((item) => {
          const rest = String(item.sk)
            .slice(period.length + 1)
            .split('#');
          return keep === undefined || rest[0] !== keep;
        })
        .map((item) => ({ pk: String(item.pk), sk: String(item.sk) }));
    },

    /** Every item (all attributes) of pk with sort keys in [from, to]. */
    queryItems,

    /**
     * Sets day segments (and removes others) on a by-day item, creating it with its header if needed. Conditional:
     * the item is a fact cube or does not exist yet.
     */
    async updateDays(
      key: TableKey,
      header: string,
      set: Readonly<Record<string, unknown>>,
      remove: readonly string[],
      guard: Guard,
    ): Promise<void> {
      const names: Record<string, string> = { '#h': HEADER, '#e': 'entity' };
      const values: Record<string, unknown> = { ':h': header, ':e': FACT_ENTITY };
      const sets = ['#h = if_not_exists(#h, :h)', '#e = :e'];
      Object.entries(set).forEach(([name, value], i) => {
        names[`#s${i}`] = name;
        values[`:s${i}`] = value;
        sets.push(`#s${i} = :s${i}`);
      });
      const removes = remove
        .filter((name) => !(name in set))
        .map((name, i) => {
          names[`#r${i}`] = name;
          return `#r${i}`;
        });
      await guard();
      await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
          ConditionExpression: 'attribute_not_exists(pk) OR #e = :e',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    },

    /** Copies a day's full-day cube items (`D#<day>` and its chunks) to `O#<day>`: the previous version, kept for a load in flight. */
    async backupDay(pk: string, day: string, guard: Guard): Promise<boolean> {
      const period = keys.factDaySk(day);
      const items = await queryItems(pk, period, `${period}#~`);
      if (items.length === 0) return false;
      const backup = keys.factBackupSk(day);
      await putItems(
        items.map((item) => ({ ...item, sk: backup + String(item.sk).slice(period.length) })),
        guard,
      );
      return true;
    },

    async readManifest(family: string, channel: string, month: string): Promise<MonthManifest | undefined> {
      const out = await db.send(
        new GetCommand({ TableName: tableName, Key: keys.factManifest(family, channel, month), ConsistentRead: true }),
      );
      if (!out.Item) return undefined;
      const stored = out.Item.manifest as Partial<MonthManifest>;
      if (stored.ver === undefined) return { ...emptyManifest(), days: stored.days ?? {}, legacy: true };
      return { ...emptyManifest(), ...stored } as MonthManifest;
    },

    /** The months of (family, channel) holding pieces not folded into their cubes yet (month-pieces.ts). */
    async openMonths(family: string, channel: string): Promise<string[]> {
      const pk = keys.factManifestPartition(family, channel);
      const items = await queryItems(pk, 'M#', 'M#~');
      return items
        .filter((item) => Object.keys((item.manifest as Partial<MonthManifest>)?.pieces ?? {}).length > 0)
        .map((item) => String(item.sk).slice(2));
    },

    /**
     * Writes the manifest if it is still at version `expectedVer` with the same pending load (or none), within the
     * lease: a transaction with a ConditionCheck on it (or, with `release`, an update letting it go). False when the
     * manifest or the lease changed.
     */
    async writeManifest(
      family: string,
      channel: string,
      month: string,
      manifest: MonthManifest,
      expected: { ver: number; pending: number | undefined },
      lease: Lease,
      leases: LeaseRepository,
      also: readonly Record<string, unknown>[] = [],
      release = false,
    ): Promise<boolean> {
      const { legacy: _legacy, ...stored } = manifest;
      const condition =
        expected.ver === 0 && expected.pending === undefined
          ? 'attribute_not_exists(pk) OR (entity = :entity AND (attribute_not_exists(manifest.ver) OR manifest.ver = :ver) AND attribute_not_exists(manifest.pending))'
          : `entity = :entity AND manifest.ver = :ver AND ${
              expected.pending === undefined
                ? 'attribute_not_exists(manifest.pending)'
                : 'manifest.pending.ver = :pending'
            }`;
      try {
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              release ? leases.releasing(lease) : leases.check(lease),
              {
                Put: {
                  TableName: tableName,
                  Item: { ...keys.factManifest(family, channel, month), entity: MANIFEST_ENTITY, manifest: stored },
                  ConditionExpression: condition,
                  ExpressionAttributeValues: {
                    ':entity': MANIFEST_ENTITY,
                    ':ver': expected.ver,
                    ...(expected.pending === undefined ? {} : { ':pending': expected.pending }),
                  },
                },
              },
              ...also,
            ],
          }),
        );
        return true;
      } catch (err) {
        if ((err as { name?: string }).name === 'TransactionCanceledException') return false;
        throw err;
      }
    },

    /** A transaction part adding `month` to the months whose blocks are due. */
    blocksDue(family: string, channel: string, month: string) {
      return {
        Update: {
          TableName: tableName,
          Key: keys.blocksToWrite(family, channel),
          UpdateExpression: 'SET entity = :entity ADD months :m',
          ConditionExpression: 'attribute_not_exists(pk) OR entity = :entity',
          ExpressionAttributeValues: { ':entity': BLOCKS_ENTITY, ':m': new Set([month]) },
        },
      };
    },

    /** The months whose blocks are due, and the blocks stored in several chunks. */
    async readBlocksDue(family: string, channel: string): Promise<{ months: string[]; chunked: ChunkRef[] }> {
      // By the shared key reader: a load of one file asks for it with its files' rejections, one request.
      const item = await itemAt(keys.blocksToWrite(family, channel));
      const months = item?.months as Set<string> | undefined;
      return { months: [...(months ?? [])].sort(), chunked: (item?.chunked as ChunkRef[] | undefined) ?? [] };
    },

    /** Takes `done` months off the due set and records the blocks now stored in several chunks. */
    async blocksWritten(
      family: string,
      channel: string,
      done: readonly string[],
      chunked: readonly ChunkRef[],
      guard: Guard,
    ) {
      await guard();
      await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.blocksToWrite(family, channel),
          UpdateExpression: done.length > 0 ? 'SET chunked = :c DELETE months :m' : 'SET chunked = :c',
          ConditionExpression: 'entity = :entity',
          ExpressionAttributeValues: {
            ':entity': BLOCKS_ENTITY,
            ':c': chunked,
            ...(done.length > 0 ? { ':m': new Set(done) } : {}),
          },
        }),
      );
    },

    /** Items of a by-day partition for a month (all attributes). */
    readByDayItems(pk: string, month: string) {
      return queryItems(pk, keys.factMonthSk(month), `${keys.factMonthSk(month)}#~`);
    },

    /** Writes one item with a condition that it is a fact cube (or new); for whole by-day items. */
    async putByDayItem(item: Record<string, unknown>, guard: Guard) {
      await guard();
      try {
        await db.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...item, entity: FACT_ENTITY },
            ConditionExpression: 'attribute_not_exists(pk) OR entity = :e',
            ExpressionAttributeValues: { ':e': FACT_ENTITY },
          }),
        );
      } catch (err) {
        if (isConditionFailure(err)) throw new Error(`${String(item.pk)} ${String(item.sk)} is not a fact cube`);
        throw err;
      }
    },

    /** Removes every chunk of a flat cube (its first item and the others of any generation). */
    async removeCube(pk: string, period: string, guard: Guard) {
      const items = await queryItems(pk, period, `${period}#~`, 'pk, sk');
      await deleteKeys(
        items.filter((i) => basePeriod(String(i.sk)) === period).map((i) => ({ pk: String(i.pk), sk: String(i.sk) })),
        guard,
      );
    },
  };
};

export type FactWriter = ReturnType<typeof dynamoFactWriter>;
