/**
 * reports.query benchmark, at each size of reports-sizes.ts (1,000 videos × 730 days and 10,000 videos × 365 days,
 * each with a content owner of that many videos): a generated channel world and content owner are ingested (each
 * timed on its own, rows/s), then each representative query runs through the local server and, in the same run, in
 * DuckDB over the raw CSV rows of that size. Reports per query: DynamoDB items and bytes read, p50 latency, DuckDB's
 * p50, the item bound of the storage design (a function of the videos), and at the largest size the peak RSS of a
 * process answering it. Targets: channel ingest ≥ 50k rows/s; every p50 ≤ 0.5× DuckDB's; items within bound; the
 * answer equal to DuckDB's; peak RSS ≤ 512 MB; channel-level queries read the same items at every size.
 *
 * Options (environment): BENCH_SIZES and the world sizes (reports-sizes.ts), BENCH_REPORT_N (30 measured runs per
 * query), BENCH_REPORT_WARMUP (20 unmeasured runs before them, on both sides).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { DuckDBInstance } from '@duckdb/node-api';
import { createDocumentClient } from '../functions/core/db/document-client';
import { loadDirectory } from '../functions/core/directory/directory-loader';
import type { TableContext } from '../functions/core/directory/directory-repository';
import { newEtag } from '../functions/core/groups/group';
import { dynamoGroupRepository } from '../functions/core/groups/group-repository';
import { countriesIn } from '../functions/core/reports/catalog/geo';
import { localFile } from '../functions/core/reports/ingest/ingest-file';
import { dynamoIngestStores, type IngestSummary, ingestFiles } from '../functions/core/reports/ingest/ingest-service';
import { writeExports } from '../infra/generator/export-generator';
import { ensureTable } from '../infra/local/dynamo-local';
import { loopbackClient } from './loopback-client';
import { recordBareReads } from './reports-bare';
import { type Capacity, countingClient, reportCapacity } from './reports-capacity';
import {
  CONTENT_OWNER_SCOPES,
  CONTENT_OWNER_SUB,
  generateContentOwner,
  loadContentOwnerRows,
  prepareContentOwner,
} from './reports-co';
import { peakMemory } from './reports-memory';
import {
  type BenchCaller,
  type BenchQuery,
  between,
  channelLevelBound,
  isChannelLevel,
  median,
  perVideoBound,
  regionTopVideosBound,
  rowsDiffer,
  sqlIn,
  topVideosBound,
} from './reports-shared';
import { type BenchSize, channelLabel, contentOwnerLabel, selectedSizes } from './reports-sizes';
import { formatTable } from './table';

export interface ReportsBenchEnvironment {
  readonly baseUrl: string;
  readonly table: TableContext;
  token(sub: string, scopes: string[]): Promise<string>;
}

const YEAR = ['2025-11-01', '2026-10-31'] as const;
const TWO_YEARS = ['2024-11-01', '2026-10-31'] as const;

/** The channel queries over `videos` (the channel's), the group `groupId` holding its first 200. */
function queries(videos: string[], groupId: string): BenchQuery[] {
  const channelBound = channelLevelBound;
  const all = videos.length;
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
      bound: topVideosBound(YEAR, all),
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
      bound: perVideoBound(YEAR, 1, all),
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
      bound: perVideoBound(TWO_YEARS, group.length, all),
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
      bound: regionTopVideosBound(YEAR, europe.size, all),
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

/** Batch ingest at every size: at least this many rows a second. */
const INGEST_ROWS_PER_SECOND = 50_000;
/** Every p50 at most this share of DuckDB's. */
const DUCKDB_RATIO = 0.5;
/** Peak RSS of answering a report, MB (the reports function has 1,024). */
const RSS_MB = 512;
/** The memory of the reports function and the ingest function (routes.ts, infra/config.ts defaults), GB. */
const REPORT_GB = 1;
const INGEST_GB = 3008 / 1024;

interface QueryResult {
  query: BenchQuery;
  items: number;
  bytes: number;
  api: number;
  duck: number;
  /** The p50 of the report's own DynamoDB calls sent bare (reports-bare.ts), and how many there are. */
  bare: { p50: number; calls: number };
  /** Items over the range every size's channel world holds (channel-level queries only). */
  commonItems?: number;
  /** What its DynamoDB calls would be billed (whole items, every read of the request). */
  capacity: Capacity;
  rss?: { before: number; peak: number };
  differs?: string;
  pass: boolean;
}

/** One day loaded alone after the batch, counted: a piece of its open month, or the day completing (compacting) it. */
interface DayLoadCost {
  readonly kind: 'piece' | 'compaction';
  readonly file: string;
  readonly rows: number;
  readonly seconds: number;
  readonly capacity: Capacity;
  readonly summary: IngestSummary;
}

/** What a load did not load (failed or rejected files), with the first reason; empty when every file loaded. */
function notLoaded(s: IngestSummary): string {
  const lost = [...s.failed, ...s.rejected];
  return lost.length === 0 ? '' : `${lost.length} of ${s.files} (${lost[0]?.file}: ${lost[0]?.message})`;
}

interface SizeResult {
  size: BenchSize;
  lines: string[];
  results: QueryResult[];
  pass: boolean;
}

interface SizeOptions {
  /** Load a few files into a table of their own before the timed batch (warmIngest). */
  warmIngest: boolean;
  n: number;
  warmup: number;
  /** The first day every selected size's channel world holds. */
  commonStart: string;
  memory: boolean;
  log: (line: string) => void;
}

/**
 * Files of the first size's world loaded (untimed) before its timed batch, into a table of their own on the same
 * DynamoDB Local, dropped afterwards. A fresh DynamoDB Local compiles its write paths in its first seconds of load
 * (as ingest.ts found for its batch), and the groups section before this one writes only small items: the first
 * size's batch alone paid it (1k: 46,000 rows/s cold against 51,000-54,000 warm, bench/README.md). Two months, so a
 * whole month's writes and its blocks are among the paths warmed. Later sizes load after a batch already did.
 */
const WARM_FILES = 62;

async function warmIngest(files: readonly string[]): Promise<IngestSummary> {
  const endpoint = process.env.DYNAMODB_ENDPOINT as string;
  const tableName = `bench-warm-${Date.now()}`;
  await ensureTable(endpoint, tableName);
  const db = createDocumentClient(endpoint);
  try {
    return await ingestFiles(
      dynamoIngestStores({ db, tableName }),
      files.map((f) => localFile(f)),
    );
  } finally {
    await db.send(new DeleteTableCommand({ TableName: tableName }));
    db.destroy();
  }
}

/** One size: generate (untimed), ingest (timed), then every query against DuckDB over the same rows. */
async function benchSize(env: ReportsBenchEnvironment, size: BenchSize, o: SizeOptions): Promise<SizeResult> {
  const { log } = o;
  const world = channelLabel(size);
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-exports-'));
  // The content owner, in its own folder (the channel glob below must not see its files), generated by a child
  // process on the other core while this one generates the channel world.
  const coDir = mkdtempSync(path.join(tmpdir(), 'bench-co-exports-'));
  const coGeneration = generateContentOwner(coDir, size.key);
  coGeneration.done.catch(() => undefined); // awaited below; a failure before that must not go unhandled
  const duckDb = await DuckDBInstance.create(':memory:');
  const duck = await duckDb.connect();
  try {
    log(`${world}: generating channel_basic exports; the content owner (${coDir}) in a child process`);
    const width = 5;
    const generated = await writeExports(
      {
        channel: size.channel,
        videos: size.videos,
        days: size.days,
        start: size.start,
        seed: 7,
        videoPrefix: size.videoPrefix,
        videoWidth: width,
        version: 'a3',
        gzip: false,
      },
      dir,
    );
    const videos = Array.from(
      { length: size.videos },
      (_, i) => `${size.videoPrefix}${String(i + 1).padStart(width, '0')}`,
    );
    await loadDirectory(env.table, {
      users: [{ sub: size.sub, channels: [size.channel] }],
      channels: [{ id: size.channel, title: `Bench channel ${world}`, videos, playlists: [] }],
      contentOwners: [],
      accounts: [],
      properties: [],
    });
    const coExports = await coGeneration.done;
    log(
      `${world}: content owner generated: ${coExports.files} files, ${coExports.rows} rows + ${coExports.rates} rates in ${coExports.seconds.toFixed(1)} s`,
    );

    // Every day but the last two in one batch (timed); then each of those on its own through a counting client, as
    // daily loads arrive: the day before the last is a piece of its open month, the last completes the month and
    // compacts it (the cubes, the blocks). Their bills, and their own seconds; the worlds end with no open month.
    const files = listFiles(dir).sort();
    const lastDay = files.pop() as string;
    const dayBefore = files.pop() as string;
    if (o.warmIngest) {
      const warm = await warmIngest(files.slice(0, WARM_FILES));
      log(
        `${world}: warm-up (untimed, a table of its own, dropped): ${warm.rows} rows in ${warm.seconds.toFixed(1)} s`,
      );
    }
    log(`${world}: ingesting ${files.length} files (of ${generated.files}, ${generated.rows} rows)`);
    const summary = await ingestFiles(
      dynamoIngestStores(env.table),
      files.map((f) => localFile(f)),
    );
    const dayLoads: DayLoadCost[] = [];
    for (const [kind, file] of [
      ['piece', dayBefore],
      ['compaction', lastDay],
    ] as const) {
      const counted = countingClient(env.table.db);
      const load = await ingestFiles(dynamoIngestStores({ db: counted.db, tableName: env.table.tableName }), [
        localFile(file),
      ]);
      dayLoads.push({
        kind,
        file: path.basename(file),
        rows: load.rows,
        seconds: load.seconds,
        capacity: counted.capacity,
        summary: load,
      });
    }
    // The content owner's ingest, right after the channel's and timed on its own.
    const co = await prepareContentOwner(env.table, coDir, size.contentOwner, log);

    // A group of 200 videos, as groups.insert + groupItems.insert would store it.
    const groups = dynamoGroupRepository(env.table);
    const actor = `channel:${size.channel}`;
    const groupId = `benchgroup${size.key}${Date.now()}`;
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

    log(`${world}: loading the raw rows into DuckDB`);
    await duck.run(`CREATE TABLE facts AS SELECT
        strptime(date, '%Y%m%d')::DATE AS day, coalesce(video_id, '') AS video, country_code AS country,
        CASE WHEN subscribed_status = 'subscribed' THEN 'SUBSCRIBED' ELSE 'UNSUBSCRIBED' END AS sub,
        CASE WHEN live_or_on_demand = 'live' THEN 'LIVE' ELSE 'ON_DEMAND' END AS live,
        views::DOUBLE AS views, likes::DOUBLE AS likes, watch_time_minutes::DOUBLE AS minutes,
        average_view_duration_percentage::DOUBLE AS pct, subscribers_gained::DOUBLE AS subs_gained
      FROM read_csv('${dir}/*/*/*.csv', union_by_name = true, header = true, all_varchar = true, nullstr = '\\N')`);
    await loadContentOwnerRows(duck, coDir, size.contentOwner.id);
    // The raw rows are in DuckDB now: the files can go before the queries run.
    rmSync(dir, { recursive: true, force: true });
    rmSync(coDir, { recursive: true, force: true });

    const subs: Record<BenchCaller, { sub: string; scopes: string[] }> = {
      channel: { sub: size.sub, scopes: ['video-analytics.readonly'] },
      contentOwner: { sub: CONTENT_OWNER_SUB, scopes: CONTENT_OWNER_SCOPES },
    };
    const tokens: Record<BenchCaller, string> = {
      channel: await env.token(subs.channel.sub, subs.channel.scopes),
      contentOwner: await env.token(subs.contentOwner.sub, subs.contentOwner.scopes),
    };
    const pathOf = (q: BenchQuery, params = q.params) =>
      `/v2/reports?${new URLSearchParams({ ids: q.caller === 'channel' ? 'channel==MINE' : (q.ids as string), ...params })}`;
    // One keep-alive socket, no compression (loopback-client.ts); the body is parsed within the time, as DuckDB's
    // rows are read within its own.
    const client = loopbackClient(env.baseUrl);
    const call = async (q: BenchQuery, params = q.params) => {
      const t0 = performance.now();
      const res = await client.send('GET', pathOf(q, params), { token: tokens[q.caller] });
      const body = JSON.parse(res.text) as { rows?: unknown[][]; error?: { message: string } };
      if (res.status !== 200) throw new Error(`${q.name}: ${res.status} ${body.error?.message}`);
      return {
        ms: performance.now() - t0,
        items: Number(res.headers['x-items-read']),
        bytes: Number(res.headers['x-bytes-read']),
        rows: body.rows ?? [],
      };
    };

    const results: QueryResult[] = [];
    for (const q of [...queries(videos, groupId), ...co.queries]) {
      log(`${world}: ${q.name}`);
      const first = await call(q);
      // Both sides are measured warm: the server's and DynamoDB Local's JIT compile a query's paths after a few
      // dozen calls (the first calls of a query shape run up to twice as slow), DuckDB caches its plans.
      for (let i = 0; i < o.warmup; i++) await call(q);
      for (let i = 0; i <= o.warmup; i++) await duck.runAndReadAll(q.sql);
      // The report's own DynamoDB calls, recorded now that the service is warm (channel==MINE remembered), sent
      // again as the third side: the floor under the API's figure (reports-bare.ts).
      const asked = { ids: q.caller === 'channel' ? 'channel==MINE' : (q.ids as string), ...q.params };
      const bare = await recordBareReads(env.table, subs[q.caller], asked);
      for (let i = 0; i < o.warmup; i++) await bare.replay();
      // Measured runs alternate between the sides, so both see the same state of the host (a burst of load on a
      // shared machine lands on both instead of on whichever side ran then).
      const apiTimes: number[] = [];
      const duckTimes: number[] = [];
      const bareTimes: number[] = [];
      let duckRows: unknown[][] = [];
      for (let i = 0; i < o.n; i++) {
        apiTimes.push((await call(q)).ms);
        const t0 = performance.now();
        duckRows = (await duck.runAndReadAll(q.sql)).getRows();
        duckTimes.push(performance.now() - t0);
        const t1 = performance.now();
        await bare.replay();
        bareTimes.push(performance.now() - t1);
      }
      // Channel-level reads compared across sizes over the days every size holds (the 10k world has one year).
      let commonItems: number | undefined;
      if (isChannelLevel(q)) {
        const start = q.params.startDate as string;
        commonItems =
          start >= o.commonStart ? first.items : (await call(q, { ...q.params, startDate: o.commonStart })).items;
      }
      const capacity = await reportCapacity(env.table, subs[q.caller], asked);
      const rss = o.memory ? await peakMemory({ path: pathOf(q), ...subs[q.caller], runs: 3 }) : undefined;
      const api = median(apiTimes);
      const duckP50 = median(duckTimes);
      const differs = rowsDiffer(first.rows, duckRows);
      const pass =
        api <= DUCKDB_RATIO * duckP50 &&
        first.items <= q.bound &&
        differs === undefined &&
        (rss === undefined || rss.peak <= RSS_MB);
      results.push({
        query: q,
        items: first.items,
        bytes: first.bytes,
        api,
        duck: duckP50,
        bare: { p50: median(bareTimes), calls: bare.calls },
        ...(commonItems === undefined ? {} : { commonItems }),
        capacity,
        ...(rss ? { rss } : {}),
        ...(differs === undefined ? {} : { differs }),
        pass,
      });
    }
    client.close();

    const rate = (rows: number, seconds: number) => Math.round(rows / seconds);
    const channelRate = rate(summary.rows, summary.seconds);
    const coRate = rate(co.ingest.rows, co.ingest.seconds);
    // Every file must load: a world missing days answers differently from DuckDB's rows, and says why here.
    const lost = [summary, ...dayLoads.map((d) => d.summary), co.ingest].map(notLoaded).filter(Boolean).join('; ');
    const ingestPass = channelRate >= INGEST_ROWS_PER_SECOND && lost === '';
    const lines = [
      `channel world ${world}: ingest ${summary.loaded} files, ${summary.rows} rows in ${summary.seconds.toFixed(1)} s = ${channelRate} rows/s (target >= ${INGEST_ROWS_PER_SECOND}: ${ingestPass ? 'PASS' : 'FAIL'})`,
      `content owner ${contentOwnerLabel(size.contentOwner)} (+ third-party uploads; content_owner_basic_a4 + content_owner_estimated_revenue_a1 + exchange rates): ingest ${co.ingest.loaded} files, ${co.ingest.rows} rows in ${co.ingest.seconds.toFixed(1)} s = ${coRate} rows/s (not a target)`,
      ...(lost ? [`files not loaded (FAIL): ${lost}`] : []),
      '',
      formatTable(
        [
          'query',
          'items',
          'bytes',
          'bound',
          'API p50',
          'DuckDB p50',
          'ratio',
          'bare reads p50 (calls, ÷ DuckDB)',
          'peak RSS MB',
          'result',
        ],
        results.map((r) => [
          r.query.name,
          String(r.items),
          String(r.bytes),
          String(r.query.bound),
          r.api.toFixed(1),
          r.duck.toFixed(1),
          (r.api / r.duck).toFixed(2),
          `${r.bare.p50.toFixed(1)} (${r.bare.calls}, ${(r.bare.p50 / r.duck).toFixed(2)})`,
          r.rss ? `${r.rss.peak.toFixed(0)} (idle ${r.rss.before.toFixed(0)})` : '-',
          `${r.pass ? 'PASS' : 'FAIL'}${r.differs === undefined ? '' : ` (${r.differs})`}`,
        ]),
      ),
      '',
      `cost on DynamoDB on demand and Lambda (counted calls: whole items, every read of the request; GB-s: API p50 × ${REPORT_GB} GB)`,
      '',
      formatTable(
        ['query', 'calls', 'items', 'KB', 'RRU', 'GB-s'],
        [
          ...results.map((r) => [
            r.query.name,
            String(r.capacity.calls),
            String(r.capacity.itemsRead),
            (r.capacity.bytesRead / 1024).toFixed(1),
            String(r.capacity.rru),
            ((r.api / 1000) * REPORT_GB).toFixed(4),
          ]),
        ],
      ),
      '',
      ...dayLoads.map(
        (d) =>
          `ingest of one day, ${d.kind} (${d.file}, ${d.rows} rows; GB-s: its load's seconds × ${INGEST_GB} GB): ${d.capacity.calls} calls, ${d.capacity.itemsWritten} items written (${(d.capacity.bytesWritten / 1024).toFixed(0)} KB), ${d.capacity.wru} WRU, ${d.capacity.itemsRead} items read (${(d.capacity.bytesRead / 1024).toFixed(0)} KB), ${d.capacity.rru} RRU, ${(d.seconds * INGEST_GB).toFixed(3)} GB-s`,
      ),
    ];
    return { size, lines, results, pass: ingestPass && results.every((r) => r.pass) };
  } finally {
    coGeneration.stop();
    duck.closeSync();
    duckDb.closeSync();
    rmSync(dir, { recursive: true, force: true });
    rmSync(coDir, { recursive: true, force: true });
  }
}

/** Channel-level queries read the same items at every size: the check, one line per query. */
function sameItemsCheck(sizes: readonly SizeResult[]): { lines: string[]; pass: boolean } {
  const [base, ...others] = sizes;
  if (!base || others.length === 0) return { lines: [], pass: true };
  let pass = true;
  const rows = base.results
    .filter((r) => r.commonItems !== undefined)
    .map((r) => {
      const counts = sizes.map((s) => s.results.find((x) => x.query.name === r.query.name)?.commonItems);
      const same = counts.every((c) => c === counts[0]);
      pass &&= same;
      return [r.query.name, ...counts.map((c) => String(c)), same ? 'PASS' : 'FAIL'];
    });
  return {
    lines: [
      `channel-level queries (no video grain) read the same items at every size (over the days every world holds: a range starting earlier is read from ${sizes.at(-1)?.size.start} for this check)`,
      '',
      formatTable(['query', ...sizes.map((s) => `items at ${s.size.key}`), 'result'], rows),
    ],
    pass,
  };
}

export async function benchReports(
  env: ReportsBenchEnvironment,
  options: { log: (line: string) => void },
): Promise<{ text: string; pass: boolean }> {
  const sizes = selectedSizes();
  const o = {
    n: Number(process.env.BENCH_REPORT_N ?? 30),
    warmup: Number(process.env.BENCH_REPORT_WARMUP ?? 20),
    commonStart: sizes
      .map((s) => s.start)
      .sort()
      .at(-1) as string,
    log: options.log,
  };
  const results: SizeResult[] = [];
  // Sizes one after the other (each generation, ingest and DuckDB table released before the next); the peak RSS is
  // measured at the largest selected size.
  for (const size of sizes) {
    results.push(await benchSize(env, size, { ...o, memory: size === sizes.at(-1), warmIngest: size === sizes[0] }));
  }
  const check = sameItemsCheck(results);
  const text = [
    ...results.flatMap((r) => [
      `${channelLabel(r.size)} (content owner ${contentOwnerLabel(r.size.contentOwner)})`,
      '',
      ...r.lines,
      '',
    ]),
    ...check.lines,
  ].join('\n');
  return { text, pass: results.every((r) => r.pass) && check.pass };
}
