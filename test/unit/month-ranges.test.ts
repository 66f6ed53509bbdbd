/**
 * How a long sort-key range is split by month after its first page (core/db/month-ranges.ts monthRangesAfter): the
 * months after the page's, up to the range's end, in contiguous ranges that hold every later key once and no key of
 * the page's month. Checked on chosen cases and on random ranges against a brute-force month list.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { monthRangesAfter } from '../../functions/core/db/month-ranges';

const within = (sk: string, r: { from: string; to: string }) => sk >= r.from && sk <= r.to;

describe('monthRangesAfter', () => {
  it('splits the months after the first page’s into contiguous ranges, the last ending where the range ends', () => {
    expect(monthRangesAfter('D#2025-11-30', 'D#2026-02-28#~', 7)).toEqual([
      { from: 'D#2025-12', to: 'D#2025-12~' },
      { from: 'D#2026-01', to: 'D#2026-01~' },
      { from: 'D#2026-02', to: 'D#2026-02-28#~' },
    ]);
    expect(monthRangesAfter('M#2025-01#c3', 'M#2025-12#~', 3)).toEqual([
      { from: 'M#2025-02', to: 'M#2025-04~' },
      { from: 'M#2025-05', to: 'M#2025-08~' },
      { from: 'M#2025-09', to: 'M#2025-12#~' },
    ]);
  });

  it('gives nothing to split when the range ends in the page’s month or the keys name no month of one kind', () => {
    expect(monthRangesAfter('D#2025-03-14', 'D#2025-03-31#~', 7)).toBeUndefined();
    expect(monthRangesAfter('D#2025-03-14', 'D#2025-02-28', 7)).toBeUndefined();
    expect(monthRangesAfter('D#2025-03-14', 'M#2025-09~', 7)).toBeUndefined();
    expect(monthRangesAfter('LEASE', 'M#2025-09~', 7)).toBeUndefined();
    expect(monthRangesAfter('D#2025-03-14', 'D#2025-09~', 0)).toBeUndefined();
  });

  it('holds every key after the page’s month once, and none of that month, on random ranges', () => {
    const monthArb = fc.integer({ min: 2000 * 12, max: 2040 * 12 });
    const ym = (i: number) => `${Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`;
    fc.assert(
      fc.property(
        monthArb,
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 1, max: 9 }),
        fc.constantFrom('D#', 'M#', 'B16#'),
        (start, span, parts, kind) => {
          const after = `${kind}${ym(start)}-07#c1`;
          const to = `${kind}${ym(start + span)}#~`;
          const ranges = monthRangesAfter(after, to, parts);
          if (span === 0) {
            expect(ranges).toBeUndefined();
            return;
          }
          expect(ranges?.length).toBe(Math.min(parts, span));
          const list = ranges ?? [];
          // Contiguous and in order: each begins with the month after the one before it ends.
          for (const [i, r] of list.entries()) {
            expect(r.from <= r.to).toBe(true);
            if (i > 0) expect(r.from > (list[i - 1]?.to as string)).toBe(true);
          }
          // Keys of every month: those after the page's month in exactly one range, those of it in none.
          for (let m = start; m <= start + span; m++) {
            for (const sk of [`${kind}${ym(m)}`, `${kind}${ym(m)}-01`, `${kind}${ym(m)}-31#c9`, `${kind}${ym(m)}#o`]) {
              const holding = list.filter((r) => within(sk, r)).length;
              if (sk > to) continue;
              expect(holding, `${sk} in ${JSON.stringify(list)}`).toBe(m === start ? 0 : 1);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
