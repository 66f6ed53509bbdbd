/**
 * The arithmetic of ingest's month cubes (functions/core/reports/ingest/month-pipeline.ts, block-cubes.ts and
 * storage/units.ts, unit-codec.ts): the month root kept as stored rows plus a day's facts minus its previous facts
 * equals the sum of the month's current facts exactly (rows, fact counts, nulls); rollups and blocks are the same
 * however their inputs are ordered; the canonical row order is the one the storage relies on; micro-units survive
 * the codec exactly.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CHANNEL_BASIC,
  FAMILY_BY_CODE,
  type FamilyDef,
  familyMeasures,
} from '../../functions/core/reports/catalog/families';
import { MEASURE_INDEX } from '../../functions/core/reports/catalog/metrics';
import { blockCubes } from '../../functions/core/reports/ingest/block-cubes';
import { mergeRoot, planFamily } from '../../functions/core/reports/ingest/month-pipeline';
import { unitsOfText } from '../../functions/core/reports/ingest/report-file';
import {
  BLOCK_MONTHS,
  blockCover,
  blockMonths,
  blocksHolding,
  fullDayOf,
  videoBucket,
} from '../../functions/core/reports/storage/cube';
import {
  decodeUnitCube,
  decodeUnits,
  encodeUnitCube,
  encodeUnits,
} from '../../functions/core/reports/storage/unit-codec';
import {
  canonicalOrder,
  Dicts,
  keyAt,
  orderOfSortedRuns,
  permute,
  rollupSorted,
  rollupUnits,
  sortCanonical,
  type UnitCube,
  UnitCubeBuilder,
} from '../../functions/core/reports/storage/units';

const measuresOf = (family: FamilyDef) =>
  [...familyMeasures(family)].map((m) => MEASURE_INDEX[m]).sort((a, b) => a - b);

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
  video: ['v1', 'v2', 'v3', 'v4', 'v5', 'v6', 'v7', 'v8', ''],
  country: ['US', 'GB', 'FR', 'DE', 'JP', 'BR', 'ZZ'],
  subscribedStatus: ['SUBSCRIBED', 'UNSUBSCRIBED'],
  liveOrOnDemand: ['LIVE', 'ON_DEMAND'],
  creatorContentType: ['UNSPECIFIED', 'SHORTS'],
  youtubeProduct: ['CORE', 'UNKNOWN'],
  channel: ['UCa', 'UCb'],
  claimedStatus: ['claimed', ''],
  uploaderType: ['self', 'thirdParty'],
};

/**
 * One day's facts of a family (the full-day grain, one row per distinct key, in canonical order): measures in
 * micro-units, some null, some decimals.
 */
function dayFacts(family: FamilyDef, dicts: Dicts, seed: number, rows = 60): UnitCube {
  const next = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
  const grain = fullDayOf(family).grain;
  const measures = measuresOf(family);
  const out = new UnitCubeBuilder(grain, dicts, measures);
  const seen = new Set<string>();
  for (let i = 0; i < rows; i++) {
    const key = grain.map((d) => pick(VALUES[d] ?? ['x', 'y', 'z']));
    if (seen.has(key.join('|'))) continue;
    seen.add(key.join('|'));
    const r = out.add(key);
    measures.forEach((_, m) => {
      if (next() < 0.15) return; // null
      out.addUnits(r, m, next() < 0.5 ? Math.floor(next() * 1000) * 1e6 : Math.floor(next() * 1e9));
    });
  }
  return sortCanonical(out.build());
}

/** A cube's rows as key → [count, nulls, sums] (values as numbers, NaN as null), for comparison. */
function rowsOf(cube: UnitCube) {
  return new Map(
    Array.from({ length: cube.size }, (_, i) => [
      keyAt(cube, i).join('|'),
      {
        count: cube.counts?.[i],
        nulls: cube.nulls?.map((z) => z[i]),
        sums: cube.sums.map((s) => (Number.isNaN(s[i] as number) ? null : s[i])),
      },
    ]),
  );
}

