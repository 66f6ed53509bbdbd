/**
 * Ingest of Reporting API daily files into fact cubes. A file for (report type, channel, day) REPLACES what was
 * stored for that key (backfills restate whole days): the day's cubes are rewritten, and the month's cubes are
 * recomputed from all of its days in a fixed order, so loading a file twice, or a corrected file, leaves the
 * table exactly as one load of the latest file would. Facts for channels the directory does not know are stored
 * too; they serve nobody until the directory names an owner.
 */
import path from 'node:path';
import { type FamilyDef, familyMeasures, familyOfReportType } from '../catalog/families';
import { MEASURE_INDEX } from '../catalog/metrics';
import { blockMonths, blocksHolding, type Cube, type FactRow, fullDayOf, rollup, variantsOf } from '../storage/cube';
import { asCube } from '../storage/cube-codec';
import type { FactRepository, MonthManifest } from '../storage/fact-repository';
import { newReadStats } from '../storage/fact-repository';
import type { RateRepository } from '../storage/rate-repository';
import { blockCubes } from './block-cubes';
import { CsvError, decodeText, parseCsv } from './csv';
import { monthCubes } from './month-cubes';
import { isRatesHeader, RATE_COLUMNS, readRatesFile } from './rates-file';
import { type ParsedDayFile, readReportFile } from './report-file';

export interface IngestFile {
  /** A path or object key: its YYYYMMDD and UC… segments name the day and channel of a header-only file. */
  readonly name: string;
  read(): Promise<Uint8Array>;
  /** The Reporting API report this file is (connected-channel sync; S3 object metadata `report-id`). */
  readonly reportId?: string;
  /**
   * The report's createTime (RFC 3339; S3 object metadata `create-time`). Google restates a day as a new report with
   * a newer createTime: a file older than the one a day was loaded from is skipped (IngestSummary.skipped).
   */
  readonly createTime?: string;
}

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
}

export interface IngestSummary {
  files: number;
  loaded: number;
  rows: number;
  /** Distinct (channel, day) pairs written. */
  days: number;
  rejected: { file: string; message: string }[];
  /** Files not loaded because the day was already loaded from a newer report (createTime). */
  skipped: { file: string; reason: string }[];
  seconds: number;
}

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

async function parseFile(file: IngestFile, options: IngestOptions): Promise<ParsedDayFile> {
  const hints = folderHints(file.name);
  const type = options.type ?? hints.type;
  const contentOwner = options.contentOwner ?? hints.owner;
  const parsed = readReportFile(file.name, parseCsv(file.name, decodeText(file.name, await file.read())), {
    ...(type ? { type } : {}),
    ...(contentOwner ? { contentOwner } : {}),
  });
  if (parsed.day !== undefined) return parsed;
  // Header only: "no data that day". It still replaces the day, so we must know which day and owner.
  const day = dayHint(file.name);
  const owner = parsed.family.owner === 'contentOwner' ? contentOwner : (options.channel ?? channelHint(file.name));
  if (!day || !owner) {
    throw new CsvError(
      file.name,
      1,
      undefined,
      'a header-only file must name its day (YYYYMMDD) and channel (UC…) in its path, or use --channel',
    );
  }
  return { ...parsed, day, byOwner: new Map([[owner, []]]) };
}

