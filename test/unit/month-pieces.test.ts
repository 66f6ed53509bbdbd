import { describe, expect, it } from 'vitest';
import { MEASURE_INDEX, MEASURES } from '../../functions/core/reports/catalog/metrics';
import type { StoredCube } from '../../functions/core/reports/storage/cube-codec';
import {
  addCubes,
  emptyStoredCube,
  isMarkSk,
  isPieceSk,
  rowsInRegion,
} from '../../functions/core/reports/storage/month-pieces';

const VIEWS = MEASURE_INDEX.views;

/** A cube of (video, country) rows with views. */
function cube(rows: readonly [string, string, number][]): StoredCube {
  const column = (i: 0 | 1) => {
    const values = [...new Set(rows.map((r) => r[i]))];
    return { values, codes: Uint32Array.from(rows, (r) => values.indexOf(r[i])) };
  };
  return {
    grain: ['video', 'country'],
    size: rows.length,
    keys: [column(0), column(1)],
    measures: MEASURES.map((_, m) => (m === VIEWS ? Float64Array.from(rows, (r) => r[2]) : undefined)),
  };
}

const rowsOf = (c: StoredCube) =>
  Array.from({ length: c.size }, (_, i) => [
    ...c.keys.map((k) => k.values[k.codes[i] as number]),
    c.measures[VIEWS]?.[i],
  ]);

describe('open months: marks and the regional rows of the root pieces', () => {
  it('tells marks from pieces and from cubes', () => {
    expect(isMarkSk('M#2026-07#o')).toBe(true);
    expect(isMarkSk('M#2026-07')).toBe(false);
    expect(isMarkSk('M#2026-07#p11')).toBe(false);
    expect(isMarkSk('M#2026-07#v3#001')).toBe(false);
    expect(isPieceSk('M#2026-07#o')).toBe(false);
    expect(isPieceSk('M#2026-07#p11#v3#001')).toBe(true);
  });

  it('keeps the rows of a country, a sub-continent or a continent', () => {
    const piece = cube([
      ['a', 'US', 1],
      ['a', 'FR', 2],
      ['b', 'DE', 4],
      ['b', 'TV', 8],
      ['c', 'CA', 16],
    ]);
    expect(rowsOf(rowsInRegion(piece, 'country', 'US'))).toEqual([['a', 'US', 1]]);
    // 155: Western Europe (FR, DE); 150: Europe; 021: Northern America (US, CA); 009: Oceania (TV).
    expect(rowsOf(rowsInRegion(piece, 'subContinent', '155'))).toEqual([
      ['a', 'FR', 2],
      ['b', 'DE', 4],
    ]);
    expect(rowsOf(rowsInRegion(piece, 'continent', '009'))).toEqual([['b', 'TV', 8]]);
    expect(rowsInRegion(piece, 'continent', '142').size).toBe(0);
  });

  it('adds a regional cube and the region rows of pieces at the cube grain, exactly', () => {
    const stored: StoredCube = {
      grain: ['video'],
      size: 2,
      keys: [{ values: ['a', 'c'], codes: Uint32Array.from([0, 1]) }],
      measures: MEASURES.map((_, m) => (m === VIEWS ? Float64Array.from([0.1, 5]) : undefined)),
    };
    const day = cube([
      ['a', 'US', 0.2],
      ['a', 'CA', 0.7],
      ['b', 'US', 3],
      ['b', 'FR', 100],
    ]);
    const sum = addCubes([stored, rowsInRegion(day, 'subContinent', '021')]);
    expect(sum.grain).toEqual(['video']);
    // 0.1 + 0.2 + 0.7 in micro-units: exactly 1, not 0.9999999999999999. (Rows in the canonical order: by bucket.)
    expect(rowsOf(sum).sort((x, y) => String(x[0]).localeCompare(String(y[0])))).toEqual([
      ['a', 1],
      ['b', 3],
      ['c', 5],
    ]);
    // A region first seen in the open days: no cube, only the pieces' rows.
    const fresh = addCubes([emptyStoredCube(['video']), rowsInRegion(day, 'country', 'FR')]);
    expect(rowsOf(fresh)).toEqual([['b', 100]]);
  });
});
