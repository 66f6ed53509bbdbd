/**
 * The reports bench's bill (bench/reports-capacity.ts) against DynamoDB Local: items sized by DynamoDB's rules, reads
 * billed on whole items whatever the projection, writes on the larger of before and after; and the bench's size
 * selection (BENCH_SIZES).
 */
import { BatchGetCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { countingClient, itemSize } from '../../bench/reports-capacity';
import { selectedSizes } from '../../bench/reports-sizes';
import { createDocumentClient } from '../../functions/core/db/document-client';
import { useOwnTable } from '../support/own-table';

useOwnTable('bench-capacity');
const db = createDocumentClient(process.env.DYNAMODB_ENDPOINT as string);
const TableName = () => process.env.TABLE_NAME as string;
afterAll(() => db.destroy());

describe('itemSize', () => {
  it('counts names and values as DynamoDB does', () => {
    expect(itemSize({ pk: 'abc' })).toBe(5); // 2 + 3
    expect(itemSize({ b: new Uint8Array(10) })).toBe(11);
    expect(itemSize({ n: 12345 })).toBe(1 + 4); // 5 digits: 3 bytes + 1
    expect(itemSize({ n: 1000 })).toBe(1 + 2); // trailing zeros trimmed: 1 digit
    expect(itemSize({ m: { x: 'yz' } })).toBe(1 + 3 + 1 + 1 + 2);
    expect(itemSize({ l: ['a', 'b'] })).toBe(1 + 3 + 2 * 2);
  });
});

describe('countingClient', () => {
  const pk = `bench-capacity-${Date.now()}`;
  const big = (kb: number) => 'x'.repeat(kb * 1024);

  it('bills a Query page on the whole items it reads, not the projection', async () => {
    for (const sk of ['a', 'b']) {
      await db.send(new PutCommand({ TableName: TableName(), Item: { pk, sk, v: big(5), w: 1 } }));
    }
    const { db: counted, capacity } = countingClient(db);
    const out = await counted.send(
      new QueryCommand({
        TableName: TableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ProjectionExpression: 'w',
      }),
    );
    expect(out.Items).toHaveLength(2);
    expect(capacity.itemsRead).toBe(2);
    // Two items of just over 5 KB: 10 KB summed, 3 blocks of 4 KB, half a unit each (eventually consistent).
    expect(capacity.rru).toBe(1.5);
    expect(capacity.bytesRead).toBeGreaterThan(10 * 1024);
  });

  it('bills each BatchGetItem and GetItem item by itself, and a consistent read twice', async () => {
    const { db: counted, capacity } = countingClient(db);
    const batchGet = (sks: string[], projection?: string) =>
      counted.send(
        new BatchGetCommand({
          RequestItems: {
            [TableName()]: {
              Keys: sks.map((sk) => ({ pk, sk })),
              ...(projection ? { ProjectionExpression: projection } : {}),
            },
          },
        }),
      );
    await batchGet(['a', 'b'], 'w');
    expect(capacity.rru).toBe(2 * 0.5 * 2); // each item: 2 blocks of 4 KB
    await counted.send(new GetCommand({ TableName: TableName(), Key: { pk, sk: 'a' }, ConsistentRead: true }));
    expect(capacity.rru).toBe(2 + 2);
    expect(capacity.calls).toBe(2);
    // A key without an item costs the least read, as DynamoDB bills it; it is no item read.
    await batchGet(['a', 'none', 'none2']);
    expect(capacity.rru).toBe(4 + 1 + 0.5 + 0.5);
    expect(capacity.itemsRead).toBe(2 + 1 + 1);
  });

  it('bills a write on the larger of the item before and after', async () => {
    const { db: counted, capacity } = countingClient(db);
    await counted.send(
      new UpdateCommand({
        TableName: TableName(),
        Key: { pk, sk: 'a' },
        UpdateExpression: 'REMOVE v',
      }),
    );
    expect(capacity.wru).toBe(6); // the 5 KB item before, not the few bytes after
    expect(capacity.itemsWritten).toBe(1);
    await counted.send(new PutCommand({ TableName: TableName(), Item: { pk, sk: 'c', v: big(2) } }));
    expect(capacity.wru).toBe(6 + 3);
  });
});

describe('selectedSizes (BENCH_SIZES)', () => {
  const before = process.env.BENCH_SIZES;
  afterEach(() => {
    if (before === undefined) delete process.env.BENCH_SIZES;
    else process.env.BENCH_SIZES = before;
  });

  it('runs both sizes by default, one alone when asked, and refuses an unknown one', () => {
    delete process.env.BENCH_SIZES;
    expect(selectedSizes().map((s) => [s.key, s.videos, s.contentOwner.videos])).toEqual([
      ['1k', 1000, 200],
      ['10k', 10_000, 2000],
    ]);
    process.env.BENCH_SIZES = '10k';
    expect(selectedSizes().map((s) => s.key)).toEqual(['10k']);
    process.env.BENCH_SIZES = '1k,100k';
    expect(() => selectedSizes()).toThrow(/100k/);
  });
});
