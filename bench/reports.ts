/**
 * reports.query benchmark: a large generated export (one channel, ≥1,000 videos, 730 days, ≥2 million fact rows)
 * and a content owner (3 channels, a year of content_owner_basic and content_owner_estimated_revenue, exchange
 * rates; reports-co.ts) are ingested (each timed on its own, rows/s), then each representative query runs through
 * the local server and, in the same run, in DuckDB over the raw CSV rows. Reports per query: DynamoDB items and
 * bytes read, p50 latency, DuckDB's p50, and the item bound of the storage design. Targets: channel ingest ≤ 120 s;
 * every p50 ≤ DuckDB's; items within bound; the answer equal to DuckDB's.
 *
 * Options (environment): BENCH_VIDEOS (1000), BENCH_DAYS (730), BENCH_REPORT_N (30 measured runs per query),
 * BENCH_REPORT_WARMUP (20 unmeasured runs before them, on both sides), and
 * reports-co-options.ts's BENCH_CO_CHANNELS, BENCH_CO_VIDEOS, BENCH_CO_DAYS.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { loadDirectory } from '../functions/core/directory/directory-loader';
import type { TableContext } from '../functions/core/directory/directory-repository';
import { newEtag } from '../functions/core/groups/group';
import { dynamoGroupRepository } from '../functions/core/groups/group-repository';
import { countriesIn } from '../functions/core/reports/catalog/geo';
import { localFile } from '../functions/core/reports/ingest/ingest-file';
import { dynamoIngestStores, ingestFiles } from '../functions/core/reports/ingest/ingest-service';
import { writeExports } from '../infra/generator/export-generator';
import {
  CONTENT_OWNER_SCOPES,
  CONTENT_OWNER_SUB,
  generateContentOwner,
  loadContentOwnerRows,
  prepareContentOwner,
} from './reports-co';
import {
  type BenchCaller,
  type BenchQuery,
  between,
  channelLevelBound,
  median,
  rowsDiffer,
  span,
  sqlIn,
  topVideosBound,
} from './reports-shared';

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

function queries(videos: string[], groupId: string): BenchQuery[] {
  const channelBound = channelLevelBound;
  const perVideoBound = (r: readonly [string, string], n: number) => (span(r).months + span(r).edgeDays) * n;
  const top = videos[0] as string;
  const group = videos.slice(0, 200);
  const europe = countriesIn({ continent: '150' });
  const partial = ['2025-11-15', '2026-10-20'] as const;
  return [
    {
      caller: 'channel',
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
      caller: 'channel',
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
      caller: 'channel',
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
      caller: 'channel',
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
      bound: topVideosBound(YEAR),
    },
    {
      caller: 'channel',
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
      caller: 'channel',
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
      caller: 'channel',
      name: 'subscribed status by month, 1 year',
      params: { startDate: YEAR[0], endDate: YEAR[1], dimensions: 'subscribedStatus,month', metrics: 'views,likes' },
      sql: `SELECT sub, strftime(day,'%Y-%m') m, sum(views), sum(likes) FROM facts WHERE ${between(YEAR)} GROUP BY sub, m ORDER BY sub, m`,
      bound: channelBound(YEAR),
    },
    {
      caller: 'channel',
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
      caller: 'channel',
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
      caller: 'channel',
      name: 'totals, partial months (Nov 15 to Oct 20)',
      params: {
        startDate: partial[0],
        endDate: partial[1],
        metrics: 'views,likes,subscribersGained,averageViewPercentage',
      },
      sql: `SELECT coalesce(sum(views), 0), coalesce(sum(likes), 0), coalesce(sum(subs_gained), 0), CASE WHEN coalesce(sum(views), 0)=0 THEN 0 ELSE sum(pct*views)/sum(views) END FROM facts WHERE ${between(partial)}`,
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
  const n = Number(process.env.BENCH_REPORT_N ?? 30);
  const warmup = Number(process.env.BENCH_REPORT_WARMUP ?? 20);
  const { log } = options;
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-exports-'));
  // The content owner, in its own folder (the channel glob below must not see its files), generated by a child
  // process on the other core while this one generates the channel world.
  const coDir = mkdtempSync(path.join(tmpdir(), 'bench-co-exports-'));
  const coGeneration = generateContentOwner(coDir);
  coGeneration.done.catch(() => undefined); // awaited below; a failure before that must not go unhandled
  try {
    log(`generating ${videosCount} videos x ${days} days of channel_basic exports`);
    log(`generating the content owner (${coDir}) in a child process`);
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

    const coExports = await coGeneration.done;
    log(
      `content owner generated: ${coExports.files} files, ${coExports.rows} rows + ${coExports.rates} rates in ${coExports.seconds.toFixed(1)} s`,
    );

    log(`ingesting ${generated.files} files, ${generated.rows} rows`);
    const summary = await ingestFiles(
      dynamoIngestStores(env.table),
      listFiles(dir).map((f) => localFile(f)),
    );
    const ingestSeconds = summary.seconds;

    // The content owner's ingest, right after the channel's and timed on its own.
    const co = await prepareContentOwner(env.table, coDir, log);

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
    log('loading the content-owner raw rows and exchange rates into DuckDB');
    await loadContentOwnerRows(duck, coDir);

    const tokens: Record<BenchCaller, string> = {
      channel: await env.token(SUB, ['video-analytics.readonly']),
      contentOwner: await env.token(CONTENT_OWNER_SUB, CONTENT_OWNER_SCOPES),
    };
    const all = [...queries(videos, groupId), ...co.queries];
    const width = Math.max(44, ...all.map((q) => q.name.length));
    const lines: string[] = [];
    let pass = ingestSeconds <= 120;
    const coSeconds = co.ingest.seconds;
    lines.push(
      `ingest: ${summary.loaded} files, ${summary.rows} rows in ${ingestSeconds.toFixed(1)} s = ${Math.round(summary.rows / ingestSeconds)} rows/s (target <= 120 s: ${ingestSeconds <= 120 ? 'PASS' : 'FAIL'})`,
      `content-owner ingest (${co.channels.length} channels + third-party uploads, content_owner_basic_a4 + content_owner_estimated_revenue_a1 + exchange rates): ${co.ingest.loaded} files, ${co.ingest.rows} rows in ${coSeconds.toFixed(1)} s = ${Math.round(co.ingest.rows / coSeconds)} rows/s (budget ~60 s, not a target)`,
      '',
      `${'query'.padEnd(width)} ${'items'.padStart(6)} ${'bytes'.padStart(9)} ${'bound'.padStart(6)} ${'API p50'.padStart(8)} ${'DuckDB p50'.padStart(10)} ${'ratio'.padStart(6)}  result`,
    );
    for (const q of all) {
      const ids = q.caller === 'channel' ? 'channel==MINE' : (q.ids as string);
      const url = `${env.baseUrl}/v2/reports?${new URLSearchParams({ ids, ...q.params })}`;
      const token = tokens[q.caller];
      const call = async () => {
        const t0 = performance.now();
        const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
        const body = (await res.json()) as { rows?: unknown[][]; error?: { message: string } };
        if (res.status !== 200) throw new Error(`${q.name}: ${res.status} ${body.error?.message}`);
        return {
          ms: performance.now() - t0,
          items: Number(res.headers.get('x-items-read')),
          bytes: Number(res.headers.get('x-bytes-read')),
          rows: body.rows ?? [],
        };
      };
      const first = await call();
      // Both sides are measured warm: the server's and DynamoDB Local's JIT compile a query's paths after a few
      // dozen calls (the first calls of a query shape run up to twice as slow), DuckDB caches its plans.
      for (let i = 0; i < warmup; i++) await call();
      for (let i = 0; i <= warmup; i++) await duck.runAndReadAll(q.sql);
      // Measured runs alternate between the sides, so both see the same state of the host (a burst of load on a
      // shared machine lands on both instead of on whichever side ran then).
      const apiTimes: number[] = [];
      const duckTimes: number[] = [];
      let duckRows: unknown[][] = [];
      for (let i = 0; i < n; i++) {
        apiTimes.push((await call()).ms);
        const t0 = performance.now();
        duckRows = (await duck.runAndReadAll(q.sql)).getRows();
        duckTimes.push(performance.now() - t0);
      }
      const api = median(apiTimes);
      const ddb = median(duckTimes);
      const differs = rowsDiffer(first.rows, duckRows);
      const ok = api <= ddb && first.items <= q.bound && differs === undefined;
      pass &&= ok;
      lines.push(
        `${q.name.padEnd(width)} ${String(first.items).padStart(6)} ${String(first.bytes).padStart(9)} ${String(q.bound).padStart(6)} ${api.toFixed(1).padStart(8)} ${ddb.toFixed(1).padStart(10)} ${(api / ddb).toFixed(2).padStart(6)}  ${ok ? 'PASS' : 'FAIL'}${differs === undefined ? '' : ` (${differs})`}`,
      );
    }
    duck.closeSync();
    return { text: lines.join('\n'), pass };
  } finally {
    coGeneration.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(coDir, { recursive: true, force: true });
  }
}
