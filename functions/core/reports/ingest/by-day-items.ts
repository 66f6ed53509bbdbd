/**
 * The items of the by-day month variants (cube.ts layouts byDay and grouped): one attribute `s<dd>` per day with
 * data, so loading a day sets that attribute and leaves the month's other days alone, whatever their number. A byDay
 * variant's day is one blob (unit-codec.ts encodeBlob: its rows, every dimension and measure); releases before it
 * wrote a map of columns instead, which readers still decode. Days
 * are packed in day order into items of at most ITEM_BYTES (greedy: the packing depends only on the days' sizes, so
 * any sequence of loads packs a month as one load of its days does): `M#<month>`, then `M#<month>#001`, … A day too
 * large to share an item has part items of its own, `M#<month>#d<dd>#000`, … (each holding some of its pieces under
 * the same attribute name, which a reader's projection picks up in every part). A month of d or gd loaded whole or
 * completed is one column cube instead (by-day-month-cube.ts), which writes through here when it goes back to blobs.
 */
import * as keys from '../../db/keys';
import { encodeCubeBlob } from '../storage/cube-blob';
import { FACT_ENTITY, type FactWriter, type Guard, type Packing } from '../storage/fact-writer';
import { cubeOfDays, decodeBlobs, encodeBlob, encodeDayBlobs, encodeToFit, storedBlob } from '../storage/unit-codec';
import type { UnitCube } from '../storage/units';

/** Room for a day's data in a month item (DynamoDB's limit is 400 KB an item, key and header included). */
export const ITEM_BYTES = 350 * 1024;

/**
 * One day's value in a by-day item: the day's blob (byDay variants), or a map of bucket fields to blobs (grouped). A
 * value too large for one item comes in pieces (a day's rows split into several blobs; bucket fields, a large one
 * split by rows into several blobs under the same field name), each placed whole.
 */
export type DayPiece = { day: Uint8Array } | { field: string; blob: Uint8Array };

export interface ByDayWrite {
  /** The manifest's packing key: `d`, `gd`, `vb#g07`. */
  readonly key: string;
  readonly pk: string;
  /** The header items get when created. */
  readonly header: string;
  /** Days (dd) being written: their pieces, or [] when the day has no rows here (its attribute goes). */
  readonly days: ReadonlyMap<string, readonly DayPiece[]>;
}

export const dayAttribute = (dd: string) => `s${dd}`;
/** The place of a month cube in a packing rewritten as blobs: a day no load writes. */
const CUBE_SLOT = '00';
export const itemSk = (month: string, i: number) =>
  i === 0 ? keys.factMonthSk(month) : `${keys.factMonthSk(month)}#${String(i).padStart(3, '0')}`;
export const partSk = (month: string, dd: string, p: number) =>
  `${keys.factMonthSk(month)}#d${dd}#${String(p).padStart(3, '0')}`;

const pieceSize = (p: DayPiece) => ('day' in p ? p.day.length : p.field.length + 3 + p.blob.length);
const daySize = (pieces: readonly DayPiece[]) => 3 + pieces.reduce((n, p) => n + pieceSize(p), 0);

/** A day's attribute value from pieces that share an item: the day's blob, or the map of bucket fields. */
function attributeValue(pieces: readonly DayPiece[]): unknown {
  const first = pieces[0] as DayPiece;
  if ('day' in first) return first.day;
  return Object.fromEntries(pieces.map((p) => [(p as { field: string }).field, (p as { blob: Uint8Array }).blob]));
}

/** Pieces in parts of at most ITEM_BYTES, a day's blob or a repeated field starting a new part. */
export function partsOf(pieces: readonly DayPiece[]): DayPiece[][] {
  const parts: DayPiece[][] = [];
  let current: DayPiece[] = [];
  let size = 0;
  const fields = new Set<string>();
  for (const p of pieces) {
    const n = pieceSize(p);
    const clash = 'day' in p ? current.length > 0 : fields.has(p.field);
    if (current.length > 0 && (clash || size + n > ITEM_BYTES)) {
      parts.push(current);
      current = [];
      size = 0;
      fields.clear();
    }
    current.push(p);
    size += n;
    if ('field' in p) fields.add(p.field);
  }
  if (current.length > 0) parts.push(current);
  return parts;
}

