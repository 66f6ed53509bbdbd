/**
 * The cubes of blocks of months (cube.ts BLOCK_MONTHS) for the variants kept per block: a block of two months is
 * the sum of its months, a longer block the sum of its two halves, always in that order, so a block is the same
 * whatever order its months were loaded in. A block none of whose months is stored has no cube.
 */
import { blockMonths, blockPeriod, type Cube, type GrainDim } from '../storage/cube';
import { rollupCubes } from './month-cubes';

/**
 * The cubes of `blocks` (block periods), from the month cubes in `months` (by `yyyy-mm`): each block's months
 * must all be given where stored.
 */
export function blockCubes(
  grain: readonly GrainDim[],
  months: ReadonlyMap<string, Cube>,
  blocks: readonly string[],
  only: readonly number[],
): { period: string; cube: Cube }[] {
  const made = new Map<string, Cube | undefined>();
  const cubeOf = (period: string): Cube | undefined => {
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
      .filter((c): c is Cube => c !== undefined);
    const cube = halves.length === 0 ? undefined : rollupCubes(halves, grain, only);
    made.set(period, cube);
    return cube;
  };
  return blocks.flatMap((period) => {
    const cube = cubeOf(period);
    return cube ? [{ period, cube }] : [];
  });
}
