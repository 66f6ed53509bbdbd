/**
 * The cubes of blocks of months (cube.ts BLOCK_MONTHS) for the variants kept per block: a block of two months is
 * the sum of its months, a longer block the sum of its two halves, always in that order, so a block is the same
 * whatever order its months were loaded in. A block none of whose months is stored has no cube.
 *
 * A load's commit adds its month to the owner's months whose blocks are due (fact-writer.ts F4); `writeDueBlocks`
 * rewrites every block holding one of them from the stored month cubes, under a lease of the owner's blocks (so two
 * loads of different months never write a block from each other's half-written months), then takes the months off.
 * A load that dies before leaves them due: the next load of that owner and report type writes them.
 */
import { keys } from '../../db/keys';
import type { FamilyDef } from '../catalog/families';
import { blockMonths, blockPeriod, blocksHolding, type CubeVariant } from '../storage/cube';
import { basePeriod, chunkHeader, chunkIndex } from '../storage/fact-repository';
import { ChunkRegistry, type FactWriter } from '../storage/fact-writer';
import type { LeaseRepository } from '../storage/lease-repository';
import { decodeUnitCube } from '../storage/unit-codec';
import { concatUnits, type Dicts, rollupUnits, type UnitCube } from '../storage/units';
import { holdLease, type LeaseSettings } from './lease-keeper';
import type { FamilyPlan } from './month-pipeline';

/**
 * The cubes of `blocks` (block periods) from the month cubes in `months` (by `yyyy-mm`): each block's months must
 * all be given where stored.
 */
export function blockCubes(
  grain: readonly string[],
  measures: readonly number[],
  months: ReadonlyMap<string, UnitCube>,
  blocks: readonly string[],
): { period: string; cube: UnitCube }[] {
  const made = new Map<string, UnitCube | undefined>();
  const cubeOf = (period: string): UnitCube | undefined => {
    if (period.startsWith('M#')) return months.get(period.slice(2));
    if (made.has(period)) return made.get(period);
    const inside = blockMonths(period);
    const half = inside.length / 2;
    const halves = (
      half === 1
        ? inside.map((m) => `M#${m}`)
        : [blockPeriod(half, inside[0] as string), blockPeriod(half, inside[half] as string)]
    )
      .map(cubeOf)
      .filter((c): c is UnitCube => c !== undefined);
    const cube = halves.length === 0 ? undefined : rollupUnits(halves, grain, measures);
    made.set(period, cube);
    return cube;
  };
  return blocks.flatMap((period) => {
    const cube = cubeOf(period);
    return cube ? [{ period, cube }] : [];
  });
}

/** Stored flat cubes of a partition over [fromSk, toSk], by period, as units (chunks put together). */
export async function readUnitCubes(
  writer: FactWriter,
  pk: string,
  fromSk: string,
  toSk: string,
  dicts: Dicts,
  measures: readonly number[],
): Promise<Map<string, UnitCube>> {
  const byPeriod = new Map<string, Record<string, unknown>[]>();
  for (const item of await writer.queryItems(pk, fromSk, `${toSk}#~`)) {
    const period = basePeriod(String(item.sk));
    byPeriod.set(period, [...(byPeriod.get(period) ?? []), item]);
  }
  const out = new Map<string, UnitCube>();
  for (const [period, items] of byPeriod) {
    const first = items.find((i) => String(i.sk) === period);
    if (!first) continue;
    const header = chunkHeader(first);
    const ordered = items
      .map((item) => ({ item, at: chunkIndex(String(item.sk), period, header) }))
      .filter((c) => c.at >= 0)
      .sort((a, b) => a.at - b.at);
    if (ordered.length !== header.chunks) continue;
    out.set(period, concatUnits(ordered.map((c) => decodeUnitCube(c.item, dicts, measures))));
  }
  return out;
}

/** Rewrites the blocks holding the months due, for every variant kept per block. */
export async function writeDueBlocks(
  stores: { writer: FactWriter; leases: LeaseRepository },
  family: FamilyDef,
  plan: FamilyPlan,
  owner: string,
  options: { holder: string; lease: LeaseSettings; dicts: Dicts },
): Promise<number> {
  if (plan.blocks.length === 0) return 0;
  const { writer } = stores;
  const held = await holdLease(stores.leases, keys.blocksLease(family.code, owner), options.holder, options.lease);
  try {
    const due = await writer.readBlocksDue(family.code, owner);
    if (due.months.length === 0) return 0;
    const blocks = blocksHolding(due.months);
    const spanned = [...new Set(blocks.flatMap(blockMonths))].sort();
    const gen = `b${held.lease.fence}`;
    const chunked = new ChunkRegistry(due.chunked);
    let written = 0;
    for (const v of plan.blocks) {
      const pk = keys.factPartition(family.code, owner, v.name);
      const months = await readUnitCubes(
        writer,
        pk,
        keys.factMonthSk(spanned[0] as string),
        keys.factMonthSk(spanned[spanned.length - 1] as string),
        options.dicts,
        plan.measures,
      );
      const byMonth = new Map([...months].map(([period, cube]) => [period.slice(2), cube]));
      const cubes = blockCubes(v.grain, plan.measures, byMonth, blocks);
      written += await writeBlocks(writer, pk, v, options.dicts, plan.measures, cubes, gen, chunked, held.guard);
    }
    await writer.deleteKeys(chunked.stale, held.guard);
    await writer.blocksWritten(family.code, owner, due.months, chunked.list(), held.guard);
    return written;
  } finally {
    await held.release();
  }
}

async function writeBlocks(
  writer: FactWriter,
  pk: string,
  variant: CubeVariant,
  dicts: Dicts,
  measures: readonly number[],
  cubes: readonly { period: string; cube: UnitCube }[],
  gen: string,
  chunked: ChunkRegistry,
  guard: () => void,
): Promise<number> {
  const firsts: Record<string, unknown>[] = [];
  for (const { period, cube } of cubes) {
    const w = writer.cubeWriter(pk, period, variant.grain, dicts, measures, gen, guard);
    await w.append(cube);
    const done = await w.finish();
    firsts.push(done.item);
    chunked.written(pk, period, gen, done.chunks);
  }
  await writer.putItems(firsts, guard);
  return cubes.length;
}
