/**
 * A file's facts as the ingest collects them (functions/core/reports/ingest/day-facts.ts): a row repeating an earlier
 * row's dimension values is rejected at its line, whether the day is held in memory (checked row by row through
 * RepeatCheck's hashes) or spilled to group files (checked when each group is sorted).
 */
import { describe, expect, it } from 'vitest';
import { CHANNEL_BASIC, familyMeasures } from '../../functions/core/reports/catalog/families';
import { CsvError } from '../../functions/core/reports/ingest/csv';
import { FactCollector, RepeatCheck } from '../../functions/core/reports/ingest/day-facts';
import { fullDayOf } from '../../functions/core/reports/storage/cube';
import { Dicts } from '../../functions/core/reports/storage/units';

const FILE = 'UCfacts/channel_basic_a3/20260305.csv';
const grain = fullDayOf(CHANNEL_BASIC).grain;
const measures = familyMeasures(CHANNEL_BASIC).size;

/** The full-day key of row `n`: its video, and its country among three (rows 3k..3k+2 share a video). */
const keyOf = (n: number) =>
  grain.map((d): string =>
    d === 'video' ? `vid${Math.floor(n / 3)}` : d === 'country' ? (['US', 'DE', 'JP'][n % 3] as string) : 'x',
  );

/** Feeds rows with these keys (line = index + 2, after the header) and finishes; the CsvError thrown, if any. */
function collect(keys: readonly string[][], spillRows?: number): CsvError | undefined {
  const facts = new FactCollector(FILE, new Dicts(), spillRows);
  facts.begin(CHANNEL_BASIC);
  const units = new Float64Array(measures).fill(1e6);
  try {
    for (const [i, key] of keys.entries()) facts.add('UCfacts', key, units, i + 2);
    for (const day of facts.finish().values()) day.close?.();
    return undefined;
  } catch (error) {
    if (error instanceof CsvError) return error;
    throw error;
  } finally {
    facts.discard();
  }
}

describe('FactCollector', () => {
  const distinct = Array.from({ length: 3000 }, (_, n) => keyOf(n));

  it('takes rows of distinct dimension values, in memory and spilled', () => {
    expect(collect(distinct)).toBeUndefined();
    expect(collect(distinct, 500)).toBeUndefined();
  });

  it('rejects a repeated row at its line, in memory and spilled (the first repeat in the file)', () => {
    const keys = [...distinct.slice(0, 2000), keyOf(1234), ...distinct.slice(2000), keyOf(7)];
    for (const spill of [undefined, 500]) {
      const error = collect(keys, spill);
      expect(error?.line, `spill ${spill}`).toBe(2002);
      expect(error?.message).toContain('the same dimension values appear on an earlier line');
    }
  });
});

describe('RepeatCheck', () => {
  const FNV = (a: number, b: number) => Math.imul(Math.imul(0x811c9dc5 ^ a, 0x01000193) ^ b, 0x01000193);

  it('tells rows of equal hashes apart by their codes, and finds a repeat among them', () => {
    // (0, 0), (1, b) and (2, c) hash alike (b and c solve the FNV step), so all three share one slot.
    const b = Math.imul(0x811c9dc5, 0x01000193) ^ Math.imul(0x811c9dc5 ^ 1, 0x01000193);
    const c = Math.imul(0x811c9dc5, 0x01000193) ^ Math.imul(0x811c9dc5 ^ 2, 0x01000193);
    expect(FNV(1, b)).toBe(FNV(0, 0));
    expect(FNV(2, c)).toBe(FNV(0, 0));
    const columns = [Int32Array.of(0, 1, 2, 2, 1, 0, 5), Int32Array.of(0, b, c, c, b, 0, 5)];
    const check = new RepeatCheck();
    expect([0, 1, 2, 3, 4, 5, 6].map((i) => check.repeats(columns, i))).toEqual([
      false,
      false,
      false,
      true,
      true,
      true,
      false,
    ]);
  });
});
