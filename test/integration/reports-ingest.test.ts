/**
 * Ingest of Reporting API `channel_basic` daily files into DynamoDB Local, checked through the report engine
 * (queryReport) and the stored items: re-loads are idempotent to the byte, a corrected file replaces its day
 * (reporting-api.md §1.2), a header-only file clears its day, a malformed file is rejected whole while the others
 * load, facts of channels nobody owns are stored but serve nobody, gzip loads, and the import CLI reports and exits
 * as documented. Every test uses fresh channels, so it depends on no other test.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import * as keys from '../../functions/core/db/keys';
import { loadDirectory } from '../../functions/core/directory/directory-loader';
import { dynamoDirectoryRepository, type TableContext } from '../../functions/core/directory/directory-repository';
import { DomainError } from '../../functions/core/errors';
import { dynamoGroupRepository } from '../../functions/core/groups/group-repository';
import { MEASURE_INDEX, MEASURES } from '../../functions/core/reports/catalog/metrics';
import { bytesFile } from '../../functions/core/reports/ingest/ingest-file';
import {
  compactMonths,
  dynamoIngestStores,
  type IngestFile,
  type IngestOptions,
  ingestFiles,
} from '../../functions/core/reports/ingest/ingest-service';
import { holdLease } from '../../functions/core/reports/ingest/lease-keeper';
import { parseReportRequest } from '../../functions/core/reports/query/report-request';
import { queryReport, type ReportDeps } from '../../functions/core/reports/query/report-service';
import { decodeCubeBlob, isCubeBlob } from '../../functions/core/reports/storage/cube-blob';
import { decodeCube, isCubeItem, rowsOf, type StoredCube } from '../../functions/core/reports/storage/cube-codec';
import { dynamoFactRepository, newReadStats } from '../../functions/core/reports/storage/fact-repository';
import { dynamoFactWriter } from '../../functions/core/reports/storage/fact-writer';
import { dynamoLeaseRepository } from '../../functions/core/reports/storage/lease-repository';
import { dynamoRateRepository } from '../../functions/core/reports/storage/rate-repository';
import { decodeBlob, decodeByDayMonth, decodeDayBlobs } from '../../functions/core/reports/storage/unit-codec';
import { Dicts, UnitCubeBuilder } from '../../functions/core/reports/storage/units';
import { queuedS3Event } from '../../functions/ingest/queued-s3-event';
import { createIngestHandler, type ObjectReader } from '../../functions/ingest/s3-ingest';
import { type DayExport, type GeneratorOptions, generateDays } from '../../infra/generator/export-generator';
import { useOwnTable } from '../support/own-table';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

// Its own table: storedItems Scans it, and the shared one fills with the other report tests' facts.
useOwnTable('reports-ingest');

function testTable(): TableContext {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  const tableName = process.env.TABLE_NAME;
  if (!endpoint || !tableName) throw new Error('DynamoDB Local is not running: use the integration project');
  return { db: createDocumentClient(endpoint), tableName };
}

const table = testTable();
const facts = dynamoFactRepository(table);
const writer = dynamoFactWriter(table);
const stores = dynamoIngestStores(table);
const deps: ReportDeps = {
  directory: dynamoDirectoryRepository(table),
  groups: dynamoGroupRepository(table),
  facts,
  rates: dynamoRateRepository(table),
};
const tmpDirs: string[] = [];

afterAll(async () => {
  for (const dir of tmpDirs) await rm(dir, { recursive: true, force: true });
  table.db.destroy();
});

// ---------------------------------------------------------------------------------------------------------------
// Channels, files and reports

const tag = () => `${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;

/** A fresh channel id, owned by a fresh user unless `owned` is false. */
async function freshChannel(owned = true): Promise<{ channel: string; sub: string }> {
  const t = tag();
  const channel = `UCtest${t}`;
  const sub = `ingest-user-${t}`;
  if (owned) {
    await loadDirectory(table, {
      users: [{ sub, channels: [channel] }],
      channels: [{ id: channel, title: `test ${t}`, videos: [], playlists: [] }],
      contentOwners: [],
      accounts: [],
      properties: [],
    });
  }
  return { channel, sub };
}

/** 20 videos over 45 days, from a partial March through April into a partial May. */
const BASE: Omit<GeneratorOptions, 'channel'> = {
  videos: 20,
  days: 45,
  start: '2026-03-20',
  seed: 20260320,
  videoPrefix: 'iv',
  videoWidth: 3,
  version: 'a3',
  gzip: false,
};

/**
 * Generated daily exports with `channel` in the channel_id column. The values are generated for one fixed source
 * channel (the generator seeds by channel), so every channel given the same options holds identical data.
 */
function exportsFor(channel: string, options: Partial<Omit<GeneratorOptions, 'channel'>> = {}): DayExport[] {
  return [...generateDays({ ...BASE, ...options, channel: 'UCingestsource' })].map((day) => withChannel(day, channel));
}

function withChannel(day: DayExport, channel: string): DayExport {
  const i = day.header.indexOf('channel_id');
  return { ...day, rows: day.rows.map((r) => r.map((cell, j) => (j === i ? channel : cell))) };
}

/** The day's rows with `column` changed by `fn` (number in, number out). */
function mapColumn(day: DayExport, column: string, fn: (v: number, row: number) => number): DayExport {
  const i = day.header.indexOf(column);
  if (i < 0) throw new Error(`no column ${column}`);
  return { ...day, rows: day.rows.map((r, n) => r.map((cell, j) => (j === i ? String(fn(Number(cell), n)) : cell))) };
}

const csvText = (day: DayExport) => `${[day.header, ...day.rows].map((r) => r.join(',')).join('\n')}\n`;

const fileName = (channel: string, date: string, suffix = '.csv') => `x/${channel}/channel_basic_a3/${date}${suffix}`;

function fileOf(channel: string, day: DayExport, options: { gzip?: boolean; text?: string } = {}): IngestFile {
  const text = options.text ?? csvText(day);
  const bytes = options.gzip ? gzipSync(Buffer.from(text)) : Buffer.from(text);
  return bytesFile(fileName(channel, day.date, options.gzip ? '.csv.gz' : '.csv'), bytes);
}

const isoDay = (yyyymmdd: string) => `${yyyymmdd.slice(0, 4)}-${yyyymmdd.slice(4, 6)}-${yyyymmdd.slice(6, 8)}`;

/** Sum of a CSV column over some days. */
function columnSum(days: readonly DayExport[], column: string): number {
  let total = 0;
  for (const day of days) {
    const i = day.header.indexOf(column);
    for (const r of day.rows) total += Number(r[i] || 0);
  }
  return total;
}

const FIXED_NOW = () => new Date('2026-06-01T00:00:00.000Z');

async function ingest(files: readonly IngestFile[], options: IngestOptions = {}) {
  const summary = await ingestFiles(stores, files, { now: FIXED_NOW, ...options });
  return summary;
}

async function ingestOk(files: readonly IngestFile[], options: IngestOptions = {}) {
  const summary = await ingest(files, options);
  expect(summary.rejected, JSON.stringify(summary.rejected)).toEqual([]);
  expect(summary.loaded).toBe(files.length);
  return summary;
}

async function report(channel: string, sub: string, params: Record<string, string>) {
  const req = parseReportRequest({ ids: `channel==${channel}`, ...params });
  return queryReport(deps, { sub, scopes: new Set(['video-analytics.readonly']) }, req, newReadStats());
}

/** A row of a report by its first cell (or the only row). */
async function rowsBy(channel: string, sub: string, params: Record<string, string>) {
  const table = await report(channel, sub, params);
  return new Map((table.rows ?? []).map((r) => [String(r[0]), r.slice(1)]));
}

const ALL_METRICS =
  'views,engagedViews,redViews,comments,likes,dislikes,shares,estimatedMinutesWatched,estimatedRedMinutesWatched,averageViewDuration,averageViewPercentage,subscribersGained,subscribersLost,videosAddedToPlaylists,cardClickRate';

/** Report queries of every supported shape over the data of BASE. */
const QUERIES: Record<string, string>[] = [
  { startDate: '2026-03-01', endDate: '2026-05-31', metrics: ALL_METRICS },
  { startDate: '2026-03-18', endDate: '2026-05-06', metrics: ALL_METRICS, dimensions: 'day', sort: 'day' },
  { startDate: '2026-03-01', endDate: '2026-05-31', metrics: ALL_METRICS, dimensions: 'month', sort: 'month' },
  {
    startDate: '2026-03-25',
    endDate: '2026-04-30',
    metrics: 'views,averageViewPercentage,subscribersGained',
    dimensions: 'country',
    sort: '-views',
  },
  {
    startDate: '2026-03-01',
    endDate: '2026-05-31',
    metrics: 'views,likes,estimatedMinutesWatched,averageViewPercentage',
    dimensions: 'video',
    sort: '-views',
    maxResults: '200',
  },
  // A top 3 (heads decide it, where cubes are headed: storage/heads.ts).
  {
    startDate: '2026-03-04',
    endDate: '2026-05-31',
    metrics: 'subscribersGained,views,likes',
    dimensions: 'video',
    sort: '-subscribersGained',
    maxResults: '3',
  },
  { startDate: '2026-03-20', endDate: '2026-04-12', metrics: 'views,shares,likes', dimensions: 'subscribedStatus,day' },
  {
    startDate: '2026-03-01',
    endDate: '2026-05-31',
    metrics: 'views,averageViewDuration,estimatedRedMinutesWatched',
    dimensions: 'liveOrOnDemand,month',
  },
  {
    startDate: '2026-03-22',
    endDate: '2026-05-02',
    metrics: 'views,averageViewPercentage,engagedViews',
    dimensions: 'day',
    filters: 'video==iv001,iv002,iv007',
  },
  {
    startDate: '2026-03-01',
    endDate: '2026-05-31',
    metrics: 'views,estimatedMinutesWatched',
    dimensions: 'video',
    filters: 'country==US',
    sort: '-estimatedMinutesWatched',
    maxResults: '10',
  },
  // A region's top 3 (its months' heads decide it, where they are headed).
  {
    startDate: '2026-03-01',
    endDate: '2026-05-31',
    metrics: 'views,likes',
    dimensions: 'video',
    filters: 'continent==019',
    sort: '-views',
    maxResults: '3',
  },
  {
    startDate: '2026-04-01',
    endDate: '2026-04-30',
    metrics: 'views,likes,averageViewPercentage',
    filters: 'continent==150',
  },
  {
    startDate: '2026-04-01',
    endDate: '2026-04-30',
    metrics: 'views,likes',
    dimensions: 'day',
    filters: 'video==iv003',
  },
];

/** Every query's answer, as the JSON text the API would send. */
async function answers(channel: string, sub: string): Promise<string[]> {
  return Promise.all(QUERIES.map(async (q) => JSON.stringify(await report(channel, sub, q))));
}

