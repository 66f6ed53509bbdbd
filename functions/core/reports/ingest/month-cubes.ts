/**
 * The cubes of one month of one family and owner, each derived from the smallest cube already computed that holds
 * its grain: a day's full cube gives its slices, those give the totals, the days give the month. A month's facts
 * are then summed a few times, not once per variant. Sums run in a fixed order (days ascending, then rows in the
 * order of their source), so the cubes are the same however the month's days were loaded.
 */

import type { FamilyDef } from '../catalog/families';
import { COUNTRY_REGIONS } from '../catalog/geo';
import { addInto, emptySums, type Sums } from '../catalog/metrics';
import {
  type Cube,
  type CubeRow,
  type CubeVariant,
  cardinality,
  fullDayOf,
  type GrainDim,
  type PartitionKind,
  variantsOf,
  videoBucket,
} from '../storage/cube';

export interface PeriodCubeOut {
  readonly variant: string;
  readonly partition?: string;
  /** `D#yyyy-mm-dd` or `M#yyyy-mm`. */
  readonly period: string;
  readonly cube: Cube;
}

const covers = (outer: readonly GrainDim[], inner: readonly GrainDim[]) => inner.every((d) => outer.includes(d));

/** Sums the rows of `sources` (all of one grain) by `grain`, in source order; `only`: the measures to add. */
export function rollupCubes(sources: readonly Cube[], grain: readonly GrainDim[], only: readonly number[]): Cube {
  const first = sources[0];
  if (!first) return { grain, rows: [], measures: only };
  const at = grain.map((d) => first.grain.indexOf(d));
  if (at.some((i) => i < 0)) throw new Error(`a cube of ${first.grain.join(',')} cannot give ${grain.join(',')}`);
  const byKey = new Map<string, { key: string[]; sums: Sums }>();
  const k = at.length;
  for (const source of sources) {
    for (const row of source.rows) {
      const key = row.key;
      let id = k === 0 ? '' : (key[at[0] as number] as string);
      for (let c = 1; c < k; c++) id += `\u0000${key[at[c] as number]}`;
      let out = byKey.get(id);
      if (!out) {
        out = { key: at.map((i) => key[i] as string), sums: emptySums() };
        byKey.set(id, out);
      }
      addInto(out.sums, row.sums, only);
    }
  }
  return { grain, rows: [...byKey.values()], measures: only };
}

/** The partition of a row by the value of its `video` or `country` cell ('' for none). */
function partitionOf(kind: PartitionKind, grain: readonly GrainDim[]): (row: CubeRow) => string {
  if (kind === 'videoBucket') {
    const at = grain.indexOf('video');
    return (row) => {
      const video = row.key[at] as string;
      return video === '' ? '' : videoBucket(video);
    };
  }
  const at = grain.indexOf('country');
  if (kind === 'country') return (row) => row.key[at] as string;
  return (row) => COUNTRY_REGIONS[row.key[at] as string]?.[kind] ?? '';
}

function split(cube: Cube, kind: PartitionKind): Map<string, CubeRow[]> {
  const of = partitionOf(kind, cube.grain);
  const parts = new Map<string, CubeRow[]>();
  for (const row of cube.rows) {
    const value = of(row);
    if (value === '') continue;
    const list = parts.get(value);
    if (list) list.push(row);
    else parts.set(value, [row]);
  }
  return parts;
}

/** What a partitioned variant's source must hold besides its grain. */
const partitionNeeds = (v: CubeVariant): GrainDim[] =>
  v.partitionBy === undefined ? [] : [v.partitionBy === 'videoBucket' ? 'video' : 'country'];

/** Larger grains first, so each variant finds its smallest source among those already computed. */
const byGrainSize = (a: CubeVariant, b: CubeVariant) =>
  b.grain.length + partitionNeeds(b).length - (a.grain.length + partitionNeeds(a).length) ||
  Number(a.partitionBy !== undefined) - Number(b.partitionBy !== undefined);

/**
 * Every cube to store for `month`: the day variants of the days in `loaded`, and every month variant (partitioned
 * ones per partition value, with the values written per variant). `fullDays` holds the full-day cube of every day
 * of the month that has data, loaded now or before.
 */