describe('the month root: stored rows plus a day minus its previous version', () => {
  for (const family of [CHANNEL_BASIC, FAMILY_BY_CODE.get('OB') as FamilyDef, FAMILY_BY_CODE.get('OR') as FamilyDef]) {
    it(`${family.type}: any sequence of (re)loads equals one load of the days' last versions, row for row`, () => {
      fc.assert(
        fc.property(
          fc.array(
            fc.record({
              day: fc.integer({ min: 1, max: 6 }),
              seed: fc.integer({ min: 1, max: 1e6 }),
              empty: fc.boolean(),
            }),
            {
              minLength: 1,
              maxLength: 14,
            },
          ),
          (loads) => {
            const dicts = new Dicts();
            const grain = fullDayOf(family).grain;
            const measures = measuresOf(family);
            const current = new Map<number, UnitCube>();
            let root: UnitCube | undefined;
            for (const load of loads) {
              const facts = load.empty ? dayFacts(family, dicts, load.seed, 0) : dayFacts(family, dicts, load.seed);
              const previous = current.get(load.day);
              root = mergeRoot(grain, dicts, measures, root ? [root] : [], [facts], previous ? [previous] : []);
              current.set(load.day, facts);
            }
            const batch = mergeRoot(grain, dicts, measures, [], [...current.values()], []);
            expect(rowsOf(root as UnitCube)).toEqual(rowsOf(batch));
            // The same rows in the same (canonical) order, not just the same set.
            expect(Array.from({ length: batch.size }, (_, i) => keyAt(batch, i).join('|'))).toEqual(
              Array.from({ length: (root as UnitCube).size }, (_, i) => keyAt(root as UnitCube, i).join('|')),
            );
          },
        ),
        { numRuns: 60 },
      );
    });
  }

  it('a row whose facts are all taken out is gone; a measure whose non-null facts are taken out is null again', () => {
    const dicts = new Dicts();
    const grain = fullDayOf(CHANNEL_BASIC).grain;
    const measures = measuresOf(CHANNEL_BASIC);
    const views = measures.indexOf(MEASURE_INDEX.views);
    const likes = measures.indexOf(MEASURE_INDEX.likes);
    const fact = (video: string, v: number, l: number) => {
      const b = new UnitCubeBuilder(grain, dicts, measures);
      const r = b.add(grain.map((d) => (d === 'video' ? video : (VALUES[d]?.[0] ?? 'x'))));
      b.addUnits(r, views, v);
      b.addUnits(r, likes, l);
      return b.build();
    };
    const day1 = fact('a', 5e6, Number.NaN);
    const day2 = fact('a', 7e6, 3e6);
    let root = mergeRoot(grain, dicts, measures, [], [day1, day2], []);
    expect(root.size).toBe(1);
    expect(root.counts?.[0]).toBe(2);
    expect(root.sums[views]?.[0]).toBe(12e6);
    expect(root.sums[likes]?.[0]).toBe(3e6);
    // day 2 restated with nothing for this key: likes has no value left (null), views is day 1's
    root = mergeRoot(grain, dicts, measures, [root], [], [day2]);
    expect(root.counts?.[0]).toBe(1);
    expect(root.sums[views]?.[0]).toBe(5e6);
    expect(Number.isNaN(root.sums[likes]?.[0] as number)).toBe(true);
    // and day 1 too: the row is gone
    root = mergeRoot(grain, dicts, measures, [root], [], [day1]);
    expect(root.size).toBe(0);
  });

  it('merges many days as sorted runs, and sorts days out of canonical order: the same root either way', () => {
    const dicts = new Dicts();
    const grain = fullDayOf(CHANNEL_BASIC).grain;
    const measures = measuresOf(CHANNEL_BASIC);
    const days = Array.from({ length: 9 }, (_, d) => dayFacts(CHANNEL_BASIC, dicts, 100 + d, 200));
    const sorted = mergeRoot(grain, dicts, measures, [], days, []);
    const next = random(5);
    const shuffled = days.map((day) => {
      const order = Array.from({ length: day.size }, (_, i) => i).sort(() => next() - 0.5);
      return permute(day, order);
    });
    const keysOf = (c: UnitCube) => Array.from({ length: c.size }, (_, i) => keyAt(c, i).join('|'));
    for (const other of [
      mergeRoot(grain, dicts, measures, [], shuffled, []),
      mergeRoot(grain, dicts, measures, [], [days[0] as UnitCube, ...shuffled.slice(1)], []),
    ]) {
      expect(rowsOf(other)).toEqual(rowsOf(sorted));
      expect(keysOf(other)).toEqual(keysOf(sorted));
    }
  });

  it('refuses to take out facts the month does not hold (a corrupt month is never written further)', () => {
    const dicts = new Dicts();
    const grain = fullDayOf(CHANNEL_BASIC).grain;
    const measures = measuresOf(CHANNEL_BASIC);
    const facts = dayFacts(CHANNEL_BASIC, dicts, 3);
    expect(() => mergeRoot(grain, dicts, measures, [], [], [facts])).toThrow(/more facts taken out/);
    const root = mergeRoot(grain, dicts, measures, [], [facts], []);
    const other = dayFacts(CHANNEL_BASIC, dicts, 3);
    const tampered = { ...other, sums: other.sums.map((s) => s.map((u) => (Number.isNaN(u) ? u : u + 1))) };
    expect(() => mergeRoot(grain, dicts, measures, [root], [], [tampered])).toThrow(/do not match/);
  });
});