/** Every item of the test's table that `filter` keeps (a Scan: this table is the tests' own). */
async function scanItems(filter: string, values: Record<string, unknown>): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await table.db.send(
      new ScanCommand({
        TableName: table.tableName,
        FilterExpression: filter,
        ExpressionAttributeValues: values,
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    out.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return out;
}

/**
 * Every stored cube item of a channel, channel id masked, in key order, without what records how and when it was
 * written: the manifest version a cube carries (`mv`) and the generation tag of a cube stored in chunks (in its first
 * chunk's header and the other chunks' keys). Manifests (which record the loads themselves) are left out. Daily
 * variants' items are given as the days they hold (dailyDays), whether stored day by day or as a month item.
 */
async function storedItems(channel: string): Promise<string[]> {
  const out: string[] = [];
  const daily: Record<string, unknown>[] = [];
  const byDay: Record<string, unknown>[] = [];
  for (const item of await scanItems('begins_with(pk, :p)', { ':p': `FACT#CB#${channel}#` })) {
    if (String(item.pk).endsWith('#MANIFEST')) continue;
    if (DAILY_PK.test(String(item.pk))) {
      daily.push(item);
      continue;
    }
    if (BY_DAY_PK.test(String(item.pk))) {
      byDay.push(item);
      continue;
    }
    // How and when it was written: the manifest version (`mv`) and the month's compaction number (`pb`).
    const { mv: _version, pb: _compaction, ...rest } = item;
    const head =
      typeof rest.h === 'string' && rest.h.startsWith('{')
        ? (JSON.parse(rest.h) as Record<string, unknown>)
        : undefined;
    if (head?.x !== undefined) {
      delete head.x;
      rest.h = JSON.stringify(head);
    }
    rest.sk = String(rest.sk).replace(/#v\d+#/, '#');
    out.push(
      JSON.stringify(rest, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v))
        .split(channel)
        .join('<CH>'),
    );
  }
  for (const entry of dailyDays(daily)) out.push(entry.split(channel).join('<CH>'));
  for (const entry of byDayRows(byDay)) out.push(entry.split(channel).join('<CH>'));
  return out.sort();
}

/** A daily variant's storage group (vd, vb): its days are stored as day items or in a month item. */
const DAILY_PK = /#v[db]#g\d\d$/;

/**
 * The days of daily variants' items as what readers take (fact-repository.ts readDaily): per storage group, day and
 * bucket, the day's rows, from its day items where it has any (an empty one: no rows), else from the month item's
 * parts its first counts (a bucket's day blobs, or its month as a cube). So a month stored day by day and one loaded
 * whole compare equal when they hold the same. Month parts past the count (left by a crash, skipped by readers) stay
 * visible as items.
 */
function dailyDays(items: readonly Record<string, unknown>[]): string[] {
  const fields = (item: Record<string, unknown>) =>
    Object.entries(item).filter((e): e is [string, Uint8Array] => e[1] instanceof Uint8Array);
  const days = new Map<string, Map<string, string[]>>();
  const ofDay = (pk: string, day: string) => {
    const id = `${pk}|${day}`;
    let m = days.get(id);
    if (!m) {
      m = new Map();
      days.set(id, m);
    }
    return m;
  };
  const add = (m: Map<string, string[]>, field: string, rows: readonly string[]) =>
    m.set(field, [...(m.get(field) ?? []), ...rows]);
  const sorted = [...items].sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : 1));
  const isMonth = (i: Record<string, unknown>) => String(i.sk).length === 9 || String(i.sk)[9] === '#';
  const months = sorted.filter(isMonth);
  const dayItems = sorted.filter((i) => !isMonth(i));
  const out: string[] = [];
  for (const item of dayItems) {
    const [pk, sk] = [String(item.pk), String(item.sk)];
    const m = ofDay(pk, sk.slice(2, 12));
    for (const [field, blob] of fields(item)) add(m, field, blobRows(blob));
  }
  const byDay = new Set(days.keys());
  const counts = new Map(
    months.filter((i) => String(i.sk).length === 9).map((i) => [`${i.pk}|${String(i.sk)}`, Number(i.c)]),
  );
  for (const item of months) {
    const [pk, sk] = [String(item.pk), String(item.sk)];
    const month = sk.slice(2, 9);
    const part = sk.length === 9 ? 0 : Number(sk.slice(10));
    if (part >= (counts.get(`${pk}|D#${month}`) ?? 0)) {
      out.push(JSON.stringify({ stale: true, pk, sk, fields: fields(item).map(([f]) => f) }));
      continue;
    }
    for (const [field, container] of fields(item)) {
      const perDay = isCubeBlob(container)
        ? cubeRowsByDay(decodeCubeBlob(container))
        : new Map(decodeDayBlobs(container, month).map(({ day, bytes }) => [day, blobRows(bytes)]));
      for (const [day, rows] of perDay) if (!byDay.has(`${pk}|${day}`)) add(ofDay(pk, day), field, rows);
    }
  }
  for (const [id, m] of days) {
    const [pk, day] = id.split('|');
    for (const [field, rows] of m) out.push(JSON.stringify({ pk, sk: `D#${day}`, field, rows: rows.sort() }));
  }
  return out;
}

/** A row as compared: its keys (day left out) and its measures with a value, by MEASURES position. */
const rowText = (keys: readonly string[], sums: (m: number) => number | undefined) =>
  JSON.stringify([keys, MEASURES.flatMap((_, m) => (Number.isNaN(sums(m) ?? Number.NaN) ? [] : [[m, sums(m)]]))]);

/** A day blob's rows. */
function blobRows(bytes: Uint8Array): string[] {
  const { size, dims, measures } = decodeBlob(bytes);
  return Array.from({ length: size }, (_, i) =>
    rowText(
      dims.map((d) => (d as { values: string[]; codes: Uint32Array }).values[d?.codes[i] as number] as string),
      (m) => measures.get(m)?.[i],
    ),
  );
}

/** A cube's rows by day. */
function cubeRowsByDay(cube: StoredCube): Map<string, string[]> {
  const at = cube.grain.indexOf('day');
  const out = new Map<string, string[]>();
  for (const row of rowsOf(cube)) {
    const day = row.key[at] as string;
    const text = rowText(
      row.key.filter((_, d) => d !== at),
      (m) => row.sums[m] ?? undefined,
    );
    out.set(day, [...(out.get(day) ?? []), text]);
  }
  return out;
}

/** A by-day month variant (d, gd): its months are stored as a cube or as a blob a day. */
const BY_DAY_PK = /#g?d$/;

/**
 * The rows of by-day month variants' items as readers take them (fact-repository.ts readByDay): per month, its cube
 * when its month item holds one (blobs beside it are ignored), else its days' blobs. Per day, its rows (keys and
 * measures) in order, so a month stored as blobs and one stored as a cube compare equal when they hold the same.
 */
function byDayRows(items: readonly Record<string, unknown>[]): string[] {
  const months = new Map<string, Record<string, unknown>[]>();
  for (const item of items) {
    const id = `${item.pk}|${String(item.sk).slice(0, 9)}`;
    months.set(id, [...(months.get(id) ?? []), item]);
  }
  const out: string[] = [];
  for (const [id, list] of months) {
    const [pk, sk] = id.split('|') as [string, string];
    const grain = (JSON.parse(String(list[0]?.h)) as { g: string[] }).g;
    const cube = decodeByDayMonth(grain, sk.slice(2), list);
    if (!cube) continue;
    const rows = cubeRowsByDay(cube);
    for (const [day, list] of rows) out.push(JSON.stringify({ pk, day, rows: list.sort() }));
  }
  return out;
}

/** April 10 restated (5 more views a row) and April 11 emptied (a header-only file), a file a load: the final files. */
async function restateAprilTenthEmptyEleventh(channel: string, days: readonly DayExport[]): Promise<DayExport[]> {
  const finals = [...days];
  const at = (dd: string) => finals.findIndex((d) => d.date === `202604${dd}`);
  finals[at('10')] = mapColumn(finals[at('10')] as DayExport, 'views', (v) => v + 5);
  finals[at('11')] = { ...(finals[at('11')] as DayExport), rows: [] };
  await ingestOk([fileOf(channel, finals[at('10')] as DayExport)]);
  await ingestOk([fileOf(channel, finals[at('11')] as DayExport)]);
  return finals;
}

/** Views per day (YYYY-MM-DD) and per month from reports. */
const viewsByDay = (channel: string, sub: string, startDate = '2026-03-20', endDate = '2026-05-03') =>
  rowsBy(channel, sub, { startDate, endDate, metrics: 'views,likes', dimensions: 'day' });
const viewsByMonth = (channel: string, sub: string) =>
  rowsBy(channel, sub, { startDate: '2026-03-01', endDate: '2026-05-31', metrics: 'views,likes', dimensions: 'month' });

/** A day with data inside April (a whole month, served from month cubes) and one in the March edge. */
function pickDays(days: readonly DayExport[]) {
  const withRows = days.filter((d) => d.rows.length > 5);
  const april = withRows.find((d) => d.date >= '20260410' && d.date < '20260420');
  const march = withRows.find((d) => d.date >= '20260322' && d.date < '20260331');
  if (!april || !march) throw new Error('the generated data lacks the days this test needs');
  return { april, march };
}

// ---------------------------------------------------------------------------------------------------------------

describe('idempotent re-ingest', () => {
  it('loading the same files twice gives byte-identical answers and identical stored items', async () => {
    const { channel, sub } = await freshChannel();
    const days = exportsFor(channel);
    const files = days.map((d) => fileOf(channel, d));
    const first = await ingestOk(files);
    expect(first.rows).toBe(days.reduce((n, d) => n + d.rows.length, 0));
    expect(first.days).toBe(45);
    const answers1 = await answers(channel, sub);
    const items1 = await storedItems(channel);
    expect(items1.length).toBeGreaterThan(45);

    const second = await ingestOk(files);
    expect(second.rows).toBe(first.rows);
    expect(await answers(channel, sub)).toEqual(answers1);
    expect(await storedItems(channel)).toEqual(items1);

    // and the answers are right: views per day are the CSV sums
    const perDay = await viewsByDay(channel, sub);
    for (const day of days) {
      const expected = columnSum([day], 'views');
      const got = perDay.get(isoDay(day.date))?.[0];
      if (day.rows.length === 0) expect(got, day.date).toBeUndefined();
      else expect(got, day.date).toBe(expected);
    }
  });

  it('loading day by day, or in reverse order, stores the same as one batch (floats included)', async () => {
    const one = await freshChannel();
    const daily = await freshChannel();
    const reversed = await freshChannel();
    await ingestOk(exportsFor(one.channel).map((d) => fileOf(one.channel, d)));
    for (const d of exportsFor(daily.channel)) await ingestOk([fileOf(daily.channel, d)]);
    const back = exportsFor(reversed.channel).reverse();
    for (let i = 0; i < back.length; i += 7)
      await ingestOk(back.slice(i, i + 7).map((d) => fileOf(reversed.channel, d)));

    const expected = await answers(one.channel, one.sub);
    expect(await answers(daily.channel, daily.sub)).toEqual(expected);
    expect(await answers(reversed.channel, reversed.sub)).toEqual(expected);
    // Months loaded a few days at a time hold pieces (month-pieces.ts); folded, they are the batch's cubes exactly.
    expect(await compactMonths(stores, 'CB', daily.channel)).not.toEqual([]);
    for (const c of [one, reversed]) await compactMonths(stores, 'CB', c.channel);
    const cubes = (items: string[]) => items.filter((i) => !i.includes('MANIFEST'));
    const stored = cubes(await storedItems(one.channel));
    expect(cubes(await storedItems(daily.channel))).toEqual(stored);
    expect(cubes(await storedItems(reversed.channel))).toEqual(stored);
  });
});

