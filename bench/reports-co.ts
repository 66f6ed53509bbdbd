/**
 * The content-owner part of the reports benchmark: a generated content owner with several linked channels (and the
 * third-party channels of its claimed uploads), a year of content_owner_basic_a4 and content_owner_estimated_revenue_a1
 * exports and the exchange-rates file (reports-co-options.ts), ingested through the same ingestFiles as the channel
 * world (timed on its own), and four content-owner queries, each with its DuckDB statement over the raw CSV rows and
 * its item bound.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DuckDBConnection } from '@duckdb/node-api';
import { loadDirectory } from '../functions/core/directory/directory-loader';
import type { TableContext } from '../functions/core/directory/directory-repository';
import { localFile } from '../functions/core/reports/ingest/ingest-file';
import { dynamoIngestStores, type IngestSummary, ingestFiles } from '../functions/core/reports/ingest/ingest-service';
import { dynamoRateRepository } from '../functions/core/reports/storage/rate-repository';
import { type BenchQuery, between, channelLevelBound, type DateRange, topVideosBound } from './reports-shared';
import { type ContentOwnerSize, contentOwnerChannels } from './reports-sizes';

/** The manager of every size's content owner. */
export const CONTENT_OWNER_SUB = 'bench-co-manager';
export const CONTENT_OWNER_SCOPES = ['video-analytics.readonly', 'video-analytics-monetary.readonly'];
const YEAR: DateRange = ['2025-11-01', '2026-10-31'];
/** Every channel is linked before the data starts, so no link date cuts rows (and adds day/channel to the grain). */
const LINKED_SINCE = '2020-01-01';

/** What the generator child wrote: report files and rows, rate rows, and how long it took. */
export interface ContentOwnerExports {
  files: number;
  rows: number;
  rates: number;
  seconds: number;
}

export interface ContentOwnerBench {
  channels: string[];
  ingest: IngestSummary;
  queries: BenchQuery[];
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(path.join(dir, e.name)) : [path.join(dir, e.name)],
  );
}

/**
 * Starts writing the content owner's exports into `dir` (`<dir>/<owner>/<report type>/YYYYMMDD.csv` and
 * `<dir>/exchange_rates.csv`) in a child process, so it runs next to the channel world's generation (neither is
 * timed). `stop` ends the child if it is still running.
 */
