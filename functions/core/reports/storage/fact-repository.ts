/**
 * DynamoDB adapter for reading fact cubes (access pattern F1 in core/db/keys.ts). Reads are contiguous Query ranges
 * (never a Scan; a range longer than a page fans out by month, core/db/month-ranges.ts) with a projection of the
 * columns a report needs, and blocks of months by key. Ingest writes the cubes through fact-writer.ts; this module
 * only reads the three layouts (cube.ts layoutOf):
 *
 * - flat: one cube per period. A cube larger than an item is stored as chunks: the first at the period's key, whose
 *   header names the count (`c`) and the generation (`x`) of the others, at `<period>#<gen>#<i>`. Chunks of any other
 *   generation are leftovers of a rewrite (in flight, or interrupted) and are skipped, so a reader sees one
 *   generation whole.
 * - byDay (d, gd): per month, one segment per day (unit-codec.ts), the attribute `s<dd>` of the month's items; a
 *   report projects only the columns it needs from each day.
 * - daily (vd, vb): per group of video buckets, one item per day, each bucket's rows an attribute, or one item for
 *   a month loaded whole, each bucket's days an attribute (ingest/by-day-items.ts); a report reads its bucket's
 *   attribute of each.
 */
import { keyReader } from '../../db/key-reader';
import * as keys from '../../db/keys';
import { queryMonthRange } from '../../db/month-ranges';
import type { TableContext } from '../../directory/directory-repository';
import { FAMILY_BY_CODE } from '../catalog/family-shapes';
import { MEASURE_INDEX } from '../catalog/metrics';
import {
  blockMonths,
  type CubeVariant,
  fullDayOf,
  type GrainDim,
  groupOfBucket,
  layoutOf,
  monthAt,
  monthIndex,
  rootVariantOf,
  type VariantLayout,
  variantsOf,
} from './cube';
import { decodeCubeBlob, isCubeBlob } from './cube-blob';
import {
  attributesSize,
  type CubeAttributes,
  type CubeColumns,
  concatCubes,
  decodeCube,
  HEADER,
  isCubeItem,
  projectionOf,
  rowsWhere,
  type StoredCube,
} from './cube-codec';
import { chunksHolding } from './heads';
import {
  addCubes,
  emptyStoredCube,
  isMarkSk,
  isPieceSk,
  isPointer,
  pieceBase,
  pieceDaySk,
  piecePeriod,
  rowsInRegion,
} from './month-pieces';
import { byDayOf, decodeBlobs, decodeByDayMonth, decodeDayBlobs } from './unit-codec';

/** A month of a daily variant's bucket as read: its month item's parts (the first counts them) and its day items. */
interface MonthOfDays {
  count: number;
  parts: { part: number; bytes: Uint8Array }[];
  days: Set<string>;
  blobs: { day: string; bytes: Uint8Array }[];
}

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

/** A stored cube: its period is `D#yyyy-mm-dd`, `M#yyyy-mm` or `B<n>#yyyy-mm`. */
export interface PeriodCube {
  readonly period: string;
  readonly cube: StoredCube;
}

/** A cube read for a top-N: whole, or its head (heads.ts) with each headed measure's threshold (micro-units). */
export type HeadedCube =
  | { readonly cube: StoredCube }
  | {
      readonly head: StoredCube;
      readonly thresholds: Readonly<Record<string, number>>;
      /** Its rows, read now (counted in `stats`). */
      readonly whole: (stats: ReadStats) => Promise<StoredCube>;
      /** The rows of these videos, read now: the chunks that may hold them (its chunk index), else the cube. */
      readonly rowsOf: (videos: readonly string[], stats: ReadStats) => Promise<StoredCube>;
      /** Videos whose rows `rowsOf` read and a top-N joined to `head` (top-heads.ts). */
      readonly exact?: ReadonlySet<string>;
    };