describe('restatement: a corrected file replaces its day', () => {
  it('month totals change by exactly the difference; a country and a video the correction drops disappear', async () => {
    const { channel, sub } = await freshChannel();
    const days = exportsFor(channel);
    const { april } = pickDays(days);
    // the original April day also holds a country and a video found nowhere else
    const extraRow = (video: string, country: string, views: string) => {
      const cells: Record<string, string> = {
        date: april.date,
        channel_id: channel,
        video_id: video,
        live_or_on_demand: 'on_demand',
        subscribed_status: 'subscribed',
        country_code: country,
        views,
      };
      return april.header.map((c) => cells[c] ?? '1');
    };
    const original = { ...april, rows: [...april.rows, extraRow('ivextra', 'TV', '500')] };
    await ingestOk(days.map((d) => fileOf(channel, d === april ? original : d)));
    const before = await viewsByMonth(channel, sub);
    const beforeDays = await viewsByDay(channel, sub);
    const top = {
      startDate: '2026-04-01',
      endDate: '2026-04-30',
      metrics: 'views',
      dimensions: 'video',
      sort: '-views',
      maxResults: '50',
    };
    expect((await report(channel, sub, { ...top, filters: 'country==TV' })).rows).toEqual([['ivextra', 500]]);

    const corrected = mapColumn(
      mapColumn(april, 'views', (v, n) => v * 2 + n),
      'likes',
      (v) => v + 1,
    );
    const delta = columnSum([corrected], 'views') - columnSum([original], 'views');
    const likesDelta = columnSum([corrected], 'likes') - columnSum([original], 'likes');
    expect(delta).not.toBe(0);
    await ingestOk([fileOf(channel, corrected)]);

    const after = await viewsByMonth(channel, sub);
    expect(after.get('2026-04')?.[0]).toBe((before.get('2026-04')?.[0] as number) + delta);
    expect(after.get('2026-04')?.[1]).toBe((before.get('2026-04')?.[1] as number) + likesDelta);
    expect(after.get('2026-03')).toEqual(before.get('2026-03'));
    expect(after.get('2026-05')).toEqual(before.get('2026-05'));
    const afterDays = await viewsByDay(channel, sub);
    expect(afterDays.get(isoDay(april.date))?.[0]).toBe(columnSum([corrected], 'views'));
    for (const [day, values] of beforeDays)
      if (day !== isoDay(april.date)) expect(afterDays.get(day), day).toEqual(values);

    // what only the original had is gone from every cube
    expect((await report(channel, sub, { ...top, filters: 'country==TV' })).rows).toBeUndefined();
    const countries = await rowsBy(channel, sub, {
      startDate: '2026-04-01',
      endDate: '2026-04-30',
      metrics: 'views',
      dimensions: 'country',
    });
    expect(countries.has('TV')).toBe(false);
    const extra = await report(channel, sub, {
      startDate: '2026-04-01',
      endDate: '2026-04-30',
      metrics: 'views',
      filters: 'video==ivextra',
    });
    expect(extra.rows).toEqual([[0]]);
    const extraByDay = await report(channel, sub, {
      startDate: '2026-04-01',
      endDate: '2026-04-30',
      metrics: 'views',
      dimensions: 'day',
      filters: 'video==ivextra',
    });
    expect(extraByDay.rows).toBeUndefined();
  });

  it('originals then corrected files ≡ only the final files loaded into a fresh channel (exact answers)', async () => {
    const restated = await freshChannel();
    const fresh = await freshChannel();
    const { april, march } = pickDays(exportsFor(restated.channel));
    const correct = (day: DayExport) =>
      mapColumn(
        mapColumn(day, 'watch_time_minutes', (v, n) => v * 1.37 + n / 3),
        'views',
        (v) => v + 3,
      );
    const isCorrected = (d: DayExport) => d.date === april.date || d.date === march.date;

    // restated: every original, then the corrections alone (in a second and third batch)
    await ingestOk(exportsFor(restated.channel).map((d) => fileOf(restated.channel, d)));
    const originalAnswers = await answers(restated.channel, restated.sub);
    for (const d of exportsFor(restated.channel).filter(isCorrected))
      await ingestOk([fileOf(restated.channel, correct(d))]);
    // fresh: the final state in one load
    await ingestOk(exportsFor(fresh.channel).map((d) => fileOf(fresh.channel, isCorrected(d) ? correct(d) : d)));

    const final = await answers(fresh.channel, fresh.sub);
    expect(await answers(restated.channel, restated.sub)).toEqual(final);
    expect(final).not.toEqual(originalAnswers);
    const cubes = (items: string[]) => items.filter((i) => !i.includes('MANIFEST'));
    expect(cubes(await storedItems(restated.channel))).toEqual(cubes(await storedItems(fresh.channel)));
  });

  it('a single day: the original then the corrected file ≡ the corrected file alone', async () => {
    const a = await freshChannel();
    const b = await freshChannel();
    const { april } = pickDays(exportsFor(a.channel));
    const corrected = (channel: string) =>
      mapColumn(withChannel(april, channel), 'average_view_duration_percentage', (v) => v / 3 + 0.1);
    await ingestOk([fileOf(a.channel, withChannel(april, a.channel))]);
    await ingestOk([fileOf(a.channel, corrected(a.channel))]);
    await ingestOk([fileOf(b.channel, corrected(b.channel))]);
    expect(await answers(a.channel, a.sub)).toEqual(await answers(b.channel, b.sub));
  });

  it('the later of two files for one day in one batch wins (by name order), never their sum', async () => {
    const { channel, sub } = await freshChannel();
    const { april } = pickDays(exportsFor(channel));
    const doubled = mapColumn(april, 'views', (v) => v * 2);
    const files = [
      { ...fileOf(channel, doubled), name: `x/${channel}/channel_basic_a3/b/${april.date}.csv` },
      { ...fileOf(channel, april), name: `x/${channel}/channel_basic_a3/a/${april.date}.csv` },
    ];
    await ingestOk(files);
    const day = await viewsByDay(channel, sub, isoDay(april.date), isoDay(april.date));
    expect(day.get(isoDay(april.date))?.[0]).toBe(columnSum([doubled], 'views'));
  });

  it('a header-only file for a day clears that day', async () => {
    const { channel, sub } = await freshChannel();
    const days = exportsFor(channel);
    const { april, march } = pickDays(days);
    await ingestOk(days.map((d) => fileOf(channel, d)));
    const before = await viewsByMonth(channel, sub);
    const beforeDays = await viewsByDay(channel, sub);

    await ingestOk([fileOf(channel, { ...april, rows: [] }), fileOf(channel, { ...march, rows: [] })]);
    const after = await viewsByMonth(channel, sub);
    expect(after.get('2026-04')?.[0]).toBe((before.get('2026-04')?.[0] as number) - columnSum([april], 'views'));
    expect(after.get('2026-03')?.[0]).toBe((before.get('2026-03')?.[0] as number) - columnSum([march], 'views'));
    expect(after.get('2026-05')).toEqual(before.get('2026-05'));
    const afterDays = await viewsByDay(channel, sub);
    expect(afterDays.has(isoDay(april.date))).toBe(false);
    expect(afterDays.has(isoDay(march.date))).toBe(false);
    expect(afterDays.size).toBe(beforeDays.size - 2);
    const manifest = await writer.readManifest('CB', channel, '2026-04');
    expect(manifest?.days[isoDay(april.date)]?.rows).toBe(0);
  });
});

