/**
 * What ingest has loaded, per owner and report type (the `ingest-status` operator command): the days loaded, the
 * latest one, the days missing in a range, the files rejected (with line, column and reason), loads in flight (a
 * holder that died leaves its load pending until the month's next load finishes it), months whose blocks are still
 * due, and, when a reader of it is given, the connected-channel sync state of each owner.
 *
 * It reads the owners index (I1), each pair's month manifests (F2) and blocks-due item (F4), and the rejected files
 * (I2): Queries of known partitions, never a Scan.
 */

import type { SyncState } from '../../sync/connection';
import { FAMILY_BY_CODE, type FamilyDef, familyOfReportType } from '../catalog/families';
import type { MonthManifest } from '../storage/fact-writer';
import type { LoadedOwner, RejectedFile } from '../storage/ingest-status-repository';

/** Every connected owner's sync state (readSyncStates in core/sync: one Query; owners not connected are absent). */
export type SyncStates = () => Promise<readonly SyncState[]>;

/** What ingest-status reads (ingest-status-repository.ts). */
export interface IngestStatusSource {
  owners(owner?: string): Promise<LoadedOwner[]>;
  manifests(family: string, owner: string, fromMonth: string, toMonth: string): Promise<Map<string, MonthManifest>>;
  blocksDue(family: string, owner: string): Promise<string[]>;
  rejected(): Promise<RejectedFile[]>;
}

export interface DayRange {
  /** yyyy-mm-dd, inclusive. */
  readonly from: string;
  readonly to: string;
}

export interface PendingStatus {
  readonly month: string;
  readonly ver: number;
  readonly days: readonly string[];
  readonly startedAt: string;
}

export interface ReportStatus {
  readonly owner: string;
  readonly ownerType: 'channel' | 'contentOwner';
  /** The report type id (without its version suffix), e.g. `channel_basic_a`. */
  readonly reportType: string;
  readonly family: string;
  /** Days loaded (in the range, when one is given). */
  readonly days: number;
  readonly firstDay?: string;
  readonly latestDay?: string;
  /** The range the missing days are counted in: the one asked for, else first to latest day loaded. */
  readonly range?: DayRange;
  /** Days of the range without a loaded file: how many, and as runs of consecutive days in order. */
  readonly missing: MissingDays;
  readonly rejected: readonly RejectedFile[];
  readonly pending: readonly PendingStatus[];
  /** Months whose block cubes a load has yet to rewrite (the next load of the owner does it). */
  readonly blocksDue: readonly string[];
}

export interface IngestStatus {
  readonly reports: readonly ReportStatus[];
  /** Rejected files whose path names no owner or report type. */
  readonly unattributed: readonly RejectedFile[];
  /** Per owner of `reports`, when the sync states were read (undefined: not a connected owner). */
  readonly sync?: ReadonlyMap<string, SyncState | undefined>;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export class StatusRangeError extends Error {}

/** Checks a --from/--to pair: both or neither, real days, from ≤ to. */
export function statusRange(from: string | undefined, to: string | undefined): DayRange | undefined {
  if (from === undefined && to === undefined) return undefined;
  if (from === undefined || to === undefined) throw new StatusRangeError('--from and --to go together');
  for (const day of [from, to]) {
    if (!DAY.test(day) || new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) !== day)
      throw new StatusRangeError(`"${day}" is not a day (YYYY-MM-DD)`);
  }
  if (from > to) throw new StatusRangeError(`--from ${from} is after --to ${to}`);
  return { from, to };
}

export interface MissingDays {
  readonly count: number;
  readonly runs: readonly DayRange[];
}

const DAY_MS = 86_400_000;
const timeOf = (day: string) => Date.parse(`${day}T00:00:00Z`);
const dayAt = (t: number) => new Date(t).toISOString().slice(0, 10);

/**
 * The days of `range` without a loaded day, from the loaded days in it (in order): the gaps between them, found
 * without listing the range's days, so a range of any length (to 9999-12-31) costs what the loaded days cost. By
 * time, not as text: the day after 9999-12-31 is "+010000-01-01", which sorts before every day.
 */
export function missingDays(range: DayRange, loaded: readonly string[]): MissingDays {
  const runs: DayRange[] = [];
  let count = 0;
  const end = timeOf(range.to);
  let next = timeOf(range.from); // the first day not yet accounted for
  const gapTo = (t: number) => {
    if (t <= next) return;
    runs.push({ from: dayAt(next), to: dayAt(t - DAY_MS) });
    count += Math.round((t - next) / DAY_MS);
  };
  for (const day of loaded) {
    const t = timeOf(day);
    if (t < next || t > end) continue;
    gapTo(t);
    next = t + DAY_MS;
  }
  gapTo(end + DAY_MS);
  return { count, runs };
}

