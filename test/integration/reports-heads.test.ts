/**
 * Ranked heads (storage/heads.ts, query/top-heads.ts) against DynamoDB Local. Two channels get the same generated
 * exports: one loaded as every channel is (its 90 videos are too few for heads), one with heads of 4 rows (its
 * by-video cubes of 32 rows or more are headed: days, months and blocks; a region's months from 24 rows). Every cube reads the same whole, every
 * top-N answers the same, the headed channel's top-Ns read fewer bytes, and days loaded one at a time afterwards
 * (pieces, then a compaction, then blocks) keep it so.
 */
import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import * as keys from '../../functions/core/db/keys';
import { CHANNEL_BASIC } from '../../functions/core/reports/catalog/families';
import { countriesIn } from '../../functions/core/reports/catalog/geo';
import type { MetricName } from '../../functions/core/reports/catalog/metrics';
import { bytesFile, type IngestFile } from '../../functions/core/reports/ingest/ingest-file';
import { dynamoIngestStores, ingestFiles } from '../../functions/core/reports/ingest/ingest-service';
import { type CubeQuery, runCubeQuery } from '../../functions/core/reports/query/engine';
import { rowsOf, type StoredCube } from '../../functions/core/reports/storage/cube-codec';
import { chunkHeader, dynamoFactRepository, newReadStats } from '../../functions/core/reports/storage/fact-repository';
import { HEAD_ROWS, type HeadSizes } from '../../functions/core/reports/storage/heads';
import { addCubes } from '../../functions/core/reports/storage/month-pieces';
import { generateDays } from '../../infra/generator/export-generator';
import { useOwnTable } from '../support/own-table';

useOwnTable('reports-heads');

let db: DynamoDBDocumentClient;
let tableName: string;
const tag = Date.now().toString(36);
const plain = `UCplain${tag}`;
const headed = `UCheaded${tag}`;
const HEAD = 4;
/** The headed channel's region months are headed from this many rows (REGIONAL_HEAD_FROM, 100,000, in a deployment). */
const REGIONAL_FROM = 24;
const START = '2026-01-04';
const DAYS = 150;
/** The last days, loaded one at a time after the batch (pieces of an open month, then the compaction). */
const LATER = 4;

/**
 * The generated exports, under a fixed channel id (the generator's rows derive from the seed and the channel), so every
 * run tests the same world; each channel's files are those rows under its own id.
 */
const WORLD = 'UCheadsworld';
const generated = () =>
  [
    ...generateDays({
      channel: WORLD,
      videos: 90,
      days: DAYS,
      start: START,
      seed: 5,
      videoPrefix: 'hv',
      videoWidth: 3,
      gzip: false,
      version: 'a3',
    }),
  ].map((day) => ({
    date: day.date,
    text: `${[day.header.join(','), ...day.rows.map((r) => r.join(','))].join('\n')}\n`,
  }));

function filesOf(channel: string): IngestFile[] {
  return generated().map(({ date, text }) =>
    bytesFile(`x/${channel}/channel_basic_a3/${date}.csv`, new TextEncoder().encode(text.replaceAll(WORLD, channel))),
  );
}

async function load(channel: string, heads?: HeadSizes) {
  const files = filesOf(channel);
  const stores = dynamoIngestStores({ db, tableName });
  const options = heads === undefined ? {} : { heads };
  const batch = await ingestFiles(stores, files.slice(0, -LATER), options);
  expect([...batch.failed, ...batch.rejected]).toEqual([]);
  for (const file of files.slice(-LATER)) {
    const one = await ingestFiles(stores, [file], options);
    expect([...one.failed, ...one.rejected]).toEqual([]);
  }
}

beforeAll(async () => {
  tableName = process.env.TABLE_NAME as string;
  db = createDocumentClient(process.env.DYNAMODB_ENDPOINT);
  await Promise.all([load(plain), load(headed, { rows: HEAD, regionalFrom: REGIONAL_FROM })]);
}, 300_000);
afterAll(() => db.destroy());