describe('per-file loads in any order, restated any number of times, equal the batch exactly', () => {
  /** A seeded generator (tests must reproduce their sequences). */
  const random = (seed: number) => {
    let state = seed;
    return () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state / 2147483648;
    };
  };

  /** Version k of a day: 0 the original; 1–3 corrections of different measures; 4 a correction dropping rows; 5 header-only. */
  function version(day: DayExport, k: number): DayExport {
    if (k === 0) return day;
    if (k === 5) return { ...day, rows: [] };
    if (k === 4) return mapColumn({ ...day, rows: day.rows.filter((_, n) => n % 3 !== 0) }, 'views', (v) => v + 1);
    const column = ['views', 'watch_time_minutes', 'average_view_duration_percentage'][k - 1] as string;
    return mapColumn(day, column, (v, n) => (column === 'views' ? v + k + (n % 5) : v * (1 + k / 7) + n / 9));
  }

  const cubes = (items: string[]) => items.filter((i) => !i.includes('MANIFEST'));

  // The third with heads of 3 rows (storage/heads.ts): the channel's by-video cubes are headed.
  for (const [seed, headRows] of [[13], [2026], [7, 3]] as const) {
    it(`random restatement sequence (seed ${seed}${headRows ? ', headed' : ''}): one file per load ≡ one batch of each day's last version`, async () => {
      // Headed: regional months too, from 8 rows.
      const options = headRows ? { heads: { rows: headRows, regionalFrom: 8 } } : {};
      const next = random(seed);
      const sequenced = await freshChannel();
      const batch = await freshChannel();
      const days = exportsFor(sequenced.channel);
      const last = new Map<number, number>();
      for (let step = 0; step < 40; step++) {
        const d = Math.floor(next() * days.length);
        // Mostly a day's first load or a correction; sometimes the original again, or an empty restatement.
        const k = last.has(d) ? Math.floor(next() * 6) : next() < 0.8 ? 0 : Math.floor(next() * 6);
        await ingestOk([fileOf(sequenced.channel, version(days[d] as DayExport, k))], options);
        last.set(d, k);
      }
      expect(new Set(last.values()).size).toBeGreaterThan(2); // the sequence restated with several versions
      const finals = [...last].map(([d, k]) => version(withChannel(days[d] as DayExport, batch.channel), k));
      await ingestOk(
        finals.map((day) => fileOf(batch.channel, day)),
        options,
      );
      expect(await answers(sequenced.channel, sequenced.sub)).toEqual(await answers(batch.channel, batch.sub));
      for (const c of [sequenced, batch]) await compactMonths(stores, 'CB', c.channel, options);
      expect(await answers(sequenced.channel, sequenced.sub)).toEqual(await answers(batch.channel, batch.sub));
      expect(cubes(await storedItems(sequenced.channel))).toEqual(cubes(await storedItems(batch.channel)));
    });
  }

  it('a country first seen in an open day after a compaction: its regional reports add the day (marks) ≡ the batch', async () => {
    const pieced = await freshChannel();
    const batch = await freshChannel();
    const withExtra = (channel: string) => {
      const days = exportsFor(channel).filter((d) => d.date >= '20260401' && d.date <= '20260417');
      const last = days[days.length - 1] as DayExport;
      // Tuvalu (sub-continent 061, Oceania 009): in no generated row.
      const cells: Record<string, string> = {
        date: last.date,
        channel_id: channel,
        video_id: 'ivextra',
        live_or_on_demand: 'on_demand',
        subscribed_status: 'subscribed',
        country_code: 'TV',
        views: '500',
      };
      const row = last.header.map((c) => cells[c] ?? '1');
      expect(days.flatMap((d) => d.rows).some((r) => r.includes('TV'))).toBe(false);
      return [...days.slice(0, -1), { ...last, rows: [...last.rows, row] }];
    };
    const days = withExtra(pieced.channel);
    await ingestOk(days.slice(0, 16).map((d) => fileOf(pieced.channel, d))); // compacted: 16 days at once
    await ingestOk([fileOf(pieced.channel, days[16] as DayExport)]); // a piece; Tuvalu's partitions have no cube
    await ingestOk(withExtra(batch.channel).map((d) => fileOf(batch.channel, d)));
    const top = { startDate: '2026-04-01', endDate: '2026-04-30', metrics: 'views,likes', dimensions: 'video' };
    const regional = [
      { ...top, filters: 'country==TV', sort: '-views', maxResults: '5' },
      { ...top, filters: 'subContinent==061', sort: '-views', maxResults: '5' },
      { ...top, filters: 'continent==009', sort: '-views', maxResults: '5' },
      { ...top, filters: 'country==US', sort: '-views', maxResults: '5' },
    ];
    const read = (c: { channel: string; sub: string }) =>
      Promise.all(regional.map(async (q) => JSON.stringify(await report(c.channel, c.sub, q))));
    expect((await report(pieced.channel, pieced.sub, regional[0] as Record<string, string>)).rows).toEqual([
      ['ivextra', 500, 1],
    ]);
    expect(await read(pieced)).toEqual(await read(batch));
    await compactMonths(stores, 'CB', pieced.channel);
    expect(await read(pieced)).toEqual(await read(batch));
    const cubes = (items: string[]) => items.filter((i) => !i.includes('MANIFEST'));
    expect(cubes(await storedItems(pieced.channel))).toEqual(cubes(await storedItems(batch.channel)));
  });

  it('concurrent single-file events through the cloud handler (originals and newer restatements, any order) ≡ the batch', async () => {
    const concurrent = await freshChannel();
    const batch = await freshChannel();
    const days = exportsFor(concurrent.channel);
    const restated = new Set(days.filter((_, i) => i % 6 === 2).map((d) => d.date));
    // The bucket: each original, and for some days a correction with a newer createTime (Google's restatement).
    const objects = new Map<string, { bytes: Buffer; createTime: string }>();
    for (const day of days) {
      const text = csvText(day);
      objects.set(fileName(concurrent.channel, day.date), {
        bytes: Buffer.from(text),
        createTime: '2026-06-01T10:00:00.000000Z',
      });
      if (restated.has(day.date)) {
        objects.set(fileName(concurrent.channel, `${day.date}.r2`), {
          bytes: Buffer.from(csvText(version(day, 2))),
          createTime: '2026-06-03T10:00:00.123456Z',
        });
      }
    }
    const reader: ObjectReader = {
      async get(_bucket, key) {
        const o = objects.get(key) as { bytes: Buffer; createTime: string };
        return {
          body: await bytesFile(key, o.bytes).open(),
          metadata: { 'create-time': o.createTime, 'report-id': `r-${key}` },
        };
      },
    };
    const handler = createIngestHandler({ stores, rates: deps.rates, objects: reader, leaseWaitMs: 120_000 });
    // Shuffled (seeded): a restatement often lands before the original it replaces, months interleave.
    const shuffle = random(7);
    const keys = [...objects.keys()]
      .map((key) => ({ key, at: shuffle() }))
      .sort((a, b) => a.at - b.at)
      .map((k) => k.key);
    const queue = [...keys];
    let retried = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
          // SQS hands a failed message out again; a test retries at once.
          for (;;) {
            const reply = (await handler(queuedS3Event(key))) as { batchItemFailures: unknown[] };
            if (reply.batchItemFailures.length === 0) break;
            retried++;
          }
        }
      }),
    );
    expect(retried).toBeLessThan(keys.length * 3);
    const finals = days.map((d) => withChannel(restated.has(d.date) ? version(d, 2) : d, batch.channel));
    await ingestOk(finals.map((day) => fileOf(batch.channel, day)));
    expect(await answers(concurrent.channel, concurrent.sub)).toEqual(await answers(batch.channel, batch.sub));
    for (const c of [concurrent, batch]) await compactMonths(stores, 'CB', c.channel);
    expect(cubes(await storedItems(concurrent.channel))).toEqual(cubes(await storedItems(batch.channel)));
  });
});

describe('daily variants (vd, vb): a month loaded whole is one item per storage group', () => {
  /** The channel's April items of `vd` and `vb` (every storage group), whole. */
  const aprilItems = (channel: string) =>
    scanItems('(begins_with(pk, :vd) OR begins_with(pk, :vb)) AND begins_with(sk, :s)', {
      ':vd': `FACT#CB#${channel}#vd#g`,
      ':vb': `FACT#CB#${channel}#vb#g`,
      ':s': 'D#2026-04',
    });
  /** An item's sort key and how many buckets it holds. */
  const shape = (item: Record<string, unknown>) => ({
    sk: String(item.sk),
    fields: Object.keys(item).filter((k) => /^b\d{3}$/.test(k)).length,
  });
  const isMonthItem = (sk: string) => sk === 'D#2026-04' || sk.startsWith('D#2026-04#');
  /** iv003's views per April day, from the files. */
  const iv003Views = (days: readonly DayExport[]) =>
    new Map(
      days
        .filter((d) => d.date.startsWith('202604'))
        .map((d) => ({ ...d, rows: d.rows.filter((r) => r.includes('iv003')) }))
        .filter((d) => d.rows.length > 0)
        .map((d): [string, number] => [isoDay(d.date), columnSum([d], 'views')]),
    );
  const reportedIv003 = async (channel: string, sub: string) =>
    new Map(
      [
        ...(await rowsBy(channel, sub, {
          startDate: '2026-04-01',
          endDate: '2026-04-30',
          metrics: 'views',
          dimensions: 'day',
          filters: 'video==iv003',
        })),
      ].map(([day, [views]]) => [day, views]),
    );

  it('a batch writes month items; days loaded after it override their days (an emptied day too); the month again is whole', async () => {
    const { channel, sub } = await freshChannel();
    const days = exportsFor(channel);
    await ingestOk(days.map((d) => fileOf(channel, d)));
    const batch = (await aprilItems(channel)).map(shape);
    expect(batch.length).toBeGreaterThan(0);
    expect(batch.filter((i) => !isMonthItem(i.sk))).toEqual([]);
    // A vd bucket's month is one cube (storage/cube-blob.ts); vb keeps its days' blobs.
    const forms = (await aprilItems(channel)).flatMap((item) =>
      Object.entries(item)
        .filter(([k]) => /^b\d{3}$/.test(k))
        .map(([, v]) => `${String(item.pk).includes('#vd#') ? 'vd' : 'vb'} ${isCubeBlob(v as Uint8Array)}`),
    );
    expect(new Set(forms)).toEqual(new Set(['vd true', 'vb false']));
    expect(await reportedIv003(channel, sub)).toEqual(iv003Views(days));
    // A part past the count the first one names (a crash's leftover) is skipped: here a copy of each first part.
    const copies = (await aprilItems(channel)).map(
      (item): Record<string, unknown> => ({ ...item, sk: 'D#2026-04#001' }),
    );
    expect(copies.every((item) => item.c === 1)).toBe(true);
    await writer.putItems(copies, () => undefined);
    expect(await reportedIv003(channel, sub)).toEqual(iv003Views(days));
    await writer.deleteKeys(
      copies.map(({ pk, sk }) => ({ pk: String(pk), sk: String(sk) })),
      () => undefined,
    );

    // Day 10 restated, day 11 emptied (a header-only file): day items, which readers take over the month item's days.
    const finals = await restateAprilTenthEmptyEleventh(channel, days);
    const after = (await aprilItems(channel)).map(shape);
    const groups = batch.filter((i) => i.sk === 'D#2026-04').length;
    expect(after.filter((i) => i.sk === 'D#2026-04-10').length).toBeGreaterThan(0);
    // Every group with a month item gets an empty item for day 11, so its day 11 in the month item is not read.
    expect(after.filter((i) => i.sk === 'D#2026-04-11')).toEqual(
      Array.from({ length: groups }, () => ({ sk: 'D#2026-04-11', fields: 0 })),
    );
    expect(await reportedIv003(channel, sub)).toEqual(iv003Views(finals));

    // The same as the final files in one batch, answers and stored days alike.
    const fresh = await freshChannel();
    await ingestOk(finals.map((d) => fileOf(fresh.channel, withChannel(d, fresh.channel))));
    expect(await answers(channel, sub)).toEqual(await answers(fresh.channel, fresh.sub));
    const cubes = (items: string[]) => items.filter((i) => !i.includes('#M#') && !i.includes('MANIFEST'));
    await compactMonths(stores, 'CB', channel);
    await compactMonths(stores, 'CB', fresh.channel);
    expect(cubes(await storedItems(channel))).toEqual(cubes(await storedItems(fresh.channel)));

    // April whole again: its day items go, the month item holds every day.
    await ingestOk(finals.filter((d) => d.date.startsWith('202604')).map((d) => fileOf(channel, d)));
    const again = (await aprilItems(channel)).map(shape);
    expect(again.filter((i) => !isMonthItem(i.sk))).toEqual([]);
    expect(await reportedIv003(channel, sub)).toEqual(iv003Views(finals));
    expect(await answers(channel, sub)).toEqual(await answers(fresh.channel, fresh.sub));
  });
});

