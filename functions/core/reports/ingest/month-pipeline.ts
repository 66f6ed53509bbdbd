/**
 * Writes what loading some days of one month of one family and owner changes, a bucket group at a time (so memory
 * holds one group of a large day, never the whole of it):
 *
 * - each day loaded: its day cubes (the full day `f`, and `v`, `g`, `t` rolled up from it) and its segment in every
 *   by-day month variant (`d` and `gd` from `t` and `g`; `vd` and `vb` per video bucket from `v` and `f`);
 * - the month: its by-video-and-slices cube (`vg`, the root: the full-day grain summed over the month's days) is the
 *   stored one plus the new days' facts minus the previous versions of the days they replace, exactly (units.ts),
 *   with per-row fact counts so rows and nulls come and go as they should; every other month cube (`g`, `v`, the
 *   regional `vk`/`vs`/`vn`) is rolled up from the new root. So a load reads and writes one day's facts and the
 *   month's cubes, never the month's other days.
 *
 * Write order (month-load.ts relies on it to finish or undo an interrupted load): chunks of new generations and
 * segments as groups are done; then the first chunks of the day cubes (the full-day cubes marked with the load's
 * version); then the month root's first chunk (marked too); then the other month cubes.
 */

import { setImmediate } from 'node:timers/promises';
import * as keys from '../../db/keys';
import type { TableKey } from '../../db/table-definition';
import type { FamilyDef } from '../catalog/families';
import {
  bucketsPerGroup,
  type CubeVariant,
  daysIn,
  fullDayOf,
  layoutOf,
  type RegionKind,
  regionOf,
  rootVariantOf,
  variantsOf,
} from '../storage/cube';
import { ChunkRegistry, FACT_ENTITY, type FactWriter, type Guard, type MonthManifest } from '../storage/fact-writer';
import { type HeadSizes, headSettings } from '../storage/heads';
import { DAY_BLOB_DEFLATE_FROM, encodeBlob, encodeToFit } from '../storage/unit-codec';
import {
  canonicalKeys,
  canonicalRadix,
  canonicalRowOrder,
  concatUnits,
  type Dicts,
  EXACT_UNITS,
  emptyUnitCube,
  gather,
  keyAt,
  orderOfSortedRuns,
  permute,
  rollupSorted,
  rowComparator,
  sliceUnits,
  UnitAccumulator,
  type UnitCube,
  UnitCubeBuilder,
} from '../storage/units';
import {
  type BucketCube,
  type ByDayWrite,
  type DayPiece,
  dailyItems,
  daysBecomeCubes,
  ITEM_BYTES,
  monthCubeItems,
  monthItems,
  ownDaysWith,
} from './by-day-items';
import { writeByDayMonth } from './by-day-month-cube';
import { BUCKETS_PER_STEP, type DayFacts, GROUPS } from './day-facts';

/** The variants of a family by the part they play in a load. */
export interface FamilyPlan {
  readonly full: CubeVariant;
  /** Day items besides the full day (t, g, v). */
  readonly day: readonly CubeVariant[];
  /** By-day month variants (d, gd), each with the day variant its segments are. */
  readonly byDay: readonly { variant: CubeVariant; from: CubeVariant }[];
  /** By-bucket month variants (vd, vb: one item per day and group of buckets), likewise. */
  readonly grouped: readonly { variant: CubeVariant; from: CubeVariant }[];
  /** The month's by-video-and-slices cube: the full-day grain, summed over the month. */
  readonly root: CubeVariant;
  /** The other month cubes, rolled up from the root. */
  readonly month: readonly CubeVariant[];
  /** Variants kept per block of months. */
  readonly blocks: readonly CubeVariant[];
  readonly measures: readonly number[];
}

const sameGrain = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((d, i) => d === b[i]);

export function planFamily(family: FamilyDef, measures: readonly number[]): FamilyPlan {
  const variants = variantsOf(family);
  const full = fullDayOf(family);
  const day = variants.filter((v) => v.periods.includes('day') && v !== full);
  const dayOf = (grain: readonly string[]) => {
    const rest = grain.filter((d) => d !== 'day');
    const found = [full, ...day].find((v) => sameGrain(v.grain, rest));
    if (!found) throw new Error(`${family.code}: no day cube gives ${grain.join(',')}`);
    return found;
  };
  const root = rootVariantOf(family);
  if (!root) throw new Error(`${family.code}: no month cube of the full-day grain`);
  return {
    full,
    day,
    byDay: variants.filter((v) => layoutOf(v) === 'byDay').map((variant) => ({ variant, from: dayOf(variant.grain) })),
    grouped: variants
      .filter((v) => layoutOf(v) === 'daily')
      .map((variant) => ({ variant, from: dayOf(variant.grain) })),
    root,
    month: variants.filter((v) => layoutOf(v) === 'flat' && v.periods.includes('month') && v !== root),
    blocks: variants.filter((v) => v.periods.includes('block')),
    measures,
  };
}