/** Days in day order into items of at most ITEM_BYTES each. */
export function pack(sizes: Readonly<Record<string, number>>): string[][] {
  const items: string[][] = [];
  let current: string[] = [];
  let size = 0;
  for (const dd of Object.keys(sizes).sort()) {
    const n = sizes[dd] as number;
    if (current.length > 0 && size + n > ITEM_BYTES) {
      items.push(current);
      current = [];
      size = 0;
    }
    current.push(dd);
    size += n;
  }
  if (current.length > 0) items.push(current);
  return items;
}

/**
 * Writes the days of `write` into the month's items and returns the new packing. Items whose other days stay put
 * get one UpdateItem (the common case: a day set or replaced where it was, or added at the end); an item whose
 * other days move is rewritten whole from what the items hold. New places are written before old ones are
 * cleared. Every step can be repeated (a load finishing after a crash does).
 */
export async function writeByDay(
  writer: FactWriter,
  month: string,
  write: ByDayWrite,
  old: Packing | undefined,
  guard: Guard,
): Promise<Packing> {
  // A month stored as one cube (by-day-month-cube.ts) going back to blobs: its item is rewritten whole, as an item
  // holding a day no longer in it is, so none of the cube's columns stay beside the blobs.
  const before: Packing =
    old?.cube !== undefined ? { sizes: {}, items: [[CUBE_SLOT]], big: {} } : (old ?? { sizes: {}, items: [], big: {} });
  const sizes = { ...before.sizes };
  const big: Record<string, number> = { ...(before.big ?? {}) };
  const touched = new Set(write.days.keys());
  for (const [dd, pieces] of write.days) {
    delete sizes[dd];
    delete big[dd];
    if (pieces.length === 0) continue;
    const n = daySize(pieces);
    if (n > ITEM_BYTES) big[dd] = partsOf(pieces).length;
    else sizes[dd] = n;
  }
  const items = pack(sizes);
  const after: Packing = { sizes, items, big };

  let stored: Map<string, Record<string, unknown>> | undefined;
  /** The value a day has in the items now (read once, when a rewrite needs days it is not given). */
  const storedValue = async (dd: string) => {
    if (!stored) {
      stored = new Map();
      for (const item of await writer.readByDayItems(write.pk, month)) {
        if (String(item.sk).includes('#d')) continue; // part items of large days
        for (const [name, value] of Object.entries(item))
          if (/^s\d\d$/.test(name)) stored.set(name.slice(1), value as Record<string, unknown>);
      }
    }
    const value = stored.get(dd);
    if (value === undefined) throw new Error(`${write.pk} ${month}: day ${dd} is in the packing but in no item`);
    return value;
  };

  const adds: (() => Promise<void>)[] = [];
  const removes: (() => Promise<void>)[] = [];
  const count = Math.max(items.length, before.items.length);
  for (let i = 0; i < count; i++) {
    const was = before.items[i] ?? [];
    const now = items[i] ?? [];
    const key = { pk: write.pk, sk: itemSk(month, i) };
    if (now.length === 0) {
      removes.push(() => writer.deleteKeys([key], guard));
      continue;
    }
    const others = (list: readonly string[]) => list.filter((dd) => !touched.has(dd)).join(',');
    if (others(was) === others(now)) {
      const set = Object.fromEntries(
        now.filter((dd) => touched.has(dd)).map((dd) => [dayAttribute(dd), attributeValue(write.days.get(dd) ?? [])]),
      );
      const gone = was.filter((dd) => touched.has(dd) && !now.includes(dd)).map(dayAttribute);
      if (Object.keys(set).length > 0) adds.push(() => writer.updateDays(key, write.header, set, [], guard));
      if (gone.length > 0) removes.push(() => writer.updateDays(key, write.header, {}, gone, guard));
      continue;
    }
    const values: Record<string, unknown> = {};
    for (const dd of now) {
      values[dayAttribute(dd)] = touched.has(dd) ? attributeValue(write.days.get(dd) ?? []) : await storedValue(dd);
    }
    adds.push(() => writer.putByDayItem({ ...key, h: write.header, ...values }, guard));
  }
  for (const [dd, parts] of Object.entries(big)) {
    if (!touched.has(dd)) continue;
    partsOf(write.days.get(dd) ?? []).forEach((part, p) => {
      adds.push(() =>
        writer.putByDayItem(
          { pk: write.pk, sk: partSk(month, dd, p), h: write.header, [dayAttribute(dd)]: attributeValue(part) },
          guard,
        ),
      );
    });
    const had = before.big?.[dd] ?? 0;
    if (had > parts) {
      const extra = Array.from({ length: had - parts }, (_, k) => ({ pk: write.pk, sk: partSk(month, dd, parts + k) }));
      removes.push(() => writer.deleteKeys(extra, guard));
    }
  }
  for (const [dd, had] of Object.entries(before.big ?? {})) {
    if (!touched.has(dd) || big[dd] !== undefined) continue;
    const gone = Array.from({ length: had }, (_, k) => ({ pk: write.pk, sk: partSk(month, dd, k) }));
    removes.push(() => writer.deleteKeys(gone, guard));
  }
  for (const step of adds) await step();
  for (const step of removes) await step();
  return after;
}