describe('by-day month variants (d, gd): a month loaded whole is one cube', () => {
  /** April's items of a by-day variant of a channel: each one's sort key, whether it is a cube, its day attributes. */
  const aprilByDay = async (channel: string, variant: string) =>
    (
      await scanItems('pk = :pk AND begins_with(sk, :s)', {
        ':pk': keys.factPartition('CB', channel, variant),
        ':s': 'M#2026-04',
      })
    ).map((item) => ({
      sk: String(item.sk),
      cube: isCubeItem(item),
      days: Object.keys(item).filter((k) => /^s\d\d$/.test(k)).length,
      item,
    }));
  /** A cube item's views per day (yyyy-mm-dd), from its columns. */
  const cubeViews = (item: Record<string, unknown>) => {
    const cube = decodeCube(item);
    const out = new Map<string, number>();
    for (const row of rowsOf(cube)) {
      const day = row.key[cube.grain.indexOf('day')] as string;
      out.set(day, (out.get(day) ?? 0) + (row.sums[MEASURE_INDEX.views] as number));
    }
    return out;
  };
  /** April's views per day from its one item of a by-day variant, which must be a cube. */
  const aprilCubeViews = async (channel: string, variant: string) => {
    const items = await aprilByDay(channel, variant);
    const shapes = items.map(({ sk, cube, days }) => ({ sk, cube, days }));
    expect(shapes, variant).toEqual([{ sk: 'M#2026-04', cube: true, days: 0 }]);
    return cubeViews(items[0]?.item as Record<string, unknown>);
  };
  const april = (days: readonly DayExport[]) => days.filter((d) => d.date.startsWith('202604'));
  const csvViews = (days: readonly DayExport[]) =>
    new Map(
      april(days)
        .filter((d) => d.rows.length > 0)
        .map((d) => [`${d.date.slice(0, 4)}-${d.date.slice(4, 6)}-${d.date.slice(6)}`, columnSum([d], 'views')]),
    );

  it('a batch stores April as one cube item each; a restated and an emptied day rewrite the cube; ≡ the batch of the final files', async () => {
    const { channel, sub } = await freshChannel();
    const days = exportsFor(channel);
    await ingestOk(days.map((d) => fileOf(channel, d)));
    for (const variant of ['d', 'gd']) expect(await aprilCubeViews(channel, variant)).toEqual(csvViews(days));

    // Day 10 restated, day 11 emptied (a header-only file), one file a load: each rewrites the cube, still one item.
    const finals = await restateAprilTenthEmptyEleventh(channel, days);
    for (const variant of ['d', 'gd']) {
      const views = await aprilCubeViews(channel, variant);
      expect(views.has('2026-04-11')).toBe(false);
      expect(views).toEqual(csvViews(finals));
    }
    const perDay = await viewsByDay(channel, sub, '2026-04-01', '2026-04-30');
    const tenth = finals.find((d) => d.date === '20260410') as DayExport;
    expect(perDay.get('2026-04-10')?.[0]).toBe(columnSum([tenth], 'views'));
    expect(perDay.get('2026-04-11')).toBeUndefined();

    // The same as the final files in one batch: answers and stored rows.
    const fresh = await freshChannel();
    await ingestOk(finals.map((d) => fileOf(fresh.channel, withChannel(d, fresh.channel))));
    expect(await answers(channel, sub)).toEqual(await answers(fresh.channel, fresh.sub));
    for (const c of [channel, fresh.channel]) await compactMonths(stores, 'CB', c);
    const cubes = (items: string[]) => items.filter((i) => !i.includes('MANIFEST'));
    expect(cubes(await storedItems(channel))).toEqual(cubes(await storedItems(fresh.channel)));
  });

  it('a month of blobs (loaded a day at a time) becomes one cube when loaded whole; blobs left beside a cube are not read', async () => {
    const { channel, sub } = await freshChannel();
    const days = exportsFor(channel);
    // April but its last day a day at a time (the last would complete the month: a cube), every view 7 more than
    // the files loaded whole next.
    const bumped = april(days).map((d) => mapColumn(d, 'views', (v) => v + 7));
    for (const d of bumped.slice(0, -1)) await ingestOk([fileOf(channel, d)]);
    const blobs = new Map<string, Record<string, unknown>>();
    for (const variant of ['d', 'gd']) {
      const items = await aprilByDay(channel, variant);
      expect(items.length).toBeGreaterThan(0);
      expect(items.every((i) => !i.cube && i.days > 0)).toBe(true);
      blobs.set(variant, items[0]?.item as Record<string, unknown>);
    }

    await ingestOk(april(days).map((d) => fileOf(channel, d)));
    for (const variant of ['d', 'gd']) expect(await aprilCubeViews(channel, variant)).toEqual(csvViews(days));
    const reported = async () =>
      new Map([...(await viewsByDay(channel, sub, '2026-04-01', '2026-04-30'))].map(([day, row]) => [day, row[0]]));
    expect(await reported()).toEqual(csvViews(days));

    // Blob items a crash left beside the cubes (the 7-more days, written before the blobs were cleared): not read.
    await writer.putItems(
      [...blobs.values()].map((item) => ({ ...item, sk: 'M#2026-04#001' })),
      () => undefined,
    );
    expect(await reported()).toEqual(csvViews(days));
  });
});

describe('blocks of months', () => {
  /** Views per video over some days, from the CSV. */
  const viewsPerVideo = (days: readonly DayExport[]) => {
    const out = new Map<string, number>();
    for (const day of days) {
      const [v, n] = [day.header.indexOf('video_id'), day.header.indexOf('views')];
      for (const r of day.rows) if (r[v]) out.set(r[v] as string, (out.get(r[v] as string) ?? 0) + Number(r[n] || 0));
    }
    return out;
  };
  const topVideos = async (channel: string, sub: string) => {
    const stats = newReadStats();
    const req = parseReportRequest({
      ids: `channel==${channel}`,
      startDate: '2026-01-01',
      endDate: '2026-04-30',
      metrics: 'views',
      dimensions: 'video',
      sort: '-views',
      maxResults: '200',
    });
    const table = await queryReport(deps, { sub, scopes: new Set(['video-analytics.readonly']) }, req, stats);
    return { views: new Map((table.rows ?? []).map((r) => [String(r[0]), r[1]])), stats };
  };

  it('a cube in chunks is read whole by Query and by key; rewritten smaller, readers see only the new one', async () => {
    const address = { family: 'CB', channel: `UCblock${tag()}`, variant: 'v', period: 'B2#2026-01' };
    const pk = `FACT#CB#${address.channel}#v`;
    const dicts = new Dicts();
    const measures = [...Array(20).keys()];
    // Random decimals do not compress: a hundred-odd bytes a row, several chunks.
    const big = new UnitCubeBuilder(['video'], dicts, measures);
    for (let i = 0; i < 3000; i++) {
      const r = big.add([`vid${String(i).padStart(4, '0')}`]);
      measures.forEach((_, m) => {
        big.addUnits(r, m, Math.floor(Math.random() * 1e12));
      });
    }
    const write = async (cube: ReturnType<UnitCubeBuilder['build']>, gen: string) => {
      const w = writer.cubeWriter(pk, address.period, ['video'], dicts, measures, gen, () => undefined);
      await w.append(cube);
      const done = await w.finish();
      await writer.putItems([done.item], () => undefined);
      return done.chunks;
    };
    expect(await write(big.build(), 'g1')).toBeGreaterThan(1);
    const stats = newReadStats();
    const stored = await facts.read(address, address.period, address.period, stats);
    expect(stored[0]?.cube.size).toBe(3000);
    expect(stats.items).toBeGreaterThan(1);
    // By key: the first chunk says how many follow, and of which generation; a period not stored is absent.
    const byKey = newReadStats();
    const keyed = await facts.readPeriods(address, [address.period, 'B2#2099-01'], byKey);
    expect([...keyed.keys()]).toEqual([address.period]);
    expect(keyed.get(address.period)?.size).toBe(3000);
    expect(keyed.get(address.period)?.measures[3]).toEqual(stored[0]?.cube.measures[3]);
    expect(byKey).toMatchObject({ queries: 2, items: stats.items });
    const small = new UnitCubeBuilder(['video'], dicts, measures);
    small.addUnits(small.add(['only']), 0, 1e6);
    expect(await write(small.build(), 'g2')).toBe(1);
    // The old generation's chunks are still there until removed, and no reader counts them.
    const back = await facts.read(address, address.period, address.period, newReadStats());
    expect(back[0]?.cube.size).toBe(1);
    expect((await facts.readPeriods(address, [address.period], newReadStats())).get(address.period)?.size).toBe(1);
    const stale = await writer.staleChunks(pk, address.period, undefined);
    expect(stale.length).toBeGreaterThan(0);
    await writer.deleteKeys(stale, () => undefined);
    const after = newReadStats();
    await facts.read(address, address.period, address.period, after);
    expect(after.items).toBe(1);
  });

  it('top videos over four whole months read one block, and the block follows a corrected day', async () => {
    const { channel, sub } = await freshChannel();
    const days = exportsFor(channel, { start: '2026-01-01', days: 120 });
    expect(days[days.length - 1]?.date).toBe('20260430');
    await ingestOk(days.map((d) => fileOf(channel, d)));
    const first = await topVideos(channel, sub);
    expect(first.stats.items).toBe(1); // B4#2026-01
    expect(first.views).toEqual(viewsPerVideo(days));

    // A corrected February day, loaded alone: its month and every block holding it are rewritten.
    const february = days.find((d) => d.date === '20260210') as DayExport;
    const corrected = mapColumn(february, 'views', (v, n) => v * 3 + n);
    await ingestOk([fileOf(channel, corrected)]);
    const after = await topVideos(channel, sub);
    expect(after.views).toEqual(viewsPerVideo(days.map((d) => (d === february ? corrected : d))));
    expect(after.views).not.toEqual(first.views);
  });
  it('a block missing though its months are stored (an earlier release) is rebuilt from them by the next load', async () => {
    const legacy = await freshChannel();
    const batch = await freshChannel();
    const days = (channel: string) => exportsFor(channel, { start: '2026-01-01', days: 120 });
    await ingestOk(days(batch.channel).map((d) => fileOf(batch.channel, d)));
    const [before, april] = [days(legacy.channel).slice(0, 119), days(legacy.channel)[119] as DayExport];
    await ingestOk(before.map((d) => fileOf(legacy.channel, d)));
    // Blocks as an earlier release left them: none.
    const blocks: { pk: string; sk: string }[] = [];
    for (const variant of ['v', 'g']) {
      const pk = `FACT#CB#${legacy.channel}#${variant}`;
      for (const item of await writer.queryItems(pk, 'B', 'B~', 'pk, sk'))
        blocks.push({ pk: String(item.pk), sk: String(item.sk) });
    }
    expect(blocks.map((b) => b.sk)).toContain('B2#2026-01');
    await writer.deleteKeys(blocks, () => undefined);
    // The last April day: B4#2026-01 needs B2#2026-01, which is not stored, so it is made from January and February.
    await ingestOk([fileOf(legacy.channel, april)]);
    // Every block holding April is as a batch writes it; January's 2-month block, not due, stays unwritten.
    const cubes = (items: string[]) => items.filter((i) => !i.includes('MANIFEST'));
    const notJanuary = (items: string[]) => items.filter((i) => !i.includes('"sk":"B2#2026-01"'));
    expect((await topVideos(legacy.channel, legacy.sub)).views).toEqual(
      (await topVideos(batch.channel, batch.sub)).views,
    );
    // The day completed April, so its load compacted the month (month-load.ts): nothing left open; every item is the
    // batch's.
    expect(await compactMonths(stores, 'CB', legacy.channel)).toEqual([]);
    await compactMonths(stores, 'CB', batch.channel);
    const stored = cubes(await storedItems(legacy.channel));
    expect(stored).toEqual(notJanuary(stored));
    expect(stored).toEqual(notJanuary(cubes(await storedItems(batch.channel))));
    expect((await topVideos(legacy.channel, legacy.sub)).views).toEqual(
      (await topVideos(batch.channel, batch.sub)).views,
    );
  });
});

