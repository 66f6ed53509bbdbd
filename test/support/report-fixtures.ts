/**
 * Report fixtures for the integration tests, ingested into the run's DynamoDB Local through the real ingest path,
 * with the same raw CSV rows returned for an independent oracle (duckdb-oracle.ts).
 *
 * - createReportFixture: a fresh channel owned by a fresh user with generated `channel_basic` exports. The first
 *   `a2Days` days are `channel_basic_a2` files (no engaged_views column), the rest `channel_basic_a3`.
 * - createReportWorlds: a channel world (every queryable channel and playlist family, plus the extension layouts
 *   when the generator writes them) and a content-owner world (its manager, linked channels with link dates, one of
 *   them linked in the middle of the period, the generator's third-party channels, every queryable content-owner
 *   family), an exchange-rates file with gaps, and the directory entries (owners, channels, videos, playlists, links,
 *   claimed videos). The first `a2Days` days of every family are written at the a2 "era" version (without
 *   engaged_views, and without the extension columns creator_content_type / youtube_product), the rest at the
 *   current version (with them, when the generator writes extensions).
 *
 * The generator's values do not depend on the version (only the columns do), so the streams of the two eras
 * describe one consistent world. Files are named `<root>/<owner>/<report_type_id>/YYYYMMDD.csv`, the way the ingest
 * learns a file's report type and (for content owners) its owner.
 */
import { randomBytes } from 'node:crypto';
import { createDocumentClient } from '../../functions/core/db/document-client';
import { type DirectoryWorld, loadDirectory } from '../../functions/core/directory/directory-loader';
import { FAMILIES } from '../../functions/core/reports/catalog/families';
import { bytesFile } from '../../functions/core/reports/ingest/ingest-file';
import { dynamoIngestStores, type IngestFile, ingestFiles } from '../../functions/core/reports/ingest/ingest-service';
import { dynamoRateRepository } from '../../functions/core/reports/storage/rate-repository';
import { generateExchangeRates } from '../../infra/generator/exchange-rates';
import {
  ALL_FAMILIES,
  EXTENSION_FAMILIES,
  isOwnerFamily,
  type ReportFamily,
  versionForEra,
} from '../../infra/generator/export-families';
import { type GeneratorOptions, generateDays, type ReportVersion } from '../../infra/generator/export-generator';
import { generateReportDays, planWorld } from '../../infra/generator/export-world';

/** One CSV data row, keyed by header name; columns the file's version lacks are absent. */
export type RawRow = Readonly<Record<string, string>>;

export interface ReportFixtureOptions {
  videos?: number;
  days?: number;
  /** YYYY-MM-DD; mid-month so both ends of the window are partial months. */
  start?: string;
  /** How many leading days are channel_basic_a2 files (the rest are a3). */
  a2Days?: number;
  seed?: number;
}

export interface ReportFixture {
  readonly channel: string;
  readonly sub: string;
  /** Every generated day (YYYY-MM-DD), in order; header-only days included. */
  readonly days: readonly string[];
  /** The days written as channel_basic_a2 (no engaged_views). */
  readonly a2Days: readonly string[];
  readonly videoIds: readonly string[];
  readonly rawRows: readonly RawRow[];
  /** Distinct country codes present in the data. */
  readonly countries: readonly string[];
  /** Number of files and data rows ingested. */
  readonly files: number;
}

const isoDay = (yyyymmdd: string) => `${yyyymmdd.slice(0, 4)}-${yyyymmdd.slice(4, 6)}-${yyyymmdd.slice(6, 8)}`;
const DAY_MS = 86_400_000;
const addDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

function tableFromEnv() {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  const tableName = process.env.TABLE_NAME;
  if (!endpoint || !tableName) throw new Error('DynamoDB Local is not running: use the integration project');
  return { db: createDocumentClient(endpoint), tableName };
}