/** What the first chunk of a flat cube says about the others. */
export interface ChunkHeader {
  /** How many chunks the cube has (1 when the header does not say). */
  readonly chunks: number;
  /** Their generation (absent for one chunk, and in chunks written by earlier releases). */
  readonly gen?: string;
  /**
   * A headed cube (heads.ts): the first chunk holds the head, not rows (the rows are chunks 1…); each headed
   * measure's threshold, in micro-units.
   */
  readonly head?: Readonly<Record<string, number>>;
  /** A headed cube's chunk index (heads.ts): each row chunk's first video, chunks 1…n in order. */
  readonly index?: readonly string[];
}

export function chunkHeader(item: Readonly<Record<string, unknown>>): ChunkHeader {
  const header = item[HEADER];
  if (typeof header !== 'string' || !header.includes('"c"')) return { chunks: 1 };
  const head = JSON.parse(header) as { c?: number; x?: string; hd?: Record<string, number>; ix?: string[] };
  const chunks = Number(head.c ?? 1);
  return {
    chunks,
    ...(head.x ? { gen: head.x } : {}),
    ...(head.hd ? { head: head.hd } : {}),
    // An index naming another count of chunks than the header's is not this cube's: read whole.
    ...(head.hd && head.x && head.ix?.length === chunks - 1 ? { index: head.ix } : {}),
  };
}

/** The sort key of chunk `i` (1…) of the cube at `period`: of its generation, or `<period>#<i>` (earlier releases). */
export const chunkSk = (period: string, header: ChunkHeader, i: number) =>
  header.gen ? keys.factChunkSk(period, header.gen, i) : `${period}#${i}`;

/** A cube's chunks in order without its head: the chunks that hold its rows. */
export const rowChunks = <T>(ordered: readonly T[], header: ChunkHeader): readonly T[] =>
  header.head ? ordered.slice(1) : ordered;

/** `D#2026-07-01#gen#002` → `D#2026-07-01`; `M#2026-07#1` → `M#2026-07`. */
export const basePeriod = (sk: string) => sk.split('#').slice(0, 2).join('#');

/**
 * Whether a month's mark (month-pieces.ts) makes it open: there is no cube yet, or the cube is the one the mark's
 * pieces build on (a mark older than the cube's compaction is stale).
 */
const opensMonth = (mark: Record<string, unknown>, first: Record<string, unknown> | undefined) =>
  !first || pieceBase(first) === pieceBase(mark);

/** The index of a chunk item of `period` of this generation (0 for the first), or -1 when it is not one. */
export function chunkIndex(sk: string, period: string, header: ChunkHeader): number {
  if (sk === period) return 0;
  const rest = sk.slice(period.length + 1).split('#');
  if (header.gen !== undefined) return rest.length === 2 && rest[0] === header.gen ? Number(rest[1]) : -1;
  // Chunks of earlier releases: `<period>#<i>`.
  return rest.length === 1 && /^\d+$/.test(rest[0] as string) ? Number(rest[0]) : -1;
}

/** A flat cube's chunk items (any order) as one cube: the first's generation only, in chunk order. */
export function assembleChunks(period: string, items: readonly Record<string, unknown>[]): StoredCube | undefined {
  const first = items.find((i) => String(i.sk) === period);
  if (!first) return undefined;
  const header = chunkHeader(first);
  const ordered: (Record<string, unknown> | undefined)[] = new Array(header.chunks);
  for (const item of items) {
    const at = chunkIndex(String(item.sk), period, header);
    if (at >= 0 && at < header.chunks) ordered[at] = item;
  }
  // A chunk gone missing: a cube being rewritten by a release before chunk generations. As if not stored.
  if (ordered.some((item) => item === undefined)) return undefined;
  return rowChunks(ordered as Record<string, unknown>[], header)
    .map((item) => decodeCube(item))
    .reduce((a, b) => concatCubes(a, b));
}

/** A month's items: its compacted cube's, and its pieces' by piece period. */
function splitPieces(items: readonly Record<string, unknown>[]) {
  const base: Record<string, unknown>[] = [];
  const pieces = new Map<string, Record<string, unknown>[]>();
  for (const item of items) {
    const sk = String(item.sk);
    if (!isPieceSk(sk)) base.push(item);
    else {
      const list = pieces.get(piecePeriod(sk)) ?? [];
      list.push(item);
      pieces.set(piecePeriod(sk), list);
    }
  }
  return { base, pieces };
}