describe('rejections', () => {
  it('a malformed file in a batch is rejected with file/line/column and nothing of it is stored; the others load', async () => {
    const { channel, sub } = await freshChannel();
    const days = exportsFor(channel);
    const { april, march } = pickDays(days);
    await ingestOk(days.map((d) => fileOf(channel, d)));
    const beforeDays = await viewsByDay(channel, sub);
    const beforeMonths = await viewsByMonth(channel, sub);

    // a restatement of the April day with new numbers on every line and one bad cell on line 5
    const likes = april.header.indexOf('likes');
    const restated = mapColumn(april, 'views', (v) => v + 1000);
    const broken = {
      ...restated,
      rows: restated.rows.map((r, n) => (n === 3 ? r.map((c, j) => (j === likes ? '7x' : c)) : r)),
    };
    const goodDays = days.filter((d) => d.date > '20260420' && d.date < '20260425' && d.rows.length > 0).slice(0, 2);
    expect(goodDays.length).toBe(2);
    const bumped = goodDays.map((d) => mapColumn(d, 'views', (v) => v + 5));
    const brokenFile = fileOf(channel, broken);
    const summary = await ingest([
      fileOf(channel, bumped[0] as DayExport),
      brokenFile,
      fileOf(channel, bumped[1] as DayExport),
    ]);

    expect(summary.files).toBe(3);
    expect(summary.loaded).toBe(2);
    expect(summary.rejected).toHaveLength(1);
    const [rejected] = summary.rejected;
    expect(rejected?.file).toBe(brokenFile.name);
    expect(rejected?.message).toContain(brokenFile.name);
    expect(rejected?.message).toContain('line 5');
    expect(rejected?.message).toContain('column likes');

    const afterDays = await viewsByDay(channel, sub);
    expect(afterDays.get(isoDay(april.date))).toEqual(beforeDays.get(isoDay(april.date)));
    expect(afterDays.get(isoDay(march.date))).toEqual(beforeDays.get(isoDay(march.date)));
    for (const d of bumped) expect(afterDays.get(isoDay(d.date))?.[0], d.date).toBe(columnSum([d], 'views'));
    const afterMonths = await viewsByMonth(channel, sub);
    expect(afterMonths.get('2026-04')?.[0]).toBe(
      (beforeMonths.get('2026-04')?.[0] as number) + bumped.reduce((n, d) => n + 5 * d.rows.length, 0),
    );
  });

  it('a file whose rows are for another month than its name says is rejected', async () => {
    const { channel } = await freshChannel();
    const { april } = pickDays(exportsFor(channel));
    const misnamed = { ...fileOf(channel, april), name: fileName(channel, '20260515') };
    const summary = await ingest([misnamed]);
    expect(summary.loaded).toBe(0);
    expect(summary.rejected[0]?.message).toContain(misnamed.name);
    expect(summary.rejected[0]?.message).toContain('date');
    expect(await writer.readManifest('CB', channel, '2026-04')).toBeUndefined();
    expect(await writer.readManifest('CB', channel, '2026-05')).toBeUndefined();
  });

  it('a file whose rows are for another day of the same month than its name says is rejected', async () => {
    // The name's day decides which day a header-only file clears and which month a file restates, and the
    // month check's own message says "not the day in the file name": the day must agree too.
    const { channel } = await freshChannel();
    const { april } = pickDays(exportsFor(channel));
    const otherDay = april.date === '20260428' ? '20260427' : '20260428';
    const misnamed = { ...fileOf(channel, april), name: fileName(channel, otherDay) };
    const summary = await ingest([misnamed]);
    expect(summary.loaded, JSON.stringify(summary)).toBe(0);
    expect(summary.rejected[0]?.message).toContain(misnamed.name);
    expect(summary.rejected[0]?.message).toContain('date');
    expect(await writer.readManifest('CB', channel, '2026-04')).toBeUndefined();
  });

  it('a header-only file that names no channel is rejected, unless the channel is given', async () => {
    const { channel, sub } = await freshChannel();
    const { april } = pickDays(exportsFor(channel));
    await ingestOk([fileOf(channel, april)]);
    const empty = bytesFile(`exports/${april.date}.csv`, Buffer.from(`${april.header.join(',')}\n`));
    const refused = await ingest([empty]);
    expect(refused.rejected[0]?.message).toContain('header-only');
    expect((await viewsByDay(channel, sub)).has(isoDay(april.date))).toBe(true);
    await ingestOk([empty], { channel });
    expect((await viewsByDay(channel, sub)).has(isoDay(april.date))).toBe(false);
  });
});

describe('ownership and formats', () => {
  it('facts of a channel the directory does not know are stored, but reports.query refuses everyone (403)', async () => {
    const { channel } = await freshChannel(false);
    const days = exportsFor(channel, { days: 12 });
    await ingestOk(days.map((d) => fileOf(channel, d)));
    const stored = await facts.read(
      { family: 'CB', channel, variant: 'f' },
      'D#2026-03-20',
      'D#2026-03-31',
      newReadStats(),
    );
    const nonEmpty = days.filter((d) => d.rows.length > 0);
    expect(stored.map((c) => c.period)).toEqual(days.map((d) => `D#${isoDay(d.date)}`));
    const known = (v: number | null | undefined) => (v === null || v === undefined || Number.isNaN(v) ? 0 : v);
    const views = stored
      .flatMap((c) => [...(c.cube.measures[MEASURE_INDEX.views] ?? [])])
      .reduce((n, v) => n + known(v), 0);
    expect(views).toBe(columnSum(nonEmpty, 'views'));

    const someone = (await freshChannel()).sub;
    for (const sub of ['alice', 'bob', 'carol', 'dave', 'mallory', someone, 'nobody-at-all']) {
      let err: unknown;
      try {
        await report(channel, sub, { startDate: '2026-03-01', endDate: '2026-03-31', metrics: 'views' });
      } catch (e) {
        err = e;
      }
      expect(err, sub).toBeInstanceOf(DomainError);
      expect((err as DomainError).kind, sub).toBe('permission_denied');
      expect((err as DomainError).reason, sub).toBe('forbidden');
    }
  });

  it('gzip files load like plain ones (also mixed in one batch)', async () => {
    const plain = await freshChannel();
    const gz = await freshChannel();
    await ingestOk(exportsFor(plain.channel).map((d) => fileOf(plain.channel, d)));
    const summary = await ingestOk(exportsFor(gz.channel).map((d, i) => fileOf(gz.channel, d, { gzip: i % 3 !== 0 })));
    expect(summary.rows).toBeGreaterThan(0);
    expect(await answers(gz.channel, gz.sub)).toEqual(await answers(plain.channel, plain.sub));
  });

  it('a2 files (no engaged_views) load with engagedViews null, views set', async () => {
    const { channel, sub } = await freshChannel();
    const days = exportsFor(channel, { version: 'a2', days: 12 });
    expect(days[0]?.header).not.toContain('engaged_views');
    await ingestOk(days.map((d) => fileOf(channel, d)));
    const total = await report(channel, sub, {
      startDate: '2026-03-20',
      endDate: '2026-03-31',
      metrics: 'engagedViews,views,redViews',
    });
    expect(total.rows).toEqual([[null, columnSum(days, 'views'), columnSum(days, 'red_views')]]);
  });
});

describe('large days', () => {
  it('a day whose cubes are stored in chunks survives later loads of other days of its month', async () => {
    const { channel, sub } = await freshChannel();
    // one day with 15,000 videos: its full-day and by-video cubes exceed one item and are stored in chunks
    const header = [
      'date',
      'channel_id',
      'video_id',
      'live_or_on_demand',
      'subscribed_status',
      'country_code',
      'views',
      'likes',
      'watch_time_minutes',
      'average_view_duration_percentage',
    ];
    let seed = 12345;
    const rnd = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const bigRows = Array.from({ length: 40_000 }, (_, i) => [
      '20260610',
      channel,
      `big${String(i).padStart(5, '0')}`,
      'on_demand',
      'subscribed',
      'US',
      String(1 + Math.floor(rnd() * 100_000)),
      String(Math.floor(rnd() * 1000)),
      String(rnd() * 1000),
      String(rnd() * 100),
    ]);
    const big: DayExport = { date: '20260610', header, rows: bigRows };
    const small = (date: string): DayExport => ({
      date,
      header,
      rows: [[date, channel, 'small1', 'on_demand', 'subscribed', 'GB', '7', '1', '2.5', '50']],
    });
    const bigViews = columnSum([big], 'views');

    await ingestOk([fileOf(channel, big)]);
    const manifest = await writer.readManifest('CB', channel, '2026-06');
    expect(
      manifest?.chunked?.some((c) => c.period === 'D#2026-06-10'),
      'the test needs a chunked day cube',
    ).toBe(true);
    const topOfDay = {
      startDate: '2026-06-10',
      endDate: '2026-06-10',
      metrics: 'views',
      dimensions: 'video',
      sort: '-views',
      maxResults: '200',
    };
    const top1 = await report(channel, sub, topOfDay);
    expect(top1.rows).toHaveLength(200);

    await ingestOk([fileOf(channel, small('20260611'))]);
    const fullDay = await facts.read(
      { family: 'CB', channel, variant: 'f' },
      'D#2026-06-10',
      'D#2026-06-10',
      newReadStats(),
    );
    expect(fullDay[0]?.cube.size ?? 0, 'the full-day cube of 2026-06-10 after loading 2026-06-11').toBe(40_000);
    expect(await report(channel, sub, topOfDay)).toEqual(top1);

    await ingestOk([fileOf(channel, small('20260612'))]);
    const june = await report(channel, sub, { startDate: '2026-06-01', endDate: '2026-06-30', metrics: 'views' });
    expect(june.rows, 'June views after two more small days').toEqual([[bigViews + 14]]);
  });
});

// ---------------------------------------------------------------------------------------------------------------

const runImport = (dir: string, ...args: string[]) => runCli('infra/cli/import.ts', dir, ...args);

