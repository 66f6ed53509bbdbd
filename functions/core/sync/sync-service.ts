/**
 * The sync of one connected owner from the YouTube Reporting API (the same code runs in `npm run sync` and in the
 * stack's scheduled worker; only the credential store and the sink differ):
 *   1. make sure a job exists for every report family this product ingests that the owner may create (the newest
 *      version the API offers), reading system-managed jobs too for content owners;
 *   2. list every job's reports created after the owner's checkpoint (minus an overlap), every page;
 *   3. per (report family, day), keep only the newest report (a newer version, then a newer createTime, wins); an
 *      older one, whatever order it is listed or arrives in, is skipped and recorded as skipped;
 *   4. download the rest (asking for gzip), check each is the owner's whole day, and load them through the sink;
 *   5. move the checkpoint only past reports that were handled (loaded, skipped or known): a report that failed keeps
 *      it before its createTime, so the next run lists it again.
 * `invalid_grant` marks the owner `needs re-consent`; 429 and 5xx are retried with backoff, then left for the next
 * run. A lease on the connection keeps two runs of one owner from overlapping.
 */
import { familyOfReportType } from '../reports/catalog/family-shapes';
import { decodeText, parseCsv } from '../reports/ingest/csv';
import type { CredentialStore, OAuthCredentials, RunSummary, SkippedReport, SyncError } from './connection';
import type { DownloadedReport, ReportSink } from './delivery';
import type { ConnectedOwner } from './owner';
import { normalizeTime, reportDay } from './report-times';
import { type Job, type Report, type ReportingApi, ReportingError } from './reporting-api';
import type { DayRecord, SyncRepository } from './sync-repository';

export interface SyncDeps {
  readonly repo: SyncRepository;
  readonly credentials: CredentialStore;
  readonly api: (credentials: OAuthCredentials, owner: ConnectedOwner) => ReportingApi;
  readonly sink: ReportSink;
  readonly now?: () => Date;
  readonly newLeaseId?: () => string;
  /** Progress on long work (one line at a time). */
  readonly progress?: (owner: ConnectedOwner, message: string) => void;
}

export interface SyncOptions {
  /** Epoch ms: no download starts after this (the Lambda's time left); what remains waits for the next run. */
  readonly deadline?: number;
  /** How long the lease holds (a crashed run frees the owner after this). */
  readonly leaseMs?: number;
  /** Reports downloaded before each delivery to the sink (the ingest computes a month once per batch). */
  readonly batchSize?: number;
}

export type OwnerStatus = 'ok' | 'failed' | 'needs-reconsent' | 'busy' | 'not-connected';

export interface OwnerSyncResult {
  readonly owner: ConnectedOwner;
  readonly status: OwnerStatus;
  readonly summary: RunSummary;
  /** Reports not tried because the run ran out of time (`deadline`). */
  readonly deferred: number;
  readonly error?: string;
}

/** Re-listed before the checkpoint: a report listed late (or created while another job was being listed) is found. */
export const CHECKPOINT_OVERLAP_MS = 24 * 3_600_000;
const DEFAULT_LEASE_MS = 20 * 60_000;
const DEFAULT_BATCH = 31;
const MAX_SKIPPED_LISTED = 20;

interface Listed {
  readonly report: Report;
  readonly reportType: string;
  readonly family: string;
  readonly day: string;
  readonly createTime: string;
  /** Version index, createTime, id: the larger wins a day. */
  readonly rank: string;
}

const emptySummary = (at: string): RunSummary => ({ at, found: 0, loaded: 0, skipped: 0, failed: 0, jobsCreated: 0 });

/** The newest version the API offers of each family this product ingests (extension layouts are not in the API). */
function wantedTypes(owner: ConnectedOwner, offered: readonly { id: string; deprecateTime?: string }[], now: Date) {
  const newest = new Map<string, { id: string; index: number }>();
  for (const t of offered) {
    const family = familyOfReportType(t.id);
    if (!family || family.owner !== owner.type) continue;
    if (t.deprecateTime && Date.parse(t.deprecateTime) <= now.getTime()) continue;
    const index = family.versions.indexOf(t.id.slice(family.type.length + 1));
    const best = newest.get(family.code);
    if (!best || index > best.index) newest.set(family.code, { id: t.id, index });
  }
  return [...newest.values()].map((t) => t.id);
}