export function generateContentOwner(
  dir: string,
  sizeKey: string,
): { done: Promise<ContentOwnerExports>; stop: () => void } {
  const script = fileURLToPath(new URL('./reports-co-generate.ts', import.meta.url));
  const child = spawn(process.execPath, [...process.execArgv, script, dir, sizeKey], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: process.env,
  });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    out += chunk;
  });
  const done = new Promise<ContentOwnerExports>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`content-owner generation exited with ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1) as string) as ContentOwnerExports);
    });
  });
  return {
    done,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill();
    },
  };
}

/**
 * Registers the content owner, its linked channels and a manager, and ingests its exports from `dir` (facts and
 * rates, timed by ingestFiles).
 */
export async function prepareContentOwner(
  table: TableContext,
  dir: string,
  size: ContentOwnerSize,
  log: (line: string) => void,
): Promise<ContentOwnerBench> {
  const channels = contentOwnerChannels(size);
  await loadDirectory(table, {
    users: [{ sub: CONTENT_OWNER_SUB, contentOwners: [size.id] }],
    channels: channels.map((id, i) => ({
      id,
      title: `Bench content owner channel ${i + 1}`,
      videos: [],
      playlists: [],
    })),
    contentOwners: [
      {
        id: size.id,
        displayName: `Bench content owner ${size.id}`,
        linkedChannels: channels.map((channelId) => ({ channelId, linkedSince: LINKED_SINCE })),
      },
    ],
    accounts: [],
    properties: [],
  });

  const files = listFiles(dir).map((f) => localFile(f));
  log(`ingesting the content owner: ${files.length} files`);
  const ingest = await ingestFiles(dynamoIngestStores(table), files, { rates: dynamoRateRepository(table) });
  if (ingest.rejected.length > 0) {
    throw new Error(`content-owner ingest rejected ${ingest.rejected.length} files: ${ingest.rejected[0]?.message}`);
  }
  return { channels, ingest, queries: contentOwnerQueries(size) };
}

/** The content owner's raw rows from `dir` into DuckDB tables co_basic, co_revenue and rates. */
export async function loadContentOwnerRows(duck: DuckDBConnection, dir: string, owner: string): Promise<void> {
  const csv = (type: string) =>
    `read_csv('${dir}/${owner}/${type}/*.csv', union_by_name = true, header = true, all_varchar = true, nullstr = '\\N')`;
  await duck.run(`CREATE TABLE co_basic AS SELECT
      strptime(date, '%Y%m%d')::DATE AS day, channel_id AS channel, coalesce(video_id, '') AS video,
      coalesce(claimed_status, '') AS claimed, uploader_type AS uploader, country_code AS country,
      views::DOUBLE AS views, watch_time_minutes::DOUBLE AS minutes
    FROM ${csv('content_owner_basic_a4')}`);
  await duck.run(`CREATE TABLE co_revenue AS SELECT
      strptime(date, '%Y%m%d')::DATE AS day, channel_id AS channel, coalesce(video_id, '') AS video,
      coalesce(claimed_status, '') AS claimed, uploader_type AS uploader, country_code AS country,
      estimated_partner_revenue::DOUBLE AS revenue, estimated_partner_ad_revenue::DOUBLE AS ad_revenue,
      estimated_youtube_ad_revenue::DOUBLE AS gross, ad_impressions::DOUBLE AS impressions
    FROM ${csv('content_owner_estimated_revenue_a1')}`);
  await duck.run(`CREATE TABLE rates AS SELECT
      strptime(date, '%Y%m%d')::DATE AS day, currency, units_per_usd::DOUBLE AS rate
    FROM read_csv('${dir}/exchange_rates.csv', header = true, all_varchar = true)`);
}

/**
 * `currency`'s rate for each row of `facts` (alias f): the latest rate on or before the row's day (ASOF), and the
 * first rate for days before any was loaded, as the service's rate repository does.
 */
const convertedFrom = (facts: string, currency: string) =>
  `${facts} f ASOF LEFT JOIN (SELECT day, rate FROM rates WHERE currency = '${currency}') r ON f.day >= r.day`;
const rateOf = (currency: string) =>
  `coalesce(r.rate, (SELECT rate FROM rates WHERE currency = '${currency}' ORDER BY day LIMIT 1))`;

/**
 * The content-owner queries, over a year of whole months (no edge days). Content-owner cubes keep `channel` in every
 * grain (variantsOf in cube.ts) and their slicing dimensions (claimedStatus, uploaderType, country, …) only in `g`,
 * `gd`, `vg`, `vb` and `f`, so the claimedStatus / uploaderType filter every content-owner query needs selects one of
 * those. A currency conversion needs each row's day, so its month parts read `gd` (or `d`) month items. Bounds, from
 * the design (docs/reports-storage.md): channel-level reads one item per month (two with a chunk below the item-size
 * limit) plus one per edge day; top videos one item per month plus one per edge day; a report answered from two
 * families (rows joined, never added) the sum of both reads.
 */
export function contentOwnerQueries(size: ContentOwnerSize): BenchQuery[] {
  const ids = `contentOwner==${size.id}`;
  // Its own uploads and the third-party uploads it claims (8% as many: export-world.ts THIRD_PARTY_SHARE), rounded up.
  const videos = Math.ceil(size.channels * size.videos * 1.1);
  const co = { caller: 'contentOwner' as const, ids };
  return [
    {
      // content_owner_basic `g` (channel + slices; no day, month comes from the period): channel level, ≤ 2 a month.
      name: 'CO 1-year monthly views by channel (self)',
      ...co,
      params: {
        startDate: YEAR[0],
        endDate: YEAR[1],
        dimensions: 'month,channel',
        metrics: 'views,estimatedMinutesWatched',
        filters: 'uploaderType==self',
      },
      sql: `SELECT strftime(day,'%Y-%m') m, channel, sum(views), round(sum(minutes)) FROM co_basic WHERE ${between(YEAR)} AND uploader = 'self' GROUP BY m, channel ORDER BY m, channel`,
      bound: channelLevelBound(YEAR),
    },
    {
      // content_owner_estimated_revenue, video grain (`vg`: claimedStatus is not in `v`): top videos, 1 a month.
      name: 'CO top 10 videos by revenue, 1 year (claimed)',
      ...co,
      params: {
        startDate: YEAR[0],
        endDate: YEAR[1],
        dimensions: 'video',
        metrics: 'estimatedRevenue,estimatedAdRevenue',
        filters: 'claimedStatus==claimed',
        sort: '-estimatedRevenue',
        maxResults: '10',
      },
      sql: `SELECT video, sum(revenue) r, sum(ad_revenue) FROM co_revenue WHERE ${between(YEAR)} AND claimed = 'claimed' AND video <> '' GROUP BY video ORDER BY r DESC NULLS LAST, video LIMIT 10`,
      bound: topVideosBound(YEAR, videos),
    },
    {
      // content_owner_estimated_revenue `gd` (day + slices; converted row by row with its day's rate): channel
      // level, ≤ 2 a month.
      name: 'CO 1-year daily revenue, cpm in EUR (claimed)',
      ...co,
      params: {
        startDate: YEAR[0],
        endDate: YEAR[1],
        dimensions: 'day',
        metrics: 'estimatedRevenue,cpm',
        filters: 'claimedStatus==claimed',
        currency: 'EUR',
        sort: 'day',
      },
      sql: `SELECT strftime(f.day,'%Y-%m-%d') d, sum(f.revenue * ${rateOf('EUR')}),
          CASE WHEN sum(f.impressions) = 0 THEN 0 ELSE sum(f.gross * ${rateOf('EUR')}) * 1000 / sum(f.impressions) END
        FROM ${convertedFrom('co_revenue', 'EUR')}
        WHERE ${between(YEAR, 'f.day')} AND f.claimed = 'claimed' GROUP BY d ORDER BY d`,
      bound: channelLevelBound(YEAR),
    },
    {
      // Two families joined on country: views from content_owner_basic `g` (no money, so no day), revenue from
      // content_owner_estimated_revenue `gd` (converted by day): channel level twice, ≤ 2 + 2 a month.
      name: 'CO 1-year by country, revenue in JPY (self)',
      ...co,
      params: {
        startDate: YEAR[0],
        endDate: YEAR[1],
        dimensions: 'country',
        metrics: 'views,estimatedRevenue',
        filters: 'uploaderType==self',
        currency: 'JPY',
        sort: '-estimatedRevenue',
      },
      sql: `WITH v AS (SELECT country, sum(views) AS n FROM co_basic WHERE ${between(YEAR)} AND uploader = 'self' GROUP BY country),
          m AS (SELECT f.country, sum(f.revenue * ${rateOf('JPY')}) AS revenue FROM ${convertedFrom('co_revenue', 'JPY')}
            WHERE ${between(YEAR, 'f.day')} AND f.uploader = 'self' GROUP BY f.country)
        SELECT coalesce(v.country, m.country) AS c, v.n, m.revenue FROM v FULL JOIN m ON v.country = m.country
        ORDER BY m.revenue DESC NULLS LAST, c`,
      bound: 2 * channelLevelBound(YEAR),
    },
  ];
}
