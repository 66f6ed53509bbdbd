/**
 * by-day-items.ts DayRouter: which days of a daily variant a load writes as one shared item, and which as group
 * items; a day is held while small, and handed back whole (every group so far) once it outgrows SHARED_BYTES.
 */
import { describe, expect, it } from 'vitest';
import { type DayPiece, DayRouter, SHARED_BYTES } from '../../functions/core/reports/ingest/by-day-items';

const piece = (bucket: number, bytes: number): DayPiece => ({
  field: `b${String(bucket).padStart(3, '0')}`,
  blob: new Uint8Array(bytes),
});
const days = (entries: [string, DayPiece[]][]) => new Map(entries);
const fieldsOf = (m: Map<number, Map<string, readonly DayPiece[]>>) =>
  [...m].map(([g, byDay]) => [g, [...byDay].map(([dd, list]) => [dd, list.map((p) => ('field' in p ? p.field : ''))])]);

describe('DayRouter', () => {
  it('holds small days to the end and hands back days it may not share at once', () => {
    const router = new DayRouter(['01', '02']);
    // 03 is not shareable (a day being removed, or a month with month items): written to its group at once.
    const out = router.take(
      0,
      days([
        ['01', [piece(0, 10)]],
        ['02', []],
        ['03', [piece(1, 10)]],
      ]),
    );
    expect(fieldsOf(out)).toEqual([[0, [['03', ['b001']]]]]);
    expect(
      router.take(
        1,
        days([
          ['01', [piece(16, 10)]],
          ['02', []],
        ]),
      ).size,
    ).toBe(0);
    expect([...router.shared()].map(([dd, list]) => [dd, list.map((p) => ('field' in p ? p.field : ''))])).toEqual([
      ['01', ['b000', 'b016']],
      ['02', []],
    ]);
    expect([...router.grouped]).toEqual(['03']);
  });

  it('a day outgrowing SHARED_BYTES goes back to its groups, every group so far (empty ones too), then each later one', () => {
    const router = new DayRouter(['01', '02']);
    const half = SHARED_BYTES / 2;
    expect(
      router.take(
        0,
        days([
          ['01', [piece(0, half)]],
          ['02', [piece(0, 10)]],
        ]),
      ).size,
    ).toBe(0);
    expect(
      router.take(
        1,
        days([
          ['01', []],
          ['02', [piece(16, 10)]],
        ]),
      ).size,
    ).toBe(0);
    const spilled = router.take(
      2,
      days([
        ['01', [piece(32, half)]],
        ['02', [piece(32, 10)]],
      ]),
    );
    expect(fieldsOf(spilled)).toEqual([
      [0, [['01', ['b000']]]],
      [1, [['01', []]]],
      [2, [['01', ['b032']]]],
    ]);
    expect(
      fieldsOf(
        router.take(
          3,
          days([
            ['01', [piece(48, 1)]],
            ['02', []],
          ]),
        ),
      ),
    ).toEqual([[3, [['01', ['b048']]]]]);
    expect([...router.shared().keys()]).toEqual(['02']);
    expect([...router.grouped]).toEqual(['01']);
  });

  it('a bucket split in several blobs (one field twice) cannot share an item: the day goes to its groups', () => {
    const router = new DayRouter(['01']);
    const out = router.take(0, days([['01', [piece(3, 10), piece(3, 10)]]]));
    expect(fieldsOf(out)).toEqual([[0, [['01', ['b003', 'b003']]]]]);
    expect(router.shared().size).toBe(0);
  });

  it('shares nothing when told no day may be shared (a whole-month load)', () => {
    const router = new DayRouter([]);
    const out = router.take(
      5,
      days([
        ['01', [piece(80, 10)]],
        ['02', []],
      ]),
    );
    expect(fieldsOf(out)).toEqual([
      [
        5,
        [
          ['01', ['b080']],
          ['02', []],
        ],
      ],
    ]);
    expect(router.shared().size).toBe(0);
  });
});