function listedOf(report: Report, reportType: string): Listed | undefined {
  const family = familyOfReportType(reportType);
  if (!family) return undefined;
  const createTime = normalizeTime(report.createTime);
  const version = family.versions.indexOf(reportType.slice(family.type.length + 1));
  return {
    report,
    reportType,
    family: family.code,
    day: reportDay(report.startTime),
    createTime,
    rank: `${String(version).padStart(2, '0')}|${createTime}|${report.id}`,
  };
}

/**
 * Checks a download is one whole day of the owner's report before anything is stored: a CSV with the columns date
 * and channel_id, every row of the report's day, and (channel owners) of the owner's channel.
 */
function checkReport(owner: ConnectedOwner, r: DownloadedReport): void {
  const name = `report ${r.report.id} (${r.reportType}, ${r.day})`;
  const table = parseCsv(name, decodeText(name, r.bytes));
  const date = table.header.indexOf('date');
  const channel = table.header.indexOf('channel_id');
  if (date < 0 || channel < 0) throw new Error(`${name}: not a Reporting API report (no date or channel_id column)`);
  const day = r.day.replaceAll('-', '');
  for (const row of table.rows) {
    const d = (row.fields[date] ?? '').trim();
    if (d !== day) throw new Error(`${name}: line ${row.line} is for ${d}, not the report's day ${day}`);
    const c = (row.fields[channel] ?? '').trim();
    if (owner.type === 'channel' && c !== owner.id) {
      throw new Error(
        `${name}: it holds channel ${c}'s data, not ${owner.id}'s (the credentials belong to another channel)`,
      );
    }
  }
}