export async function ingestFiles(
  repo: FactRepository,
  files: readonly IngestFile[],
  options: IngestOptions = {},
): Promise<IngestSummary> {
  const started = performance.now();
  const now = options.now ?? (() => new Date());
  const summary: IngestSummary = {
    files: files.length,
    loaded: 0,
    rows: 0,
    days: 0,
    rejected: [],
    skipped: [],
    seconds: 0,
  };
  const seen = new ResourceCollector();
  let done = 0;
  const progress = (file: string) => options.onFile?.(++done, files.length, file);

  const [rateFiles, reportFiles] = partitionList(files, (f) => /^exchange_rates/i.test(path.basename(f.name)));
  for (const file of rateFiles) {
    try {
      const table = parseCsv(file.name, decodeText(file.name, await file.read()));
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
      summary.rejected.push({ file: file.name, message: (err as Error).message });
    }
    progress(file.name);
  }

  // Group files by month (from their names where possible) so a month's cubes are computed once per batch.
  const byMonth = new Map<string, { file: IngestFile; parsed?: ParsedDayFile }[]>();
  for (const file of reportFiles) {
    let month = dayHint(file.name)?.slice(0, 7);
    let parsed: ParsedDayFile | undefined;
    if (!month) {
      try {
        parsed = await parseFile(file, options);
        month = (parsed.day as string).slice(0, 7);
      } catch (err) {
        summary.rejected.push({ file: file.name, message: (err as Error).message });
        progress(file.name);
        continue;
      }
    }
    const list = byMonth.get(month) ?? [];
    list.push(parsed ? { file, parsed } : { file });
    byMonth.set(month, list);
  }

  let inFlight: Promise<void> = Promise.resolve();
  // The months each (family, owner) got: their blocks are rewritten once the months are stored.
  const touched = new Map<string, { family: FamilyDef; owner: string; months: Set<string> }>();
  for (const month of [...byMonth.keys()].sort()) {
    // (family, owner) → day → facts and the file that supplied them (the later file of a day wins)
    const batch = new Map<
      string,
      { family: FamilyDef; owner: string; days: Map<string, { facts: FactRow[]; file: ParsedDayFile }> }
    >();
    const entries = (byMonth.get(month) ?? []).sort((a, b) =>
      a.file.name < b.file.name ? -1 : a.file.name > b.file.name ? 1 : 0,
    );
    for (const entry of entries) {
      try {
        const parsed = entry.parsed ?? (await parseFile(entry.file, options));
        const named = dayHint(entry.file.name);
        if ((named !== undefined && parsed.day !== named) || (parsed.day as string).slice(0, 7) !== month) {
          throw new CsvError(
            entry.file.name,
            2,
            'date',
            `the rows are for ${parsed.day}, not the day in the file name`,
          );
        }
        for (const [owner, facts] of parsed.byOwner) {
          if (options.resources) seen.add(parsed.family, owner, facts);
          const key = `${parsed.family.code}|${owner}`;
          const entry = batch.get(key) ?? { family: parsed.family, owner, days: new Map() };
          entry.days.set(parsed.day as string, { facts, file: parsed });
          batch.set(key, entry);
        }
        summary.loaded++;
        summary.rows += parsed.rows;
      } catch (err) {
        summary.rejected.push({ file: entry.file.name, message: (err as Error).message });
      }
      progress(entry.file.name);
    }
    for (const { family, owner, days } of batch.values()) {
      // Compute this month while the previous one's writes are in flight; keep at most one month in flight.
      const prepared = await prepareMonth(repo, family, owner, month, days, now());
      await inFlight;
      inFlight = prepared();
      summary.days += days.size;
      const key = `${family.code}|${owner}`;
      const entry = touched.get(key) ?? { family, owner, months: new Set<string>() };
      entry.months.add(month);
      touched.set(key, entry);
    }
  }
  await inFlight;
  for (const { family, owner, months } of touched.values()) await writeBlocks(repo, family, owner, months);
  if (options.resources && seen.size > 0) await options.resources.record(seen.list());
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}

