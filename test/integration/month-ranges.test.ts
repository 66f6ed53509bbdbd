/**
 * A long sort-key range read against DynamoDB Local (core/db/month-ranges.ts queryMonthRange): in small pages it
 * fans out by month after the first page, and still hands over every item of the range once, each month's items in
 * sort-key order; a range one page holds is one request. Under it, queryPages (core/db/query-all.ts) stops where told
 * and goes on from the key it returned. The client's `send` is wrapped only to count the Queries
 * that reach DynamoDB and how many are in flight at once.
 */
import { BatchWriteCommand, type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import { FAN_OUT, queryMonthRange } from '../../functions/core/db/month-ranges';
import { queryPages } from '../../functions/core/db/query-all';
import { useOwnTable } from '../support/own-table';

useOwnTable('month-ranges');

let db: DynamoDBDocumentClient;
let tableName: string;
const PK = `MONTHRANGES#${Date.now()}`;
let sent = 0;
let inFlight = 0;
let maxInFlight = 0;

/** 26 months (2024-11 to 2026-12) of day items, a chunk item on some days and a mark per month. */
const SKS = Array.from({ length: 26 }, (_, m) => {
  const month = `${2024 + Math.floor((10 + m) / 12)}-${String(((10 + m) % 12) + 1).padStart(2, '0')}`;
  return [
    `M#${month}`,
    `M#${month}#o`,
    ...[1, 9, 17, 28].flatMap((d) => [`D#${month}-${String(d).padStart(2, '0')}`]),
    ...(m % 3 === 0 ? [`D#${month}-09#c1`, `D#${month}-09#c2`] : []),
  ];
}).flat();

beforeAll(async () => {
  tableName = process.env.TABLE_NAME as string;
  db = createDocumentClient(process.env.DYNAMODB_ENDPOINT);
  for (let at = 0; at < SKS.length; at += 25) {
    await db.send(
      new BatchWriteCommand({
        RequestItems: {
          [tableName]: SKS.slice(at, at + 25).map((sk) => ({ PutRequest: { Item: { pk: PK, sk, entity: 'Test' } } })),
        },
      }),
    );
  }
  const send = db.send.bind(db) as (command: unknown) => Promise<unknown>;
  (db as { send: unknown }).send = async (command: unknown) => {
    if (!(command instanceof QueryCommand)) return send(command);
    sent++;
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    try {
      return await send(command);
    } finally {
      inFlight--;
    }
  };
});

afterAll(() => db.destroy());

async function read(from: string, to: string, pageItems?: number) {
  sent = 0;
  maxInFlight = 0;
  const got: string[] = [];
  await queryMonthRange(
    db,
    { TableName: tableName, pk: PK, from, to, ProjectionExpression: 'sk' },
    (items) => got.push(...items.map((i) => String(i.sk))),
    pageItems,
  );
  return got;
}

const expected = (from: string, to: string) => SKS.filter((sk) => sk >= from && sk <= to).sort();

/** Each month's keys in the order they were handed over must be that month's keys sorted. */
function monthsInOrder(got: readonly string[]) {
  const byMonth = new Map<string, string[]>();
  for (const sk of got) {
    const month = sk.slice(0, 9);
    byMonth.set(month, [...(byMonth.get(month) ?? []), sk]);
  }
  for (const [month, list] of byMonth) expect(list, month).toEqual([...list].sort());
}

describe('queryMonthRange', () => {
  it('reads a range of months in small pages at once, every item once and each month in order', async () => {
    for (const [from, to] of [
      ['D#2024-11-01', 'D#2026-12-31#~'],
      ['D#2025-02-09', 'D#2025-09-17#~'],
      ['M#2024-11', 'M#2026-12#~'],
      ['M#2025-03', 'M#2025-04'],
    ] as const) {
      const got = await read(from, to, 3);
      expect([...got].sort(), `${from}..${to}`).toEqual(expected(from, to));
      expect(got.length).toBe(expected(from, to).length);
      monthsInOrder(got);
      const pagesAtLeast = Math.ceil(expected(from, to).length / 3);
      expect(sent).toBeGreaterThanOrEqual(pagesAtLeast);
      // Over several months the rest of the range goes out at once, never more than FAN_OUT ranges at a time.
      if (from.startsWith('D#2024') || from.startsWith('M#2024')) expect(maxInFlight).toBeGreaterThan(1);
      expect(maxInFlight).toBeLessThanOrEqual(FAN_OUT);
    }
  });

  it('stays one request when a page holds the range, and pages in turn within one month', async () => {
    const whole = await read('D#2024-11-01', 'D#2026-12-31#~');
    expect(whole).toEqual(expected('D#2024-11-01', 'D#2026-12-31#~'));
    expect(sent).toBe(1);
    const month = await read('D#2025-02-01', 'D#2025-02-31#~', 2);
    expect(month).toEqual(expected('D#2025-02-01', 'D#2025-02-31#~'));
    expect(maxInFlight).toBe(1);
    expect(await read('D#2031-01-01', 'D#2031-12-31#~', 2)).toEqual([]);
    expect(sent).toBe(1);
  });
});

describe('queryPages', () => {
  const input = () => ({
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': PK, ':from': 'D#2025-01-01', ':to': 'D#2025-12-31#~' },
    ProjectionExpression: 'pk, sk',
    Limit: 5,
  });

  it('stops after the page its callback refuses, and goes on from the key it returns to the end', async () => {
    const all = expected('D#2025-01-01', 'D#2025-12-31#~');
    sent = 0;
    const first: string[] = [];
    let pages = 0;
    const next = await queryPages(db, input(), (items, key) => {
      first.push(...items.map((i) => String(i.sk)));
      expect(key).toBeDefined();
      return ++pages < 2;
    });
    expect(sent).toBe(2);
    expect(first).toEqual(all.slice(0, 10));
    expect(next?.sk).toBe(all[9]);

    const rest: string[] = [];
    const end = await queryPages(db, input(), (items) => rest.push(...items.map((i) => String(i.sk))), next);
    expect(end).toBeUndefined();
    // Every item once and in order: the second read began where the first stopped, not at the start.
    expect([...first, ...rest]).toEqual(all);
  });
});