export async function syncOwner(
  deps: SyncDeps,
  owner: ConnectedOwner,
  options: SyncOptions = {},
): Promise<OwnerSyncResult> {
  const now = deps.now ?? (() => new Date());
  const started = now();
  const leaseId = deps.newLeaseId?.() ?? crypto.randomUUID();
  const until = () => new Date(now().getTime() + (options.leaseMs ?? DEFAULT_LEASE_MS)).toISOString();
  const conn = await deps.repo.acquire(owner, leaseId, started.toISOString(), until());
  const base = { owner, summary: emptySummary(started.toISOString()), deferred: 0 };
  if (conn === undefined) return { ...base, status: 'not-connected', error: 'not connected: run `connect` first' };
  if (conn === 'held') return { ...base, status: 'busy', error: 'another sync of this owner is running' };

  const progress = (message: string) => deps.progress?.(owner, message);
  const counts = { found: 0, loaded: 0, skipped: 0, failed: 0, jobsCreated: 0 };
  const skippedReports: SkippedReport[] = [];
  const errors: string[] = [];
  let deferred = 0;
  let checkpoint = conn.checkpoint;
  const finish = async (status: OwnerStatus, fatal?: string): Promise<OwnerSyncResult> => {
    const summary: RunSummary = {
      at: started.toISOString(),
      ...counts,
      ...(skippedReports.length > 0 ? { skippedReports } : {}),
    };
    const message = fatal ?? (errors.length > 0 ? errorText(errors) : undefined);
    const error: SyncError | undefined = message ? { at: now().toISOString(), message } : undefined;
    await deps.repo.finish(owner, leaseId, {
      summary,
      ...(checkpoint ? { checkpoint } : {}),
      ...(error ? { error } : {}),
    });
    return {
      owner,
      status: error && status === 'ok' ? 'failed' : status,
      summary,
      deferred,
      ...(message ? { error: message } : {}),
    };
  };

  try {
    const credentials = await deps.credentials.read(conn.secretName);
    if (!credentials)
      return await finish('failed', `the credentials secret ${conn.secretName} is missing: run connect again`);
    const api = deps.api(credentials, owner);

    // 1. Jobs.
    const [types, jobs] = await Promise.all([api.reportTypes(), api.jobs()]);
    const live = (j: Job) => !j.expireTime || Date.parse(j.expireTime) > started.getTime();
    const have = new Set(jobs.filter(live).map((j) => j.reportTypeId));
    const readable = [...jobs];
    for (const type of wantedTypes(owner, types, started)) {
      if (have.has(type)) continue;
      try {
        readable.push(await api.createJob(type, `analytics-api ${type}`));
        counts.jobsCreated++;
      } catch (err) {
        if (err instanceof ReportingError && err.kind === 'reconsent') throw err;
        if (err instanceof ReportingError && err.status === 409) continue; // created by an earlier try
        errors.push(`creating the ${type} job: ${(err as Error).message}`);
      }
    }

    // 2. Reports created after the checkpoint (minus the overlap), of every job whose type this product ingests.
    const since = checkpoint ? new Date(Date.parse(checkpoint) - CHECKPOINT_OVERLAP_MS).toISOString() : undefined;
    const listed = new Map<string, Listed>();
    let listingFailed = false;
    for (const job of readable) {
      if (!familyOfReportType(job.reportTypeId)) continue;
      try {
        for (const report of await api.reports(job.id, since)) {
          const entry = listedOf(report, job.reportTypeId);
          if (entry) listed.set(report.id, entry);
        }
      } catch (err) {
        if (err instanceof ReportingError && err.kind === 'reconsent') throw err;
        listingFailed = true; // reports of this job are unknown: the checkpoint must not move this run
        errors.push(`listing the reports of job ${job.id} (${job.reportTypeId}): ${(err as Error).message}`);
      }
    }

    // 3. The newest report of each (family, day); older ones skipped.
    const byDay = new Map<string, Listed[]>();
    for (const l of listed.values()) {
      const key = `${l.family}|${l.day}`;
      byDay.set(key, [...(byDay.get(key) ?? []), l]);
    }
    const records = await readRecords(deps.repo, owner, [...listed.values()]);
    const toLoad: Listed[] = [];
    const handled: string[] = []; // createTimes of reports done with (known, loaded or skipped)
    const pending: Listed[] = []; // reports not tried: the run ran out of time (they wait for the next run)
    for (const [key, group] of byDay) {
      const record = records.get(key);
      const known = (l: Listed) => l.report.id === record?.reportId || record?.skipped.has(l.report.id) === true;
      for (const l of group) if (known(l)) handled.push(l.createTime);
      const fresh = group.filter((l) => !known(l)).sort((a, b) => (a.rank < b.rank ? 1 : -1));
      if (fresh.length === 0) continue;
      counts.found += fresh.length;
      const newest = fresh[0] as Listed;
      const winner = record?.rank && record.rank > newest.rank ? undefined : newest;
      if (winner) toLoad.push(winner);
      const older = fresh.filter((l) => l !== winner);
      for (const l of older) {
        const than = winner ?? record;
        counts.skipped++;
        handled.push(l.createTime);
        if (skippedReports.length < MAX_SKIPPED_LISTED) {
          skippedReports.push({
            reportId: l.report.id,
            reportType: l.reportType,
            day: l.day,
            reason: `older than report ${winner ? winner.report.id : record?.reportId} (created ${than?.createTime ?? '?'}) of the same day`,
          });
        }
      }
      if (older.length > 0) {
        const first = older[0] as Listed;
        await deps.repo.recordSkipped(
          owner,
          first.family,
          first.day,
          older.map((l) => l.report.id),
        );
      }
    }

    // 4. Download and deliver, in batches, days in order (the ingest computes each month once per batch).
    toLoad.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.family < b.family ? -1 : 1));
    const failedTimes: string[] = [];
    const batchSize = options.batchSize ?? DEFAULT_BATCH;
    let done = 0;
    for (let at = 0; at < toLoad.length; at += batchSize) {
      const batch: DownloadedReport[] = [];
      const listedOfBatch = new Map<DownloadedReport, Listed>();
      for (const l of toLoad.slice(at, at + batchSize)) {
        if (options.deadline !== undefined && now().getTime() > options.deadline) {
          deferred++;
          pending.push(l);
          continue;
        }
        progress(`downloading ${++done}/${toLoad.length} reports`);
        try {
          const downloaded = {
            report: l.report,
            reportType: l.reportType,
            day: l.day,
            bytes: await api.download(l.report),
          };
          checkReport(owner, downloaded);
          batch.push(downloaded);
          listedOfBatch.set(downloaded, l);
        } catch (err) {
          if (err instanceof ReportingError && err.kind === 'reconsent') throw err;
          counts.failed++;
          failedTimes.push(l.createTime);
          errors.push((err as Error).message);
        }
      }
      if (batch.length === 0) continue;
      const delivery = await deps.sink.deliver(owner, batch);
      for (const r of delivery.delivered) {
        const l = listedOfBatch.get(r) as Listed;
        await deps.repo.recordLoaded(owner, l.family, l.day, {
          reportId: l.report.id,
          createTime: l.createTime,
          reportType: l.reportType,
          rank: l.rank,
        });
        counts.loaded++;
        handled.push(l.createTime);
      }
      for (const { report, message } of delivery.rejected) {
        counts.failed++;
        failedTimes.push((listedOfBatch.get(report) as Listed).createTime);
        errors.push(message);
      }
      for (const { report, reason } of delivery.skipped ?? []) {
        const l = listedOfBatch.get(report) as Listed;
        counts.skipped++;
        handled.push(l.createTime);
        await deps.repo.recordSkipped(owner, l.family, l.day, [l.report.id]);
        if (skippedReports.length < MAX_SKIPPED_LISTED) {
          skippedReports.push({ reportId: l.report.id, reportType: l.reportType, day: l.day, reason });
        }
      }
      // Keep what this batch loaded even if the run is cut short later.
      const advanced = nextCheckpoint(
        checkpoint,
        handled,
        [...failedTimes, ...pending.map((l) => l.createTime), ...remainingTimes(toLoad, at + batchSize)],
        listingFailed,
      );
      if (advanced) checkpoint = advanced;
      // The lease is renewed with every batch, so a long run keeps it.
      await deps.repo.saveProgress(owner, leaseId, until(), checkpoint);
    }

    // 5. The checkpoint.
    checkpoint = nextCheckpoint(
      checkpoint,
      handled,
      [...failedTimes, ...pending.map((l) => l.createTime)],
      listingFailed,
    );
    return await finish('ok');
  } catch (err) {
    if (err instanceof ReportingError && err.kind === 'reconsent') {
      await deps.repo.markReconsent(owner, conn.connectedAt);
      return await finish('needs-reconsent', `needs re-consent: ${err.message}`);
    }
    return await finish('failed', (err as Error).message);
  }
}

