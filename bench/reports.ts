/**
 * reports.query benchmark: a large generated export (one channel, ≥1,000 videos, 730 days, ≥2 million fact rows)
 * is ingested (time, rows/s), then each representative query runs through the local server and, in the same run,
 * in DuckDB over the raw CSV rows. Reports per query: DynamoDB items and bytes read, p50 latency, DuckDB's p50,
 * and the item bound of the storage design. Targets: ingest ≤ 120 s; every p50 ≤ DuckDB's; items within bound.
 *
 * Options (environment): BENCH_VIDEOS (1000), BENCH_DAYS (730), BENCH_REPORT_N (20 measured runs per query).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { loadDirectory } from '../functions/core/directory/directory-loader';
import type { TableContext } from '../functions/core/directory/directory-repository';
import { newEtag } from '../functions/core/groups/group';
import { dynamoGroupRepository } from '../functions/core/groups/group-repository';
import { splitRange } from '../functions/core/reports/engine';
import { dynamoFactRepository } from '../functions/core/reports/fact-repository';
import { countriesIn } from '../functions/core/reports/geo';
import { type IngestFile, ingestFiles } from '../functions/core/reports/ingest/ingest-service';
import { writeExports } from '../infra/local/export-generator';

export interface ReportsBenchEnvironment {
  readonly baseUrl: string;
  readonly table: TableContext;
  token(sub: string, scopes: string[]): Promise<string>;
}

const CHANNEL = 'UCbench-reports';
const SUB = 'bench-reporter';
const START = '2024-11-01';
const YEAR = ['2025-11-01', '2026-10-31'] as const;
const TWO_YEARS = ['2024-11-01', '2026-10-31'] as const;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] as number;
};

interface BenchQuery {
  name: string;
  params: Record<string, string>;
  sql: string;
  /** Most items the storage design may read for it. */
  bound: number;
}

const sqlIn = (values: Iterable<string>) => `(${[...values].map((v) => `'${v}'`).join(',')})`;

