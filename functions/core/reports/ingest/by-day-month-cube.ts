/**
 * A by-day variant's month (`d`, `gd`) as one column cube in its month item `M#<month>` (the `day` column among its
 * dimensions), in place of a blob per day (by-day-items.ts). A day's blob holds every column of its day with its own
 * dictionaries, so a report reads and inflates all of it; a month's column holds one measure or dimension of every
 * day, deflates better and is read alone: the bench's by-day months are 0.2–0.8 times the blobs' bytes, and a year
 * of one measure by country inflates 12 columns, not 365 blobs (docs/scale.md).
 *
 * A load of every day the month holds, a load after which the month has all its days, and any load into a cube
 * month write the cube (the month's other days read back); loads into an open month keep writing blobs. A cube that
 * would not fit its item is written as blobs. A cube in the month item is the month: readers and the rewrite here
 * ignore blobs beside it (a crash's leftovers), so a load undone or finished after a crash ends with the right cube.
 */
import { attributesSize, type CubeAttributes } from '../storage/cube-codec';
import type { FactWriter, Guard, Packing } from '../storage/fact-writer';
import {
  DAY_BLOB_DEFLATE_FROM,
  decodeByDayMonth,
  encodeBlob,
  encodeToFit,
  encodeUnitCube,
  fromStored,
} from '../storage/unit-codec';
import { type Dicts, emptyUnitCube, type UnitCube, UnitCubeBuilder } from '../storage/units';
import { type ByDayWrite, type DayPiece, ITEM_BYTES, itemSk, partSk, writeByDay } from './by-day-items';

/** A month written whole is a cube up to this size: a rewrite then has room for its days to grow. */
export const MONTH_CUBE_BYTES = ITEM_BYTES / 2;

export interface MonthCubeWrite {
  readonly write: ByDayWrite;
  /** The variant's grain (holding `day`), the load's dictionaries and the family's measures. */
  readonly grain: readonly string[];
  readonly dicts: Dicts;
  readonly measures: readonly number[];
  /** The loaded days' cubes at the grain without `day` (dd → cube); days removed are in write.days with no pieces. */
  readonly dayCubes: ReadonlyMap<string, UnitCube>;
  /** The load holds every day the month has: nothing to read back. */
  readonly whole: boolean;
  /**
   * The month has all its days after the load (days the load removes counted, so a load undone after a crash
   * decides as the load did).
   */
  readonly complete: boolean;
}

/**
 * Writes a load's days of a by-day month and returns the month's packing: as a cube when the load is whole, the
 * month complete or a cube already (and it fits), else as blobs (writeByDay).
 */
export async function writeByDayMonth(
  writer: FactWriter,
  month: string,
  m: MonthCubeWrite,
  old: Packing | undefined,
  guard: Guard,
): Promise<Packing> {
  const { write } = m;
  if (write.days.size === 0) return old ?? { sizes: {}, items: [], big: {} };
  if (!m.whole && !m.complete && old?.cube === undefined) return writeByDay(writer, month, write, old, guard);
  const kept = m.whole ? undefined : await storedMonth(writer, month, m);
  const cube = monthCube(month, m, kept);
  const attributes = encodeUnitCube(cube);
  const size = attributesSize(attributes);
  if (size <= (old?.cube === undefined ? MONTH_CUBE_BYTES : ITEM_BYTES))
    return putMonthCube(writer, month, write, attributes, size, old, guard);
  // Too large for its item: every day as blobs (days no longer held emptied), the cube's item rewritten whole.
  const days = dayPieces(cube);
  for (const dd of [...Object.keys(old?.sizes ?? {}), ...Object.keys(old?.big ?? {})])
    if (!days.has(dd)) days.set(dd, []);
  return writeByDay(writer, month, { ...write, days }, old, guard);
}

/** The month as stored, at the variant's grain, as readers take it (decodeByDayMonth). */
async function storedMonth(writer: FactWriter, month: string, m: MonthCubeWrite): Promise<UnitCube> {
  const stored = decodeByDayMonth(m.grain, month, await writer.readByDayItems(m.write.pk, month));
  return stored ? fromStored(stored, m.dicts, m.measures) : emptyUnitCube(m.grain, m.dicts, m.measures);
}