/** What the writers of daily variants' items read and update of a month's manifest (fact-writer.ts MonthManifest). */
export interface DailyManifest {
  days: Readonly<Record<string, unknown>>;
  parts?: Record<string, Record<string, number>>;
  daily?: string[];
}

/** Writes a storage group's days (dd → pieces; [] when it has no rows) of `month`: the items to put and to delete. */
type DailyWrite = (
  month: string,
  key: string,
  pk: string,
  header: string,
  days: ReadonlyMap<string, readonly DayPiece[]>,
  manifest: DailyManifest,
) => { items: Record<string, unknown>[]; gone: { pk: string; sk: string }[] };

/** The entry of a key's `parts` counting its month item's parts (a day's entry is its dd, 01–31). */
export const MONTH_ITEM = '00';

const partSuffix = (p: number) => (p === 0 ? '' : `#${String(p).padStart(3, '0')}`);
/** Part p of a day's item (`D#2026-04-07`, `D#2026-04-07#001`, …) or of the month item (`D#2026-04`, …). */
const daySk = (month: string, dd: string, p: number) => keys.factDaySk(`${month}-${dd}`) + partSuffix(p);
const monthSk = (month: string, p: number) => keys.factDaySk(month) + partSuffix(p);
/** The keys of a day's items, `count` parts (at least the first). */
const dayKeys = (pk: string, month: string, dd: string, count: number) =>
  Array.from({ length: Math.max(count, 1) }, (_, p) => ({ pk, sk: daySk(month, dd, p) }));

/** Days (dd) that may have day items: those the manifest lists, or every day (manifests before month items). */
const ownDays = (manifest: DailyManifest): string[] =>
  manifest.daily ?? Object.keys(manifest.days).map((day) => day.slice(8, 10));

/** ownDays with `days` (yyyy-mm-dd or dd) added: the manifest's `daily` after a load that may write their day items. */
export const ownDaysWith = (manifest: DailyManifest, days: Iterable<string>): string[] =>
  [...new Set([...ownDays(manifest), ...[...days].map((day) => day.slice(-2))])].sort();

/** An item of a daily variant holding the bucket fields of `part`. */
const bucketItem = (pk: string, sk: string, header: string, part: readonly DayPiece[], extra = {}) => ({
  pk,
  sk,
  entity: FACT_ENTITY,
  h: header,
  ...extra,
  ...Object.fromEntries(part.map((p) => [(p as { field: string }).field, (p as { blob: Uint8Array }).blob])),
});