/** The step (bucket group of 16) of each row of a cube in canonical order. */
function stepAt(cube: UnitCube): (i: number) => number {
  const v = cube.grain.indexOf('video');
  if (v < 0) return () => 0;
  const buckets = cube.dicts.of('video').buckets();
  const codes = cube.keys[v] as Int32Array;
  return (i) => {
    const b = buckets[codes[i] as number] as number;
    return b < 0 ? 0 : Math.floor(b / BUCKETS_PER_STEP);
  };
}

/** Rows of stored chunks (in canonical order) handed out a bucket group at a time. */
export class GroupReader {
  private rest: UnitCube | undefined;
  private readonly it: AsyncIterator<UnitCube>;
  private done = false;

  constructor(chunks: AsyncIterable<UnitCube>) {
    this.it = chunks[Symbol.asyncIterator]();
  }

  /** The rows of group g (groups are asked for in order). */
  async take(g: number): Promise<UnitCube[]> {
    const out: UnitCube[] = [];
    for (;;) {
      if (!this.rest) {
        if (this.done) return out;
        const next = await this.it.next();
        if (next.done) {
          this.done = true;
          return out;
        }
        this.rest = next.value;
      }
      const cube = this.rest;
      const groupAt = stepAt(cube);
      let end = 0;
      while (end < cube.size && groupAt(end) <= g) end++;
      if (end > 0 && groupAt(end - 1) < g) throw new Error('stored rows out of order');
      if (end > 0) out.push(sliceUnits(cube, 0, end));
      if (end < cube.size) {
        this.rest = sliceUnits(cube, end, cube.size);
        return out;
      }
      this.rest = undefined;
    }
  }
}

/**
 * The root's rows of one group: stored rows (with their fact counts) plus the facts of `adds` minus those of
 * `subtracts`, exactly. A row whose count falls to 0 is gone; a measure none of a row's facts has is null.
 */
