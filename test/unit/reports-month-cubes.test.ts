/**
 * Month cubes (functions/core/reports/ingest/month-cubes.ts): every cube derived from a smaller one must equal the
 * rollup of the raw facts of its period (and partition) by its grain, for channel_basic and a content-owner family;
 * and the result must not depend on which days were loaded now and which came back from storage.
 */
import { describe, expect, it } from 'vitest';
import {
  CHANNEL_BASIC,
  FAMILY_BY_CODE,
  type FamilyDef,
  familyDims,
  familyMeasures,
} from '../../functions/core/reports/catalog/families';
import { emptySums, MEASURE_INDEX, MEASURES, type Value } from '../../functions/core/reports/catalog/metrics';
import { blockCubes } from '../../functions/core/reports/ingest/block-cubes';
import { monthCubes } from '../../functions/core/reports/ingest/month-cubes';
import {
  BLOCK_MONTHS,
  blockCover,
  blockMonths,
  blocksHolding,
  type Cube,
  type FactRow,
  fullDayOf,
  partition,
  rollup,
  variantsOf,
} from '../../functions/core/reports/storage/cube';

/** A small deterministic generator (mulberry32). */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VALUES: Record<string, string[]> = {
  video: ['v1', 'v2', 'v3', 'v4', 'v5', 'v6', ''],
  country: ['US', 'GB', 'FR', 'DE', 'JP', 'BR', 'ZZ'],
  subscribedStatus: ['SUBSCRIBED', 'UNSUBSCRIBED'],
  liveOrOnDemand: ['LIVE', 'ON_DEMAND'],
  creatorContentType: ['UNSPECIFIED', 'SHORTS'],
  youtubeProduct: ['CORE', 'UNKNOWN'],
  channel: ['UCa', 'UCb'],
  claimedStatus: ['claimed', ''],
  uploaderType: ['self', 'thirdParty'],
};

/** Facts of `days` days of March 2026 for a family: one per distinct key, some measures null, some floats. */
function factsOf(family: FamilyDef, days: number, seed: number): Map<string, FactRow[]> {
  const next = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
  const dims = familyDims(family);
  const measures = [...familyMeasures(family)].map((m) => MEASURE_INDEX[m]);
  const full = fullDayOf(family);
  const out = new Map<string, FactRow[]>();
  for (let d = 1; d <= days; d++) {
    const day = `2026-03-${String(d).padStart(2, '0')}`;
    const seen = new Map<string, FactRow>();
    for (let i = 0; i < 80; i++) {
      const values = Object.fromEntries(dims.map((dim) => [dim, pick(VALUES[dim] ?? ['x', 'y', 'z'])]));
      const sums = emptySums();
      for (const j of measures) {
        if (next() < 0.1) continue;
        sums[j] = next() < 0.5 ? Math.floor(next() * 1000) : Math.round(next() * 1e6) / 1e3;
      }
      seen.set(full.grain.map((g) => values[g]).join('|'), { day, dims: values, sums });
    }
    out.set(day, [...seen.values()]);
  }
  return out;
}

const byKey = (cube: Cube) => new Map(cube.rows.map((r) => [r.key.join('|'), Array.from(r.sums as ArrayLike<Value>)]));

function expectSameCube(actual: Cube, expected: Cube, label: string) {
  expect(actual.grain, label).toEqual(expected.grain);
  const a = byKey(actual);
  const e = byKey(expected);
  expect([...a.keys()].sort(), label).toEqual([...e.keys()].sort());
  for (const [key, sums] of e) {
    const got = a.get(key) as Value[];
    MEASURES.forEach((m, j) => {
      const x = sums[j] ?? null;
      const y = got[j] === undefined || Number.isNaN(got[j]) ? null : (got[j] as Value);
      if (x === null) expect(y, `${label} ${key} ${m}`).toBeNull();
      else expect(Math.abs((y as number) - x), `${label} ${key} ${m}`).toBeLessThanOrEqual(1e-9 * Math.abs(x) + 1e-12);
    });
  }
}

function check(family: FamilyDef) {
  const only = [...familyMeasures(family)].map((m) => MEASURE_INDEX[m]).sort((a, b) => a - b);
  const facts = factsOf(family, 9, family.code.charCodeAt(0));
  const full = fullDayOf(family);
  const fullDays = new Map([...facts].map(([day, list]) => [day, rollup(list, full.grain, only)]));
  const loaded = new Set(['2026-03-02', '2026-03-05']);
  const { cubes, partitions } = monthCubes(family, '2026-03', fullDays, loaded, only);
  const monthFacts = [...facts.keys()].sort().flatMap((d) => facts.get(d) as FactRow[]);
  const seen = new Set<string>();
  for (const v of variantsOf(family)) {
    if (v.periods.includes('day')) {
      for (const day of loaded) {
        const got = cubes.find((c) => c.variant === v.name && c.period === `D#${day}`);
        expect(got, `${v.name} ${day}`).toBeDefined();
        expectSameCube(got?.cube as Cube, rollup(facts.get(day) as FactRow[], v.grain, only), `${v.name} ${day}`);
        seen.add(`${v.name}|D#${day}`);
      }
    }
    if (!v.periods.includes('month')) continue;
    if (!v.partitionBy) {
      const got = cubes.find((c) => c.variant === v.name && c.period === 'M#2026-03');
      expectSameCube(got?.cube as Cube, rollup(monthFacts, v.grain, only), `${v.name} month`);
      seen.add(`${v.name}|M#2026-03`);
      continue;
    }
    const parts = partition(monthFacts, v.partitionBy);
    expect(partitions[v.name], v.name).toEqual([...parts.keys()].sort());
    for (const [value, list] of parts) {
      const got = cubes.find((c) => c.variant === v.name && c.partition === value);
      expectSameCube(got?.cube as Cube, rollup(list, v.grain, only), `${v.name} ${value}`);
      seen.add(`${v.name}|${value}`);
    }
  }
  // nothing else is written: no day cubes of days not loaded now
  expect(cubes.length).toBe(seen.size);
}