describe('rollups and the canonical order', () => {
  it('orderOfSortedRuns: the order a stable sort gives runs already sorted, and none for a run out of order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 30 }), { minLength: 1, maxLength: 12 }),
        (runs) => {
          const sortedRuns = runs.map((r) => [...r].sort((a, b) => a - b));
          const keys = Float64Array.from(sortedRuns.flat());
          const ends = sortedRuns.map((_, i) => sortedRuns.slice(0, i + 1).flat().length);
          const stable = Array.from({ length: keys.length }, (_, i) => i).sort(
            (a, b) => (keys[a] as number) - (keys[b] as number) || a - b,
          );
          expect(Array.from(orderOfSortedRuns(keys, ends) ?? [])).toEqual(stable);
          const unsorted = runs.findIndex((r) => r.some((k, i) => i > 0 && k < (r[i - 1] as number)));
          if (unsorted >= 0) {
            const raw = Float64Array.from(runs.flat());
            expect(orderOfSortedRuns(raw, ends)).toBeUndefined();
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('rollupSorted (runs) equals rollupUnits (a map) for every grain the planner rolls up to', () => {
    for (const family of [CHANNEL_BASIC, FAMILY_BY_CODE.get('OB') as FamilyDef]) {
      const dicts = new Dicts();
      const plan = planFamily(family, measuresOf(family));
      const facts = dayFacts(family, dicts, 42, 400);
      for (const v of [...plan.day, ...plan.month]) {
        const a = rollupSorted(facts, v.grain, plan.measures);
        const b = rollupUnits([facts], v.grain, plan.measures);
        expect(rowsOf(a), `${family.code} ${v.name}`).toEqual(rowsOf(b));
        expect(Array.from({ length: a.size }, (_, i) => keyAt(a, i).join('|'))).toEqual(
          Array.from({ length: b.size }, (_, i) => keyAt(b, i).join('|')),
        );
      }
    }
  });

  it('orders rows by video bucket, video, then the other dimensions, whatever order the rows came in', () => {
    const dicts = new Dicts();
    const facts = dayFacts(CHANNEL_BASIC, dicts, 9, 200);
    const shuffled = permute(
      facts,
      Array.from({ length: facts.size }, (_, i) => (i * 7919) % facts.size),
    );
    const sorted = sortCanonical(shuffled);
    const keys = Array.from({ length: sorted.size }, (_, i) => keyAt(sorted, i));
    const v = sorted.grain.indexOf('video');
    const text = (key: string[]) =>
      [key[v] === '' ? '' : videoBucket(key[v] as string), key[v], ...key.filter((_, i) => i !== v)].join('\u0000');
    expect(keys.map(text)).toEqual([...keys.map(text)].sort());
    const compare = canonicalOrder(sorted);
    for (let i = 1; i < sorted.size; i++) expect(compare(i - 1, i)).toBeLessThan(0);
  });
});

describe('blocks of months', () => {
  const measures = measuresOf(CHANNEL_BASIC);
  const grain = ['video'];
  const monthsOf = (dicts: Dicts, list: readonly string[], seed: number) => {
    const next = random(seed);
    return new Map(
      list.map((month) => {
        const b = new UnitCubeBuilder(grain, dicts, measures);
        for (const video of VALUES.video as string[]) {
          const r = b.add([video]);
          b.addUnits(r, measures.indexOf(MEASURE_INDEX.views), Math.floor(next() * 1000) * 1e6);
          b.addUnits(r, measures.indexOf(MEASURE_INDEX.watchMinutes), Math.floor(next() * 1e8));
        }
        return [`M#${month}`, sortCanonical(b.build())];
      }),
    );
  };
  const viewsBy = (cube: UnitCube | undefined) =>
    Object.fromEntries(
      Array.from({ length: cube?.size ?? 0 }, (_, i) => [
        keyAt(cube as UnitCube, i)[0],
        (cube as UnitCube).sums[measures.indexOf(MEASURE_INDEX.views)]?.[i],
      ]),
    );

  it('blockCover: the longest aligned block at each month, single months where none fits', () => {
    expect(
      blockCover([
        '2025-11',
        '2025-12',
        ...Array.from({ length: 10 }, (_, i) => `2026-${String(i + 1).padStart(2, '0')}`),
      ]),
    ).toEqual(['B2#2025-11', 'B8#2026-01', 'B2#2026-09']);
    expect(blockCover(['2026-03'])).toEqual(['M#2026-03']);
    expect(blockCover([])).toEqual([]);
  });

  it('blocksHolding: one block of each length holds a month, and each holds it', () => {
    const held = blocksHolding(['2026-03']);
    expect(held).toHaveLength(BLOCK_MONTHS.length);
    for (const period of held) expect(blockMonths(period)).toContain('2026-03');
  });

  it('a block is the sum of its months; months not stored add nothing; no stored month, no block', () => {
    const dicts = new Dicts();
    const months = monthsOf(dicts, ['2026-01', '2026-02', '2026-03', '2026-05'], 7);
    const [b4, b2, empty] = blockCubes(grain, measures, months, ['B4#2026-01', 'B2#2026-05', 'B2#2026-07']);
    expect(b4?.period).toBe('B4#2026-01');
    const expected: Record<string, number> = {};
    for (const m of ['2026-01', '2026-02', '2026-03'])
      for (const [video, views] of Object.entries(viewsBy(months.get(`M#${m}`))))
        expected[video] = (expected[video] ?? 0) + (views as number);
    expect(viewsBy(b4?.cube)).toEqual(expected);
    expect(viewsBy(b2?.cube)).toEqual(viewsBy(months.get('M#2026-05')));
    expect(empty).toBeUndefined();
  });

  it('a block holding a due month is rebuilt from its halves; an unchanged half is taken as stored, exactly', () => {
    const dicts = new Dicts();
    const list = Array.from(
      { length: 16 },
      (_, i) => `${2025 + Math.floor((i + 4) / 12)}-${String(((i + 4) % 12) + 1).padStart(2, '0')}`,
    );
    const months = monthsOf(dicts, list, 11);
    const blocks = ['B2#2026-07', 'B4#2026-05', 'B8#2026-01', 'B16#2025-05'];
    // From the months alone (a batch), then from the due month and its neighbour plus the other halves as stored.
    const all = blockCubes(grain, measures, months, blocks);
    const stored = new Map([...months].filter(([p]) => p === 'M#2026-07' || p === 'M#2026-08'));
    const fromMonths = new Map(
      blockCubes(grain, measures, months, ['B2#2026-05', 'B4#2026-01', 'B8#2025-05']).map((b) => [b.period, b.cube]),
    );
    for (const [period, cube] of fromMonths) stored.set(period, cube);
    const due = blockCubes(grain, measures, stored, blocks, new Set(['2026-08']));
    expect(due.map((b) => b.period)).toEqual(blocks);
    for (const [i, b] of due.entries()) expect(b.cube, b.period).toEqual(all[i]?.cube);
    // A stored half that is wrong shows: the unchanged half really is read, not rebuilt.
    stored.set('B4#2026-01', months.get('M#2026-01') as UnitCube);
    const skewed = blockCubes(grain, measures, stored, blocks, new Set(['2026-08']));
    expect(skewed[2]?.cube).not.toEqual(all[2]?.cube);
  });
});

describe('micro-units', () => {
  it('reads numbers from their text exactly, rounding half up at the sixth place', () => {
    expect(unitsOfText('12')).toBe(12e6);
    expect(unitsOfText('0.14833333333333334')).toBe(148333);
    expect(unitsOfText('0.1234565')).toBe(123457);
    expect(unitsOfText('97.26')).toBe(97260000);
    expect(unitsOfText('.5')).toBe(500000);
    expect(unitsOfText('1e3')).toBe(1e9);
    expect(unitsOfText('5.')).toBe(5e6);
    for (const bad of ['-1', '1e999', 'x', '0x1F', '+1', '1.2.3']) expect(unitsOfText(bad), bad).toBeUndefined();
  });

  it('a column of micro-units reads back as the same integers (decimals exactly, not within a tolerance)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: 0, max: 2 ** 50 }), fc.constant(Number.NaN)), {
          minLength: 1,
          maxLength: 200,
        }),
        (units) => {
          const bytes = encodeUnits(Float64Array.from(units));
          if (units.every((u) => Number.isNaN(u))) {
            expect(bytes).toBeUndefined();
            return;
          }
          expect(Array.from(decodeUnits(bytes as Uint8Array, units.length))).toEqual(units);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a cube with fact counts survives the item form', () => {
    const dicts = new Dicts();
    const grain = fullDayOf(CHANNEL_BASIC).grain;
    const measures = measuresOf(CHANNEL_BASIC);
    const root = mergeRoot(
      grain,
      dicts,
      measures,
      [],
      [dayFacts(CHANNEL_BASIC, dicts, 5), dayFacts(CHANNEL_BASIC, dicts, 6)],
      [],
    );
    const back = decodeUnitCube(encodeUnitCube(root), new Dicts(), measures);
    expect(rowsOf(back)).toEqual(rowsOf(root));
  });
});