export function monthCubes(
  family: FamilyDef,
  month: string,
  fullDays: ReadonlyMap<string, Cube>,
  loaded: ReadonlySet<string>,
  only: readonly number[],
): { cubes: PeriodCubeOut[]; partitions: Record<string, string[]> } {
  const full = fullDayOf(family);
  const days = [...fullDays.keys()].sort();
  const variants = [...variantsOf(family)].sort(byGrainSize);
  // The grains a day is rolled up to, and for each the one it comes from: fixed for the family (the smallest by
  // typical size among the larger grains that hold it), so the sums never depend on which days are loaded now.
  const dayGrains = [
    full.grain,
    ...variants.filter((v) => v.periods.includes('day')).map((v) => v.grain),
    ...variants.filter((v) => v.periods.includes('month')).map((v) => v.grain.filter((d) => d !== 'day')),
  ];
  const estimate = (grain: readonly GrainDim[]) => grain.reduce((n, d) => n * cardinality(d), 1);
  const sourceGrain = (grain: readonly GrainDim[]) =>
    dayGrains
      .filter((g) => g.length > grain.length && covers(g, grain))
      .reduce((a, b) => (estimate(b) < estimate(a) ? b : a), full.grain);
  const perDay = new Map<string, Map<string, Cube>>(days.map((d) => [d, new Map()]));
  const atDay = (day: string, grain: readonly GrainDim[]): Cube => {
    if (grain.length === full.grain.length && covers(grain, full.grain)) {
      const cube = fullDays.get(day) as Cube;
      if (cube.grain.every((d, i) => d === grain[i])) return cube;
    }
    const known = perDay.get(day) as Map<string, Cube>;
    const name = grain.join('|');
    let cube = known.get(name);
    if (!cube) {
      cube = rollupCubes([atDay(day, sourceGrain(grain))], grain, only);
      known.set(name, cube);
    }
    return cube;
  };

  const cubes: PeriodCubeOut[] = [];
  const partitions: Record<string, string[]> = {};
  for (const v of variants) {
    if (!v.periods.includes('day')) continue;
    for (const day of days) {
      if (loaded.has(day)) cubes.push({ variant: v.name, period: `D#${day}`, cube: atDay(day, v.grain) });
    }
  }

  const monthly: Cube[] = [];
  const period = `M#${month}`;
  for (const v of variants) {
    if (!v.periods.includes('month')) continue;
    let cube: Cube;
    const at = v.grain.indexOf('day');
    if (at >= 0) {
      // By day: each day's cube of the other dimensions, with the day put in (nothing to add up).
      const rest = v.grain.filter((d) => d !== 'day');
      const rows: CubeRow[] = [];
      for (const day of days) {
        for (const row of atDay(day, rest).rows) {
          const key = [...row.key];
          key.splice(at, 0, day);
          rows.push({ key, sums: row.sums });
        }
      }
      cube = { grain: v.grain, rows, measures: only };
    } else {
      const needs = [...v.grain, ...partitionNeeds(v)];
      const source = monthly
        .filter((c) => covers(c.grain, needs))
        .reduce<Cube | undefined>((a, b) => (!a || b.rows.length < a.rows.length ? b : a), undefined);
      const grain = v.partitionBy ? needs.filter((d, i) => needs.indexOf(d) === i) : v.grain;
      cube = source
        ? rollupCubes([source], grain, only)
        : rollupCubes(
            days.map((d) => fullDays.get(d) as Cube),
            grain,
            only,
          );
    }
    // Every unpartitioned month cube (and the region partitions' common source) can feed the smaller ones.
    if (!v.partitionBy || v.grain.length !== cube.grain.length) monthly.push(cube);
    if (!v.partitionBy) {
      cubes.push({ variant: v.name, period, cube });
      continue;
    }
    const parts = split(cube, v.partitionBy);
    const values = [...parts.keys()].sort();
    for (const value of values) {
      const rows = parts.get(value) as CubeRow[];
      // A region partition keeps only its grain (the rows' countries are summed within the region).
      const part =
        v.grain.length === cube.grain.length
          ? { grain: v.grain, rows, measures: only }
          : rollupCubes([{ grain: cube.grain, rows }], v.grain, only);
      cubes.push({ variant: v.name, partition: value, period, cube: part });
    }
    partitions[v.name] = values;
  }
  return { cubes, partitions };
}
