/**
 * Ingest of Reporting API daily files into fact cubes. A file for (report type, owner, day) REPLACES what was stored
 * for that key (backfills restate whole days). Files are read as streams (gzip included) into facts held by bucket
 * group (day-facts.ts), grouped by (report type, owner, month), and each group is loaded under that month's lease
 * (month-load.ts): the day's cubes are written and the month's cubes updated by the day's facts minus what the day
 * held before, exactly, so a load costs about the day's facts and the month's cubes, never a re-read of the month's
 * other days, and any sequence of loads leaves the table as one load of the surviving files would. Months load in
 * parallel (different leases); two loads of one month wait for each other. After the loads, the blocks of the
 * months touched are rewritten (block-cubes.ts).
 *
 * Outcomes per file: loaded; skipped (its day was loaded from a newer report, by createTime); rejected (malformed:
 * recorded in the table with file, line, column and reason, and never retried; a later successful load of the same
 * file clears the record); or failed (another load held the month too long, the lease was lost, throttling, any
 * other error): nothing half-done is left that the next load of the month does not finish, and a retry loads it.
 * Facts for channels the directory does not know are stored too; they serve nobody until the directory names an
 * owner.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { TableContext } from '../../directory/directory-repository';
import { FAMILY_BY_CODE, type FamilyDef, familyMeasures, familyOfReportType } from '../catalog/families';
import { MEASURE_INDEX } from '../catalog/metrics';
import type { DayRecord } from '../storage/fact-writer';
import { dynamoFactWriter } from '../storage/fact-writer';
import type { HeadSizes } from '../storage/heads';
import { dynamoIngestStatusRepository } from '../storage/ingest-status-repository';
import { dynamoLeaseRepository } from '../storage/lease-repository';
import type { RateRepository } from '../storage/rate-repository';
import { Dicts, UnitCubeBuilder } from '../storage/units';
import { writeDueBlocks } from './block-cubes';
import { CsvError, parseCsv, plainBytes } from './csv';
import { type DayFacts, FactCollector, memoryFacts } from './day-facts';
import type { IngestFile } from './ingest-file';
import { DEFAULT_LEASE, type LeaseSettings } from './lease-keeper';
import { type LoadStores, loadMonth, openMonth } from './month-load';
import { planFamily } from './month-pipeline';
import { isRatesHeader, RATE_COLUMNS, readRatesFile } from './rates-file';
import { reportFileReader } from './report-file';

export type { IngestFile } from './ingest-file';

/** The videos and playlists one owner's files named: the owner's resources, which groups may then hold. */
export interface SeenResources {
  readonly owner: { readonly type: 'channel' | 'contentOwner'; readonly id: string };
  /** Video id → the channel (`channel_id`) of the rows naming it. */
  readonly videos: ReadonlyMap<string, string>;
  /** Playlist id → the channel of the rows naming it. */
  readonly playlists: ReadonlyMap<string, string>;
  /** Content-owner files: the videos some row marks `claimed_status=claimed`. */
  readonly claimed: ReadonlySet<string>;
}

/** Where ingest reports the resources it saw (the directory records them; core/directory). */
export interface ResourceSink {
  record(seen: readonly SeenResources[]): Promise<void>;
}

export interface IngestOptions {
  /** The report type of every file (else the file's folder name, else its header, decides). */
  readonly type?: string;
  /** The channel of header-only files whose name does not say it. */
  readonly channel?: string;
  /** The content owner of content-owner files (else the folder above the report type folder). */
  readonly contentOwner?: string;
  readonly onFile?: (done: number, total: number, file: string) => void;
  /** Where `exchange_rates*.csv` files go (date, currency, units_per_usd). */
  readonly rates?: RateRepository;
  /** Told, after the files' facts are stored, which videos and playlists each owner's files named. */
  readonly resources?: ResourceSink;
  readonly now?: () => Date;
  /** Who loads (leases name their holder): an invocation id. Default: a new id. */
  readonly holder?: string;
  readonly lease?: LeaseSettings;
  /**
   * Days a month keeps as pieces of its cubes before a load compacts it (month-load.ts OPEN_DAYS; 0: every load
   * rewrites the month's cubes).
   */
  readonly openDays?: number;
  /** How heads are sized (storage/heads.ts HEAD_ROWS, REGIONAL_HEAD_FROM; tests head small cubes). */
  readonly heads?: HeadSizes;
  /** Months loaded at once (default 2). */
  readonly concurrency?: number;
  /** Record rejected files in the table (default true). */
  readonly recordRejected?: boolean;
}

