/**
 * The cubes of blocks of months (cube.ts BLOCK_MONTHS) for the variants kept per block: a block of two months is
 * the sum of its months, a longer block the sum of its two halves, always in that order, so a block is the same
 * whatever order its months were loaded in. A block none of whose months is stored has no cube.
 *
 * A load's commit adds its month to the owner's months whose blocks are due (fact-writer.ts F4); `writeDueBlocks`
 * rewrites every block holding one of them, under a lease of the owner's blocks (so two loads of different months
 * never write a block from each other's half-written months), then takes the months off. A block is rebuilt from
 * its halves, and a half holding no due month is read as stored (it did not change), so a month's blocks cost its
 * month, the other month of its 2-month block and the stored other halves of its 4-, 8- and 16-month blocks: the
 * same whether the owner has two months stored or twenty years. A half that should be stored and is not (months
 * loaded before blocks existed) is rebuilt from its own halves. A load that dies before leaves the months due: the
 * next load of that owner and report type writes them.
 *
 * A block holding an open month (one with pieces, month-pieces.ts) is removed, not built: the month's next pieces
 * would leave it stale, and a report reads a missing block as its months, pieces included. Loads mark a month due
 * when its cubes change and when it opens, not for each piece; its compaction marks it due again.
 */
import * as keys from '../../db/keys';
import type { FamilyDef } from '../catalog/families';
import { BLOCK_MONTHS, blockMonths, blockPeriod, blocksHolding, type CubeVariant } from '../storage/cube';
import { ChunkRegistry, type FactWriter } from '../storage/fact-writer';
import { type HeadSizes, headSettings } from '../storage/heads';
import type { LeaseRepository } from '../storage/lease-repository';
import { concatUnits, type Dicts, rollupUnits, type UnitCube } from '../storage/units';
import { holdLease, type LeaseSettings } from './lease-keeper';
import type { FamilyPlan } from './month-pipeline';

/** The two halves of a block: its months (a 2-month block) or its two half-length blocks. */
function halvesOf(period: string): string[] {
  const inside = blockMonths(period);
  const half = inside.length / 2;
  return half === 1
    ? inside.map((m) => `M#${m}`)
    : [blockPeriod(half, inside[0] as string), blockPeriod(half, inside[half] as string)];
}

/**
 * The cubes of `blocks` (block periods). `stored` holds stored cubes by period (`M#yyyy-mm` months, `B…` blocks):
 * every stored month inside a block to build, and the stored blocks that may stand for their months. A block
 * holding a month of `due` is always built from its halves; one holding none is taken from `stored` when there,
 * else built from its halves too.
 */
export function blockCubes(
  grain: readonly string[],
  measures: readonly number[],
  stored: ReadonlyMap<string, UnitCube>,
  blocks: readonly string[],
  due: ReadonlySet<string> = new Set(),
): { period: string; cube: UnitCube }[] {
  const made = new Map<string, UnitCube | undefined>();
  const cubeOf = (period: string): UnitCube | undefined => {
    if (period.startsWith('M#')) return stored.get(period);
    if (made.has(period)) return made.get(period);
    const unchanged = !blockMonths(period).some((m) => due.has(m));
    const halves = unchanged && stored.has(period) ? [] : halvesOf(period).map(cubeOf);
    const present = halves.filter((c): c is UnitCube => c !== undefined);
    // One half present: the block is that half's cube (the same rows and sums a rollup of it gives).
    const cube =
      unchanged && stored.has(period)
        ? stored.get(period)
        : present.length === 0
          ? undefined
          : present.length === 1 && !present[0]?.counts
            ? present[0]
            : rollupUnits(present, grain, measures);
    made.set(period, cube);
    return cube;
  };
  return blocks.flatMap((period) => {
    const cube = cubeOf(period);
    return cube ? [{ period, cube }] : [];
  });
}

/**
 * The periods `blockCubes` needs read to build `blocks`, given which months are stored: the stored months of blocks
 * holding a due month (down to the 2-month blocks) and the blocks holding none but a stored month (read as stored).
 */
function periodsToRead(blocks: readonly string[], due: ReadonlySet<string>, storedMonths: ReadonlySet<string>) {
  const out = new Set<string>();
  const visit = (period: string) => {
    if (period.startsWith('M#')) {
      if (storedMonths.has(period.slice(2))) out.add(period);
      return;
    }
    const months = blockMonths(period);
    if (!months.some((m) => storedMonths.has(m))) return; // no month stored: no cube
    if (months.some((m) => due.has(m))) for (const half of halvesOf(period)) visit(half);
    else out.add(period);
  };
  for (const period of blocks) visit(period);
  return out;
}

/** A stored flat cube (its chunks put together), or undefined when the period has none. */
async function readCube(
  writer: FactWriter,
  pk: string,
  period: string,
  dicts: Dicts,
  measures: readonly number[],
): Promise<UnitCube | undefined> {
  // A month: its compacted cube and the pieces of the days loaded since (month-pieces.ts).
  if (period.startsWith('M#')) return writer.openMonth(pk, period.slice(2), dicts, measures);
  const opened = await writer.openCube({ pk }, period, dicts, measures);
  if (!opened) return undefined;
  const parts: UnitCube[] = [];
  for await (const chunk of opened.chunks) parts.push(chunk);
  return concatUnits(parts);
}