function runCli(script: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'npx',
      ['tsx', script, ...args],
      {
        cwd: ROOT,
        timeout: 90_000,
        env: {
          ...process.env,
          DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT,
          TABLE_NAME: process.env.TABLE_NAME,
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

async function writeDays(channel: string, days: readonly DayExport[], gzipEvery = 0): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'reports-import-'));
  tmpDirs.push(root);
  const dir = path.join(root, channel, 'channel_basic_a3');
  await mkdir(dir, { recursive: true });
  for (const [i, day] of days.entries()) {
    const gz = gzipEvery > 0 && i % gzipEvery === 0;
    const text = csvText(day);
    await writeFile(path.join(dir, `${day.date}.csv${gz ? '.gz' : ''}`), gz ? gzipSync(Buffer.from(text)) : text);
  }
  return root;
}

const SUMMARY = /^Imported (\d+) of (\d+) files: (\d+) rows, (\d+) owner-days, (\d+\.\d) s$/m;

describe('the import CLI', () => {
  it('loads a folder (plain and gzip): exit code 0 and the summary line', async () => {
    const { channel, sub } = await freshChannel();
    const days = exportsFor(channel, { days: 8 });
    const root = await writeDays(channel, days, 3);
    const run = await runImport(root);
    expect(run.code, run.stderr).toBe(0);
    const m = SUMMARY.exec(run.stdout);
    expect(m, run.stdout).not.toBeNull();
    const rows = days.reduce((n, d) => n + d.rows.length, 0);
    expect(m?.slice(1, 5)).toEqual(['8', '8', String(rows), '8']);
    expect(run.stderr).not.toContain('rejected');
    const total = await report(channel, sub, { startDate: '2026-03-20', endDate: '2026-03-27', metrics: 'views' });
    expect(total.rows).toEqual([[columnSum(days, 'views')]]);
  }, 120_000);

  it('a malformed file: exit code 1, a "rejected" line naming it, the good files loaded', async () => {
    const { channel, sub } = await freshChannel();
    const days = exportsFor(channel, { days: 6 }).filter((d) => d.rows.length > 2);
    expect(days.length).toBeGreaterThanOrEqual(2);
    const [good, bad] = days as [DayExport, DayExport];
    const country = bad.header.indexOf('country_code');
    const broken = {
      ...bad,
      rows: bad.rows.map((r, n) => (n === 1 ? r.map((c, j) => (j === country ? 'Germany' : c)) : r)),
    };
    const root = await writeDays(channel, [good, broken]);
    const run = await runImport(root);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(SUMMARY.exec(run.stdout)?.slice(1, 5)).toEqual(['1', '2', String(good.rows.length), '1']);
    const rejectedLines = run.stderr.split('\n').filter((l) => l.startsWith('rejected '));
    expect(rejectedLines).toHaveLength(1);
    expect(rejectedLines[0]).toContain(path.join(root, channel, 'channel_basic_a3', `${bad.date}.csv`));
    expect(rejectedLines[0]).toContain('line 3');
    expect(rejectedLines[0]).toContain('column country_code');
    const byDay = await rowsBy(channel, sub, {
      startDate: '2026-03-20',
      endDate: '2026-03-25',
      metrics: 'views',
      dimensions: 'day',
    });
    expect([...byDay.entries()]).toEqual([[isoDay(good.date), [columnSum([good], 'views')]]]);
  }, 120_000);
});

describe('the import CLI as the cloud (--as-lambda) and ingest-status', () => {
  it('--as-lambda --concurrency 3: each file an event through the cloud handler; ingest-status shows days, gaps and the rejection', async () => {
    const { channel, sub } = await freshChannel();
    const days = exportsFor(channel, { days: 10 }).filter((d) => d.rows.length > 2);
    // Leave out two days (ingest-status must name them missing) and break a third (rejected, with its reason).
    const [first, , , bad, ...rest] = days as [DayExport, DayExport, DayExport, DayExport, ...DayExport[]];
    const loaded = [first, ...rest];
    const views = bad.header.indexOf('views');
    const broken = {
      ...bad,
      rows: bad.rows.map((r, n) => (n === 0 ? r.map((c, j) => (j === views ? 'lots' : c)) : r)),
    };
    const root = await writeDays(channel, [...loaded, broken], 2);
    const run = await runImport(root, '--as-lambda', '--concurrency', '3');
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^As Lambda: \d+ events, concurrency 3, \d+ retried, p50 \d+ ms an event$/m);
    const rows = loaded.reduce((n, d) => n + d.rows.length, 0);
    expect(SUMMARY.exec(run.stdout)?.slice(1, 5)).toEqual([
      String(loaded.length),
      String(loaded.length + 1),
      String(rows),
      String(loaded.length),
    ]);
    const total = await report(channel, sub, { startDate: '2026-03-20', endDate: '2026-03-31', metrics: 'views' });
    expect(total.rows).toEqual([[columnSum(loaded, 'views')]]);

    const status = await runCli(
      'infra/cli/ingest-status.ts',
      '--owner',
      channel,
      '--from',
      '2026-03-20',
      '--to',
      '2026-03-31',
    );
    expect(status.code, status.stdout + status.stderr).toBe(0);
    const line = status.stdout.split('\n').find((l) => l.startsWith(channel));
    expect(line, status.stdout).toBeDefined();
    const cells = (line as string).split(/\s{2,}/);
    const have = new Set(loaded.map((d) => isoDay(d.date)));
    const missing = [...Array(12).keys()]
      .map((i) => `2026-03-${String(20 + i).padStart(2, '0')}`)
      .filter((d) => !have.has(d));
    expect(cells.slice(0, 6)).toEqual([
      channel,
      'channel_basic',
      String(loaded.length),
      isoDay((loaded[loaded.length - 1] as DayExport).date),
      expect.stringMatching(new RegExp(`^${missing.length}: `)),
      '1',
    ]);
    expect(cells[4]).toContain(isoDay(bad.date));
    expect(cells[7]).toBe('not connected');
    expect(status.stdout).toContain(`${bad.date}.csv`);
    expect(status.stdout).toMatch(/line 2, column views\): "lots" is not a number/);
    expect(status.stdout).toMatch(
      /^1 owners, 1 report types: \d+ days loaded, \d+ missing, 1 rejected files, 0 loads pending$/m,
    );

    // The file corrected and loaded again: its rejection is cleared.
    const badFile = path.join(root, channel, 'channel_basic_a3', `${bad.date}.csv`);
    await writeFile(badFile, csvText(bad));
    expect((await runImport(badFile, '--as-lambda')).code).toBe(0);
    const after = await runCli('infra/cli/ingest-status.ts', '--owner', channel);
    expect(after.code).toBe(0);
    expect(after.stdout).not.toContain('Rejected files');
  }, 240_000);

  it('ingest-status refuses bad arguments with exit code 2', async () => {
    for (const args of [
      ['--from', '2026-03-01'],
      ['--from', '2026-02-30', '--to', '2026-03-01'],
      ['--region', 'eu-west-1'],
      ['extra'],
    ]) {
      const run = await runCli('infra/cli/ingest-status.ts', ...args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain('usage: npm run ingest-status');
    }
  }, 120_000);
});