describe('monthCubes', () => {
  it('channel_basic: every day and month cube equals the rollup of the raw facts', () => check(CHANNEL_BASIC));
  it('content_owner_basic: the same, with channel and claim attributes in every grain', () =>
    check(FAMILY_BY_CODE.get('OB') as FamilyDef));
  it('content-owner revenue and a playlist family', () => {
    check(FAMILY_BY_CODE.get('OR') as FamilyDef);
    check(FAMILY_BY_CODE.get('PB') as FamilyDef);
  });

  it('gives identical floats whichever days were loaded now (the others come back as full-day cubes)', () => {
    const only = [...familyMeasures(CHANNEL_BASIC)].map((m) => MEASURE_INDEX[m]).sort((a, b) => a - b);
    const facts = factsOf(CHANNEL_BASIC, 6, 11);
    const full = fullDayOf(CHANNEL_BASIC);
    const fullDays = new Map([...facts].map(([day, list]) => [day, rollup(list, full.grain, only)]));
    const months = (loaded: string[]) =>
      monthCubes(CHANNEL_BASIC, '2026-03', fullDays, new Set(loaded), only).cubes.filter((c) =>
        c.period.startsWith('M#'),
      );
    const plain = (list: ReturnType<typeof months>) =>
      list.map((c) => ({ ...c, cube: c.cube.rows.map((r) => [r.key, Array.from(r.sums as ArrayLike<Value>)]) }));
    expect(plain(months(['2026-03-01']))).toEqual(plain(months([...facts.keys()])));
  });
});

describe('blocks of months', () => {
  const only = [...familyMeasures(CHANNEL_BASIC)].map((m) => MEASURE_INDEX[m]).sort((a, b) => a - b);
  const grain = ['video'];
  /** A month cube per month: video rows with integer views (sums are exact whatever their order). */
  const monthsOf = (list: readonly string[], seed: number) => {
    const next = random(seed);
    return new Map(
      list.map((month) => {
        const facts: FactRow[] = (VALUES.video as string[]).map((video) => {
          const sums = emptySums();
          sums[MEASURE_INDEX.views] = Math.floor(next() * 1000);
          sums[MEASURE_INDEX.watchMinutes] = Math.round(next() * 1e5) / 100;
          return { day: `${month}-01`, dims: { video }, sums };
        });
        return [month, rollup(facts, grain, only)];
      }),
    );
  };
  const viewsBy = (cube: Cube | undefined) =>
    Object.fromEntries((cube?.rows ?? []).map((r) => [r.key[0], r.sums[MEASURE_INDEX.views]]));

  it('blockCover: the longest aligned block at each month, single months where none fits', () => {
    expect(
      blockCover([
        '2025-11',
        '2025-12',
        ...Array.from({ length: 10 }, (_, i) => `2026-${String(i + 1).padStart(2, '0')}`),
      ]),
    ).toEqual(['B2#2025-11', 'B8#2026-01', 'B2#2026-09']);
    expect(blockCover(['2026-03'])).toEqual(['M#2026-03']);
    expect(blockCover(['2026-02', '2026-03'])).toEqual(['M#2026-02', 'M#2026-03']);
    expect(blockCover([])).toEqual([]);
  });

  it('blocksHolding: one block of each length holds a month, and each holds it', () => {
    const held = blocksHolding(['2026-03']);
    expect(held).toHaveLength(BLOCK_MONTHS.length);
    for (const period of held) expect(blockMonths(period)).toContain('2026-03');
    expect(blockMonths('B4#2026-01')).toEqual(['2026-01', '2026-02', '2026-03', '2026-04']);
  });

  it('a block is the sum of its months; months not stored add nothing; no stored month, no block', () => {
    const months = monthsOf(['2026-01', '2026-02', '2026-03', '2026-05'], 7);
    const [b4, b2, empty] = blockCubes(grain, months, ['B4#2026-01', 'B2#2026-05', 'B2#2026-07'], only).map((c) => c);
    expect(b4?.period).toBe('B4#2026-01');
    const expected: Record<string, number> = {};
    for (const m of ['2026-01', '2026-02', '2026-03'])
      for (const [video, views] of Object.entries(viewsBy(months.get(m))))
        expected[video] = (expected[video] ?? 0) + (views as number);
    expect(viewsBy(b4?.cube)).toEqual(expected);
    expect(viewsBy(b2?.cube)).toEqual(viewsBy(months.get('2026-05')));
    expect(empty).toBeUndefined();
  });

  it('a block is the same floats however it is asked for (alone or with the blocks inside it)', () => {
    const list = blockMonths('B16#2025-05');
    const months = monthsOf(list, 11);
    const alone = blockCubes(grain, months, ['B16#2025-05'], only)[0]?.cube;
    const all = blockCubes(grain, months, [...blocksHolding(list)].reverse(), only);
    expect(all.map((c) => c.period)).toContain('B16#2025-05');
    expect(all.find((c) => c.period === 'B16#2025-05')?.cube.rows).toEqual(alone?.rows);
    expect(alone?.rows.length).toBe(VALUES.video?.length);
  });
});