/**
 * The stored cubes `blockCubes` needs for one variant: the months stored around the due ones (one keys-only Query
 * over the 16-month blocks holding them), then by key the due months, their neighbours and the unchanged halves.
 * A half that is missing though a month of it is stored (months loaded before blocks existed) is read as its halves.
 */
async function readForBlocks(
  writer: FactWriter,
  pk: string,
  blocks: readonly string[],
  due: ReadonlySet<string>,
  dicts: Dicts,
  measures: readonly number[],
): Promise<{ stored: Map<string, UnitCube>; buildable: string[] }> {
  const longest = BLOCK_MONTHS[0];
  const widest = blocks.filter((b) => b.startsWith(`B${longest}#`)).flatMap(blockMonths);
  const [first, last] = [widest[0] as string, widest[widest.length - 1] as string];
  const listed = await writer.queryItems(pk, keys.factMonthSk(first), `${keys.factMonthSk(last)}#~`, 'sk');
  const storedMonths = new Set(
    listed
      .map((i) => String(i.sk))
      // A month's cube, or a piece of a month not compacted yet (month-pieces.ts).
      .filter((sk) => /^M#\d{4}-\d{2}(#p\d\d)?$/.test(sk))
      .map((sk) => sk.slice(2, 9)),
  );
  const stored = new Map<string, UnitCube>();
  const open = new Set(
    listed
      .map((i) => String(i.sk))
      .filter((sk) => /^M#\d{4}-\d{2}#p\d\d$/.test(sk))
      .map((sk) => sk.slice(2, 9)),
  );
  // A block holding an open month is not built (it would go stale with the month's next piece): removed instead.
  const buildable = blocks.filter((b) => !blockMonths(b).some((m) => open.has(m)));
  let wanted = [...periodsToRead(buildable, due, storedMonths)];
  while (wanted.length > 0) {
    const read = await Promise.all(wanted.map((period) => readCube(writer, pk, period, dicts, measures)));
    const missing: string[] = [];
    wanted.forEach((period, i) => {
      const cube = read[i];
      if (cube) stored.set(period, cube);
      else if (!period.startsWith('M#')) missing.push(period);
    });
    // Blocks not stored though months of theirs are: read what they are made of (their halves, as the rule says).
    wanted = [...periodsToRead(missing.flatMap(halvesOf), due, storedMonths)].filter((p) => !stored.has(p));
  }
  return { stored, buildable };
}

/** Rewrites the blocks holding the months due, for every variant kept per block (`due`: some are known to be). */
export async function writeDueBlocks(
  stores: { writer: FactWriter; leases: LeaseRepository },
  family: FamilyDef,
  plan: FamilyPlan,
  owner: string,
  options: { holder: string; lease: LeaseSettings; dicts: Dicts; heads?: HeadSizes; due?: boolean },
): Promise<number> {
  if (plan.blocks.length === 0) return 0;
  const { writer } = stores;
  // Most loads of an open month leave nothing due: no lease needed to see that (unless the caller knows of some).
  if (!options.due && (await writer.readBlocksDue(family.code, owner)).months.length === 0) return 0;
  const held = await holdLease(stores.leases, keys.blocksLease(family.code, owner), options.holder, options.lease);
  try {
    const due = await writer.readBlocksDue(family.code, owner);
    if (due.months.length === 0) return 0;
    const dueMonths = new Set(due.months);
    const blocks = blocksHolding(due.months);
    const gen = `b${held.lease.fence}`;
    const chunked = new ChunkRegistry(due.chunked);
    // The variants' reads and writes overlap (a few small requests each); the chunk registry is updated in turn.
    const counts = await Promise.all(
      plan.blocks.map(async (v) => {
        const pk = keys.factPartition(family.code, owner, v.name);
        const { stored, buildable } = await readForBlocks(writer, pk, blocks, dueMonths, options.dicts, plan.measures);
        const cubes = blockCubes(v.grain, plan.measures, stored, buildable, dueMonths);
        const gone = blocks.filter((b) => !buildable.includes(b));
        await writer.deleteKeys(
          gone.flatMap((period) => [{ pk, sk: period }, ...chunked.removed(pk, period)]),
          held.guard,
        );
        return writeBlocks(writer, pk, v, options, plan.measures, cubes, gen, chunked, held.guard);
      }),
    );
    const written = counts.reduce((a, b) => a + b, 0);
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
  { dicts, heads }: { dicts: Dicts; heads?: HeadSizes },
  measures: readonly number[],
  cubes: readonly { period: string; cube: UnitCube }[],
  gen: string,
  chunked: ChunkRegistry,
  guard: () => void,
): Promise<number> {
  const firsts: Record<string, unknown>[] = [];
  /** Blocks whose cube is another's (a young owner's longer blocks hold the same months): encoded once. */
  const single = new Map<UnitCube, Record<string, unknown>>();
  for (const { period, cube } of cubes) {
    const same = single.get(cube);
    if (same) {
      firsts.push({ ...same, sk: period });
      chunked.written(pk, period, gen, 1);
      continue;
    }
    const head = headSettings(variant.grain, variant.partitionBy, measures, heads);
    const w = writer.cubeWriter(pk, period, variant.grain, dicts, measures, gen, guard, undefined, head);
    await w.append(cube);
    const done = await w.finish();
    firsts.push(done.item);
    chunked.written(pk, period, gen, done.chunks);
    if (done.chunks === 1) single.set(cube, done.item);
  }
  await writer.putItems(firsts, guard);
  return cubes.length;
}