export interface IngestSummary {
  files: number;
  loaded: number;
  rows: number;
  /** Distinct (owner, day) pairs written. */
  days: number;
  /** `message` names file, line and column; `reason` is what is wrong (absent when the file could not be read). */
  rejected: { file: string; message: string; reason?: string; line?: number; column?: string }[];
  /** Files not loaded because the day was already loaded from a newer report (createTime). */
  skipped: { file: string; reason: string }[];
  /** Files not loaded for a reason a retry may overcome (the month busy past the wait, a lost lease, throttling). */
  failed: { file: string; message: string }[];
  seconds: number;
}

export const emptySummary = (files: number): IngestSummary => ({
  files,
  loaded: 0,
  rows: 0,
  days: 0,
  rejected: [],
  skipped: [],
  failed: [],
  seconds: 0,
});

/** Adds the counts and lists of `part` (one invocation's summary) into `total`; files and seconds stay the total's. */
export function addSummary(total: IngestSummary, part: IngestSummary): void {
  total.loaded += part.loaded;
  total.rows += part.rows;
  total.days += part.days;
  total.rejected.push(...part.rejected);
  total.skipped.push(...part.skipped);
}

/** What ingest writes through. */
export interface IngestStores extends LoadStores {}

export const dynamoIngestStores = (table: TableContext): IngestStores => ({
  writer: dynamoFactWriter(table),
  leases: dynamoLeaseRepository(table),
  status: dynamoIngestStatusRepository(table),
});

const dayHint = (name: string): string | undefined => {
  const m = /(?:^|[^0-9])(\d{4})(\d{2})(\d{2})(?:[^0-9]|$)/.exec(path.basename(name));
  return m ? `${m[1]}-${m[2]}-${m[3]}` : undefined;
};

const segments = (name: string) => name.split(/[\\/]/);

const channelHint = (name: string): string | undefined =>
  segments(name).find((part) => /^UC[A-Za-z0-9_-]+$/.test(part));

/** The report type folder of a path (`…/<owner>/<report_type_aN>/YYYYMMDD.csv`) and the folder above it. */
function folderHints(name: string): { type?: string; owner?: string } {
  const parts = segments(name);
  for (let i = parts.length - 2; i >= 0; i--) {
    if (familyOfReportType(parts[i] as string)) {
      return { type: parts[i] as string, ...(i > 0 ? { owner: parts[i - 1] as string } : {}) };
    }
  }
  return {};
}

/** The report family and owner a file's path names (…/<owner>/<report_type_aN>/YYYYMMDD.csv), if it names both. */
function pathTarget(name: string, options: IngestOptions): { family: FamilyDef; owner: string } | undefined {
  const hints = folderHints(name);
  const type = options.type ?? hints.type;
  const family = type === undefined ? undefined : familyOfReportType(type);
  if (!family) return undefined;
  const owner =
    family.owner === 'contentOwner' ? (options.contentOwner ?? hints.owner) : (options.channel ?? channelHint(name));
  return owner ? { family, owner } : undefined;
}

/** A file read: its family, day and facts per owner. */
interface ReadFile {
  readonly file: IngestFile;
  readonly family: FamilyDef;
  readonly reportType: string;
  readonly day: string;
  readonly rows: number;
  readonly byOwner: Map<string, DayFacts>;
}

/** Collects, per owner, the videos and playlists the loaded facts name. */
class ResourceCollector {
  private readonly byOwner = new Map<
    string,
    SeenResources & { videos: Map<string, string>; playlists: Map<string, string>; claimed: Set<string> }
  >();