export function mergeRoot(
  grain: readonly string[],
  dicts: Dicts,
  measures: readonly number[],
  stored: readonly UnitCube[],
  adds: readonly UnitCube[],
  subtracts: readonly UnitCube[],
): UnitCube {
  const width = measures.length;
  const _k = grain.length;
  const none: UnitCube = emptyUnitCube(grain, dicts, measures);
  const held = stored.filter((c) => c.size > 0);
  const base =
    held.length === 0
      ? { ...none, counts: new Float64Array(0), nulls: measures.map(() => new Float64Array(0)) }
      : concatUnits(held);
  if (!base.counts || !base.nulls) throw new Error('the stored month cube has no fact counts');
  // The facts as one cube in canonical order, each row with its sign (+1 added, -1 taken out).
  const parts = [...adds.map((c) => ({ c, sign: 1 })), ...subtracts.map((c) => ({ c, sign: -1 }))].filter(
    (p) => p.c.size > 0,
  );
  let facts = parts.length === 0 ? none : concatUnits(parts.map((p) => p.c));
  let signs = new Int8Array(facts.size);
  const ends: number[] = [];
  for (const p of parts) {
    const at = ends.at(-1) ?? 0;
    signs.fill(p.sign, at, at + p.c.size);
    ends.push(at + p.c.size);
  }
  // Rows of the two compare by their canonical numbers (or, when the dictionaries are too large, field by field).
  const radix = canonicalRadix(grain, dicts);
  const baseKeys = canonicalKeys(base, radix);
  let factKeys = canonicalKeys(facts, radix);
  if (parts.length > 1) {
    // Each part is in canonical order (a day's rows, a stored cube's): merged as runs, else sorted.
    const order = (factKeys && orderOfSortedRuns(factKeys, ends)) ?? canonicalRowOrder(facts);
    facts = permute(facts, order);
    signs = gather(signs, order);
    if (factKeys) factKeys = gather(factKeys, order);
  }
  const fields = rowComparator(grain, dicts);
  const vsFact = (fromBase: boolean, x: number, y: number) =>
    baseKeys && factKeys
      ? ((fromBase ? baseKeys : factKeys)[x] as number) - (factKeys[y] as number)
      : fields(fromBase ? base : facts, x, facts, y);

  // First the rows: which stored row (or none) and which run of facts make each (a row whose count falls to 0 goes).
  const cap = base.size + facts.size;
  const fromBase = new Int32Array(cap);
  const factStart = new Int32Array(cap);
  const factEnd = new Int32Array(cap);
  const outCounts = new Float64Array(cap);
  const gone: { base: number; start: number; end: number }[] = [];
  const label = (g: { base: number; start: number }) =>
    keyAt(g.base >= 0 ? base : facts, g.base >= 0 ? g.base : g.start).join('/');
  let n = 0;
  let i = 0;
  let j = 0;
  while (i < base.size || j < facts.size) {
    const c = i >= base.size ? 1 : j >= facts.size ? -1 : vsFact(true, i, j);
    const b = c <= 0 ? i++ : -1;
    const start = j;
    const row = b >= 0 ? b : j;
    while (j < facts.size && vsFact(b >= 0, row, j) === 0) j++;
    let count = b >= 0 ? (base.counts[b] as number) : 0;
    for (let f = start; f < j; f++) count += signs[f] as number;
    if (count < 0)
      throw new Error(
        `more facts taken out of a month row than it held (${keyAt(b >= 0 ? base : facts, row).join('/')})`,
      );
    if (count === 0) {
      gone.push({ base: b, start, end: j });
      continue;
    }
    fromBase[n] = b;
    factStart[n] = start;
    factEnd[n] = j;
    outCounts[n] = count;
    n++;
  }
  // Then each measure, a column at a time.
  const outSums = measures.map(() => new Float64Array(n));
  const outNulls = measures.map(() => new Float64Array(n));
  for (let m = 0; m < width; m++) {
    const bs = base.sums[m] as Float64Array;
    const bz = base.nulls[m] as Float64Array;
    const fs = facts.sums[m] as Float64Array;
    const os = outSums[m] as Float64Array;
    const oz = outNulls[m] as Float64Array;
    for (let r = 0; r < n; r++) {
      const b = fromBase[r] as number;
      let sum = 0;
      let z = 0;
      if (b >= 0) {
        const u = bs[b] as number;
        if (!Number.isNaN(u)) sum = u;
        z = bz[b] as number;
      }
      for (let f = factStart[r] as number; f < (factEnd[r] as number); f++) {
        const u = fs[f] as number;
        if (!Number.isNaN(u)) sum += (signs[f] as number) * u;
        else z += signs[f] as number;
      }
      if (sum >= EXACT_UNITS || sum <= -EXACT_UNITS)
        throw new Error('a month sum is beyond 9×10^9, the largest ingest adds exactly');
      oz[r] = z;
      os[r] = z < (outCounts[r] as number) ? sum : Number.NaN;
    }
    for (const g of gone) {
      let sum = g.base >= 0 && !Number.isNaN(bs[g.base] as number) ? (bs[g.base] as number) : 0;
      let z = g.base >= 0 ? (bz[g.base] as number) : 0;
      for (let f = g.start; f < g.end; f++) {
        const u = fs[f] as number;
        if (!Number.isNaN(u)) sum += (signs[f] as number) * u;
        else z += signs[f] as number;
      }
      if (sum !== 0 || z !== 0)
        throw new Error(`the month's stored sums do not match the facts taken out (${label(g)})`);
    }
  }
  const outCodes = grain.map((_, d) => {
    const bk = base.keys[d] as Int32Array;
    const fk = facts.keys[d] as Int32Array;
    const out = new Int32Array(n);
    for (let r = 0; r < n; r++) {
      const b = fromBase[r] as number;
      out[r] = b >= 0 ? (bk[b] as number) : (fk[factStart[r] as number] as number);
    }
    return out;
  });
  return {
    grain,
    dicts,
    measures,
    size: n,
    keys: outCodes,
    sums: outSums,
    counts: outCounts.subarray(0, n),
    nulls: outNulls,
  };
}

const hasVideo = (v: CubeVariant) => v.grain.includes('video');

/**
 * Adds a cube's rows (in canonical order, holding the country) to a region-partitioned variant's partitions (grain:
 * the video, and dimensions before the slices): each video's rows are summed per region, video by video, so every
 * partition's rows come in canonical order. `out` keeps each partition's builder for the whole load.
 */
function byRegion(
  cube: UnitCube,
  variant: CubeVariant,
  measures: readonly number[],
  out: Map<string, UnitCubeBuilder>,
): void {
  if (cube.size === 0) return;
  const kind = variant.partitionBy as RegionKind;
  const names: string[] = [];
  const regionIds = new Map<string, number>();
  const regionAt = Int32Array.from(cube.dicts.of('country').values, (c) => {
    const value = regionOf(kind, c);
    if (value === '') return -1;
    let id = regionIds.get(value);
    if (id === undefined) {
      id = names.length;
      names.push(value);
      regionIds.set(value, id);
    }
    return id;
  });
  const country = cube.keys[cube.grain.indexOf('country')] as Int32Array;
  const columns = variant.grain.map((d) => cube.keys[cube.grain.indexOf(d)] as Int32Array);
  const from = measures.map((m) => cube.sums[cube.measures.indexOf(m)] as Float64Array);
  const builders = names.map(() => undefined as UnitCubeBuilder | undefined);
  // Each region's row for the current key: valid while openAt[region] is the current key's number.
  const openRow = new Int32Array(names.length);
  const openAt = new Int32Array(names.length).fill(-1);
  let key = -1;
  const codes = new Int32Array(columns.length);
  for (let i = 0; i < cube.size; i++) {
    let same = i > 0;
    for (let c = 0; c < columns.length && same; c++)
      same = (columns[c] as Int32Array)[i] === (columns[c] as Int32Array)[i - 1];
    if (!same) key++;
    const r = regionAt[country[i] as number] as number;
    if (r < 0) continue;
    let b = builders[r];
    if (!b) {
      const name = names[r] as string;
      b = out.get(name) ?? new UnitCubeBuilder(variant.grain, cube.dicts, measures, { capacity: 64 });
      out.set(name, b);
      builders[r] = b;
    }
    if (openAt[r] !== key) {
      for (let c = 0; c < columns.length; c++) codes[c] = (columns[c] as Int32Array)[i] as number;
      openRow[r] = b.addCodes(codes);
      openAt[r] = key;
    }
    const row = openRow[r] as number;
    for (let m = 0; m < from.length; m++) {
      const u = (from[m] as Float64Array)[i] as number;
      if (Number.isNaN(u)) continue;
      const column = b.sums[m] as Float64Array;
      const t = column[row] as number;
      column[row] = Number.isNaN(t) ? u : t + u;
    }
  }
}