function queries(videos: string[], groupId: string): BenchQuery[] {
  const span = (r: readonly [string, string]) => {
    const { months, edges } = splitRange(r[0], r[1]);
    const edgeDays = edges.reduce((n, [a, b]) => n + (Date.parse(b) - Date.parse(a)) / 86_400_000 + 1, 0);
    return { months: months.length, edgeDays };
  };
  const channelBound = (r: readonly [string, string]) => 2 * span(r).months + span(r).edgeDays;
  const perVideoBound = (r: readonly [string, string], n: number) => (span(r).months + span(r).edgeDays) * n;
  const between = (r: readonly [string, string]) => `day BETWEEN DATE '${r[0]}' AND DATE '${r[1]}'`;
  const top = videos[0] as string;
  const group = videos.slice(0, 200);
  const europe = countriesIn({ continent: '150' });
  const partial = ['2025-11-15', '2026-10-20'] as const;
  return [
    {
      name: '1-year daily (views, minutes)',
      params: {
        startDate: YEAR[0],
        endDate: YEAR[1],
        dimensions: 'day',
        metrics: 'views,estimatedMinutesWatched',
        sort: 'day',
      },
      sql: `SELECT strftime(day,'%Y-%m-%d') d, sum(views), round(sum(minutes)) FROM facts WHERE ${between(YEAR)} GROUP BY d ORDER BY d`,
      bound: channelBound(YEAR),
    },
    {
      name: '2-year monthly (views, likes, avg duration)',
      params: {
        startDate: TWO_YEARS[0],
        endDate: TWO_YEARS[1],
        dimensions: 'month',
        metrics: 'views,likes,averageViewDuration',
      },
      sql: `SELECT strftime(day,'%Y-%m') m, sum(views), sum(likes), CASE WHEN sum(views)=0 THEN 0 ELSE round(sum(minutes)*60/sum(views)) END FROM facts WHERE ${between(TWO_YEARS)} GROUP BY m ORDER BY m`,
      bound: channelBound(TWO_YEARS),
    },
    {
      name: '1-year by country',
      params: {
        startDate: YEAR[0],
        endDate: YEAR[1],
        dimensions: 'country',
        metrics: 'views,estimatedMinutesWatched',
        sort: '-views',
      },
      sql: `SELECT country, sum(views) v, round(sum(minutes)) FROM facts WHERE ${between(YEAR)} GROUP BY country ORDER BY v DESC, country`,
      bound: channelBound(YEAR),
    },
    {
      name: 'top 10 videos over 1 year',
      params: {
        startDate: YEAR[0],
        endDate: YEAR[1],
        dimensions: 'video',
        metrics: 'views,likes',
        sort: '-views',
        maxResults: '10',
      },
      sql: `SELECT video, sum(views) v, sum(likes) FROM facts WHERE ${between(YEAR)} AND video <> '' GROUP BY video ORDER BY v DESC, video LIMIT 10`,
      bound: span(YEAR).months + span(YEAR).edgeDays,
    },
    {
      name: 'one video daily over 1 year',
      params: {
        startDate: YEAR[0],
        endDate: YEAR[1],
        dimensions: 'day',
        metrics: 'views,estimatedMinutesWatched',
        filters: `video==${top}`,
      },
      sql: `SELECT strftime(day,'%Y-%m-%d') d, sum(views), round(sum(minutes)) FROM facts WHERE ${between(YEAR)} AND video = '${top}' GROUP BY d ORDER BY d`,
      bound: perVideoBound(YEAR, 1),
    },
    {
      name: 'group of 200 videos monthly over 2 years',
      params: {
        startDate: TWO_YEARS[0],
        endDate: TWO_YEARS[1],
        dimensions: 'month',
        metrics: 'views,estimatedMinutesWatched',
        filters: `group==${groupId}`,
      },
      sql: `SELECT strftime(day,'%Y-%m') m, sum(views), round(sum(minutes)) FROM facts WHERE ${between(TWO_YEARS)} AND video IN ${sqlIn(group)} GROUP BY m ORDER BY m`,
      bound: perVideoBound(TWO_YEARS, 200),
    },
    {
      name: 'subscribed status by month, 1 year',
      params: { startDate: YEAR[0], endDate: YEAR[1], dimensions: 'subscribedStatus,month', metrics: 'views,likes' },
      sql: `SELECT sub, strftime(day,'%Y-%m') m, sum(views), sum(likes) FROM facts WHERE ${between(YEAR)} GROUP BY sub, m ORDER BY sub, m`,
      bound: channelBound(YEAR),
    },
    {
      name: 'live vs on-demand, 2 years, US only',
      params: {
        startDate: TWO_YEARS[0],
        endDate: TWO_YEARS[1],
        dimensions: 'liveOrOnDemand',
        metrics: 'views,averageViewDuration',
        filters: 'country==US',
      },
      sql: `SELECT live, sum(views), CASE WHEN sum(views)=0 THEN 0 ELSE round(sum(minutes)*60/sum(views)) END FROM facts WHERE ${between(TWO_YEARS)} AND country='US' GROUP BY live ORDER BY live`,
      bound: channelBound(TWO_YEARS),
    },
    {
      name: 'top 10 videos in Europe, 1 year',
      params: {
        startDate: YEAR[0],
        endDate: YEAR[1],
        dimensions: 'video',
        metrics: 'views',
        sort: '-views',
        maxResults: '10',
        filters: 'continent==150',
      },
      sql: `SELECT video, sum(views) v FROM facts WHERE ${between(YEAR)} AND video <> '' AND country IN ${sqlIn(europe)} GROUP BY video ORDER BY v DESC, video LIMIT 10`,
      bound: span(YEAR).months * europe.size + span(YEAR).edgeDays,
    },
    {
      name: 'totals, partial months (Nov 15 to Oct 20)',
      params: {
        startDate: partial[0],
        endDate: partial[1],
        metrics: 'views,likes,subscribersGained,averageViewPercentage',
      },
      sql: `SELECT sum(views), sum(likes), sum(subs_gained), CASE WHEN sum(views)=0 THEN 0 ELSE sum(pct*views)/sum(views) END FROM facts WHERE ${between(partial)}`,
      bound: channelBound(partial),
    },
  ];
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(path.join(dir, e.name)) : [path.join(dir, e.name)],
  );
}