  get size(): number {
    return this.byOwner.size;
  }

  /** A sink recording the resources of the rows it passes on. */
  watch(family: FamilyDef, grain: () => readonly string[]) {
    const type = family.owner;
    return (owner: string, key: readonly string[]) => {
      const g = grain();
      const at = (d: string) => g.indexOf(d);
      const [iVideo, iPlaylist, iChannel, iClaimed] = [at('video'), at('playlist'), at('channel'), at('claimedStatus')];
      const entryKey = `${type}:${owner}`;
      let entry = this.byOwner.get(entryKey);
      if (!entry) {
        entry = { owner: { type, id: owner }, videos: new Map(), playlists: new Map(), claimed: new Set() };
        this.byOwner.set(entryKey, entry);
      }
      const channel = type === 'channel' ? owner : iChannel >= 0 ? (key[iChannel] as string) : '';
      const video = iVideo >= 0 ? (key[iVideo] as string) : '';
      if (video) {
        entry.videos.set(video, channel);
        if (iClaimed >= 0 && key[iClaimed] === 'claimed') entry.claimed.add(video);
      }
      const playlist = iPlaylist >= 0 ? (key[iPlaylist] as string) : '';
      if (playlist) entry.playlists.set(playlist, channel);
    };
  }

  list(): SeenResources[] {
    return [...this.byOwner.values()];
  }
}