/** Runs of days as text, the first `max` of them: `2026-07-03..2026-07-05, 2026-07-09 (and 4 more runs)`. */
export function runsText(runs: readonly DayRange[], max = Number.POSITIVE_INFINITY): string {
  const shown = runs.slice(0, max).map((r) => (r.from === r.to ? r.from : `${r.from}..${r.to}`));
  const more = runs.length - shown.length;
  return shown.join(', ') + (more > 0 ? ` (and ${more} more run${more === 1 ? '' : 's'})` : '');
}

const inRange = (day: string, range: DayRange | undefined) => !range || (day >= range.from && day <= range.to);

/** The family a rejected file's report type names (with or without its version suffix). */
const familyOfRejected = (r: RejectedFile): FamilyDef | undefined =>
  r.reportType === undefined ? undefined : familyOfReportType(r.reportType);

export async function readIngestStatus(
  source: IngestStatusSource,
  options: { owner?: string; range?: DayRange; sync?: SyncStates } = {},
): Promise<IngestStatus> {
  const { range } = options;
  const loaded = await source.owners(options.owner);
  const rejected = (await source.rejected()).filter((r) => !options.owner || r.owner === options.owner);
  const pairs = new Map<string, LoadedOwner>(loaded.map((o) => [`${o.owner}|${o.family}`, o]));
  const unattributed: RejectedFile[] = [];
  const rejectedOf = new Map<string, RejectedFile[]>();
  for (const r of rejected) {
    const family = familyOfRejected(r);
    if (!family || r.owner === undefined) {
      unattributed.push(r);
      continue;
    }
    const key = `${r.owner}|${family.code}`;
    if (!pairs.has(key)) pairs.set(key, { owner: r.owner, family: family.code, ownerType: family.owner, months: [] });
    rejectedOf.set(key, [...(rejectedOf.get(key) ?? []), r]);
  }

  const reports: ReportStatus[] = [];
  for (const [key, pair] of [...pairs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const family = FAMILY_BY_CODE.get(pair.family);
    const months = pair.months.filter((m) => !range || (m >= range.from.slice(0, 7) && m <= range.to.slice(0, 7)));
    const manifests =
      months.length === 0
        ? new Map<string, MonthManifest>()
        : await source.manifests(pair.family, pair.owner, months[0] as string, months[months.length - 1] as string);
    const days = [...manifests.values()]
      .flatMap((m) => Object.keys(m.days))
      .filter((day) => inRange(day, range))
      .sort();
    const pending = [...manifests]
      .filter(([, m]) => m.pending)
      .map(([month, m]) => {
        const p = m.pending as NonNullable<MonthManifest['pending']>;
        return { month, ver: p.ver, days: p.days, startedAt: p.startedAt };
      });
    const span =
      range ?? (days.length > 0 ? { from: days[0] as string, to: days[days.length - 1] as string } : undefined);
    reports.push({
      owner: pair.owner,
      ownerType: pair.ownerType,
      reportType: family?.type ?? pair.family,
      family: pair.family,
      days: days.length,
      ...(days.length > 0 ? { firstDay: days[0] as string, latestDay: days[days.length - 1] as string } : {}),
      ...(span ? { range: span } : {}),
      missing: span ? missingDays(span, days) : { count: 0, runs: [] },
      rejected: rejectedOf.get(key) ?? [],
      pending,
      blocksDue: pair.months.length > 0 ? await source.blocksDue(pair.family, pair.owner) : [],
    });
  }

  if (!options.sync) return { reports, unattributed };
  const states = new Map((await options.sync()).map((s) => [s.owner.id, s]));
  const sync = new Map(reports.map((r) => [r.owner, states.get(r.owner)]));
  return { reports, unattributed, sync };
}

/** The sync column of an owner: `-` without a reader, `not connected`, or the state in a few words. */
export function syncText(status: IngestStatus, owner: string): string {
  if (!status.sync) return '-';
  const s = status.sync.get(owner);
  if (!s) return 'not connected';
  const parts: string[] = [];
  if (s.needsReconsent) parts.push('NEEDS RECONSENT');
  if (s.lastError) parts.push(`error: ${s.lastError.message}`);
  parts.push(s.lastSuccess ? `ok ${s.lastSuccess}` : 'never succeeded');
  if (s.checkpoint) parts.push(`at ${s.checkpoint}`);
  return parts.join('; ');
}
