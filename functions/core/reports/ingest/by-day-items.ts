/**
 * The items of the by-day month variants (cube.ts layouts byDay and grouped): one attribute `s<dd>` per day with
 * data, so loading a day sets that attribute and leaves the month's other days alone, whatever their number. A byDay
 * variant's day is one blob (unit-codec.ts encodeBlob: its rows, every dimension and measure); releases before it
 * wrote a map of columns instead, which readers still decode. Days
 * are packed in day order into items of at most ITEM_BYTES (greedy: the packing depends only on the days' sizes, so
 * any sequence of loads packs a month as one load of its days does): `M#<month>`, then `M#<month>#001`, … A day too
 * large to share an item has part items of its own, `M#<month>#d<dd>#000`, … (each holding some of its pieces under
 * the same attribute name, which a reader's projection picks up in every part).
 */
import * as keys from '../../db/keys';
import { FACT_ENTITY, type FactWriter, type Guard, type Packing } from '../storage/fact-writer';

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
const itemSk = (month: string, i: number) =>
  i === 0 ? keys.factMonthSk(month) : `${keys.factMonthSk(month)}#${String(i).padStart(3, '0')}`;
const partSk = (month: string, dd: string, p: number) =>
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
  const before: Packing = old ?? { sizes: {}, items: [], big: {} };
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

/**
 * The items of days of a daily variant (vb): each day's buckets as the attributes of the day's item (`D#<day>`), in
 * part items (`D#<day>#001`, …) when they do not fit one; a day with no rows loses its items. The manifest keeps the
 * part count of days stored in several (updated here), so a day that shrinks loses the parts it no longer needs.
 */
export function dailyItems(
  month: string,
  key: string,
  pk: string,
  header: string,
  days: ReadonlyMap<string, readonly DayPiece[]>,
  manifest: { parts?: Record<string, Record<string, number>> },
): { items: Record<string, unknown>[]; gone: { pk: string; sk: string }[] } {
  const parts = { ...(manifest.parts?.[key] ?? {}) };
  const items: Record<string, unknown>[] = [];
  const gone: { pk: string; sk: string }[] = [];
  for (const [dd, pieces] of days) {
    const day = keys.factDaySk(`${month}-${dd}`);
    const sk = (p: number) => (p === 0 ? day : `${day}#${String(p).padStart(3, '0')}`);
    const now = pieces.length === 0 ? [] : partsOf(pieces);
    now.forEach((part, p) => {
      const fields = Object.fromEntries(
        part.map((piece) => [(piece as { field: string }).field, (piece as { blob: Uint8Array }).blob]),
      );
      items.push({ pk, sk: sk(p), entity: FACT_ENTITY, h: header, ...fields });
    });
    const had = parts[dd] ?? (pieces.length === 0 ? 1 : 0);
    for (let p = now.length; p < Math.max(had, 1); p++) gone.push({ pk, sk: sk(p) });
    if (now.length > 1) parts[dd] = now.length;
    else delete parts[dd];
  }
  const all = { ...(manifest.parts ?? {}), [key]: parts };
  if (Object.keys(parts).length === 0) delete all[key];
  manifest.parts = all;
  return { items, gone };
}
