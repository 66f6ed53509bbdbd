/**
 * The days an ingest-status range misses (functions/core/reports/ingest/ingest-status.ts): counted and run together
 * from the loaded days alone, across month ends and leap days, up to the last valid day, whatever the range's length.
 */
import { describe, expect, it } from 'vitest';
import {
  missingDays,
  runsText,
  StatusRangeError,
  statusRange,
} from '../../functions/core/reports/ingest/ingest-status';

/** Every day of a range, one by one: the reference the runs are checked against. */
function everyDay(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

const expand = (runs: readonly { from: string; to: string }[]) => runs.flatMap((r) => everyDay(r.from, r.to));

describe('missingDays', () => {
  it('runs the gaps together across month ends and leap days', () => {
    expect(missingDays({ from: '2028-02-27', to: '2028-03-02' }, ['2028-02-28', '2028-03-02'])).toEqual({
      count: 3,
      runs: [
        { from: '2028-02-27', to: '2028-02-27' },
        { from: '2028-02-29', to: '2028-03-01' },
      ],
    });
    expect(missingDays({ from: '2100-02-28', to: '2100-03-01' }, [])).toEqual({
      count: 2,
      runs: [{ from: '2100-02-28', to: '2100-03-01' }],
    });
    expect(missingDays({ from: '2026-12-31', to: '2026-12-31' }, ['2026-12-31'])).toEqual({ count: 0, runs: [] });
  });

  it('ignores loaded days outside the range and repeated ones', () => {
    expect(
      missingDays({ from: '2026-07-02', to: '2026-07-05' }, ['2026-07-01', '2026-07-03', '2026-07-03', '2026-07-09']),
    ).toEqual({
      count: 3,
      runs: [
        { from: '2026-07-02', to: '2026-07-02' },
        { from: '2026-07-04', to: '2026-07-05' },
      ],
    });
  });

  it('equals the range day by day less the loaded days', () => {
    let seed = 11;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (let k = 0; k < 50; k++) {
      const days = everyDay('2027-12-20', '2028-03-10');
      const from = Math.floor(random() * 40);
      const to = from + Math.floor(random() * 40);
      const loaded = days.filter(() => random() < 0.6);
      const range = { from: days[from] as string, to: days[to] as string };
      const want = everyDay(range.from, range.to).filter((d) => !loaded.includes(d));
      const got = missingDays(range, loaded);
      expect(expand(got.runs), JSON.stringify({ range, loaded })).toEqual(want);
      expect(got.count).toBe(want.length);
      for (const [a, b] of got.runs.slice(1).map((r, i) => [got.runs[i], r] as const))
        expect(Date.parse(b.from) - Date.parse(a?.to as string)).toBeGreaterThan(86_400_000); // runs never touch
    }
  });

  it('takes any range to 9999-12-31 without listing its days (the day after it sorts first as text)', () => {
    expect(missingDays({ from: '0001-01-01', to: '9999-12-31' }, ['2026-07-01'])).toEqual({
      count: 3_652_059 - 1,
      runs: [
        { from: '0001-01-01', to: '2026-06-30' },
        { from: '2026-07-02', to: '9999-12-31' },
      ],
    });
    expect(missingDays({ from: '9999-12-29', to: '9999-12-31' }, ['9999-12-31'])).toEqual({
      count: 2,
      runs: [{ from: '9999-12-29', to: '9999-12-30' }],
    });
  });
});

describe('runsText', () => {
  it('writes runs and single days, and says how many runs it leaves out', () => {
    const runs = [
      { from: '2026-07-03', to: '2026-07-05' },
      { from: '2026-07-09', to: '2026-07-09' },
      { from: '2026-07-12', to: '2026-07-13' },
      { from: '2026-07-20', to: '2026-07-20' },
    ];
    expect(runsText(runs)).toBe('2026-07-03..2026-07-05, 2026-07-09, 2026-07-12..2026-07-13, 2026-07-20');
    expect(runsText(runs, 2)).toBe('2026-07-03..2026-07-05, 2026-07-09 (and 2 more runs)');
    expect(runsText(runs, 3)).toBe('2026-07-03..2026-07-05, 2026-07-09, 2026-07-12..2026-07-13 (and 1 more run)');
    expect(runsText([])).toBe('');
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
