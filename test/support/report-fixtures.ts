/**
 * Report fixtures for the integration tests: a fresh channel owned by a fresh user, with generated
 * `channel_basic` exports ingested into the run's DynamoDB Local through the real ingest path, and the same raw
 * CSV rows returned (as objects by header name) for an independent oracle (duckdb-oracle.ts).
 *
 * The first `a2Days` days are `channel_basic_a2` files (no engaged_views column), the rest `channel_basic_a3`.
 * The generator's values do not depend on the version (only the columns do), so the a2 and a3 streams describe one
 * consistent channel.
 */
import { randomBytes } from 'node:crypto';
import { createDocumentClient } from '../../functions/core/db/document-client';
import { loadDirectory } from '../../functions/core/directory/directory-loader';
import { dynamoFactRepository } from '../../functions/core/reports/fact-repository';
import { type IngestFile, ingestFiles } from '../../functions/core/reports/ingest/ingest-service';
import { generateDays, type ReportVersion } from '../../infra/local/export-generator';

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

function tableFromEnv() {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  const tableName = process.env.TABLE_NAME;
  if (!endpoint || !tableName) throw new Error('DynamoDB Local is not running: use the integration project');
  return { db: createDocumentClient(endpoint), tableName };
}

/** Generates, ingests and registers a fresh channel with report data; see the file comment. */
export async function createReportFixture(options: ReportFixtureOptions = {}): Promise<ReportFixture> {
  const videos = options.videos ?? 60;
  const dayCount = options.days ?? 95;
  const start = options.start ?? '2026-03-17';
  const a2Count = Math.min(options.a2Days ?? 20, dayCount);
  const seed = options.seed ?? 20260317;

  const tag = `${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
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
      files.push({ name: `x/${channel}/channel_basic_${version}/${day.date}.csv`, read: async () => bytes });
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
    const summary = await ingestFiles(dynamoFactRepository(table), files);
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