const runTag = () => `${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;

/** Generates, ingests and registers a fresh channel with report data; see the file comment. */
export async function createReportFixture(options: ReportFixtureOptions = {}): Promise<ReportFixture> {
  const videos = options.videos ?? 60;
  const dayCount = options.days ?? 95;
  const start = options.start ?? '2026-03-17';
  const a2Count = Math.min(options.a2Days ?? 20, dayCount);
  const seed = options.seed ?? 20260317;

  const tag = runTag();
  const channel = `UCdiff${tag}`;
  const sub = `report-user-${tag}`;
  const videoPrefix = `dv${tag}-`;
  const videoWidth = 3;
  const videoIds = Array.from({ length: videos }, (_, i) => `${videoPrefix}${String(i + 1).padStart(videoWidth, '0')}`);

  const base = { channel, videos, days: dayCount, start, seed, videoPrefix, videoWidth, gzip: false } as const;
  const files: IngestFile[] = [];
  const rawRows: RawRow[] = [];
  const days: string[] = [];
  const a2Days: string[] = [];
  // Same options apart from the version: identical values, different columns.
  const streams: [ReportVersion, number, number][] = [
    ['a2', 0, a2Count],
    ['a3', a2Count, dayCount],
  ];
  for (const [version, from, to] of streams) {
    if (from >= to) continue;
    let d = 0;
    // Always plan the whole period (uploads are spread over `days`), then take this version's slice of it.
    for (const day of generateDays({ ...base, version })) {
      if (d >= to) break;
      if (d++ < from) continue;
      days.push(isoDay(day.date));
      if (version === 'a2') a2Days.push(isoDay(day.date));
      const lines = [day.header.join(','), ...day.rows.map((r) => r.join(','))];
      const bytes = new TextEncoder().encode(`${lines.join('\n')}\n`);
      files.push(bytesFile(`x/${channel}/channel_basic_${version}/${day.date}.csv`, bytes));
      for (const row of day.rows) {
        const obj: Record<string, string> = {};
        day.header.forEach((name, i) => {
          obj[name] = row[i] ?? '';
        });
        rawRows.push(obj);
      }
    }
  }

  const table = tableFromEnv();
  try {
    const summary = await ingestFiles(dynamoIngestStores(table), files);
    if (summary.rejected.length > 0) {
      throw new Error(`fixture ingest rejected files: ${JSON.stringify(summary.rejected.slice(0, 3))}`);
    }
    await loadDirectory(table, {
      users: [{ sub, channels: [channel] }],
      channels: [{ id: channel, title: 't', videos: videoIds, playlists: [] }],
      contentOwners: [],
      accounts: [],
      properties: [],
    });
  } finally {
    table.db.destroy();
  }
  const countries = [...new Set(rawRows.map((r) => (r.country_code ?? '').trim().toUpperCase()))].sort();
  return { channel, sub, days, a2Days, videoIds, rawRows, countries, files: files.length };
}

// ---------------------------------------------------------------------------------------------------------------
// Worlds: every family, a channel and a content owner

/** One daily file as generated: raw cell values (no CSV quoting), columns named by the header. */
export interface ReportFile {
  /** The report type id of its folder, e.g. `channel_traffic_source_a2` or `channel_city_x1`. */
  readonly reportType: string;
  /** The folder above the report type folder: the channel, or the content owner. */
  readonly owner: string;
  /** YYYYMMDD */
  readonly date: string;
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

export interface WorldChannel {
  readonly id: string;
  readonly videos: readonly string[];
  readonly playlists: readonly string[];
  readonly uploader: 'self' | 'thirdParty';
  /** Content-owner worlds: the day the channel was linked (third-party channels are not linked). */
  readonly linkedSince?: string;
}

export interface ReportWorld {
  readonly ownerType: 'channel' | 'contentOwner';
  /** The channel id, or the content owner id. */
  readonly owner: string;
  /** The user who owns the channel or manages the content owner. */
  readonly sub: string;
  readonly channels: readonly WorldChannel[];
  readonly videoIds: readonly string[];
  readonly playlistIds: readonly string[];
  /** The report type ids written, in generation order. */
  readonly reportTypes: readonly string[];
  readonly files: readonly ReportFile[];
  readonly rows: number;
}

export interface ExchangeRate {
  /** YYYY-MM-DD */
  readonly day: string;
  readonly currency: string;
  readonly rate: number;
}

export interface ReportWorlds {
  readonly days: readonly string[];
  /** The days written at the a2-era versions (no engaged_views). */
  readonly a2Days: readonly string[];
  readonly channel: ReportWorld;
  readonly contentOwner: ReportWorld;
  /** Whether the extension layouts (and extension columns) were generated; `extensionsProblem` says why not. */
  readonly extensions: boolean;
  readonly extensionsProblem?: string;
  /** What the exchange-rates file holds (days with gaps, none in the first and last few days of the period). */
  readonly rates: readonly ExchangeRate[];
  readonly currencies: readonly string[];
  readonly ingest: {
    readonly files: number;
    readonly rows: number;
    readonly seconds: number;
    /**
     * Report types whose files the ingest could not place by their folder (`<owner>/<type>/`) and that were loaded
     * with the content owner named explicitly instead (should be none).
     */
    readonly unplacedTypes: readonly string[];
  };
}

export interface ReportWorldsOptions {
  start?: string;
  days?: number;
  a2Days?: number;
  seed?: number;
  channelVideos?: number;
  channelPlaylists?: number;
  /** The content owner's own channels: videos, playlists, link day as an offset from `start` (days). */
  ownerChannels?: readonly { videos: number; playlists: number; linkedAt: number }[];
  /** Generate the extension layouts and columns (default: when the generator can). */
  extensions?: boolean;
  /**
   * Part of every id (channels, content owner, users, videos). The generator draws from the ids, so a fixed tag (and
   * seed) gives the same data on every run; the default is unique per call.
   */
  tag?: string;
}

/** The service's queryable report types (kind other than `stored`), by type without version. */
const QUERYABLE = new Set(FAMILIES.filter((f) => f.kind !== 'stored').map((f) => f.type));

/**
 * Whether the generator writes the extension layouts: it knows them and generates a day of each without error.
 * Returns the problem otherwise.
 */
export function generatorExtensionsProblem(): string | undefined {
  if (EXTENSION_FAMILIES.length === 0) return 'the generator has no extension layouts';
  const o: GeneratorOptions = {
    channel: 'UCprobe',
    videos: 3,
    days: 1,
    start: '2025-01-01',
    seed: 1,
    videoPrefix: 'probe-',
    videoWidth: 2,
    version: 'a3',
    gzip: false,
    contentOwner: 'probe-co',
    extensions: true,
  };
  try {
    for (const f of EXTENSION_FAMILIES) {
      for (const day of generateReportDays(o, `${f.type}_x1`)) void day;
    }
    for (const day of generateReportDays(o, 'channel_basic_a3')) {
      if (!day.header.includes('creator_content_type')) return 'channel_basic files lack creator_content_type';
    }
  } catch (err) {
    return `the generator fails on extension layouts: ${(err as Error).message}`;
  }
  return undefined;
}

/** RFC 4180 quoting where a field needs it. */
const csvField = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
const csvText = (header: readonly string[], rows: readonly (readonly string[])[]) =>
  `${[header, ...rows].map((r) => r.map(csvField).join(',')).join('\n')}\n`;

/**
 * Every queryable family of one side (channel and playlist families, or content-owner families) for all days:
 * the first `a2Days` at the a2-era version, the rest at the current one.
 */
function generateWorldFiles(o: GeneratorOptions, side: 'channel' | 'contentOwner', a2Days: number) {
  const families = (o.extensions ? ALL_FAMILIES : ALL_FAMILIES.filter((f) => !EXTENSION_FAMILIES.includes(f))).filter(
    (f: ReportFamily) => isOwnerFamily(f) === (side === 'contentOwner') && QUERYABLE.has(f.type),
  );
  const owner = side === 'contentOwner' ? (o.contentOwner as string) : o.channel;
  const files: ReportFile[] = [];
  const reportTypes: string[] = [];
  for (const f of families) {
    // The older files of the a2 era carry no extension columns either (their rows read as UNSPECIFIED / UNKNOWN).
    const eras = [
      { id: `${f.type}_${versionForEra(f, 'a2').version}`, from: 0, to: a2Days, extensions: false },
      { id: `${f.type}_${versionForEra(f, 'a3').version}`, from: a2Days, to: o.days, extensions: o.extensions },
    ];
    for (const { id, from, to, extensions } of eras) {
      if (from >= to) continue;
      if (!reportTypes.includes(id)) reportTypes.push(id);
      let d = 0;
      const layout = EXTENSION_FAMILIES.includes(f);
      for (const day of generateReportDays({ ...o, extensions: layout || extensions === true }, id)) {
        if (d >= to) break;
        if (d++ < from) continue;
        files.push({ reportType: id, owner, date: day.date, header: day.header, rows: day.rows });
      }
    }
  }
  return { files, reportTypes };
}

/**
 * The exchange rates file: the generator's table for the period (every other currency has gaps), without the
 * first `lead` and the last `tail` days (so early days use the first rate and late days the latest earlier one),
 * and with one more gap of a week in the middle for JPY.
 */
function ratesFor(start: string, days: number, seed: number) {
  const lead = 5;
  const tail = 4;
  const { rows } = generateExchangeRates({ start, days, seed });
  const first = addDays(start, lead).replaceAll('-', '');
  const last = addDays(start, days - 1 - tail).replaceAll('-', '');
  const gapFrom = addDays(start, Math.floor(days / 2) - 3).replaceAll('-', '');
  const gapTo = addDays(start, Math.floor(days / 2) + 3).replaceAll('-', '');
  const kept = rows.filter(
    ([date, currency]) =>
      (date as string) >= first &&
      (date as string) <= last &&
      !(currency === 'JPY' && (date as string) >= gapFrom && (date as string) <= gapTo),
  );
  const rates: ExchangeRate[] = kept.map(([date, currency, rate]) => ({
    day: isoDay(date as string),
    currency: currency as string,
    rate: Number(rate),
  }));
  return { text: csvText(['date', 'currency', 'units_per_usd'], kept), rates };
}

/**
 * Generates, ingests and registers a channel world and a content-owner world (see the file comment). The period
 * defaults to 2025, before any other test's or the demo world's exchange rates, so the rates of a currency in the
 * table are exactly this file's for every day the worlds have data.
 */
export async function createReportWorlds(options: ReportWorldsOptions = {}): Promise<ReportWorlds> {
  const start = options.start ?? '2025-06-14';
  const dayCount = options.days ?? 60;
  const a2Count = Math.min(options.a2Days ?? 12, dayCount);
  const seed = options.seed ?? 20250614;
  const problem = options.extensions === false ? 'extensions turned off' : generatorExtensionsProblem();
  const extensions = problem === undefined;

  const tag = options.tag ?? runTag();
  const days = Array.from({ length: dayCount }, (_, d) => addDays(start, d));
  const common = { days: dayCount, start, seed, version: 'a3' as const, gzip: false, extensions };

  // The channel world: a channel with videos and playlists, every channel and playlist family.
  const channelId = `UCdw${tag}`;
  const channelOptions: GeneratorOptions = {
    ...common,
    channel: channelId,
    videos: options.channelVideos ?? 40,
    videoPrefix: `dw${tag}-v`,
    videoWidth: 3,
    playlists: options.channelPlaylists ?? 8,
    playlistPrefix: `dw${tag}-p`,
  };
  const channelPlan = planWorld(channelOptions).channel;
  const channelGen = generateWorldFiles(channelOptions, 'channel', a2Count);
  const channelWorld: ReportWorld = {
    ownerType: 'channel',
    owner: channelId,
    sub: `report-user-${tag}`,
    channels: [
      {
        id: channelId,
        videos: channelPlan.plan.videos.map((v) => v.id),
        playlists: channelPlan.playlists.map((p) => p.id),
        uploader: 'self',
      },
    ],
    videoIds: channelPlan.plan.videos.map((v) => v.id),
    playlistIds: channelPlan.playlists.map((p) => p.id),
    ...channelGen,
    rows: channelGen.files.reduce((n, f) => n + f.rows.length, 0),
  };

  // The content-owner world: its own channels (linked before, early in and in the middle of the period) and the
  // generator's third-party channels whose videos it claims.
  const coId = `cow${tag}`;
  const ownerChannels = options.ownerChannels ?? [
    { videos: 14, playlists: 3, linkedAt: -200 },
    { videos: 11, playlists: 3, linkedAt: Math.floor(dayCount / 2) },
    { videos: 9, playlists: 2, linkedAt: 8 },
  ];
  const owned = ownerChannels.map((c, i) => ({
    channel: `UCcw${tag}x${i + 1}`,
    videos: c.videos,
    videoPrefix: `cw${tag}x${i + 1}-v`,
    videoWidth: 3,
    playlists: c.playlists,
    playlistPrefix: `cw${tag}x${i + 1}-p`,
  }));
  const coOptions: GeneratorOptions = {
    ...common,
    channel: (owned[0] as { channel: string }).channel,
    videos: ownerChannels[0]?.videos ?? 10,
    videoPrefix: `cw${tag}x1-v`,
    videoWidth: 3,
    contentOwner: coId,
    channels: owned,
    assets: 20,
  };
  const coPlan = planWorld(coOptions).owner;
  if (!coPlan) throw new Error('the content-owner world has no owner plan');
  const coGen = generateWorldFiles(coOptions, 'contentOwner', a2Count);
  const coChannels: WorldChannel[] = coPlan.channels.map((cw) => {
    const i = owned.findIndex((c) => c.channel === cw.plan.options.channel);
    return {
      id: cw.plan.options.channel,
      videos: cw.plan.videos.map((v) => v.id),
      playlists: cw.playlists.map((p) => p.id),
      uploader: cw.uploader,
      ...(i >= 0 ? { linkedSince: addDays(start, (ownerChannels[i] as { linkedAt: number }).linkedAt) } : {}),
    };
  });
  const coWorld: ReportWorld = {
    ownerType: 'contentOwner',
    owner: coId,
    sub: `co-manager-${tag}`,
    channels: coChannels,
    videoIds: coChannels.flatMap((c) => c.videos),
    playlistIds: coChannels.flatMap((c) => c.playlists),
    ...coGen,
    rows: coGen.files.reduce((n, f) => n + f.rows.length, 0),
  };

  const rates = ratesFor(start, dayCount, seed);
  const root = `diff-${tag}`;
  const ingest: IngestFile[] = [
    ...[...channelWorld.files, ...coWorld.files].map((f) => {
      const bytes = new TextEncoder().encode(csvText(f.header, f.rows));
      return bytesFile(`${root}/${f.owner}/${f.reportType}/${f.date}.csv`, bytes);
    }),
    bytesFile(`${root}/exchange_rates.csv`, new TextEncoder().encode(rates.text)),
  ];

  const directory: DirectoryWorld = {
    users: [
      { sub: channelWorld.sub, channels: [channelId] },
      { sub: coWorld.sub, contentOwners: [coId] },
    ],
    channels: [...channelWorld.channels, ...coWorld.channels].map((c) => ({
      id: c.id,
      title: c.id,
      videos: [...c.videos],
      playlists: [...c.playlists],
    })),
    contentOwners: [
      {
        id: coId,
        displayName: `Differential ${tag}`,
        linkedChannels: coWorld.channels
          .filter((c) => c.linkedSince !== undefined)
          .map((c) => ({ channelId: c.id, linkedSince: c.linkedSince as string })),
        assets: coPlan.assets,
        claimedVideos: coWorld.channels.filter((c) => c.uploader === 'thirdParty').flatMap((c) => c.videos),
      },
    ],
    accounts: [],
    properties: [],
  };

  const table = tableFromEnv();
  const started = performance.now();
  const unplacedTypes: string[] = [];
  try {
    const facts = dynamoIngestStores(table);
    const summary = await ingestFiles(facts, ingest, { rates: dynamoRateRepository(table) });
    // Content-owner files the ingest could not place by their folder names get a second chance with the content
    // owner named explicitly (as `import --content-owner` does); the test reports them as a bug of the folder hints.
    const byName = new Map(ingest.map((f) => [f.name, f]));
    const unplaced = summary.rejected.filter((r) => /is a content-owner report: put it under a folder/.test(r.message));
    if (unplaced.length > 0) {
      const again = await ingestFiles(
        facts,
        unplaced.map((r) => byName.get(r.file) as IngestFile),
        { contentOwner: coId },
      );
      if (again.rejected.length > 0) {
        throw new Error(`world ingest rejected files: ${JSON.stringify(again.rejected.slice(0, 3))}`);
      }
      unplacedTypes.push(...new Set(unplaced.map((r) => r.file.split('/').at(-2) as string)));
    }
    const rejected = summary.rejected.filter((r) => !unplaced.includes(r));
    if (rejected.length > 0) {
      throw new Error(`world ingest rejected files: ${JSON.stringify(rejected.slice(0, 3))}`);
    }
    await loadDirectory(table, directory);
  } finally {
    table.db.destroy();
  }
  return {
    days,
    a2Days: days.slice(0, a2Count),
    channel: channelWorld,
    contentOwner: coWorld,
    extensions,
    ...(problem !== undefined ? { extensionsProblem: problem } : {}),
    rates: rates.rates,
    currencies: [...new Set(rates.rates.map((r) => r.currency))].sort(),
    ingest: {
      files: ingest.length,
      rows: channelWorld.rows + coWorld.rows,
      seconds: (performance.now() - started) / 1000,
      unplacedTypes,
    },
  };
}
