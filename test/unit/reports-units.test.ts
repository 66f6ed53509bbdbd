/**
 * Ingest's cubes of micro-units (functions/core/reports/storage/units.ts): the builder's shared column buffers keep
 * every row through its growths, and the accumulator a day's groups are summed with gives the sums of a plain map, in
 * canonical order, also when a dictionary grows between two cubes (its index is rebuilt).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  Dicts,
  keyAt,
  rollupUnits,
  UnitAccumulator,
  type UnitCube,
  UnitCubeBuilder,
} from '../../functions/core/reports/storage/units';

/** The rows of a cube as [key, sums] pairs, in its order. */
const rowsOf = (cube: UnitCube) =>
  Array.from({ length: cube.size }, (_, i) => [keyAt(cube, i).join('|'), cube.sums.map((s) => s[i])] as const);

describe('UnitCubeBuilder', () => {
  it('keeps keys, sums, counts and nulls through its growths; a new row is null with count 0', () => {
    const dicts = new Dicts();
    const b = new UnitCubeBuilder(['video', 'country'], dicts, [0, 3], { counts: true, capacity: 16 });
    for (let i = 0; i < 100; i++) {
      const row = b.add([`v${i}`, i % 2 ? 'US' : 'DE']);
      expect(row).toBe(i);
      expect(b.sums.map((s) => s[row])).toEqual([Number.NaN, Number.NaN]);
      expect(b.counts?.[row]).toBe(0);
      if (i % 3) b.addUnits(row, 0, i * 1_000_000);
      b.addUnits(row, 1, Number.NaN);
      (b.counts as Float64Array)[row] = i + 1;
    }
    const cube = b.build();
    expect(cube.size).toBe(100);
    for (let i = 0; i < 100; i++) {
      expect(keyAt(cube, i)).toEqual([`v${i}`, i % 2 ? 'US' : 'DE']);
      expect(cube.sums[0]?.[i]).toBe(i % 3 ? i * 1_000_000 : Number.NaN);
      expect(cube.sums[1]?.[i]).toBeNaN();
      expect(cube.counts?.[i]).toBe(i + 1);
      expect(cube.nulls?.[1]?.[i]).toBe(1);
      expect(cube.nulls?.[0]?.[i]).toBe(0);
    }
  });
});

describe('UnitAccumulator', () => {
  const row = fc.record({
    video: fc.integer({ min: 0, max: 30 }),
    country: fc.integer({ min: 0, max: 6 }),
    device: fc.integer({ min: 0, max: 4 }),
    a: fc.option(fc.integer({ min: 0, max: 10 ** 9 }), { nil: undefined }),
    b: fc.option(fc.integer({ min: 0, max: 10 ** 6 }), { nil: undefined }),
  });

  it('sums cubes added one by one as a map would, in canonical order, while dictionaries grow between them', () => {
    fc.assert(
      fc.property(fc.array(fc.array(row, { maxLength: 40 }), { minLength: 1, maxLength: 6 }), (groups) => {
        const dicts = new Dicts();
        const grain = ['country', 'device'];
        const sum = new UnitAccumulator(grain, dicts, [0, 1]);
        const cubes: UnitCube[] = [];
        const expected = new Map<string, (number | undefined)[]>();
        for (const rows of groups) {
          // Each group codes its values as it comes: later groups bring countries and videos the index has not seen.
          const b = new UnitCubeBuilder(['video', 'country', 'device'], dicts, [0, 1]);
          for (const r of rows) {
            const i = b.add([`v${r.video}`, `C${r.country}`, `D${r.device}`]);
            b.addUnits(i, 0, r.a ?? Number.NaN);
            b.addUnits(i, 1, r.b ?? Number.NaN);
            const key = `C${r.country}|D${r.device}`;
            const total = expected.get(key) ?? [undefined, undefined];
            expected.set(key, [
              r.a === undefined ? total[0] : (total[0] ?? 0) + r.a,
              r.b === undefined ? total[1] : (total[1] ?? 0) + r.b,
            ]);
          }
          const cube = b.build();
          cubes.push(cube);
          sum.add(cube);
        }
        const result = sum.result();
        const want = [...expected]
          .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
          .map(([k, sums]) => [k, sums.map((s) => s ?? Number.NaN)] as const);
        expect(rowsOf(result)).toEqual(want);
        expect(rowsOf(rollupUnits(cubes, grain, [0, 1]))).toEqual(want);
      }),
    );
  });
});