const top = (q: Partial<CubeQuery>): CubeQuery => ({
  family: CHANNEL_BASIC,
  owner: plain,
  startDate: '2026-01-04',
  endDate: '2026-05-29',
  dimensions: ['video'],
  metrics: ['views', 'likes', 'estimatedMinutesWatched'],
  filters: {},
  sort: [{ name: 'views', descending: true }],
  startIndex: 1,
  maxResults: 10,
  ...q,
});

async function answer(q: CubeQuery, owner: string) {
  const stats = newReadStats();
  const table = await runCubeQuery(dynamoFactRepository({ db, tableName }), { ...q, owner }, stats);
  return { table, stats };
}

describe('ranked heads', () => {
  it('are stored for the headed channel: its by-video days, months and blocks begin with a head', async () => {
    const headsIn = async (channel: string) => {
      const items =
        (
          await db.send(
            new QueryCommand({
              TableName: tableName,
              KeyConditionExpression: 'pk = :pk',
              ExpressionAttributeValues: { ':pk': keys.factPartition('CB', channel, 'v') },
              ProjectionExpression: 'sk, h',
            }),
          )
        ).Items ?? [];
      const heads = items.filter((i) => chunkHeader(i).head !== undefined);
      // Each indexes its row chunks (written in the canonical order): a top-N reads only the ones it needs.
      for (const head of heads) expect(chunkHeader(head).index?.length).toBe(chunkHeader(head).chunks - 1);
      return heads.map((i) => String(i.sk).slice(0, 2));
    };
    const kinds = new Set(await headsIn(headed));
    expect([...kinds].sort()).toEqual(['B2', 'B4', 'D#', 'M#'].filter((k) => kinds.has(k)).sort());
    expect(kinds.has('D#') && kinds.has('M#') && [...kinds].some((k) => k.startsWith('B'))).toBe(true);
    expect(await headsIn(plain)).toEqual([]);
  });

  it('every by-video cube reads the same whole, headed or not', async () => {
    const repo = dynamoFactRepository({ db, tableName });
    const columns = {
      dims: ['video' as const],
      measures: ['views' as const, 'likes' as const, 'watchMinutes' as const],
    };
    const rows = async (channel: string, from: string, to: string) =>
      (await repo.read({ family: 'CB', channel, variant: 'v' }, from, to, newReadStats(), columns)).map((c) => ({
        period: c.period,
        rows: rowsOf(c.cube)
          .map((r) => JSON.stringify(r))
          .sort(),
      }));
    for (const [from, to] of [
      ['D#2026-01-04', 'D#2026-06-02'],
      ['M#2026-01', 'M#2026-06'],
      ['B2#2026-01', 'B4#2026-01'],
    ] as const) {
      const a = await rows(plain, from, to);
      expect(a.length).toBeGreaterThan(0);
      expect(await rows(headed, from, to)).toEqual(a);
    }
  });

  it('every top-N answers the same from heads as from whole cubes, and reads less', async () => {
    const cases: Partial<CubeQuery>[] = [];
    for (const [startDate, endDate] of [
      ['2026-01-01', '2026-04-30'], // whole months: blocks
      ['2026-01-04', '2026-05-29'], // edge days around them
      ['2026-02-10', '2026-02-20'], // days only
      ['2026-03-01', '2026-06-02'], // the open month's pieces at the end
    ])
      for (const metric of ['views', 'estimatedMinutesWatched', 'subscribersGained', 'subscribersLost'] as MetricName[])
        for (const [startIndex, maxResults] of [
          [1, 1],
          [1, 3],
          [2, 5],
          [1, 25],
        ])
          cases.push({
            startDate,
            endDate,
            metrics: [metric, 'views', 'averageViewDuration'],
            sort: [{ name: metric, descending: true }],
            startIndex,
            maxResults,
          });
    let headedBytes = 0;
    let plainBytes = 0;
    for (const q of cases) {
      const a = await answer(top(q), plain);
      const b = await answer(top(q), headed);
      expect(b.table, JSON.stringify(q)).toEqual(a.table);
      expect(a.table.rows?.length).toBe(q.maxResults);
      // Over whole months (a block) a top 1 or 3 by views or minutes is well inside heads of 4: those read less.
      // Over tens of edge days the heads' thresholds add up and do not decide: those read the heads, then all.
      const name = q.sort?.[0]?.name ?? '';
      if (q.startDate === '2026-01-01' && (q.maxResults as number) <= 3 && !name.startsWith('subscribers')) {
        plainBytes += a.stats.bytes;
        headedBytes += b.stats.bytes;
      }
    }
    expect(headedBytes).toBeLessThan(plainBytes * 0.6);
  });

  it("a head's rows of some videos (by its chunk index) are the whole cube's rows of them", async () => {
    const repo = dynamoFactRepository({ db, tableName });
    const columns = { dims: ['video' as const], measures: ['views' as const, 'likes' as const] };
    const address = { family: 'CB', channel: headed, variant: 'v' };
    const periods = ['M#2026-02', 'M#2026-03', 'D#2026-02-14'];
    const found = await repo.readHeads(address, periods, newReadStats(), columns);
    for (const period of periods) {
      const read = found.get(period);
      if (!read || 'cube' in read) throw new Error(`${period}: not headed`);
      const all = await read.whole(newReadStats());
      const inHead = new Set(rowsOf(read.head).map((r) => r.key[0]));
      const outside = rowsOf(all)
        .map((r) => r.key[0] as string)
        .filter((v) => !inHead.has(v));
      const videos = [...outside.slice(0, 3), 'hv999-none'];
      const stats = newReadStats();
      const rows = await read.rowsOf(videos, stats);
      const sorted = (c: typeof all) =>
        rowsOf(c)
          .map((r) => JSON.stringify(r))
          .sort();
      expect(sorted(rows)).toEqual(sorted(all).filter((r) => videos.some((v) => r.includes(`"${v}"`))));
      expect(rows.size).toBe(3);
      // The index names one chunk per video (one here: these cubes are small), not the cube's chunks.
      expect(stats.items).toBe(1);
    }
  });

  it('blocks not stored are read from their months: each the sum of its months, neighbours in one Query', async () => {
    const repo = dynamoFactRepository({ db, tableName });
    const address = { family: 'CB', channel: plain, variant: 'v' };
    const sorted = (c: StoredCube) =>
      rowsOf(c)
        .map((r) => JSON.stringify(r))
        .sort();
    // Two runs of blocks: January to August 2026 (the facts), and 2400-01 to 2401-08 (none).
    const blocks = ['B4#2026-05', 'B16#2400-01', 'B4#2026-01', 'B4#2401-05'];
    const stats = newReadStats();
    const read = await repo.readAsBlocks(address, blocks, stats);
    expect(stats.queries).toBe(2);
    expect([...read.keys()].sort()).toEqual(['B4#2026-01', 'B4#2026-05']);
    for (const [block, months] of [
      ['B4#2026-01', ['M#2026-01', 'M#2026-04']],
      ['B4#2026-05', ['M#2026-05', 'M#2026-08']],
    ] as const) {
      const cubes = await repo.read(address, months[0], months[1], newReadStats());
      expect(sorted(read.get(block) as StoredCube), block).toEqual(sorted(addCubes(cubes.map((c) => c.cube))));
    }
    // Every block from 2027 to the last valid month, none with facts: one Query.
    const far = newReadStats();
    const none = Array.from({ length: ((10_000 - 2032) * 12) / 16 }, (_, i) => {
      const m = 2032 * 12 + i * 16;
      return `B16#${String(Math.floor(m / 12))}-${String((m % 12) + 1).padStart(2, '0')}`;
    });
    expect(none.at(-1)).toBe('B16#9998-09');
    expect((await repo.readAsBlocks(address, none, far)).size).toBe(0);
    expect(far.queries).toBe(1);
  });

  it('a top-N heads cannot answer (ascending, a filter, a share of the whole) reads whole cubes, the same answer', async () => {
    for (const q of [
      top({ sort: [{ name: 'views', descending: false }] }),
      top({ filters: { video: new Set(['hv001', 'hv007', 'hv050']) } }),
      top({ metrics: ['views', 'averageViewDuration'], sort: [{ name: 'averageViewDuration', descending: true }] }),
    ])
      expect((await answer(q, headed)).table).toEqual((await answer(q, plain)).table);
  });

  it('reads in pages of two items (long ranges fanned out by month) give the same cubes and answers', async () => {
    // core/db/month-ranges.ts: the bench's reads fit a page; small pages make these span many, the way a year of a
    // million videos' cubes does.
    const paged = dynamoFactRepository({ db, tableName }, { pageItems: 2 });
    const whole = dynamoFactRepository({ db, tableName });
    for (const channel of [plain, headed]) {
      for (const [variant, from, to] of [
        ['v', 'D#2026-01-04', 'D#2026-06-02'],
        ['v', 'M#2026-01', 'M#2026-06'],
        ['d', 'M#2026-01', 'M#2026-06'],
        ['gd', 'M#2025-11', 'M#2026-07'],
      ] as const) {
        const address = { family: 'CB', channel, variant };
        const stats = newReadStats();
        const a = await paged.read(address, from, to, stats);
        const b = await whole.read(address, from, to, newReadStats());
        expect(a.length, `${variant} ${from}`).toBeGreaterThan(0);
        expect(
          a.map((c) => ({ period: c.period, rows: rowsOf(c.cube) })),
          `${channel} ${variant} ${from}`,
        ).toEqual(b.map((c) => ({ period: c.period, rows: rowsOf(c.cube) })));
        expect(stats.queries).toBeGreaterThan(stats.items / 2 - 1);
      }
      const address = { family: 'CB', channel, variant: 'v' };
      const blocks = ['B4#2026-01', 'B4#2026-05'];
      const [a, b] = [
        await paged.readAsBlocks(address, blocks, newReadStats()),
        await whole.readAsBlocks(address, blocks, newReadStats()),
      ];
      expect(a.size).toBe(2);
      expect([...a].map(([k, c]) => [k, rowsOf(c)])).toEqual([...b].map(([k, c]) => [k, rowsOf(c)]));
      for (const q of [
        top({}),
        top({ startDate: '2026-01-01', endDate: '2026-06-02', maxResults: 25 }),
        top({ dimensions: ['day'], sort: [{ name: 'day', descending: false }], maxResults: undefined }),
        top({
          dimensions: ['day'],
          filters: { video: new Set(['hv003']) },
          sort: [{ name: 'day', descending: false }],
          maxResults: undefined,
        }),
        top({ dimensions: ['country'], sort: [{ name: 'views', descending: true }], maxResults: undefined }),
        top({ dimensions: ['month'], startDate: '2026-01-01', endDate: '2026-05-31', sort: [], maxResults: undefined }),
      ]) {
        const a = await runCubeQuery(paged, { ...q, owner: channel }, newReadStats());
        const b = await runCubeQuery(whole, { ...q, owner: channel }, newReadStats());
        expect(a.rows?.length, JSON.stringify(q.dimensions)).toBeGreaterThan(0);
        expect(a, `${channel} ${JSON.stringify(q.dimensions)} ${JSON.stringify([...(q.filters.video ?? [])])}`).toEqual(
          b,
        );
      }
    }
  });
});