/** Rewrites every block holding one of `months`, for each variant kept per block, from the stored month cubes. */
async function writeBlocks(repo: FactRepository, def: FamilyDef, channel: string, months: ReadonlySet<string>) {
  const blocks = blocksHolding(months);
  const spanned = blocks.flatMap(blockMonths).sort();
  const only = [...familyMeasures(def)].map((m) => MEASURE_INDEX[m]).sort((a, b) => a - b);
  for (const v of variantsOf(def)) {
    if (!v.periods.includes('block')) continue;
    const address = { family: def.code, channel, variant: v.name };
    const stored = await repo.read(address, `M#${spanned[0]}`, `M#${spanned[spanned.length - 1]}`, newReadStats());
    const byMonth = new Map(stored.map(({ period, cube }) => [period.slice(2), { ...asCube(cube), measures: only }]));
    await repo.replace(blockCubes(v.grain, byMonth, blocks, only).map((c) => ({ ...address, ...c })));
  }
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

  add(family: FamilyDef, owner: string, facts: readonly FactRow[]): void {
    const type = family.owner;
    const key = `${type}:${owner}`;
    let entry = this.byOwner.get(key);
    if (!entry) {
      entry = { owner: { type, id: owner }, videos: new Map(), playlists: new Map(), claimed: new Set() };
      this.byOwner.set(key, entry);
    }
    for (const f of facts) {
      const channel = type === 'channel' ? owner : (f.dims.channel ?? '');
      const video = f.dims.video;
      if (video) {
        entry.videos.set(video, channel);
        if (f.dims.claimedStatus === 'claimed') entry.claimed.add(video);
      }
      const playlist = f.dims.playlist;
      if (playlist) entry.playlists.set(playlist, channel);
    }
  }

  list(): SeenResources[] {
    return [...this.byOwner.values()];
  }
}

type Address = Parameters<FactRepository['remove']>[0][number];
const addressKey = (a: Address) => `${a.variant}|${a.partition ?? ''}|${a.period}`;
const partitionList = <T>(list: readonly T[], test: (t: T) => boolean): [T[], T[]] => [
  list.filter(test),
  list.filter((t) => !test(t)),
];

/** Computes a month's cubes (reading what it needs); the returned function stores them. */
async function prepareMonth(
  repo: FactRepository,
  def: FamilyDef,
  channel: string,
  month: string,
  batch: ReadonlyMap<string, { facts: FactRow[]; file: ParsedDayFile }>,
  now: Date,
): Promise<() => Promise<void>> {
  const family = def.code;
  const only = [...familyMeasures(def)].map((m) => MEASURE_INDEX[m]).sort((a, b) => a - b);
  const manifest: MonthManifest = (await repo.readManifest(family, channel, month)) ?? { partitions: {}, days: {} };
  // Days stored earlier and not restated by this batch come back as their full-day cubes.
  const full = fullDayOf(def);
  const fullDays = new Map<string, Cube>();
  const storedDays = Object.keys(manifest.days).filter((d) => !batch.has(d));
  if (storedDays.length > 0) {
    const stored = await repo.read(
      { family, channel, variant: full.name },
      `D#${month}-01`,
      `D#${month}-31`,
      newReadStats(),
    );
    for (const { period, cube } of stored) {
      const day = period.slice(2);
      if (!batch.has(day)) fullDays.set(day, { ...asCube(cube), measures: only });
    }
  }
  for (const [day, { facts }] of batch) fullDays.set(day, rollup(facts, full.grain, only));
  const computed = monthCubes(def, month, fullDays, new Set(batch.keys()), only);
  const writes = computed.cubes.map((c) => ({ family, channel, ...c }));
  const removals: Parameters<FactRepository['remove']>[0][number][] = [];
  for (const v of variantsOf(def)) {
    if (!v.partitionBy || !v.periods.includes('month')) continue;
    const values = new Set(computed.partitions[v.name] ?? []);
    const stale = (manifest.partitions[v.name] ?? []).filter((value) => !values.has(value));
    removals.push(
      ...stale.map((value) => ({ family, channel, variant: v.name, partition: value, period: `M#${month}` })),
    );
    manifest.partitions[v.name] = [...values];
  }
  // Cubes stored in several chunks last time may need fewer now: clear the extra chunks of those being rewritten.
  const rewritten = new Set(writes.map(addressKey));
  const [redo, keep] = partitionList(manifest.chunked ?? [], (a) => rewritten.has(addressKey(a)));
  removals.push(...redo);
  for (const [day, { file, facts }] of batch) {
    manifest.days[day] = {
      file: path.basename(file.file),
      rows: facts.length,
      reportType: file.reportType,
      loadedAt: now.toISOString(),
    };
  }
  return async () => {
    await repo.remove(removals);
    manifest.chunked = [...keep, ...(await repo.write(writes))];
    await repo.writeManifest(family, channel, month, manifest);
  };
}
