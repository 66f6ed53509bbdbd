/**
 * Exchange rates (storage/rate-repository.ts) against DynamoDB Local: month items read back as the rate of every day
 * (the latest on or before it, the first before any), a currency stored a day an item by earlier releases still
 * read, and moved to month items by the next rates load with the restated days winning.
 */
import { BatchWriteCommand, type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import * as keys from '../../functions/core/db/keys';
import { type DailyRate, dynamoRateRepository } from '../../functions/core/reports/storage/rate-repository';
import { useOwnTable } from '../support/own-table';

useOwnTable('rate-repository');

let db: DynamoDBDocumentClient;
let tableName: string;
const run = Date.now().toString(36).toUpperCase();
const currency = (name: string) => `${name}${run}`;

beforeAll(() => {
  tableName = process.env.TABLE_NAME as string;
  db = createDocumentClient(process.env.DYNAMODB_ENDPOINT);
});
afterAll(() => db.destroy());

const day = (i: number) => new Date(Date.UTC(2025, 9, 1) + i * 86_400_000).toISOString().slice(0, 10);

/** The rule, by brute force: the latest rate on or before `d`, else the first rate of all. */
function expected(rates: readonly DailyRate[], d: string): number {
  const sorted = [...rates].sort((a, b) => (a.day < b.day ? -1 : 1));
  const before = sorted.filter((r) => r.day <= d);
  return (before.at(-1) ?? (sorted[0] as DailyRate)).rate;
}

/** Every day of [from, to] as the repository answers it, against the rule. */
async function check(
  repo: ReturnType<typeof dynamoRateRepository>,
  c: string,
  rates: DailyRate[],
  from: number,
  to: number,
) {
  const rateOf = await repo.rates(c, day(from), day(to));
  expect(rateOf).toBeDefined();
  for (let i = from; i <= to; i++) expect([day(i), rateOf?.(day(i))]).toEqual([day(i), expected(rates, day(i))]);
}

const items = async (c: string) =>
  (
    await db.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.fxPartition(c) },
      }),
    )
  ).Items ?? [];

describe('exchange rates, a month an item', () => {
  it('answers every day of any range by the rule, across gaps, before the first rate and after the last', async () => {
    const repo = dynamoRateRepository({ db, tableName });
    const c = currency('EUR');
    // Days 20..140 with gaps (weekends, a missing fortnight), loaded in two files that overlap.
    const all: DailyRate[] = [];
    for (let i = 20; i <= 140; i++) {
      if (i % 7 === 5 || i % 7 === 6 || (i >= 70 && i < 84)) continue;
      all.push({ currency: c, day: day(i), rate: 0.9 + i / 1000 });
    }
    await repo.write(all.filter((r) => r.day <= day(100)));
    await repo.write(all.filter((r) => r.day > day(60)));
    const stored = await items(c);
    expect(stored.every((i) => String(i.sk).startsWith('M#'))).toBe(true);
    expect(stored.length).toBeLessThanOrEqual(5);
    for (const [from, to] of [
      [0, 10], // before any rate: the first stands in
      [15, 45],
      [44, 44],
      [66, 90], // across the missing fortnight
      [130, 170], // past the last rate
      [160, 175], // entirely after: the latest
      [0, 180],
    ] as const)
      await check(repo, c, all, from, to);
  });

  it('a day loaded again takes its new rate; the month keeps its other days', async () => {
    const repo = dynamoRateRepository({ db, tableName });
    const c = currency('GBP');
    const first: DailyRate[] = [0, 1, 2, 3].map((i) => ({ currency: c, day: day(i), rate: 0.7 + i / 100 }));
    await repo.write(first);
    const again: DailyRate = { currency: c, day: day(2), rate: 0.5 };
    await repo.write([again]);
    await check(repo, c, [first[0], first[1], again, first[3]] as DailyRate[], 0, 5);
  });

  it('no rate ever loaded: undefined', async () => {
    expect(await dynamoRateRepository({ db, tableName }).rates(currency('XXX'), day(0), day(30))).toBeUndefined();
  });

  it('reads a currency stored a day an item by earlier releases; the next load moves it to month items', async () => {
    const repo = dynamoRateRepository({ db, tableName });
    const c = currency('JPY');
    const legacy: DailyRate[] = [];
    for (let i = 10; i <= 50; i += 3) legacy.push({ currency: c, day: day(i), rate: 140 + i });
    await db.send(
      new BatchWriteCommand({
        RequestItems: {
          [tableName]: legacy.map((r) => ({
            PutRequest: { Item: { ...keys.fxRate(c, r.day), entity: 'ExchangeRate', rate: r.rate } },
          })),
        },
      }),
    );
    for (const [from, to] of [
      [0, 5],
      [12, 40],
      [45, 60],
      [70, 80],
    ] as const)
      await check(repo, c, legacy, from, to);

    // A load restating two of the old days and adding later ones: the old days move, the restated ones win.
    const load: DailyRate[] = [
      { currency: c, day: day(13), rate: 100 },
      { currency: c, day: day(40), rate: 101 },
      { currency: c, day: day(60), rate: 102 },
    ];
    await repo.write(load);
    const stored = await items(c);
    expect(stored.map((i) => String(i.sk).slice(0, 2))).toEqual(stored.map(() => 'M#'));
    const merged = [...legacy.filter((r) => r.day !== day(13) && r.day !== day(40)), ...load];
    await check(repo, c, merged, 0, 70);
  });
});