/**
 * The items of days of a daily variant (vd, vb): each day's buckets as the attributes of the day's item (`D#<day>`),
 * in part items (`D#<day>#001`, …) when they do not fit one; a day with no rows loses its items, but keeps an empty
 * one where the group has a month item (monthItems), so readers know the month item's day is gone. The manifest
 * keeps the part count of days stored in several (updated here), so a day that shrinks loses the parts it no longer
 * needs.
 */
export const dailyItems: DailyWrite = (month, key, pk, header, days, manifest) => {
  const parts = { ...(manifest.parts?.[key] ?? {}) };
  const monthHeld = (parts[MONTH_ITEM] ?? 0) > 0;
  const items: Record<string, unknown>[] = [];
  const gone: { pk: string; sk: string }[] = [];
  for (const [dd, pieces] of days) {
    const now = pieces.length === 0 ? [] : partsOf(pieces);
    now.forEach((part, p) => {
      items.push(bucketItem(pk, daySk(month, dd, p), header, part));
    });
    if (now.length === 0 && monthHeld) items.push(bucketItem(pk, daySk(month, dd, 0), header, []));
    const kept = Math.max(now.length, monthHeld ? 1 : 0);
    gone.push(...dayKeys(pk, month, dd, parts[dd] ?? 1).slice(kept));
    if (now.length > 1) parts[dd] = now.length;
    else delete parts[dd];
  }
  setParts(manifest, key, parts);
  return { items, gone };
};

/**
 * A month of a daily variant's storage group loaded whole (every day it holds is in the load): its days' buckets
 * as one month item (`D#<month>`, in parts `D#<month>#001`, … when they do not fit one), each bucket's days one
 * field (unit-codec.ts encodeDayBlobs), in place of a day item each. A report reading a bucket's year reads 12 items,
 * not 365. The first part names the count (`c`): parts past it are leftovers (of a load undone after a crash) that
 * readers skip. The day items the month had go.
 */
export const monthItems: DailyWrite = (month, key, pk, header, days, manifest) => {
  const pieces: DayPiece[] = [];
  for (const [field, list] of byField(days, (p) => ('field' in p ? p : undefined))) {
    pieces.push(
      ...dayRuns(
        field,
        list.map(({ dd, piece }) => ({ dd, blob: piece.blob })),
      ),
    );
  }
  return monthWrite(month, key, pk, header, pieces, manifest);
};

/** A bucket's rows of one day, as a unit cube: what a variant whose days become month cubes (vd) loads. */
export interface BucketCube {
  readonly field: string;
  readonly cube: UnitCube;
}

/**
 * monthItems of a variant whose buckets' months are each one cube (daysBecomeCubes: `vd`), from its days' unit cubes:
 * a bucket's month as one cube (storage/cube-blob.ts) when it fits half an item, else its days' blobs as monthItems
 * stores them. The cube is made from the days' rows (unit-codec.ts cubeOfDays), or, where that could differ, from
 * their blobs encoded undeflated and decoded again, as loads did before: the same bytes either way.
 */
export function monthCubeItems(
  month: string,
  key: string,
  pk: string,
  header: string,
  days: ReadonlyMap<string, readonly BucketCube[]>,
  manifest: DailyManifest,
): ReturnType<DailyWrite> {
  const grain = (JSON.parse(header) as { g: string[] }).g;
  const pieces: DayPiece[] = [];
  for (const [field, list] of byField(days, (p) => p)) {
    let blobs: { dd: string; blob: Uint8Array }[] | undefined;
    // Each day's rows as loads split them (encodeToFit), never deflated: they are decoded again, or stored after all.
    const dayBlobs = () =>
      (blobs ??= list.flatMap(({ dd, piece }) =>
        encodeToFit(piece.cube, transientBlob, (b) => b.length, ITEM_BYTES / 2).map((p) => ({ dd, blob: p.encoded })),
      ));
    const dayOf = (dd: string) => `${month}-${dd}`;
    const rows =
      cubeOfDays(
        grain,
        list.map(({ dd, piece }) => ({ day: dayOf(dd), cube: piece.cube })),
        ITEM_BYTES / 2,
      ) ??
      decodeBlobs(
        grain,
        dayBlobs().map(({ dd, blob }) => ({ day: dayOf(dd), bytes: blob })),
      );
    const cube = encodeCubeBlob(rows);
    if (cube.length <= ITEM_BYTES / 2) pieces.push({ field, blob: cube });
    else
      pieces.push(
        ...dayRuns(
          field,
          dayBlobs().map(({ dd, blob }) => ({ dd, blob: storedBlob(blob) })),
        ),
      );
  }
  return monthWrite(month, key, pk, header, pieces, manifest);
}