interface LivePiece {
  readonly at: string;
  readonly items: readonly Record<string, unknown>[];
  /** Its day's full-day cube (month-pieces.ts: a piece without data of its own), at `D#yyyy-mm-dd`. */
  readonly day?: string;
}

/**
 * The pieces of a month that count (month-pieces.ts): those of compaction `pb`, or when not given, of the month cube's
 * (`period`'s first item among `items`), any where it has no cube; pieces of an earlier compaction are being deleted.
 */
function livePieces(period: string, items: readonly Record<string, unknown>[], pb?: number) {
  const { base, pieces } = splitPieces(items);
  const first = base.find((item) => String(item.sk) === period);
  const number = pb ?? (first ? pieceBase(first) : undefined);
  const live: LivePiece[] = [];
  for (const [at, list] of pieces) {
    const head = list.find((item) => String(item.sk) === at);
    if (!head || (number !== undefined && pieceBase(head) !== number)) continue;
    live.push({ at, items: list, ...(isPointer(head) ? { day: pieceDaySk(at) } : {}) });
  }
  return { base, live };
}

/** The full-day cubes live pieces stand for (`D#…` sort keys), to read by key. */
const pointedDays = (live: readonly LivePiece[]) => live.flatMap((p) => (p.day ? [p.day] : []));

/** Each live piece as a cube: assembled from its chunks, or its day's full-day cube taken from `days`. */
const pieceCubes = (live: readonly LivePiece[], days: ReadonlyMap<string, StoredCube>) =>
  live.flatMap((p) => {
    const cube = p.day ? days.get(p.day) : assembleChunks(p.at, p.items);
    return cube ? [cube] : [];
  });

/**
 * An open month's cube (month-pieces.ts): its compacted cube plus its live pieces, added exactly; `days` holds the
 * full-day cubes its pointing pieces stand for.
 */
function assembleOpenMonth(
  period: string,
  items: readonly Record<string, unknown>[],
  days: ReadonlyMap<string, StoredCube>,
): StoredCube | undefined {
  const { base, live } = livePieces(period, items);
  const cube = assembleChunks(period, base);
  const parts = [...(cube ? [cube] : []), ...pieceCubes(live, days)];
  return parts.length === 0 ? undefined : addCubes(parts);
}

/** The stored layout and grain of an address's variant (flat for variants this release does not define). */
function variantOf(address: CubeAddress): { layout: VariantLayout; variant?: CubeVariant } {
  const family = FAMILY_BY_CODE.get(address.family);
  const variant = family ? variantsOf(family).find((v) => v.name === address.variant) : undefined;
  return variant ? { layout: layoutOf(variant), variant } : { layout: 'flat' };
}

/** The partition key of an address: the by-bucket variants live in their bucket's group. */
export function factPk(address: CubeAddress, layout: VariantLayout): string {
  const byBucket = layout === 'daily' && address.partition !== undefined;
  return keys.factPartition(
    address.family,
    address.channel,
    address.variant,
    byBucket ? groupOfBucket(address.variant, address.partition as string) : address.partition,
  );
}

/** The day attribute of a by-day item. */
export const dayAttribute = (dd: string) => `s${dd}`;
const DAYS = Array.from({ length: 31 }, (_, i) => String(i + 1).padStart(2, '0'));

/** A ProjectionExpression (with its names) reading the sort key and the given attribute paths. */
function projectionExpression(paths: readonly (readonly string[])[]) {
  const names = new Map<string, string>();
  const placeholder = (name: string) => {
    let p = names.get(name);
    if (!p) {
      p = `#p${names.size}`;
      names.set(name, p);
    }
    return p;
  };
  const expression = [['sk'], ...paths].map((path) => path.map(placeholder).join('.')).join(', ');
  return {
    ProjectionExpression: expression,
    ExpressionAttributeNames: Object.fromEntries([...names].map(([name, p]) => [p, name])),
  };
}