const remainingTimes = (list: readonly Listed[], from: number) => list.slice(from).map((l) => l.createTime);

/**
 * The latest createTime handled before the first one not handled (failed, left for later): the next run lists after
 * it. Unchanged when some job's reports could not be listed (their createTimes are unknown).
 */
function nextCheckpoint(
  current: string | undefined,
  handled: readonly string[],
  open: readonly string[],
  listingFailed: boolean,
): string | undefined {
  if (listingFailed) return current;
  const firstOpen = open.reduce<string | undefined>((m, t) => (m === undefined || t < m ? t : m), undefined);
  let best = current;
  for (const t of handled) if ((firstOpen === undefined || t < firstOpen) && (best === undefined || t > best)) best = t;
  return best === undefined ? undefined : best;
}

/** The S4 records of the (family, day) pairs listed: one Query per family over its listed days. */
async function readRecords(repo: SyncRepository, owner: ConnectedOwner, listed: readonly Listed[]) {
  const days = new Map<string, string[]>();
  for (const l of listed) days.set(l.family, [...(days.get(l.family) ?? []), l.day]);
  const out = new Map<string, DayRecord>();
  for (const [family, list] of days) {
    list.sort();
    const read = await repo.readDays(owner, family, list[0] as string, list[list.length - 1] as string);
    for (const [day, record] of read) out.set(`${family}|${day}`, record);
  }
  return out;
}

/** The first errors of a run, and how many more. */
function errorText(errors: readonly string[]): string {
  const shown = errors.slice(0, 3).join('; ');
  return errors.length > 3 ? `${shown}; and ${errors.length - 3} more` : shown;
}
