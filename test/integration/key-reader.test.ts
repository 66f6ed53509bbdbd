/**
 * The shared key reader (core/db/key-reader.ts) against DynamoDB Local: reads asked for in the same turn go out as
 * one BatchGetItem, each caller gets exactly its own keys' items, and the merged request's projection and
 * consistency serve every caller. The client's `send` is wrapped only to record the commands that reach DynamoDB.
 */
import { BatchGetCommand, BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import { keyReader } from '../../functions/core/db/key-reader';
import { useOwnTable } from '../support/own-table';

useOwnTable('key-reader');

let db: DynamoDBDocumentClient;
let tableName: string;
const sent: BatchGetCommand[] = [];
const PK = `KEYREADER#${Date.now()}`;
const key = (i: number) => ({ pk: PK, sk: `K#${String(i).padStart(4, '0')}` });

beforeAll(async () => {
  tableName = process.env.TABLE_NAME as string;
  db = createDocumentClient(process.env.DYNAMODB_ENDPOINT);
  const send = db.send.bind(db) as (command: unknown) => Promise<unknown>;
  (db as { send: unknown }).send = (command: unknown) => {
    if (command instanceof BatchGetCommand) sent.push(command);
    return send(command);
  };
  // 300 items with three attributes each.
  for (let at = 0; at < 300; at += 25) {
    await db.send(
      new BatchWriteCommand({
        RequestItems: {
          [tableName]: Array.from({ length: 25 }, (_, i) => ({
            PutRequest: { Item: { ...key(at + i), entity: 'Test', a: at + i, b: `b${at + i}`, c: true } },
          })),
        },
      }),
    );
  }
});

afterAll(() => db.destroy());

const sks = (items: Record<string, unknown>[]) => items.map((item) => item.sk).sort();

describe('keyReader', () => {
  it('merges the reads of one turn into one BatchGetItem; each caller gets its own keys, missing ones left out', async () => {
    const reader = keyReader({ db, tableName });
    sent.length = 0;
    const [first, second, third] = await Promise.all([
      reader.get([key(1), key(2)]),
      reader.get([key(2), key(3), { pk: PK, sk: 'missing' }]),
      reader.get([key(299)]),
    ]);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.input.RequestItems?.[tableName]?.Keys).toHaveLength(5); // key 2 asked twice, read once
    expect(sks(first)).toEqual([key(1).sk, key(2).sk]);
    expect(sks(second)).toEqual([key(2).sk, key(3).sk]);
    expect(third).toEqual([{ ...key(299), entity: 'Test', a: 299, b: 'b299', c: true }]);
  });

  it('is one reader per client and table, so separate repositories merge too', async () => {
    expect(keyReader({ db, tableName })).toBe(keyReader({ db, tableName }));
    expect(keyReader({ db, tableName: `${tableName}-other` })).not.toBe(keyReader({ db, tableName }));
    sent.length = 0;
    await Promise.all([keyReader({ db, tableName }).get([key(5)]), keyReader({ db, tableName }).get([key(6)])]);
    expect(sent).toHaveLength(1);
  });

  it('reads of different turns go out separately', async () => {
    const reader = keyReader({ db, tableName });
    sent.length = 0;
    await reader.get([key(7)]);
    await reader.get([key(8)]);
    expect(sent).toHaveLength(2);
  });

  it('projects the union of the attributes asked for, or everything when one caller wants whole items', async () => {
    const reader = keyReader({ db, tableName });
    const [a, b] = await Promise.all([
      reader.get([key(10)], { attributes: ['a'] }),
      reader.get([key(11)], { attributes: ['b'] }),
    ]);
    expect(a).toEqual([{ ...key(10), a: 10, b: 'b10' }]);
    expect(b).toEqual([{ ...key(11), a: 11, b: 'b11' }]);
    const [c, whole] = await Promise.all([reader.get([key(12)], { attributes: ['c'] }), reader.get([key(13)])]);
    expect(c).toEqual([{ ...key(12), entity: 'Test', a: 12, b: 'b12', c: true }]);
    expect(whole).toEqual([{ ...key(13), entity: 'Test', a: 13, b: 'b13', c: true }]);
  });

  it('reads strongly consistently when any caller asks, and counts each call for every caller', async () => {
    const reader = keyReader({ db, tableName });
    sent.length = 0;
    const calls = { plain: 0, consistent: 0 };
    await Promise.all([
      reader.get([key(20)], { onCall: () => calls.plain++ }),
      reader.get([key(21)], { consistent: true, onCall: () => calls.consistent++ }),
    ]);
    expect(sent[0]?.input.RequestItems?.[tableName]?.ConsistentRead).toBe(true);
    expect(calls).toEqual({ plain: 1, consistent: 1 });
    sent.length = 0;
    calls.plain = 0;
    // Over 100 keys: BatchGetItem's limit, so more calls, all items.
    const many = await reader.get(
      Array.from({ length: 250 }, (_, i) => key(i)),
      { onCall: () => calls.plain++ },
    );
    expect(many).toHaveLength(250);
    expect(sent).toHaveLength(3);
    expect(sent[0]?.input.RequestItems?.[tableName]?.ConsistentRead).toBeUndefined();
    expect(calls.plain).toBe(3);
  });

  it('gives every caller of a failed request its error, and the next turn works again', async () => {
    const missingTable = keyReader({ db, tableName: `${tableName}-does-not-exist` });
    const results = await Promise.allSettled([missingTable.get([key(1)]), missingTable.get([key(2)])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((results[0] as PromiseRejectedResult).reason.name).toBe('ResourceNotFoundException');
    expect(await keyReader({ db, tableName }).get([key(1)])).toHaveLength(1);
  });

  it('answers an empty list without a request', async () => {
    sent.length = 0;
    expect(await keyReader({ db, tableName }).get([])).toEqual([]);
    expect(sent).toHaveLength(0);
  });
});