/** Reads one report file into facts (nothing stored yet). Throws CsvError for a malformed file. */
async function readFile(
  file: IngestFile,
  options: IngestOptions,
  seen: ResourceCollector | undefined,
  dicts: Dicts,
): Promise<ReadFile> {
  const hints = folderHints(file.name);
  const type = options.type ?? hints.type;
  const contentOwner = options.contentOwner ?? hints.owner;
  const collector = new FactCollector(file.name, dicts);
  let grain: readonly string[] = [];
  let note: ((owner: string, key: readonly string[]) => void) | undefined;
  const reader = reportFileReader(
    file.name,
    { ...(type ? { type } : {}), ...(contentOwner ? { contentOwner } : {}) },
    {
      begin(family) {
        collector.begin(family);
        grain = collector.grainOf();
        note = seen?.watch(family, () => grain);
      },
      add(owner, key, units, line) {
        note?.(owner, key);
        collector.add(owner, key, units, line);
      },
    },
  );
  try {
    for await (const chunk of plainBytes(file.name, await file.open())) reader.push(chunk);
    const head = reader.end();
    const byOwner = collector.finish();
    const named = dayHint(file.name);
    if (head.day !== undefined) {
      if (named !== undefined && head.day !== named) {
        throw new CsvError(file.name, 2, 'date', `the rows are for ${head.day}, not the day in the file name`);
      }
      return { file, family: head.family, reportType: head.reportType, day: head.day, rows: head.rows, byOwner };
    }
    // Header only: "no data that day". It still replaces the day, so we must know which day and owner.
    const owner = head.family.owner === 'contentOwner' ? contentOwner : (options.channel ?? channelHint(file.name));
    if (!named || !owner) {
      throw new CsvError(
        file.name,
        1,
        undefined,
        'a header-only file must name its day (YYYYMMDD) and channel (UC…) in its path, or use --channel',
      );
    }
    const only = [...familyMeasures(head.family)].map((m) => MEASURE_INDEX[m]).sort((a, b) => a - b);
    const empty = memoryFacts(new UnitCubeBuilder(collector.grainOf(), dicts, only).build());
    return {
      file,
      family: head.family,
      reportType: head.reportType,
      day: named,
      rows: 0,
      byOwner: new Map([[owner, empty]]),
    };
  } catch (err) {
    collector.discard();
    throw err;
  }
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

export async function ingestFiles(
  stores: IngestStores,
  files: readonly IngestFile[],
  options: IngestOptions = {},
): Promise<IngestSummary> {
  const started = performance.now();
  const now = options.now ?? (() => new Date());
  const holder = options.holder ?? `ingest-${randomUUID()}`;
  const lease = options.lease ?? DEFAULT_LEASE;
  const summary = emptySummary(files.length);
  const seen = options.resources ? new ResourceCollector() : undefined;
  const dicts = new Dicts();
  let done = 0;
  const progress = (file: string) => options.onFile?.(++done, files.length, file);
  const reject = (file: IngestFile, err: unknown) => {
    if (!(err instanceof CsvError)) {
      summary.failed.push({ file: file.name, message: errorText(err) });
      return;
    }
    summary.rejected.push({
      file: file.name,
      message: err.message,
      reason: err.detail,
      line: err.line,
      ...(err.column ? { column: err.column } : {}),
    });
  };

  const isRates = (f: IngestFile) => /^exchange_rates/i.test(path.basename(f.name));
  // Read while the files are parsed, not after their loads: which of them a rejection is recorded for (cleared once
  // their days are stored). A rejection recorded meanwhile by another run of the same file stays, as it would if
  // recorded just after the read this replaces.
  const rejectedBefore =
    options.recordRejected !== false
      ? stores.status.rejectedAmong(files.filter((f) => !isRates(f)).map((f) => f.name))
      : Promise.resolve(new Set<string>());
  rejectedBefore.catch(() => undefined); // awaited below
  for (const file of files.filter(isRates)) {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of plainBytes(file.name, await file.open())) chunks.push(Buffer.from(chunk));
      const table = parseCsv(file.name, Buffer.concat(chunks).toString('utf8'));
      if (!isRatesHeader(table.header)) {
        throw new CsvError(
          file.name,
          1,
          undefined,
          `an exchange-rates file has the columns ${RATE_COLUMNS.join(', ')}`,
        );
      }
      if (!options.rates) throw new CsvError(file.name, 1, undefined, 'exchange rates cannot be loaded here');
      const rates = readRatesFile(file.name, table);
      await options.rates.write(rates);
      summary.loaded++;
      summary.rows += rates.length;
    } catch (err) {
      reject(file, err);
    }
    progress(file.name);
  }

  // Files by the month their names say (read first when the name does not), so a month's files load together.
  const byMonth = new Map<string, { file: IngestFile; read?: ReadFile }[]>();
  for (const file of files.filter((f) => !isRates(f))) {
    let month = dayHint(file.name)?.slice(0, 7);
    let read: ReadFile | undefined;
    if (!month) {
      try {
        read = await readFile(file, options, seen, dicts);
        month = read.day.slice(0, 7);
      } catch (err) {
        reject(file, err);
        progress(file.name);
        continue;
      }
    }
    const list = byMonth.get(month) ?? [];
    list.push(read ? { file, read } : { file });
    byMonth.set(month, list);
  }

  /**
   * (family, owner) pairs loaded, for their blocks; files per pair, to fail them when their blocks fail; whether a
   * load marked the blocks due.
   */
  const touched = new Map<string, { family: FamilyDef; owner: string; files: Set<string>; marked: boolean }>();
  /**
   * Whether blocks were due before the loads (read while the files are parsed, for owners the paths name): a load that
   * marks none need not read them again after its commit. Blocks a load marks it knows of; others' (a load that
   * failed before writing its blocks) are there before it starts, or are left to that load's retry.
   */
  const dueBefore = new Map<string, Promise<boolean>>();
  /** Files whose days were stored (or replaced in the same batch by a later file of the day), with their rows. */
  const loadedFiles = new Map<string, number>();
  /** Month leases being released (awaited at the end: the blocks and the rejections need not wait for them). */
  const releases: Promise<void>[] = [];

  const loadMonthGroup = async (month: string, entries: { file: IngestFile; read?: ReadFile }[]) => {
    // (family, owner) → day → the file that supplies it (the later file of a day wins, by name).
    const batch = new Map<
      string,
      {
        family: FamilyDef;
        owner: string;
        days: Map<string, { read: ReadFile; facts: DayFacts }>;
        /** Files whose day a later file of the batch replaces, with their rows. */
        superseded: Map<string, number>;
      }
    >();
    entries.sort((a, b) => (a.file.name < b.file.name ? -1 : a.file.name > b.file.name ? 1 : 0));
    // When every path names the same family and owner (the Reporting API's layout), the month is opened (its lease
    // and manifest) while the files are parsed: two round trips off a load of one file.
    const targets = entries.map((e) => pathTarget(e.file.name, options));
    const first = targets[0];
    const guess =
      first && targets.every((t) => t?.family === first.family && t.owner === first.owner)
        ? {
            key: `${first.family.code}|${first.owner}`,
            opened: openMonth(stores, first.family.code, first.owner, month, { holder, lease }),
          }
        : undefined;
    guess?.opened.catch(() => undefined); // awaited by its load, or released below
    if (guess && first && !dueBefore.has(guess.key)) {
      const due = stores.writer.readBlocksDue(first.family.code, first.owner).then((d) => d.months.length > 0);
      due.catch(() => undefined); // awaited with the blocks
      dueBefore.set(guess.key, due);
    }
    let guessUsed = false;
    for (const entry of entries) {
      try {
        const read = entry.read ?? (await readFile(entry.file, options, seen, dicts));
        if (read.day.slice(0, 7) !== month) {
          throw new CsvError(entry.file.name, 2, 'date', `the rows are for ${read.day}, not the day in the file name`);
        }
        for (const [owner, facts] of read.byOwner) {
          const key = `${read.family.code}|${owner}`;
          const item = batch.get(key) ?? { family: read.family, owner, days: new Map(), superseded: new Map() };
          const earlier = item.days.get(read.day);
          if (earlier) {
            earlier.facts.close();
            item.superseded.set(earlier.read.file.name, earlier.read.rows);
          }
          item.days.set(read.day, { read, facts });
          batch.set(key, item);
        }
      } catch (err) {
        reject(entry.file, err);
      }
      progress(entry.file.name);
    }
    for (const { family, owner, days, superseded } of batch.values()) {
      const only = [...familyMeasures(family)].map((m) => MEASURE_INDEX[m]).sort((a, b) => a - b);
      const plan = planFamily(family, only);
      const loadDays = [...days].map(([day, { read, facts }]) => ({
        day,
        facts,
        record: {
          file: read.file.name,
          rows: facts.rows,
          reportType: read.reportType,
          loadedAt: now().toISOString(),
          ...(read.file.reportId ? { reportId: read.file.reportId } : {}),
          ...(read.file.createTime ? { createTime: read.file.createTime } : {}),
        } satisfies DayRecord,
      }));
      const names = new Set(loadDays.map((d) => d.record.file));
      const rowsOf = new Map([...days.values()].map(({ read }) => [read.file.name, read.rows]));
      const takesGuess = guess?.key === `${family.code}|${owner}`;
      if (takesGuess) guessUsed = true;
      try {
        const result = await loadMonth(stores, family, plan, owner, month, loadDays, {
          holder,
          lease,
          now,
          dicts,
          releases,
          ...(guess && takesGuess ? { opened: guess.opened } : {}),
          ...(options.openDays !== undefined ? { openDays: options.openDays } : {}),
          ...(options.heads !== undefined ? { heads: options.heads } : {}),
        });
        summary.days += result.loaded.length;
        for (const s of result.skipped) {
          const file = days.get(s.day)?.read.file.name as string;
          summary.skipped.push({ file, reason: `${s.day} was loaded from a newer report (createTime ${s.stored})` });
          names.delete(file);
        }
        for (const name of names) loadedFiles.set(name, rowsOf.get(name) ?? 0);
        for (const [name, rows] of superseded) loadedFiles.set(name, rows);
        const key = `${family.code}|${owner}`;
        const entry = touched.get(key) ?? { family, owner, files: new Set<string>(), marked: false };
        for (const name of [...names, ...superseded.keys()]) entry.files.add(name);
        entry.marked ||= result.blocksDue;
        touched.set(key, entry);
      } catch (err) {
        for (const name of [...names, ...superseded.keys()])
          summary.failed.push({ file: name, message: errorText(err) });
      } finally {
        for (const { facts } of days.values()) facts.close();
      }
    }
    // The files did not hold what their paths said (or were rejected): the month opened for them is let go.
    if (guess && !guessUsed) releases.push(guess.opened.then((o) => o.held.release()).catch(() => undefined));
  };

  const months = [...byMonth.keys()].sort();
  const concurrency = Math.max(1, options.concurrency ?? 2);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, months.length) }, async () => {
      while (next < months.length) {
        const month = months[next++] as string;
        await loadMonthGroup(month, byMonth.get(month) ?? []);
      }
    }),
  );

  const blocks = async () => {
    for (const [key, { family, owner, files: names, marked }] of touched) {
      const only = [...familyMeasures(family)].map((m) => MEASURE_INDEX[m]).sort((a, b) => a - b);
      try {
        const before = await dueBefore.get(key)?.catch(() => undefined);
        if (!marked && before === false) continue;
        await writeDueBlocks(stores, family, planFamily(family, only), owner, {
          holder,
          lease,
          dicts,
          ...(marked || before ? { due: true } : {}),
          ...(options.heads !== undefined ? { heads: options.heads } : {}),
        });
      } catch (err) {
        // The months stay due: a retry of these files (or the next load of this owner) writes the blocks.
        for (const name of names) {
          if (!loadedFiles.delete(name)) continue;
          summary.failed.push({ file: name, message: `blocks not written: ${errorText(err)}` });
        }
      }
    }
  };
  // A file's earlier rejection is cleared once its days are stored (whether or not the blocks follow at once).
  const cleared = [...loadedFiles.keys()];
  const clearing = rejectedBefore.then((found) => stores.status.clearRejected(cleared.filter((f) => found.has(f))));
  clearing.catch(() => undefined); // awaited below
  await Promise.all([blocks(), ...releases]);
  await clearing;
  summary.loaded += loadedFiles.size;
  for (const rows of loadedFiles.values()) summary.rows += rows;
  if (options.resources && seen && seen.size > 0) await options.resources.record(seen.list());
  if (options.recordRejected !== false) {
    for (const r of summary.rejected) {
      const hints = folderHints(r.file);
      await stores.status.recordRejected(
        {
          file: r.file,
          reason: r.reason ?? r.message,
          ...(r.line !== undefined ? { line: r.line } : {}),
          ...(r.column ? { column: r.column } : {}),
          ...((hints.owner ?? channelHint(r.file)) ? { owner: (hints.owner ?? channelHint(r.file)) as string } : {}),
          ...(hints.type ? { reportType: hints.type } : {}),
          at: now().toISOString(),
        },
        now(),
      );
    }
  }
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}

/**
 * Folds the pieces of an owner's open months of one report family into their cubes (month-pieces.ts) and rewrites
 * their blocks: what the next load of each month would do. Returns the months compacted.
 */
export async function compactMonths(
  stores: IngestStores,
  familyCode: string,
  owner: string,
  options: { holder?: string; lease?: LeaseSettings; now?: () => Date; heads?: HeadSizes } = {},
): Promise<string[]> {
  const family = FAMILY_BY_CODE.get(familyCode);
  if (!family) throw new Error(`unknown report family ${familyCode}`);
  const only = [...familyMeasures(family)].map((m) => MEASURE_INDEX[m]).sort((a, b) => a - b);
  const plan = planFamily(family, only);
  const settings = {
    holder: options.holder ?? `compact-${randomUUID()}`,
    lease: options.lease ?? DEFAULT_LEASE,
    now: options.now ?? (() => new Date()),
    dicts: new Dicts(),
    ...(options.heads !== undefined ? { heads: options.heads } : {}),
  };
  const months = await stores.writer.openMonths(family.code, owner);
  for (const month of months) await loadMonth(stores, family, plan, owner, month, [], { ...settings, compact: true });
  if (months.length > 0) await writeDueBlocks(stores, family, plan, owner, settings);
  return months;
}