describe("ranked heads of a region's months", () => {
  const regions: { name: string; partition: [string, string]; filters: CubeQuery['filters'] }[] = [
    {
      name: 'continent 019',
      partition: ['vk', '019'],
      filters: { country: countriesIn({ continent: '019' }), region: { kind: 'continent', code: '019' } },
    },
    {
      name: 'subContinent 021',
      partition: ['vs', '021'],
      filters: { country: countriesIn({ subContinent: '021' }), region: { kind: 'subContinent', code: '021' } },
    },
    {
      name: 'country US',
      partition: ['vn', 'US'],
      filters: { country: new Set(['US']), region: { kind: 'country', code: 'US' } },
    },
  ];

  const headedMonths = async (channel: string, [variant, partition]: [string, string]) => {
    const items =
      (
        await db.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': keys.factPartition('CB', channel, variant, partition) },
            ProjectionExpression: 'sk, h',
          }),
        )
      ).Items ?? [];
    const heads = items.filter((i) => chunkHeader(i).head !== undefined);
    // Written in the canonical order, each indexes its row chunks: a winner missing from it costs one chunk.
    for (const head of heads) expect(chunkHeader(head).index?.length).toBe(chunkHeader(head).chunks - 1);
    return heads.map((i) => String(i.sk));
  };

  it(`are stored from ${REGIONAL_FROM} rows in the headed channel only, each month's first item`, async () => {
    for (const { name, partition } of regions) {
      const months = await headedMonths(headed, partition);
      expect(months.length, name).toBeGreaterThan(0);
      for (const sk of months) expect(sk, name).toMatch(/^M#\d{4}-\d{2}$/);
      expect(await headedMonths(plain, partition), name).toEqual([]);
    }
  });

  it('answer every top-N of a region as whole months do, the open month included; a top 1 reads less', async () => {
    let headedBytes = 0;
    let plainBytes = 0;
    for (const { name, filters } of regions)
      for (const [startDate, endDate] of [
        ['2026-01-01', '2026-04-30'], // whole months, every one compacted
        ['2026-02-01', '2026-06-30'], // June still open: its marks, read whole with its days' pieces
        ['2026-01-04', '2026-05-29'], // edge days around them: read from the days, as before
      ])
        for (const metric of ['views', 'estimatedMinutesWatched'] as MetricName[])
          for (const [startIndex, maxResults] of [
            [1, 1],
            [1, 3],
            [2, 5],
            [1, 25],
          ] as [number, number][]) {
            const q = top({
              startDate,
              endDate,
              filters,
              metrics: [metric, 'views', 'averageViewDuration'],
              sort: [{ name: metric, descending: true }],
              startIndex,
              maxResults,
            });
            const a = await answer(q, plain);
            const b = await answer(q, headed);
            const what = `${name} ${startDate}..${endDate} ${metric} ${startIndex}+${maxResults}`;
            // The reference: every video ranked, more than a head keeps, so its months are read whole by a Query.
            const all = await answer({ ...q, startIndex: 1, maxResults: HEAD_ROWS + 1 }, plain);
            const expected = all.table.rows?.slice(startIndex - 1, startIndex - 1 + maxResults);
            expect(expected?.length, what).toBeGreaterThan(0);
            expect(a.table.rows, what).toEqual(expected);
            expect(b.table, what).toEqual(a.table);
            if (startDate !== '2026-01-01') continue;
            // Over whole months a top 1 is decided by the heads (and the row chunk of a winner missing from one, by
            // its index): less than the months. A top 3 over four heads of a small region does not always decide: it
            // reads the heads, then the months, never more than the heads over.
            if (maxResults === 1) {
              expect(b.stats.bytes, what).toBeLessThan(a.stats.bytes);
              expect(b.stats.items, what).toBeLessThanOrEqual(2 * a.stats.items);
            }
            plainBytes += a.stats.bytes;
            headedBytes += b.stats.bytes;
          }
    expect(headedBytes).toBeLessThan(plainBytes * 2);
  });
});
