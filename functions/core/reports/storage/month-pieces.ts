/**
 * An open month's flat cubes (the root `vg`, `g`, `v`, the regional `vk`/`vs`/`vn`): the compacted cube at
 * `M#<month>` plus one **piece** per day loaded since, at `M#<month>#p<dd>` (the day's facts at the cube's grain). A
 * load of a day or a few then writes the day's pieces, not the month's cubes again (which would grow with the days
 * already there); a later load folds the pieces into new compacted cubes (month-load.ts says when). Pieces sort
 * inside the month's Query range, so a report reads them with the month at no extra request.
 *
 * Every compacted cube and piece carries `pb`, the compaction it belongs to: a piece counts only while its `pb`
 * equals its month cube's (or where the partition has no cube yet: a compaction leaves one wherever it folded pieces). A compaction writes cubes with the next number
 * before it deletes the pieces it folded, so a reader in between sees the new cube and ignores the old pieces.
 *
 * The root's piece of a day holds no data: its rows are the day's full-day cube (`f` at `D#<day>`, the same grain),
 * which a report reading the month then reads by key (a second request, for open months only), and a compaction
 * folds from there. Writing the full day a second time would make a day's load half as costly again.
 *
 * The regional cubes (`vk`/`vs`/`vn`, a partition per region) get no pieces: a day's rows in every region would be
 * about three times the day again, written every day and deleted at every compaction. A regional partition the open
 * days have rows in holds a **mark** at `M#<month>#o` instead (written once per compaction, with its `pb`), and a
 * report reading it adds the open days' full-day cubes (country included), their rows in the region: a Query of the
 * root's pieces and a read of the days, for open months only. A mark counts like a piece (its `pb` equal to its cube's, or no cube
 * there yet: a region first seen since the compaction).
 *
 * Sums are added in micro-units (units.ts), exactly, so a month read as cube + pieces equals the cube a compaction
 * of the same days stores, to the last bit.
 */
import * as keys from '../../db/keys';
import { MEASURES } from '../catalog/metrics';
import { type RegionKind, regionOf, videoBucket } from './cube';
import { HEADER, type KeyColumn, LEGACY, rowsWhere, type StoredCube } from './cube-codec';
import { UNIT } from './units';

/** Whether a sort key is a piece of a month (`M#2026-08#p15`, or one of its chunks). */
export const isPieceSk = (sk: string) => sk.startsWith('M#') && sk.split('#')[2]?.startsWith('p') === true;

/** The period of the piece a sort key belongs to (`M#2026-08#p15#v3#001` → `M#2026-08#p15`). */
export const piecePeriod = (sk: string) => sk.split('#').slice(0, 3).join('#');

/** The piece period of a day of a month. */
export const pieceOf = (month: string, day: string) => keys.factPieceSk(month, day.slice(8, 10));

/**
 * Whether a piece's first item is its day's full-day cube (no data of its own: the root's pieces, whose rows are the
 * day's full-day cube `f` at `D#<day>`, written once there).
 */
export const isPointer = (item: Readonly<Record<string, unknown>>) =>
  item[HEADER] === undefined && item[LEGACY] === undefined;

/** The full-day cube's sort key a piece period stands for (`M#2026-08#p15` → `D#2026-08-15`). */
export const pieceDaySk = (piece: string) => `D#${piece.slice(2, 9)}-${piece.slice(-2)}`;

/** Whether a sort key is an open month's mark in a regional partition (`M#2026-08#o`). */
export const isMarkSk = (sk: string) => sk.startsWith('M#') && sk.endsWith('#o') && sk.split('#').length === 3;

/** A compaction number as stored (absent: 0, cubes written before pieces existed). */
export const pieceBase = (item: Readonly<Record<string, unknown>> | undefined) => Number(item?.pb ?? 0);

/**
 * Cubes of one full grain added: rows of equal keys summed exactly in micro-units, in the canonical order (units.ts:
 * the video's bucket, the video, the other dimensions, values in code-unit order) a compaction stores them in, so a
 * report sums the same rows in the same order either way. Plain strings, not ingest's dictionaries: reports.query
 * carries none of the ingest's code.
 */
export function addCubes(parts: readonly StoredCube[]): StoredCube {
  const first = parts[0] as StoredCube;
  if (parts.length === 1) return first;
  const grain = first.grain;
  const width = MEASURES.length;
  const present = MEASURES.map((_, m) => parts.some((p) => p.measures[m] !== undefined));
  const rows = new Map<string, { values: string[]; sums: number[] }>();
  for (const part of parts) {
    const columns = grain.map((d) => part.keys[part.grain.indexOf(d)] as KeyColumn);
    for (let i = 0; i < part.size; i++) {
      const values = columns.map((c) => c.values[c.codes[i] as number] as string);
      const key = values.join('\u0001');
      let row = rows.get(key);
      if (!row) {
        row = { values, sums: new Array<number>(width).fill(Number.NaN) };
        rows.set(key, row);
      }
      for (let m = 0; m < width; m++) {
        const x = present[m] ? part.measures[m]?.[i] : undefined;
        if (x === undefined || Number.isNaN(x)) continue;
        const u = Math.round(x * UNIT);
        const t = row.sums[m] as number;
        row.sums[m] = Number.isNaN(t) ? u : t + u;
      }
    }
  }
  const v = grain.indexOf('video');
  const order = v < 0 ? grain.map((_, i) => i) : [v, ...grain.map((_, i) => i).filter((i) => i !== v)];
  const buckets = new Map<string, number>();
  const bucketOf = (video: string) => {
    let b = buckets.get(video);
    if (b === undefined) {
      b = video === '' ? -1 : Number(videoBucket(video).slice(1));
      buckets.set(video, b);
    }
    return b;
  };
  const sorted = [...rows.values()].sort((a, b) => {
    if (v >= 0) {
      const d = bucketOf(a.values[v] as string) - bucketOf(b.values[v] as string);
      if (d !== 0) return d;
    }
    for (const c of order) {
      const x = a.values[c] as string;
      const y = b.values[c] as string;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  });
  const keys = grain.map((_, c) => {
    const codes = new Map<string, number>();
    const values: string[] = [];
    const column = new Uint32Array(sorted.length);
    sorted.forEach((row, r) => {
      const value = row.values[c] as string;
      let code = codes.get(value);
      if (code === undefined) {
        code = values.length;
        codes.set(value, code);
        values.push(value);
      }
      column[r] = code;
    });
    return { values, codes: column };
  });
  return {
    grain,
    size: sorted.length,
    keys,
    measures: MEASURES.map((_, m) =>
      present[m]
        ? new Float64Array(sorted.length).map((_, i) => {
            const u = sorted[i]?.sums[m] as number;
            return Number.isNaN(u) ? u : u / UNIT;
          })
        : undefined,
    ),
  };
}

/** A cube of no rows. */
export const emptyStoredCube = (grain: StoredCube['grain']): StoredCube => ({
  grain,
  size: 0,
  keys: grain.map(() => ({ values: [], codes: new Uint32Array(0) })),
  measures: MEASURES.map(() => undefined),
});

/** The rows of a cube holding `country` whose country lies in a region (a continent, a sub-continent or a country). */
export const rowsInRegion = (cube: StoredCube, kind: RegionKind, region: string): StoredCube =>
  rowsWhere(cube, 'country', (country) => regionOf(kind, country) === region);