/** A by-day read projects each day's attribute whole: one blob a day (a few maps of columns in older items). */
const BY_DAY_PATHS = DAYS.map((dd) => [dayAttribute(dd)]);

/** Bytes of what an item returned (binary and string values; map nesting counted by its names). */
function returnedBytes(value: unknown): number {
  if (value instanceof Uint8Array) return value.length;
  if (typeof value === 'string') return value.length;
  if (typeof value === 'number') return 8;
  if (value && typeof value === 'object') {
    let n = 0;
    for (const [name, v] of Object.entries(value)) n += name.length + returnedBytes(v);
    return n;
  }
  return 0;
}

export interface FactRepositoryOptions {
  /** Caps a Query page's items (tests make long ranges span pages with it; DynamoDB's own page is a megabyte). */
  readonly pageItems?: number;
}

export const dynamoFactRepository = ({ db, tableName }: TableContext, options: FactRepositoryOptions = {}) => {
  const reader = keyReader({ db, tableName });

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

  /** Every item of pk with a sort key in [from, to]: page after page, a long range's months in parallel. */
  const queryRange = async (
    pk: string,
    from: string,
    to: string,
    stats: ReadStats,
    projection: { ProjectionExpression?: string; ExpressionAttributeNames?: Record<string, string> },
    onItem: (item: Record<string, unknown>) => void,
  ) => {
    await queryMonthRange(
      db,
      { TableName: tableName, pk, from, to, ...projection },
      (items) => {
        stats.queries++;
        for (const item of items) {
          stats.items++;
          onItem(item);
        }
      },
      options.pageItems,
    );
  };

  /** First chunks of flat cubes by key: what each period's header says, and its item. */
  const readFirsts = async (pk: string, periods: readonly string[], stats: ReadStats, columns?: CubeColumns) =>
    (
      await getMany(
        periods.map((sk) => ({ pk, sk })),
        stats,
        columns,
      )
    ).map((first) => ({ period: String(first.sk), first, header: chunkHeader(first) }));

  /** The cubes whose first chunks are `firsts`, their other chunks read by key in one request. */
  const readRest = async (
    pk: string,
    firsts: Awaited<ReturnType<typeof readFirsts>>,
    stats: ReadStats,
    columns?: CubeColumns,
  ): Promise<Map<string, StoredCube>> => {
    const out = new Map<string, StoredCube>();
    const more = firsts.filter(({ period, first, header }) => {
      if (header.chunks > 1) return true;
      out.set(period, decodeCube(first));
      return false;
    });
    if (more.length === 0) return out;
    const rest = await getMany(
      more.flatMap(({ period, header }) =>
        Array.from({ length: header.chunks - 1 }, (_, i) => ({ pk, sk: chunkSk(period, header, i + 1) })),
      ),
      stats,
      columns,
    );
    for (const { period, first } of more) {
      const cube = assembleChunks(period, [first, ...rest.filter((item) => basePeriod(String(item.sk)) === period)]);
      if (cube) out.set(period, cube);
    }
    return out;
  };

  /**
   * The cubes of one flat variant/partition at the given periods, by key in one BatchGetItem (a Query each would
   * cost a request each): blocks of months, which are not contiguous. Periods not stored are absent from the map.
   */
  const readPeriods = async (
    address: CubeAddress,
    periods: readonly string[],
    stats: ReadStats,
    columns?: CubeColumns,
  ): Promise<Map<string, StoredCube>> => {
    const pk = factPk(address, 'flat');
    return readRest(pk, await readFirsts(pk, periods, stats, columns), stats, columns);
  };

  /**
   * Flat cubes at `periods` by key, as a top-N reads them (query/top-heads.ts): a headed cube (heads.ts) as its head
   * and thresholds, with `whole` to read its rows when the head does not decide; any other cube whole.
   */
  const readHeads = async (
    address: CubeAddress,
    periods: readonly string[],
    stats: ReadStats,
    columns: CubeColumns,
  ): Promise<Map<string, HeadedCube>> => {
    const pk = factPk(address, 'flat');
    return headsOf(pk, await readFirsts(pk, periods, stats, columns), stats, columns);
  };

  /** The cubes whose first items are `firsts`, as readHeads hands them over. */
  const headsOf = async (
    pk: string,
    firsts: Awaited<ReturnType<typeof readFirsts>>,
    stats: ReadStats,
    columns: CubeColumns,
  ): Promise<Map<string, HeadedCube>> => {
    const out = new Map<string, HeadedCube>();
    const plain = firsts.filter((f) => {
      const thresholds = f.header.head;
      if (!thresholds) return true;
      const head = decodeCube(f.first);
      const whole = async (readStats: ReadStats) =>
        (await readRest(pk, [f], readStats, columns)).get(f.period) ?? emptyStoredCube(head.grain);
      const rowsOf = async (videos: readonly string[], readStats: ReadStats) => {
        const index = f.header.index;
        const chunks = index ? [...new Set(videos.flatMap((v) => chunksHolding(index, v)))] : undefined;
        const items = chunks
          ? await getMany(
              chunks.map((i) => ({ pk, sk: chunkSk(f.period, f.header, i) })),
              readStats,
              columns,
            )
          : [];
        // No index, or a chunk gone (the cube rewritten since its head was read): the cube as `whole` reads it.
        const rows =
          chunks && items.length === chunks.length
            ? items.map((item) => decodeCube(item)).reduce((a, b) => concatCubes(a, b), emptyStoredCube(head.grain))
            : await whole(readStats);
        const wanted = new Set(videos);
        return rowsWhere(rows, 'video', (video) => wanted.has(video));
      };
      out.set(f.period, { head, thresholds, whole, rowsOf });
      return false;
    });
    for (const [period, cube] of await readRest(pk, plain, stats, columns)) out.set(period, { cube });
    return out;
  };

  /**
   * A regional variant's months by key, as a top-N reads them: as readHeads reads them, but a month still open (its
   * mark, `M#<month>#o`, as new as its cube: month-pieces.ts) whole with its open days, as `read` reads it. The
   * marks go out with the months' first items, in one request.
   */
  const readMonthHeads = async (
    address: CubeAddress,
    months: readonly string[],
    stats: ReadStats,
    columns: CubeColumns,
  ): Promise<Map<string, HeadedCube>> => {
    const pk = factPk(address, 'flat');
    const [firsts, marks] = await Promise.all([
      readFirsts(pk, months, stats, columns),
      getMany(
        months.map((month) => ({ pk, sk: keys.factOpenSk(month.slice(2)) })),
        stats,
        columns,
      ),
    ]);
    const firstOf = new Map(firsts.map((f) => [f.period, f.first]));
    const open = new Set(
      marks
        .map((mark) => ({ mark, period: basePeriod(String(mark.sk)) }))
        .filter(({ mark, period }) => opensMonth(mark, firstOf.get(period)))
        .map(({ period }) => period),
    );
    const [out, opened] = await Promise.all([
      headsOf(
        pk,
        firsts.filter((f) => !open.has(f.period)),
        stats,
        columns,
      ),
      Promise.all([...open].map((month) => read(address, month, month, stats, columns))),
    ]);
    for (const { period, cube } of opened.flat()) out.set(period, { cube });
    return out;
  };

  /** The full-day cubes of `days` (`D#…` sort keys) of an address's family and channel, by sort key. */
  const readDays = async (
    address: CubeAddress,
    days: readonly string[],
    stats: ReadStats,
    columns: CubeColumns | undefined,
  ): Promise<Map<string, StoredCube>> => {
    const family = FAMILY_BY_CODE.get(address.family);
    if (days.length === 0 || !family) return new Map();
    const full = fullDayOf(family);
    return readPeriods(
      { family: address.family, channel: address.channel, variant: full.name },
      days,
      stats,
      columns ? { ...columns, dims: full.grain } : undefined,
    );
  };

  const readFlat = async (
    address: CubeAddress,
    pk: string,
    fromSk: string,
    toSk: string,
    stats: ReadStats,
    columns: CubeColumns | undefined,
    grain: readonly GrainDim[] | undefined,
  ): Promise<{ cubes: PeriodCube[]; marked: { period: string; pb: number }[] }> => {
    const byPeriod = new Map<string, Record<string, unknown>[]>();
    const read = async (from: string, to: string, wanted: CubeColumns | undefined) => {
      const projection = wanted ? projectionExpression(projectionOf(wanted).map((n) => [n])) : {};
      await queryRange(pk, from, to, stats, projection, (item) => {
        stats.bytes += attributesSize(item as CubeAttributes);
        const period = basePeriod(String(item.sk));
        const list = byPeriod.get(period);
        if (list) list.push(item);
        else byPeriod.set(period, [item]);
      });
    };
    await read(fromSk, `${toSk}#~`, columns);
    const isOpen = (items: readonly Record<string, unknown>[]) =>
      items.some((i) => isPieceSk(String(i.sk)) || isMarkSk(String(i.sk)));
    // A month with pieces (month-pieces.ts) is added up at its full grain, as a compaction would store it: read
    // again with every dimension when the projection left some out (only open months pay for this).
    if (columns && grain?.some((d) => !columns.dims.includes(d))) {
      const open = [...byPeriod].filter(([, items]) => isOpen(items)).map(([p]) => p);
      for (const period of open) byPeriod.delete(period);
      await Promise.all(open.map((period) => read(period, `${period}#~`, { ...columns, dims: grain })));
    }
    // Pieces that are their days' full-day cubes: read those, in one request.
    const days = await readDays(
      address,
      [...byPeriod].flatMap(([period, items]) => pointedDays(livePieces(period, items).live)),
      stats,
      columns,
    );
    const out: PeriodCube[] = [];
    const marked: { period: string; pb: number }[] = [];
    for (const [period, items] of byPeriod) {
      const cube = items.some((item) => isPieceSk(String(item.sk)))
        ? assembleOpenMonth(period, items, days)
        : assembleChunks(period, items);
      if (cube) out.push({ period, cube });
      const mark = items.find((i) => isMarkSk(String(i.sk)));
      const first = items.find((i) => String(i.sk) === period);
      if (mark && opensMonth(mark, first)) marked.push({ period, pb: pieceBase(mark) });
    }
    return { cubes: out.sort((a, b) => (a.period < b.period ? -1 : a.period > b.period ? 1 : 0)), marked };
  };

  /**
   * A regional partition's open months (month-pieces.ts: marked): its cube plus the rows in its region of the root's
   * pieces of the month, added exactly. One Query per open month, all at once.
   */
  const addOpenDays = async (
    address: CubeAddress,
    variant: CubeVariant,
    cubes: readonly PeriodCube[],
    marked: readonly { period: string; pb: number }[],
    stats: ReadStats,
    columns: CubeColumns | undefined,
  ): Promise<PeriodCube[]> => {
    const family = FAMILY_BY_CODE.get(address.family);
    const root = family ? rootVariantOf(family) : undefined;
    const kind = variant.partitionBy;
    if (!root || !kind || kind === 'videoBucket' || address.partition === undefined)
      throw new Error('not a regional cube');
    const region = address.partition;
    const rootPk = factPk({ ...address, variant: root.name, partition: undefined }, 'flat');
    const wanted = columns ? { ...columns, dims: [...variant.grain, 'country'] as GrainDim[] } : undefined;
    const projection = wanted ? projectionExpression(projectionOf(wanted).map((n) => [n])) : {};
    const byPeriod = new Map(cubes.map((c) => [c.period, c.cube]));
    await Promise.all(
      marked.map(async ({ period, pb }) => {
        const items: Record<string, unknown>[] = [];
        await queryRange(rootPk, `${period}#p`, `${period}#p~`, stats, projection, (item) => {
          stats.bytes += attributesSize(item as CubeAttributes);
          items.push(item);
        });
        const { live } = livePieces(period, items, pb);
        const days = await readDays(address, pointedDays(live), stats, wanted);
        const parts = pieceCubes(live, days).map((piece) => rowsInRegion(piece, kind, region));
        byPeriod.set(period, addCubes([byPeriod.get(period) ?? emptyStoredCube(variant.grain), ...parts]));
      }),
    );
    const stored = new Set(cubes.map((c) => c.period));
    return [...byPeriod]
      .filter(([period, cube]) => stored.has(period) || cube.size > 0)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([period, cube]) => ({ period, cube }));
  };

  const readByDay = async (
    pk: string,
    variant: CubeVariant,
    fromSk: string,
    toSk: string,
    stats: ReadStats,
    columns: CubeColumns | undefined,
  ): Promise<PeriodCube[]> => {
    // Per month, its items (the attributes read: a cube's columns or its days' attributes).
    const months = new Map<string, Record<string, unknown>[]>();
    // The cube's columns the report uses beside every day's attribute; without columns, whole items.
    const projection = columns
      ? projectionExpression([...BY_DAY_PATHS, ...projectionOf(columns).map((name) => [name])])
      : {};
    await queryRange(pk, fromSk, `${toSk}#~`, stats, projection, (item) => {
      const month = String(item.sk).slice(2, 9);
      const cube = isCubeItem(item);
      for (const [name, value] of Object.entries(item))
        if (cube ? name !== 'pk' && name !== 'sk' : /^s\d\d$/.test(name)) stats.bytes += returnedBytes(value);
      const list = months.get(month) ?? [];
      list.push(item);
      months.set(month, list);
    });
    const wanted = columns
      ? { dims: columns.dims, measures: columns.measures.map((m) => MEASURE_INDEX[m]) }
      : undefined;
    return [...months.keys()].sort().flatMap((month) => {
      const cube = decodeByDayMonth(variant.grain, month, months.get(month) ?? [], wanted);
      return cube ? [{ period: `M#${month}`, cube }] : [];
    });
  };

  /**
   * A daily variant's bucket over the months [fromSk, toSk]: per month, the bucket's field of its month item's parts
   * (those the first one counts) and of its day items; a day item, even one without the field, overrides the month
   * item's day.
   */
  const readDaily = async (
    pk: string,
    variant: CubeVariant,
    field: string,
    fromSk: string,
    toSk: string,
    stats: ReadStats,
    columns: CubeColumns | undefined,
  ): Promise<PeriodCube[]> => {
    const months = new Map<string, MonthOfDays>();
    const monthOf = (month: string) => {
      let m = months.get(month);
      if (!m) {
        m = { count: 0, parts: [], days: new Set(), blobs: [] };
        months.set(month, m);
      }
      return m;
    };
    await queryRange(
      pk,
      keys.factDaySk(fromSk.slice(2, 9)),
      `D#${toSk.slice(2, 9)}-31#~`,
      stats,
      projectionExpression([[field], ['c']]),
      (item) => {
        const sk = String(item.sk);
        const bytes = item[field] as Uint8Array | undefined;
        if (bytes) stats.bytes += bytes.length;
        const m = monthOf(sk.slice(2, 9));
        if (sk.length === 9 || sk[9] === '#') {
          const part = sk.length === 9 ? 0 : Number(sk.slice(10));
          if (part === 0) m.count = Number(item.c ?? 0);
          if (bytes) m.parts.push({ part, bytes });
          return;
        }
        const day = sk.slice(2, 12);
        m.days.add(day);
        if (bytes) m.blobs.push({ day, bytes });
      },
    );
    const wanted = columns
      ? { dims: columns.dims, measures: columns.measures.map((m) => MEASURE_INDEX[m]) }
      : undefined;
    return [...months.keys()].sort().flatMap((month) => {
      const m = months.get(month) as MonthOfDays;
      const parts = m.parts.filter((p) => p.part < m.count);
      // A bucket's month as a cube (storage/cube-blob.ts), its days with day items left out; else its days' blobs.
      const cubes = parts
        .filter((p) => isCubeBlob(p.bytes))
        .map((p) => rowsWhere(decodeCubeBlob(p.bytes, columns), 'day', (day) => !m.days.has(day)));
      const blobs = [
        ...m.blobs,
        ...parts
          .filter((p) => !isCubeBlob(p.bytes))
          .flatMap((p) => decodeDayBlobs(p.bytes, month).filter((b) => !m.days.has(b.day))),
      ];
      const all = [
        ...cubes.filter((c) => c.size > 0),
        ...(blobs.length > 0 ? [decodeBlobs(variant.grain, blobs.sort(byDayOf), wanted)] : []),
      ];
      return all.length === 0 ? [] : [{ period: `M#${month}`, cube: all.reduce(concatCubes) }];
    });
  };

  /**
   * Cubes of one variant/partition whose period lies in [fromSk, toSk], in period order. With `columns`, only
   * those grain dimensions and measures are read (see decodeCube).
   */
  const read = async (
    address: CubeAddress,
    fromSk: string,
    toSk: string,
    stats: ReadStats,
    columns?: CubeColumns,
  ): Promise<PeriodCube[]> => {
    const { layout, variant } = variantOf(address);
    const pk = factPk(address, layout);
    if (layout === 'flat' || !variant) {
      const { cubes, marked } = await readFlat(address, pk, fromSk, toSk, stats, columns, variant?.grain);
      return marked.length === 0 || !variant ? cubes : addOpenDays(address, variant, cubes, marked, stats, columns);
    }
    if (layout === 'daily' && address.partition !== undefined)
      return readDaily(pk, variant, address.partition, fromSk, toSk, stats, columns);
    return readByDay(pk, variant, fromSk, toSk, stats, columns);
  };

  return {
    read,

    /**
     * Blocks of months not stored (loaded before blocks existed, or holding an open month: block-cubes.ts) from their
     * months: read at their full grain and added exactly, so each is the cube its block would hold, row for row. Blocks
     * next to each other share one Query: a range of years without facts costs a request, not one per block.
     */
    async readAsBlocks(
      address: CubeAddress,
      blocks: readonly string[],
      stats: ReadStats,
      columns?: CubeColumns,
    ): Promise<Map<string, StoredCube>> {
      const { variant } = variantOf(address);
      const grain = variant?.grain;
      const blockOf = new Map<string, string>();
      const runs: { from: number; to: number }[] = [];
      const spans = blocks.map((block) => ({ block, months: blockMonths(block) }));
      spans.sort((a, b) => monthIndex(a.months[0] as string) - monthIndex(b.months[0] as string));
      for (const { block, months } of spans) {
        for (const month of months) blockOf.set(`M#${month}`, block);
        const from = monthIndex(months[0] as string);
        const to = from + months.length - 1;
        const last = runs[runs.length - 1];
        if (last && last.to + 1 === from) last.to = to;
        else runs.push({ from, to });
      }
      const byBlock = new Map<string, StoredCube[]>();
      const runCubes = await Promise.all(
        runs.map(({ from, to }) =>
          readFlat(
            address,
            factPk(address, 'flat'),
            `M#${monthAt(from)}`,
            `M#${monthAt(to)}`,
            stats,
            columns && grain ? { ...columns, dims: grain } : columns,
            grain,
          ),
        ),
      );
      for (const { cubes } of runCubes) {
        for (const { period, cube } of cubes) {
          const block = blockOf.get(period) as string;
          const list = byBlock.get(block);
          if (list) list.push(cube);
          else byBlock.set(block, [cube]);
        }
      }
      return new Map([...byBlock].map(([block, cubes]) => [block, addCubes(cubes)]));
    },

    readPeriods,
    readHeads,
    readMonthHeads,
  };
};

export type FactRepository = ReturnType<typeof dynamoFactRepository>;
