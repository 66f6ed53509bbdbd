/**
 * The days of an ingest-status range (functions/core/reports/ingest/ingest-status.ts): every calendar day once, in
 * order, up to the last valid day.
 */
import { describe, expect, it } from 'vitest';
import { dayRuns, daysOf, StatusRangeError, statusRange } from '../../functions/core/reports/ingest/ingest-status';

describe('daysOf', () => {
  it('walks month ends and leap days', () => {
    expect(daysOf({ from: '2028-02-27', to: '2028-03-01' })).toEqual([
      '2028-02-27',
      '2028-02-28',
      '2028-02-29',
      '2028-03-01',
    ]);
    expect(daysOf({ from: '2100-02-28', to: '2100-03-01' })).toEqual(['2100-02-28', '2100-03-01']);
    expect(daysOf({ from: '2026-12-31', to: '2026-12-31' })).toEqual(['2026-12-31']);
  });

  it('ends at 9999-12-31 (the day after it sorts before every day as text: once an endless loop)', () => {
    expect(daysOf({ from: '9999-12-29', to: '9999-12-31' })).toEqual(['9999-12-29', '9999-12-30', '9999-12-31']);
    const days = daysOf({ from: '9000-01-01', to: '9999-12-31' });
    expect(days.length).toBe(365_242);
    expect(dayRuns(days)).toBe('9000-01-01..9999-12-31');
  });
});

describe('statusRange', () => {
  it('takes real days in order, both or neither', () => {
    expect(statusRange(undefined, undefined)).toBeUndefined();
    expect(statusRange('2026-01-01', '9999-12-31')).toEqual({ from: '2026-01-01', to: '9999-12-31' });
    for (const [from, to] of [
      ['2026-01-01', undefined],
      ['2026-02-30', '2026-03-01'],
      ['2026-03-02', '2026-03-01'],
      ['+02026-01-01', '2026-03-01'],
    ] as const)
      expect(() => statusRange(from, to), `${from}..${to}`).toThrow(StatusRangeError);
  });
});