describe("a load's round trips (month-load.ts, ingest-service.ts)", () => {
  /** The pk of each item a command writes (Put, Update, BatchWrite puts and deletes). */
  const writtenPks = (input: Record<string, unknown>): string[] => {
    const i = input as {
      Item?: { pk?: string };
      Key?: { pk?: string };
      RequestItems?: Record<
        string,
        { PutRequest?: { Item: { pk: string } }; DeleteRequest?: { Key: { pk: string } } }[]
      >;
    };
    if (i.RequestItems)
      return Object.values(i.RequestItems)
        .flat()
        .map((r) => r.PutRequest?.Item.pk ?? r.DeleteRequest?.Key.pk ?? '');
    return [i.Item?.pk ?? i.Key?.pk ?? ''];
  };

  it('cubes are encoded while the pending record is written, and none is sent before it is stored', async () => {
    const { channel, sub } = await freshChannel();
    const { april } = pickDays(exportsFor(channel));
    // Every command the load's writer sends, with when it was sent.
    const sends: { at: number; name: string; pks: string[] }[] = [];
    const recording = Object.create(table.db) as typeof table.db;
    recording.send = ((command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      sends.push({ at: performance.now(), name: command.constructor.name, pks: writtenPks(command.input) });
      return table.db.send(command as never);
    }) as typeof table.db.send;
    const w = dynamoFactWriter({ db: recording, tableName: table.tableName });
    // Delay injection: the pending record takes 500 ms to store (DynamoDB Local answers too fast to see the overlap;
    // long enough that a loaded machine still encodes the day's cubes within it).
    let pendingStored = Number.POSITIVE_INFINITY;
    let firstPutCalled = Number.POSITIVE_INFINITY;
    const slowPending: typeof w = Object.assign(Object.create(null), w, {
      async writeManifest(...args: Parameters<typeof w.writeManifest>) {
        const first = args[3].pending !== undefined && pendingStored === Number.POSITIVE_INFINITY;
        if (!first) return w.writeManifest(...args);
        await new Promise((resolve) => setTimeout(resolve, 500));
        const ok = await w.writeManifest(...args);
        pendingStored = performance.now();
        return ok;
      },
      putItems(...args: Parameters<typeof w.putItems>) {
        firstPutCalled = Math.min(firstPutCalled, performance.now());
        return w.putItems(...args);
      },
    });
    const summary = await ingestFiles({ ...stores, writer: slowPending }, [fileOf(channel, april)], { now: FIXED_NOW });
    expect(summary.loaded, JSON.stringify(summary)).toBe(1);

    const factWrites = sends.filter(
      (s) =>
        s.name !== 'GetCommand' &&
        s.name !== 'QueryCommand' &&
        s.pks.some((pk) => pk.startsWith('FACT#') && !pk.endsWith('#MANIFEST')),
    );
    expect(factWrites.length).toBeGreaterThan(0);
    expect(firstPutCalled).toBeLessThan(pendingStored); // encoded and handed over during the pending write…
    for (const s of factWrites) expect(s.at, `${s.name} ${s.pks[0]}`).toBeGreaterThanOrEqual(pendingStored); // …sent after
    expect((await viewsByDay(channel, sub)).get(isoDay(april.date))?.[0]).toBe(columnSum([april], 'views'));
  });

  it('a later day of an open month: one read before, the commit lets the lease go, after it only the rejection cleared', async () => {
    const { channel, sub } = await freshChannel();
    const [first, second, third] = exportsFor(channel).filter((d) => d.rows.length > 5 && d.date.startsWith('202604'));
    if (!first || !second || !third) throw new Error('the generated data lacks the days this test needs');
    await ingestOk([fileOf(channel, first)]); // opens the month: its blocks are due and written
    const views = second.header.indexOf('views');
    const broken = {
      ...second,
      rows: second.rows.map((r, n) => (n === 1 ? r.map((c, j) => (j === views ? 'x' : c)) : r)),
    };
    expect((await ingest([fileOf(channel, broken)])).rejected).toHaveLength(1);

    for (const day of [second, third]) {
      const sends: { name: string; input: Record<string, unknown> }[] = [];
      const recording = Object.create(table.db) as typeof table.db;
      recording.send = ((command: { constructor: { name: string }; input: Record<string, unknown> }) => {
        sends.push({ name: command.constructor.name, input: command.input });
        return table.db.send(command as never);
      }) as typeof table.db.send;
      const summary = await ingestFiles(
        dynamoIngestStores({ db: recording, tableName: table.tableName }),
        [fileOf(channel, day)],
        { now: FIXED_NOW },
      );
      expect(summary.loaded, JSON.stringify(summary)).toBe(1);

      const month = isoDay(day.date).slice(0, 7);
      const lease = keys.monthLease('CB', channel, month);
      const onLease = (s: (typeof sends)[number]) =>
        (s.input.Key as { pk?: string; sk?: string } | undefined)?.pk === lease.pk;
      // The lease is taken once and let go by the commit, the load's last transaction.
      expect(sends.filter((s) => s.name === 'UpdateCommand' && onLease(s))).toHaveLength(1);
      const commitAt = sends.findLastIndex((s) => s.name === 'TransactWriteCommand');
      const parts = (sends[commitAt]?.input.TransactItems ?? []) as {
        Update?: { Key: typeof lease; UpdateExpression: string };
      }[];
      expect(parts[0]?.Update?.Key).toEqual(lease);
      expect(parts[0]?.Update?.UpdateExpression).toContain('REMOVE holder');
      // The file's earlier rejection and the owner's blocks due are read at the start, in one request.
      const keysRead = (s: (typeof sends)[number]) =>
        Object.values((s.input.RequestItems ?? {}) as Record<string, { Keys: { pk: string }[] }>).flatMap((r) =>
          r.Keys.map((k) => k.pk),
        );
      const both = sends.findIndex((s) => s.name === 'BatchGetCommand' && keysRead(s).includes('INGEST#REJECTED'));
      expect(keysRead(sends[both] as (typeof sends)[number])).toContain(`FACT#CB#${channel}#MANIFEST`);
      expect(both).toBeLessThan(commitAt);
      // Nothing is read after the commit (the rejections and the blocks due were read with the parse); the day
      // whose file was rejected before has that rejection deleted.
      const after = sends
        .slice(commitAt + 1)
        .map((s) => `${s.name} ${(s.input.Key as { pk?: string } | undefined)?.pk}`);
      expect(after).toEqual(day === second ? ['DeleteCommand INGEST#REJECTED'] : []);
      const stored = await table.db.send(
        new GetCommand({ TableName: table.tableName, Key: lease, ConsistentRead: true }),
      );
      expect(stored.Item?.holder).toBeUndefined();
      expect((await viewsByDay(channel, sub)).get(isoDay(day.date))?.[0]).toBe(columnSum([day], 'views'));
    }
    expect((await stores.status.rejected()).filter((r) => r.file.includes(channel))).toEqual([]);
  });

  it("the month a file's path names is opened while it is read, and let go when the rows are another channel's or the file is rejected", async () => {
    const { channel, sub } = await freshChannel();
    const { april } = pickDays(exportsFor(channel));
    const other = `UCother${tag()}`;
    const rejected = `UCrejected${tag()}`;
    const likes = april.header.indexOf('likes');
    const broken = {
      ...april,
      rows: april.rows.map((r, n) => (n === 2 ? r.map((c, j) => (j === likes ? 'x' : c)) : r)),
    };
    // One file a load, as the cloud handler loads them (a batch of two paths naming two channels opens neither).
    const loaded = await ingest([{ ...fileOf(channel, april), name: fileName(other, april.date) }]);
    expect(loaded.loaded, JSON.stringify(loaded)).toBe(1);
    const refused = await ingest([{ ...fileOf(channel, broken), name: fileName(rejected, april.date) }]);
    expect(refused.rejected.map((r) => r.file)).toEqual([fileName(rejected, april.date)]);
    // The rows' channel has the day; the months the paths named hold nothing and their leases are free.
    expect((await viewsByDay(channel, sub)).get(isoDay(april.date))?.[0]).toBe(columnSum([april], 'views'));
    const month = isoDay(april.date).slice(0, 7);
    for (const owner of [other, rejected]) {
      expect(await writer.readManifest('CB', owner, month)).toBeUndefined();
      const held = await holdLease(dynamoLeaseRepository(table), keys.monthLease('CB', owner, month), 'probe', {
        ttlMs: 60_000,
        waitMs: 0,
      });
      await held.release();
    }
  });
});

describe('a load that dies half-way is finished or undone by the next one (month-load.ts), pieces or not', () => {
  /**
   * The ingest's stores with a writer whose `at`-th write and every later one fail, as if the process died there.
   * Fault injection: DynamoDB Local cannot make a client die between two writes.
   */
  function dyingStores(at: number) {
    let n = 0;
    const w = dynamoFactWriter(table);
    const die =
      <A extends unknown[], R>(f: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        if (++n >= at) throw new Error('injected: the process died here');
        return f(...args);
      };
    const writer: typeof w = Object.assign(Object.create(null), w, {
      putItems: die(w.putItems),
      deleteKeys: die(w.deleteKeys),
      updateDays: die(w.updateDays),
      putByDayItem: die(w.putByDayItem),
      removeCube: die(w.removeCube),
      backupDay: die(w.backupDay),
      writeManifest: die(w.writeManifest),
    });
    return { stores: { ...stores, writer }, writes: () => n };
  }

  const april = (channel: string) => exportsFor(channel).filter((d) => d.date.startsWith('202604'));
  const changed = (day: DayExport) => mapColumn(day, 'views', (v, n) => v + 7 + (n % 3));
  // What arrives next for that day: a later restatement with a third of the rows (countries and videos drop out).
  const later = (day: DayExport) =>
    mapColumn({ ...day, rows: day.rows.filter((_, n) => n % 3 === 0) }, 'likes', (v) => v + 1);
  // April 1–16 compacted (more than OPEN_DAYS at once), 17 and 18 as pieces; then the load that dies: a piece day
  // restated, a new day (pieces), or a compacted day restated (a compaction folding the pieces).
  const cases = [
    { name: 'a piece day restated', day: 16, restated: true },
    { name: 'a new day as a piece', day: 19, restated: false },
    { name: 'a compacted day restated (compaction)', day: 4, restated: true },
  ];
  const setUp = async (channel: string) => {
    const days = april(channel);
    await ingestOk(days.slice(0, 16).map((d) => fileOf(channel, d)));
    for (const d of days.slice(16, 18)) await ingestOk([fileOf(channel, d)]);
    return days;
  };

  for (const c of cases) {
    it(`${c.name}: died at any write, then retried ≡ the batch of the final files`, async () => {
      // How many writes the load makes, undisturbed.
      const probe = await freshChannel();
      const probeDays = await setUp(probe.channel);
      const counting = dyingStores(Number.POSITIVE_INFINITY);
      const target = (days: DayExport[]) =>
        c.restated ? changed(days[c.day] as DayExport) : (days[c.day] as DayExport);
      await ingestFiles(counting.stores, [fileOf(probe.channel, target(probeDays))], { now: FIXED_NOW });
      const total = counting.writes();
      expect(total).toBeGreaterThan(3);

      // The batch of the final files, once: every dying load must end as it does.
      const batch = await freshChannel();
      const finals = april(batch.channel).slice(0, 18);
      const day = april(batch.channel)[c.day] as DayExport;
      if (c.restated) finals[c.day] = later(changed(day));
      else finals.push(later(day));
      await ingestOk(finals.map((d) => fileOf(batch.channel, d)));
      const batchAnswers = await answers(batch.channel, batch.sub);
      await compactMonths(stores, 'CB', batch.channel);
      const cubes = (items: string[]) => items.filter((i) => !i.includes('MANIFEST'));
      const batchItems = cubes(await storedItems(batch.channel));

      const points = [...new Set([1, Math.ceil(total / 3), Math.ceil((2 * total) / 3), total])];
      for (const at of points) {
        const dying = await freshChannel();
        const days = await setUp(dying.channel);
        const died = await ingestFiles(dyingStores(at).stores, [fileOf(dying.channel, target(days))], {
          now: FIXED_NOW,
        });
        expect(died.failed.length, `died at write ${at} of ${total}`).toBe(1);
        // The next load of the month finishes (or undoes) the dead one first; here it brings a later version of the
        // day, with fewer rows: whatever the dead load wrote that this version lacks must be gone.
        await ingestOk([fileOf(dying.channel, later(target(days)))]);

        const where = `died at write ${at} of ${total}`;
        expect(await answers(dying.channel, dying.sub), where).toEqual(batchAnswers);
        await compactMonths(stores, 'CB', dying.channel);
        expect(cubes(await storedItems(dying.channel)), where).toEqual(batchItems);
      }
      // Long: five channels loaded and compared item by item (about a minute on a quiet machine).
    }, 480_000);
  }

  it("April's every day reloaded in one batch (the daily variants' month items rewritten, day items deleted): died at any write, then retried ≡ the batch of the final files", async () => {
    // Days 1–16 as month items, 17 and 18 as day items over them; then all 18 restated in one batch.
    const reload = (days: DayExport[]) => days.slice(0, 18).map(changed);
    const probe = await freshChannel();
    const probeDays = await setUp(probe.channel);
    const counting = dyingStores(Number.POSITIVE_INFINITY);
    await ingestFiles(
      counting.stores,
      reload(probeDays).map((d) => fileOf(probe.channel, d)),
      { now: FIXED_NOW },
    );
    const total = counting.writes();
    expect(total).toBeGreaterThan(3);

    const batch = await freshChannel();
    await ingestOk(reload(april(batch.channel)).map((d) => fileOf(batch.channel, later(d))));
    const batchAnswers = await answers(batch.channel, batch.sub);
    await compactMonths(stores, 'CB', batch.channel);
    const cubes = (items: string[]) => items.filter((i) => !i.includes('MANIFEST'));
    const batchItems = cubes(await storedItems(batch.channel));

    for (const at of [...new Set([1, Math.ceil(total / 3), Math.ceil((2 * total) / 3), total])]) {
      const dying = await freshChannel();
      const days = await setUp(dying.channel);
      const died = await ingestFiles(
        dyingStores(at).stores,
        reload(days).map((d) => fileOf(dying.channel, d)),
        { now: FIXED_NOW },
      );
      const where = `died at write ${at} of ${total}`;
      expect(died.failed.length, where).toBeGreaterThan(0);
      // The next load finishes (or undoes) the dead one, then brings later versions of every day, fewer rows.
      await ingestOk(reload(days).map((d) => fileOf(dying.channel, later(d))));
      expect(await answers(dying.channel, dying.sub), where).toEqual(batchAnswers);
      await compactMonths(stores, 'CB', dying.channel);
      expect(cubes(await storedItems(dying.channel)), where).toEqual(batchItems);
    }
  }, 480_000);
});
