/**
 * What the Query Explorer offers, derived from the report catalog: dimensions only in combinations some report
 * takes, metrics only when a report with those dimensions has them all, the filters those reports take. The API
 * still decides (and the page shows its 400 message); this only keeps the choices honest.
 */
import { REPORTS, type ReportDef, ruleNames, ruleViolation, type SetRule } from '../core/reports/catalog/catalog';

export type OwnerKind = ReportDef['owner'];

export interface Choice {
  readonly name: string;
  readonly enabled: boolean;
}

const ofOwner = (owner: OwnerKind) => REPORTS.filter((r) => r.owner === owner);
const unique = (names: Iterable<string>) => [...new Set(names)];

/** Whether more names can still be added to `names` under `rule` (all allowed, no one-of group over-full). */
function canGrow(rule: SetRule, names: readonly string[]): boolean {
  const allowed = ruleNames(rule);
  if (names.some((n) => !allowed.has(n))) return false;
  const groups = [...(rule.exactlyOne ?? []), ...(rule.atMostOne ?? [])];
  return groups.every((g) => g.filter((n) => names.includes(n)).length <= 1);
}

/** Reports whose dimension rule `dimensions` satisfies exactly. */
export const reportsFor = (owner: OwnerKind, dimensions: readonly string[]): ReportDef[] =>
  ofOwner(owner).filter((r) => ruleViolation(r.dimensions, new Set(dimensions), 'dimension') === undefined);

/** Every dimension of the owner's reports; enabled when some report can take it with the ones chosen. */
export function dimensionChoices(owner: OwnerKind, chosen: readonly string[]): Choice[] {
  const reports = ofOwner(owner);
  return unique(reports.flatMap((r) => [...ruleNames(r.dimensions)])).map((name) => ({
    name,
    enabled: chosen.includes(name) || reports.some((r) => canGrow(r.dimensions, [...chosen, name])),
  }));
}

/** The metrics of the reports these dimensions make; enabled when one of them has it with the ones chosen. */
export function metricChoices(owner: OwnerKind, dimensions: readonly string[], chosen: readonly string[]): Choice[] {
  const reports = reportsFor(owner, dimensions);
  return unique(reports.flatMap((r) => r.metrics)).map((name) => ({
    name,
    enabled: chosen.includes(name) || reports.some((r) => [...chosen, name].every((m) => r.metrics.includes(m))),
  }));
}

/** Filter names the reports these dimensions make accept. */
export const filterChoices = (owner: OwnerKind, dimensions: readonly string[]): string[] =>
  unique(reportsFor(owner, dimensions).flatMap((r) => [...ruleNames(r.filters)]));

/** The catalog reports a complete choice can be (for the page's hint). */
export const matchingReports = (owner: OwnerKind, dimensions: readonly string[], metrics: readonly string[]) =>
  reportsFor(owner, dimensions).filter((r) => metrics.every((m) => r.metrics.includes(m)));

const DAY_MS = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export type DatePreset = 'last7' | 'last28' | 'last90' | 'thisYear';

/** The date range of a preset as of `today` (UTC): ranges end yesterday, the last full day. */
export function presetRange(preset: DatePreset, today: Date): { startDate: string; endDate: string } {
  const midnight = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  const end = midnight - DAY_MS;
  if (preset === 'thisYear') {
    const jan1 = Date.UTC(today.getUTCFullYear(), 0, 1);
    return { startDate: iso(jan1), endDate: iso(Math.max(end, jan1)) };
  }
  const days = { last7: 7, last28: 28, last90: 90 }[preset];
  return { startDate: iso(end - (days - 1) * DAY_MS), endDate: iso(end) };
}
