/**
 * An open month's flat cubes (the root `vg`, `g`, `v`, the regional `vk`/`vs`/`vn`): the compacted cube at
 * `M#<month>` plus one **piece** per day loaded since, at `M#<month>#p<dd>` (the day's facts at the cube's grain). A
 * load of a day or a few then writes the day's pieces, not the month's cubes again (which would grow with the days
 * already there); a later load folds the pieces into new compacted cubes (month-load.ts says when). Pieces sort
 * inside the month's Query range, so a report reads them with the month at no extra request.
 *
 * Every compacted cube and piece carries `pb`, the compaction it belongs to: a piece counts only while its `pb`
 * equals its month cube's (or is 0 where the month has no cube yet). A compaction writes cubes with the next number
 * before it deletes the pieces it folded, so a reader in between sees the new cube and ignores the old pieces.
 *
 * Sums are added in micro-units (units.ts), exactly, so a month read as cube + pieces equals the cube a compaction
 * of the same days stores, to the last bit.
 */
import { keys } from '../../db/keys';
import { MEASURES } from '../catalog/metrics';
import type { StoredCube } from './cube-codec';
import { fromStored } from './unit-codec';
import { Dicts, rollupUnits, UNIT } from './units';

/** Whether a sort key is a piece of a month (`M#2026-08#p15`, or one of its chunks). */
export const isPieceSk = (sk: string) => sk.startsWith('M#') && sk.split('#')[2]?.startsWith('p') === true;

/** The period of the piece a sort key belongs to (`M#2026-08#p15#v3#001` → `M#2026-08#p15`). */
export const piecePeriod = (sk: string) => sk.split('#').slice(0, 3).join('#');

/** The piece period of a day of a month. */
export const pieceOf = (month: string, day: string) => keys.factPieceSk(month, day.slice(8, 10));

/** A compaction number as stored (absent: 0, cubes written before pieces existed). */
export const pieceBase = (item: Readonly<Record<string, unknown>> | undefined) => Number(item?.pb ?? 0);

/**
 * Cubes of one full grain added: rows of equal keys summed exactly in micro-units, in the canonical order
 * (units.ts) a compaction stores them in, so a report sums the same rows in the same order either way.
 */
export function addCubes(parts: readonly StoredCube[]): StoredCube {
  const first = parts[0] as StoredCube;
  if (parts.length === 1) return first;
  const dicts = new Dicts();
  const measures = MEASURES.flatMap((_, m) => (parts.some((p) => p.measures[m] !== undefined) ? [m] : []));
  const units = parts.map((p) => fromStored(p, dicts, measures));
  const sum = rollupUnits(units, first.grain, measures);
  const out: (Float64Array | undefined)[] = MEASURES.map(() => undefined);
  measures.forEach((m, j) => {
    out[m] = Float64Array.from(sum.sums[j] as Float64Array, (u) => (Number.isNaN(u) ? u : u / UNIT));
  });
  return {
    grain: first.grain,
    size: sum.size,
    keys: first.grain.map((d, c) => ({
      values: dicts.of(d).values,
      codes: Uint32Array.from(sum.keys[c] as Int32Array),
    })),
    measures: out,
  };
}