/**
 * The month's rows in day order: the stored cube's days the load does not touch, and the loaded days' cubes. Rows of
 * a day keep their order, so any sequence of loads of the same days gives the same cube.
 */
export function monthCube(month: string, m: MonthCubeWrite, stored: UnitCube | undefined): UnitCube {
  const { grain, dicts, measures } = m;
  const at = grain.indexOf('day');
  const days = dicts.of('day');
  const out = new UnitCubeBuilder(grain, dicts, measures);
  const codes = new Int32Array(grain.length);
  const copy = (from: UnitCube, i: number, day: number) => {
    for (let d = 0, s = 0; d < grain.length; d++) {
      if (d === at && from.grain.length < grain.length) codes[d] = day;
      else codes[d] = (from.keys[s++] as Int32Array)[i] as number;
    }
    const row = out.addCodes(codes);
    for (let j = 0; j < measures.length; j++) out.addUnits(row, j, (from.sums[j] as Float64Array)[i] as number);
  };
  // The stored rows by day (dd), those of days the load writes left out.
  const storedRows = new Map<string, number[]>();
  if (stored) {
    const column = stored.keys[at] as Int32Array;
    for (let i = 0; i < stored.size; i++) {
      const dd = (days.values[column[i] as number] as string).slice(8, 10);
      if (m.write.days.has(dd)) continue;
      const list = storedRows.get(dd) ?? [];
      list.push(i);
      storedRows.set(dd, list);
    }
  }
  for (const dd of [...new Set([...storedRows.keys(), ...m.dayCubes.keys()])].sort()) {
    const day = days.code(`${month}-${dd}`);
    const loaded = m.dayCubes.get(dd);
    if (loaded) for (let i = 0; i < loaded.size; i++) copy(loaded, i, day);
    else for (const i of storedRows.get(dd) ?? []) copy(stored as UnitCube, i, day);
  }
  return out.build();
}

/** A month cube's days as blobs (dd → pieces), each day's rows at the grain without `day`. */
function dayPieces(cube: UnitCube): Map<string, DayPiece[]> {
  const at = cube.grain.indexOf('day');
  const grain = cube.grain.filter((_, d) => d !== at);
  const byDay = new Map<string, UnitCubeBuilder>();
  const column = cube.keys[at] as Int32Array;
  const codes = new Int32Array(grain.length);
  for (let i = 0; i < cube.size; i++) {
    const dd = (cube.dicts.of('day').values[column[i] as number] as string).slice(8, 10);
    let b = byDay.get(dd);
    if (!b) {
      b = new UnitCubeBuilder(grain, cube.dicts, cube.measures);
      byDay.set(dd, b);
    }
    for (let d = 0, s = 0; d < cube.grain.length; d++)
      if (d !== at) codes[s++] = (cube.keys[d] as Int32Array)[i] as number;
    const row = b.addCodes(codes);
    for (let j = 0; j < cube.sums.length; j++) b.addUnits(row, j, (cube.sums[j] as Float64Array)[i] as number);
  }
  return new Map(
    [...byDay].map(([dd, b]) => [
      dd,
      encodeToFit(
        b.build(),
        (c) => encodeBlob(c, DAY_BLOB_DEFLATE_FROM),
        (x) => x.length,
        ITEM_BYTES / 2,
      ).map((p) => ({
        day: p.encoded,
      })),
    ]),
  );
}

/** Puts the month's cube item, then clears the items of its blobs (new places before old ones go). */
async function putMonthCube(
  writer: FactWriter,
  month: string,
  write: ByDayWrite,
  attributes: CubeAttributes,
  size: number,
  old: Packing | undefined,
  guard: Guard,
): Promise<Packing> {
  await writer.putByDayItem({ pk: write.pk, sk: itemSk(month, 0), ...attributes }, guard);
  const gone = [
    ...(old?.items ?? []).slice(1).map((_, i) => itemSk(month, i + 1)),
    ...Object.entries(old?.big ?? {}).flatMap(([dd, parts]) =>
      Array.from({ length: parts }, (_, p) => partSk(month, dd, p)),
    ),
  ];
  if (gone.length > 0)
    await writer.deleteKeys(
      gone.map((sk) => ({ pk: write.pk, sk })),
      guard,
    );
  return { sizes: {}, items: [], big: {}, cube: size };
}