export async function benchReports(
  env: ReportsBenchEnvironment,
  options: { log: (line: string) => void },
): Promise<{ text: string; pass: boolean }> {
  const videosCount = Number(process.env.BENCH_VIDEOS ?? 1000);
  const days = Number(process.env.BENCH_DAYS ?? 730);
  const n = Number(process.env.BENCH_REPORT_N ?? 20);
  const { log } = options;
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-exports-'));
  try {
    log(`generating ${videosCount} videos x ${days} days of channel_basic exports`);
    const generated = await writeExports(
      {
        channel: CHANNEL,
        videos: videosCount,
        days,
        start: START,
        seed: 7,
        videoPrefix: 'bv',
        videoWidth: 5,
        version: 'a3',
        gzip: false,
      },
      dir,
    );
    const videos = Array.from({ length: videosCount }, (_, i) => `bv${String(i + 1).padStart(5, '0')}`);
    await loadDirectory(env.table, {
      users: [{ sub: SUB, channels: [CHANNEL] }],
      channels: [{ id: CHANNEL, title: 'Bench channel', videos, playlists: [] }],
      contentOwners: [],
      accounts: [],
      properties: [],
    });

    log(`ingesting ${generated.files} files, ${generated.rows} rows`);
    const files: IngestFile[] = listFiles(dir).map((f) => ({ name: f, read: async () => readFileSync(f) }));
    const summary = await ingestFiles(dynamoFactRepository(env.table), files);
    const ingestSeconds = summary.seconds;

    // A group of 200 videos, as groups.insert + groupItems.insert would store it.
    const groups = dynamoGroupRepository(env.table);
    const actor = `channel:${CHANNEL}`;
    const groupId = `benchgroup${Date.now()}`;
    await groups.create({
      id: groupId,
      actor,
      title: '200 videos',
      itemCount: 0,
      status: 'active',
      etag: newEtag(),
      publishedAt: new Date().toISOString(),
    });
    for (let i = 0; i < 200; i += 20) {
      await Promise.all(videos.slice(i, i + 20).map((v) => groups.insertItem(actor, groupId, 'youtube#video', v)));
    }

    log('loading the raw rows into DuckDB');
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    await duck.run(`CREATE TABLE facts AS SELECT
        strptime(date, '%Y%m%d')::DATE AS day, coalesce(video_id, '') AS video, country_code AS country,
        CASE WHEN subscribed_status = 'subscribed' THEN 'SUBSCRIBED' ELSE 'UNSUBSCRIBED' END AS sub,
        CASE WHEN live_or_on_demand = 'live' THEN 'LIVE' ELSE 'ON_DEMAND' END AS live,
        views::DOUBLE AS views, likes::DOUBLE AS likes, watch_time_minutes::DOUBLE AS minutes,
        average_view_duration_percentage::DOUBLE AS pct, subscribers_gained::DOUBLE AS subs_gained
      FROM read_csv('${dir}/*/*/*.csv', union_by_name = true, header = true, all_varchar = true, nullstr = '\\N')`);

    const token = await env.token(SUB, ['video-analytics.readonly']);
    const lines: string[] = [];
    let pass = ingestSeconds <= 120;
    lines.push(
      `ingest: ${summary.loaded} files, ${summary.rows} rows in ${ingestSeconds.toFixed(1)} s = ${Math.round(summary.rows / ingestSeconds)} rows/s (target <= 120 s: ${ingestSeconds <= 120 ? 'PASS' : 'FAIL'})`,
      '',
      `${'query'.padEnd(44)} ${'items'.padStart(6)} ${'bytes'.padStart(9)} ${'bound'.padStart(6)} ${'API p50'.padStart(8)} ${'DuckDB p50'.padStart(10)} ${'ratio'.padStart(6)}  result`,
    );
    for (const q of queries(videos, groupId)) {
      const url = `${env.baseUrl}/v2/reports?${new URLSearchParams({ ids: 'channel==MINE', ...q.params })}`;
      const call = async () => {
        const t0 = performance.now();
        const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
        const body = (await res.json()) as { rows?: unknown[]; error?: { message: string } };
        if (res.status !== 200) throw new Error(`${q.name}: ${res.status} ${body.error?.message}`);
        return {
          ms: performance.now() - t0,
          items: Number(res.headers.get('x-items-read')),
          bytes: Number(res.headers.get('x-bytes-read')),
          rows: body.rows?.length ?? 0,
        };
      };
      const first = await call();
      await call();
      const apiTimes: number[] = [];
      for (let i = 0; i < n; i++) apiTimes.push((await call()).ms);
      await duck.runAndReadAll(q.sql);
      const duckTimes: number[] = [];
      let duckRows = 0;
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        duckRows = (await duck.runAndReadAll(q.sql)).getRows().length;
        duckTimes.push(performance.now() - t0);
      }
      const api = median(apiTimes);
      const ddb = median(duckTimes);
      const ok = api <= ddb && first.items <= q.bound && first.rows === duckRows;
      pass &&= ok;
      lines.push(
        `${q.name.padEnd(44)} ${String(first.items).padStart(6)} ${String(first.bytes).padStart(9)} ${String(q.bound).padStart(6)} ${api.toFixed(1).padStart(8)} ${ddb.toFixed(1).padStart(10)} ${(api / ddb).toFixed(2).padStart(6)}  ${ok ? 'PASS' : 'FAIL'}${first.rows === duckRows ? '' : ` (rows ${first.rows} vs ${duckRows})`}`,
      );
    }
    duck.closeSync();
    return { text: lines.join('\n'), pass };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