export interface PipelineDay {
  readonly day: string;
  readonly facts: DayFacts;
  /** Write the full-day cube (false when it is stored already: a load finishing after a crash). */
  readonly writeFull: boolean;
}

export interface PipelineInput {
  readonly family: FamilyDef;
  readonly owner: string;
  readonly month: string;
  /** This load's chunk generation and manifest version. */
  readonly gen: string;
  readonly ver: number;
  readonly plan: FamilyPlan;
  /** The dictionaries every cube of the load codes its dimensions in. */
  readonly dicts: Dicts;
  /** Days whose day cubes and segments are written. */
  readonly days: readonly PipelineDay[];
  /** Days whose day cubes and segments are removed. */
  readonly removeDays?: readonly string[];
  /** The compaction number written on the month cubes, or on the pieces (month-pieces.ts). */
  readonly pb: number;
  /** How heads are sized (heads.ts HEAD_ROWS and REGIONAL_HEAD_FROM when absent). */
  readonly heads?: HeadSizes;
  /**
   * Write the days' pieces of the month's flat cubes instead of the month cubes (`root` absent), after the days'
   * full-day cubes (so a load undone after a crash wrote none); `removeDays` lose theirs.
   */
  readonly pieces?: boolean;
  /** With `pieces`: records new regional marks in the manifest of the load in flight, before they are written. */
  readonly recordMarks?: (marks: Record<string, string[]>) => Promise<void>;
  /** The month cubes: the stored root, and the facts added and taken out (absent: month cubes untouched). */
  readonly root?: {
    readonly stored?: AsyncIterable<UnitCube>;
    /** Facts added: indices into `days` (their rows are read once), and other facts (stored days, rebuilding). */
    readonly addDays: readonly number[];
    readonly add: readonly DayFacts[];
    readonly subtract: readonly DayFacts[];
  };
}

/**
 * A cube written through a CubeWriter, its first chunk (with `extra`) handed to `firsts` (runPipeline). With `keep`,
 * `finish` returns every item of the cube, the first first (to write the same cube at another key: a piece).
 */
type CubeFor = (
  variant: CubeVariant,
  partition: string | undefined,
  period: string,
  keep?: boolean,
) => {
  append(cube: UnitCube): Promise<void>;
  finish(firsts: Record<string, unknown>[], extra?: Record<string, unknown>): Promise<Record<string, unknown>[]>;
};