/**
 * A bucket's day as a blob never deflated, for days decoded again into their month's cube: deflating and inflating
 * them served nothing. The few that stay blobs (a bucket's month too large for one cube) are deflated as they are
 * stored (storedBlob).
 */
const transientBlob = (part: UnitCube) => encodeBlob(part, Number.POSITIVE_INFINITY);

/** The pieces of `days` that `pick` keeps, by field (in field order), each field's in day order. */
function byField<P, Q extends { readonly field: string }>(
  days: ReadonlyMap<string, readonly P[]>,
  pick: (p: P) => Q | undefined,
): [string, { dd: string; piece: Q }[]][] {
  const out = new Map<string, { dd: string; piece: Q }[]>();
  for (const dd of [...days.keys()].sort()) {
    for (const p of days.get(dd) ?? []) {
      const piece = pick(p);
      if (!piece) continue;
      const list = out.get(piece.field) ?? [];
      list.push({ dd, piece });
      out.set(piece.field, list);
    }
  }
  return [...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A field's days (in day order) in containers of at most half an item (as a day's blobs are), placed whole by partsOf. */
function dayRuns(field: string, days: readonly { dd: string; blob: Uint8Array }[]): DayPiece[] {
  const pieces: DayPiece[] = [];
  let run: { dd: string; blob: Uint8Array }[] = [];
  let size = 0;
  for (const day of days) {
    if (run.length > 0 && size + day.blob.length + 4 > ITEM_BYTES / 2) {
      pieces.push({ field, blob: encodeDayBlobs(run) });
      run = [];
      size = 0;
    }
    run.push(day);
    size += day.blob.length + 4;
  }
  if (run.length > 0) pieces.push({ field, blob: encodeDayBlobs(run) });
  return pieces;
}

/** The month items of `pieces` (monthItems, monthCubeItems), and the items of the month's days and parts that go. */
function monthWrite(
  month: string,
  key: string,
  pk: string,
  header: string,
  pieces: readonly DayPiece[],
  manifest: DailyManifest,
): ReturnType<DailyWrite> {
  const now = partsOf(pieces);
  const items = now.map((part, p) => bucketItem(pk, monthSk(month, p), header, part, p === 0 ? { c: now.length } : {}));
  const parts = manifest.parts?.[key] ?? {};
  const gone = ownDays(manifest).flatMap((dd) => dayKeys(pk, month, dd, parts[dd] ?? 1));
  // The first part goes with no data: one a crash left (unknown to the manifest) must not stay readable.
  for (let p = now.length; p < Math.max(parts[MONTH_ITEM] ?? 0, 1); p++) gone.push({ pk, sk: monthSk(month, p) });
  setParts(manifest, key, now.length > 0 ? { [MONTH_ITEM]: now.length } : {});
  return { items, gone };
}

/**
 * Daily variants whose month items hold each bucket's month as a cube: `vd`, read a video at a time over long ranges.
 * `vb` (its rows times the slices) keeps day blobs: re-encoding them would cost a batch load more than it saves.
 */
const CUBE_VARIANTS = new Set(['vd']);

/** Whether a load of a whole month writes `variant`'s days through monthCubeItems (from unit cubes, not blobs). */
export const daysBecomeCubes = (variant: string): boolean => CUBE_VARIANTS.has(variant);

function setParts(manifest: DailyManifest, key: string, parts: Record<string, number>): void {
  const all = { ...(manifest.parts ?? {}), [key]: parts };
  if (Object.keys(parts).length === 0) delete all[key];
  manifest.parts = all;
}