/** Runs the load's writes (see the module comment), updating the manifest's packing, partitions and chunk list. */
export async function runPipeline(
  writer: FactWriter,
  input: PipelineInput,
  manifest: MonthManifest,
  guard: Guard,
): Promise<void> {
  const { family, owner, month, gen, ver, plan, dicts } = input;
  const { measures } = plan;
  const pk = (variant: string, partition?: string) => keys.factPartition(family.code, owner, variant, partition);
  const header = (v: CubeVariant) => JSON.stringify({ g: v.grain, l: layoutOf(v) });
  const chunked = new ChunkRegistry(manifest.chunked);
  const firstsOfDays: Record<string, unknown>[] = [];
  const firstsOfMonth: Record<string, unknown>[] = [];

  /** A cube through a CubeWriter; its first chunk goes to `firsts`, stale chunks of an earlier generation noted. */
  const cubeFor: CubeFor = (variant, partition, period, keep = false) => {
    const { grain } = variant;
    const key = pk(variant.name, partition);
    const kept: Record<string, unknown>[] = [];
    const w = writer.cubeWriter(
      key,
      period,
      grain,
      dicts,
      measures,
      gen,
      guard,
      keep ? (i) => kept.push(i) : undefined,
      headSettings(grain, variant.partitionBy, measures, input.heads),
    );
    return {
      append: w.append,
      async finish(firsts: Record<string, unknown>[], extra: Record<string, unknown> = {}) {
        const done = await w.finish(extra);
        firsts.push(done.item);
        chunked.written(key, period, gen, done.chunks);
        return keep ? [done.item, ...kept] : [];
      },
    };
  };
  /**
   * A day's cube written again as the day's piece of a month cube (the same rows, so the same items at other keys):
   * its first chunk, with the compaction number, goes to `firsts`; the others go out now.
   */
  const copyAsPiece = async (
    items: readonly Record<string, unknown>[],
    variant: string,
    period: string,
    firsts: Record<string, unknown>[],
  ) => {
    const key = pk(variant);
    const from = String(items[0]?.sk);
    const copies = items.map((item) => {
      const { mv: _version, ...rest } = item;
      return { ...rest, pk: key, sk: period + String(item.sk).slice(from.length) };
    });
    const [first, ...chunks] = copies;
    if (!first) throw new Error(`${variant} ${period}: no cube to copy`);
    await writer.putItems(chunks, guard);
    firsts.push({ ...first, pb: input.pb });
    chunked.written(key, period, gen, copies.length);
  };

  const days = input.days.map((d) => ({
    ...d,
    dd: d.day.slice(8, 10),
    full: d.writeFull ? cubeFor(plan.full, undefined, keys.factDaySk(d.day)) : undefined,
    /** The items of the day's cubes a piece copies (variant → items), when pieces are written. */
    copies: new Map<string, Record<string, unknown>[]>(),
    videoParts: new Map(plan.day.filter(hasVideo).map((v) => [v.name, [] as UnitCube[]])),
    totals: new Map(
      plan.day.filter((v) => !hasVideo(v)).map((v) => [v.name, new UnitAccumulator(v.grain, dicts, measures)]),
    ),
  }));
  /** The countries of the pieces' rows (codes of the load's dictionary): the regional partitions to mark. */
  const countries = new Set<number>();
  const root = input.root;
  const stored = root?.stored ? new GroupReader(root.stored) : undefined;
  const rootWriter = root ? cubeFor(plan.root, undefined, keys.factMonthSk(month)) : undefined;
  const monthVideo = new Map(
    plan.month.filter((v) => hasVideo(v) && !v.partitionBy).map((v) => [v.name, [] as UnitCube[]]),
  );
  const monthTotals = new Map(
    plan.month
      .filter((v) => !hasVideo(v) && !v.partitionBy)
      .map((v) => [v.name, new UnitAccumulator(v.grain, dicts, measures)]),
  );
  const regional = plan.month.filter((v) => v.partitionBy !== undefined);
  const regions = new Map(regional.map((v) => [v.name, new Map<string, UnitCubeBuilder>()]));

  const packing = { ...manifest.packing };
  const removed = new Set(input.removeDays ?? []);
  /**
   * Per by-bucket variant, per day (dd): its buckets in the storage group being filled, as blobs, or as unit cubes
   * where the days become the month's cubes (views of the day's rows, which the month's `v` keeps anyway).
   */
  const bucketPieces = new Map(
    plan.grouped.map(({ variant }) => [variant.name, new Map<string, (DayPiece | BucketCube)[]>()]),
  );
  // A load of every day the month holds (a batch of a month's files, a rebuild) writes the daily variants' month
  // items: one item per storage group for the month, not one a day (by-day-items.ts monthItems). Days removed count
  // as loaded, so a load undone after a crash decides as the load did (and rewrites the month item it may have left).
  const loading = new Set(input.days.map((d) => d.day));
  const whole =
    loading.size + removed.size >= 2 && Object.keys(manifest.days).every((day) => loading.has(day) || removed.has(day));
  /** Whether `variant`'s days stay unit cubes until they become its month's cubes (by-day-items.ts monthCubeItems). */
  const asCubes = (variant: string) => whole && daysBecomeCubes(variant);
  // The month holds all its days after the load (removed days counted as held: an undo decides as the load did).
  const complete = new Set([...Object.keys(manifest.days), ...loading, ...removed]).size >= daysIn(month);
  const dailyPuts: Record<string, unknown>[] = [];
  // Daily items go out while the next groups are computed; awaited after the loop.
  const dailyWrites: Promise<void>[] = [];
  const flushDaily = () => {
    const put = writer.putItems(dailyPuts.splice(0), guard);
    put.catch(() => undefined); // awaited below
    dailyWrites.push(put);
  };
  for (let g = 0; g < GROUPS; g++) {
    // A turn of the event loop between steps: the encode is synchronous, and without it the load's pending record,
    // and the items flushed so far, would not go out (nor their answers be read) until every step was done.
    if (g > 0) await setImmediate();
    const rows = await Promise.all(days.map((d) => d.facts.group(g)));
    for (const [i, d] of days.entries()) {
      const cube = rows[i] as UnitCube;
      await d.full?.append(cube);
      if (input.pieces) countriesOf(cube, countries);
      const dayCubes = new Map<string, UnitCube>([[plan.full.name, cube]]);
      for (const v of plan.day) {
        if (hasVideo(v)) {
          const part = rollupSorted(cube, v.grain, measures);
          d.videoParts.get(v.name)?.push(part);
          dayCubes.set(v.name, part);
        } else d.totals.get(v.name)?.add(cube);
      }
      for (const { variant, from } of plan.grouped) {
        const byDay = bucketPieces.get(variant.name) as Map<string, (DayPiece | BucketCube)[]>;
        const pieces = byDay.get(d.dd) ?? [];
        const cubes = asCubes(variant.name);
        for (const [bucket, part] of byBucket(dayCubes.get(from.name) as UnitCube)) {
          if (cubes) pieces.push({ field: bucket, cube: part });
          else
            for (const p of encodeToFit(part, encodeBlob, (b) => b.length, ITEM_BYTES / 2))
              pieces.push({ field: bucket, blob: p.encoded });
        }
        byDay.set(d.dd, pieces);
      }
    }
    // Storage groups complete (their last bucket done): write their days.
    for (const { variant } of plan.grouped) {
      const perGroup = bucketsPerGroup(variant.name);
      const done = Math.floor(((g + 1) * BUCKETS_PER_STEP) / perGroup);
      const first = Math.floor((g * BUCKETS_PER_STEP) / perGroup);
      if (done === first) continue;
      const all = bucketPieces.get(variant.name) as Map<string, (DayPiece | BucketCube)[]>;
      bucketPieces.set(variant.name, new Map());
      for (let k = first; k < done; k++) {
        const group = `g${String(k).padStart(2, '0')}`;
        const inGroup = (p: DayPiece | BucketCube) =>
          'field' in p && Math.floor(Number(p.field.slice(1)) / perGroup) === k;
        const pieces = new Map([...all].map(([dd, list]) => [dd, list.filter(inGroup)]));
        for (const d of days) if (!pieces.has(d.dd)) pieces.set(d.dd, []);
        for (const day of removed) pieces.set(day.slice(8, 10), []);
        const key = `${variant.name}#${group}`;
        const at = [month, key, pk(variant.name, group), header(variant)] as const;
        const { items, gone } = asCubes(variant.name)
          ? monthCubeItems(...at, pieces as Map<string, BucketCube[]>, manifest)
          : (whole ? monthItems : dailyItems)(...at, pieces as Map<string, DayPiece[]>, manifest);
        dailyPuts.push(...items);
        chunked.stale.push(...gone);
        if (dailyPuts.length >= 25) flushDaily();
      }
    }
    if (root && rootWriter) {
      const storedRows = stored ? await stored.take(g) : [];
      const adds = [
        ...root.addDays.map((i) => rows[i] as UnitCube),
        ...(await Promise.all(root.add.map((f) => f.group(g)))),
      ];
      const subtracts = await Promise.all(root.subtract.map((f) => f.group(g)));
      const merged = mergeRoot(plan.root.grain, dicts, measures, storedRows, adds, subtracts);
      await rootWriter.append(merged);
      for (const [name, parts] of monthVideo) {
        const v = plan.month.find((x) => x.name === name) as CubeVariant;
        parts.push(rollupSorted(merged, v.grain, measures));
      }
      for (const [_name, totals] of monthTotals) totals.add(merged);
      for (const v of regional) {
        byRegion(merged, v, measures, regions.get(v.name) as Map<string, UnitCubeBuilder>);
      }
    }
  }
  flushDaily();
  if (plan.grouped.length > 0) manifest.daily = whole ? [] : ownDaysWith(manifest, [...loading, ...removed]);
  const daily = Promise.all(dailyWrites);
  daily.catch(() => undefined); // awaited below

  // Day cubes, then the by-day variants built from them.
  const dayCubes = new Map<string, Map<string, UnitCube>>();
  for (const d of days) {
    const period = keys.factDaySk(d.day);
    const cubes = new Map<string, UnitCube>();
    for (const v of plan.day) {
      const cube = hasVideo(v)
        ? concatUnits(d.videoParts.get(v.name) as UnitCube[])
        : (d.totals.get(v.name) as UnitAccumulator).result();
      cubes.set(v.name, cube);
      const w = cubeFor(v, undefined, period, input.pieces === true);
      await w.append(cube);
      d.copies.set(v.name, await w.finish(firstsOfDays));
    }
    dayCubes.set(d.day, cubes);
    await d.full?.finish(firstsOfDays, { mv: ver });
  }
  // The by-day variants' items are apart: written at once.
  const byDayWrites = plan.byDay.map(async ({ variant, from }) => {
    const write: ByDayWrite = {
      key: variant.name,
      pk: pk(variant.name),
      header: header(variant),
      days: new Map([
        ...days.map((d): [string, DayPiece[]] => {
          const cube = dayCubes.get(d.day)?.get(from.name) as UnitCube;
          const pieces = encodeToFit(
            cube,
            (c) => encodeBlob(c, DAY_BLOB_DEFLATE_FROM),
            (b) => b.length,
            ITEM_BYTES / 2,
          );
          return [d.dd, cube.size === 0 ? [] : pieces.map((p) => ({ day: p.encoded }))];
        }),
        ...[...removed].map((day): [string, DayPiece[]] => [day.slice(8, 10), []]),
      ]),
    };
    const loaded = new Map(days.map((d) => [d.dd, dayCubes.get(d.day)?.get(from.name) as UnitCube]));
    const monthWrite = { write, grain: variant.grain, dicts, measures, dayCubes: loaded, whole, complete };
    packing[variant.name] = await writeByDayMonth(writer, month, monthWrite, packing[variant.name], guard);
  });
  for (const w of byDayWrites) w.catch(() => undefined); // awaited below
  for (const day of removed) {
    for (const v of [plan.full, ...plan.day]) await writer.removeCube(pk(v.name), keys.factDaySk(day), guard);
  }
  if (input.pieces) {
    // A load of pieces keeps no order among these: month-load.ts finishes it from the days' full-day cubes, or
    // undoes it (the pieces of new days removed, the others rewritten from the backups), whatever got written.
    await Promise.all([
      daily,
      ...byDayWrites,
      writer.putItems(firstsOfDays, guard),
      writePieces(writer, input, copyAsPiece, days, countries, manifest, chunked, guard),
    ]);
  } else {
    await daily;
    await Promise.all(byDayWrites);
    await writer.putItems(firstsOfDays, guard);
  }

  if (root && rootWriter) {
    await rootWriter.finish(firstsOfMonth, { mv: ver, pb: input.pb });
    await writer.putItems(firstsOfMonth.splice(0), guard);
    // The other month cubes' first chunks go out 25 at a time while the next ones are encoded (their order among
    // themselves does not matter: each is whole once written, and a load finishing after a crash rewrites them all).
    const puts: Promise<void>[] = [];
    const send = (all: boolean) => {
      while (firstsOfMonth.length >= 25 || (all && firstsOfMonth.length > 0)) {
        const put = writer.putItems(firstsOfMonth.splice(0, 25), guard);
        put.catch(() => undefined); // awaited below
        puts.push(put);
      }
    };
    const period = keys.factMonthSk(month);
    for (const [name, parts] of monthVideo) {
      const v = plan.month.find((x) => x.name === name) as CubeVariant;
      const w = cubeFor(v, undefined, period);
      for (const part of parts) await w.append(part);
      await w.finish(firstsOfMonth, { pb: input.pb });
    }
    for (const [name, totals] of monthTotals) {
      const v = plan.month.find((x) => x.name === name) as CubeVariant;
      const w = cubeFor(v, undefined, period);
      await w.append(totals.result());
      await w.finish(firstsOfMonth, { pb: input.pb });
    }
    for (const v of regional) {
      const partitions = regions.get(v.name) as Map<string, UnitCubeBuilder>;
      // A partition holding pieces gets a cube even without rows: its number tells readers the pieces are folded.
      for (const record of Object.values(manifest.pieces ?? {}))
        for (const value of record[v.name] ?? [])
          if (!partitions.has(value)) partitions.set(value, new UnitCubeBuilder(v.grain, dicts, measures));
      for (const [value, builder] of [...partitions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        const w = cubeFor(v, value, period);
        // Its rows come in the merged root's canonical order, so a headed one's head indexes its row chunks (heads.ts).
        await w.append(builder.build());
        await w.finish(firstsOfMonth, { pb: input.pb });
        send(false);
      }
      const now = [...partitions.keys()].sort();
      for (const value of manifest.partitions[v.name] ?? []) {
        if (!partitions.has(value)) await writer.removeCube(pk(v.name, value), period, guard);
      }
      manifest.partitions[v.name] = now;
    }
    send(true);
    await Promise.all(puts);
    // The pieces are folded into the cubes just written (with the next number): they go, and the marks with them.
    const folded = [
      ...Object.entries(manifest.pieces ?? {}).flatMap(([dd, record]) => pieceKeys(input, dd, record, chunked)),
      ...Object.entries(manifest.marks ?? {}).flatMap(([name, values]) =>
        values.map((value) => ({ pk: pk(name, value), sk: keys.factOpenSk(month) })),
      ),
    ];
    await writer.deleteKeys(folded, guard);
    manifest.pieces = {};
    manifest.marks = {};
    manifest.pb = input.pb;
  }
  await writer.deleteKeys(chunked.stale, guard);
  manifest.packing = packing;
  manifest.chunked = chunked.list();
}

/** A cube's rows per video bucket (rows are in bucket order), by bucket name; rows without a video left out. */
function byBucket(cube: UnitCube): Map<string, UnitCube> {
  const v = cube.grain.indexOf('video');
  const out = new Map<string, UnitCube>();
  if (v < 0) return out;
  const videos = cube.keys[v] as Int32Array;
  const buckets = cube.dicts.of('video').buckets();
  let start = 0;
  for (let i = 1; i <= cube.size; i++) {
    const b = buckets[videos[start] as number] as number;
    if (i < cube.size && buckets[videos[i] as number] === b) continue;
    if (b >= 0) out.set(`b${String(b).padStart(3, '0')}`, sliceUnits(cube, start, i));
    start = i;
  }
  return out;
}

/** The keys of a day's pieces (dd) of every flat month cube: root, the others, the regional partitions listed. */
function pieceKeys(
  input: PipelineInput,
  dd: string,
  regional: Readonly<Record<string, readonly string[]>>,
  chunked: ChunkRegistry,
  onlyRegional = false,
): TableKey[] {
  const { family, owner, month, plan } = input;
  const period = keys.factPieceSk(month, dd);
  const flat = [plan.root, ...plan.month.filter((v) => !v.partitionBy)];
  const cubes = [
    ...(onlyRegional ? [] : flat.map((v) => keys.factPartition(family.code, owner, v.name))),
    ...plan.month.flatMap((v) =>
      (regional[v.name] ?? []).map((value) => keys.factPartition(family.code, owner, v.name, value)),
    ),
  ];
  return cubes.flatMap((pk) => [{ pk, sk: period }, ...chunked.removed(pk, period)]);
}

/** Adds the country codes of a cube's rows to `into` (nothing when its grain has no country). */
function countriesOf(cube: UnitCube, into: Set<number>): void {
  const c = cube.grain.indexOf('country');
  if (c < 0) return;
  const codes = cube.keys[c] as Int32Array;
  for (let i = 0; i < cube.size; i++) into.add(codes[i] as number);
}

/**
 * The pieces of the days loaded (month-pieces.ts), under the month's number: of `g` and `v`, the day's cubes of the
 * same grain written again at the piece's key (from their items); of the root, an item saying the piece is the day's
 * full-day cube; of the regional cubes none, but a mark in each regional partition the days' rows fall in and not
 * marked since the last compaction (the manifest lists those), so a report reading it adds those days' rows.
 */
async function writePieces(
  writer: FactWriter,
  input: PipelineInput,
  copyAsPiece: (
    items: readonly Record<string, unknown>[],
    variant: string,
    period: string,
    firsts: Record<string, unknown>[],
  ) => Promise<void>,
  days: readonly { day: string; dd: string; copies: ReadonlyMap<string, readonly Record<string, unknown>[]> }[],
  countries: ReadonlySet<number>,
  manifest: MonthManifest,
  chunked: ChunkRegistry,
  guard: Guard,
): Promise<void> {
  const { family, owner, month, plan, pb, dicts } = input;
  const marks = { ...(manifest.marks ?? {}) };
  const markItems: Record<string, unknown>[] = [];
  const names = [...countries].map((code) => dicts.of('country').values[code] as string);
  for (const v of plan.month) {
    if (!v.partitionBy) continue;
    const kind = v.partitionBy as RegionKind;
    const held = new Set(marks[v.name] ?? []);
    for (const country of names) {
      const region = regionOf(kind, country);
      if (region === '' || held.has(region)) continue;
      held.add(region);
      markItems.push({
        pk: keys.factPartition(family.code, owner, v.name, region),
        sk: keys.factOpenSk(month),
        entity: FACT_ENTITY,
        pb,
      });
    }
    marks[v.name] = [...held].sort();
  }
  // Recorded first (a round trip, only when a partition is marked anew): a load dying after writing a mark leaves
  // it listed, so the next compaction deletes it.
  const marking = markItems.length === 0 ? Promise.resolve() : recordThenPut();
  marking.catch(() => undefined); // awaited below
  async function recordThenPut() {
    if (!input.recordMarks) throw new Error('a load of pieces records its marks');
    await input.recordMarks(marks);
    await writer.putItems(markItems, guard);
  }

  const records = { ...(manifest.pieces ?? {}) };
  const gone: TableKey[] = [];
  for (const d of days) {
    const period = keys.factPieceSk(month, d.dd);
    // The root's piece is the day's full-day cube itself: an item with no data of its own says so (month-pieces.ts).
    const firsts: Record<string, unknown>[] = [
      { pk: keys.factPartition(family.code, owner, plan.root.name), sk: period, entity: FACT_ENTITY, pb },
    ];
    for (const v of plan.month) {
      if (v.partitionBy) continue;
      const same = plan.day.find((x) => sameGrain(x.grain, v.grain));
      if (!same) throw new Error(`${family.code}: no day cube of the grain of month cube ${v.name}`);
      await copyAsPiece(d.copies.get(same.name) ?? [], v.name, period, firsts);
    }
    await writer.putItems(firsts, guard);
    // Regional pieces an earlier release wrote for this day.
    gone.push(...pieceKeys(input, d.dd, records[d.dd] ?? {}, chunked, true));
    records[d.dd] = {};
  }
  for (const day of input.removeDays ?? []) {
    const dd = day.slice(8, 10);
    gone.push(...pieceKeys(input, dd, records[dd] ?? {}, chunked));
    delete records[dd];
  }
  await writer.deleteKeys(gone, guard);
  await marking;
  manifest.pieces = records;
  manifest.marks = marks;
}
