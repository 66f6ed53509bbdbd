/**
 * The service's document client (core/db/document-client.ts) against DynamoDB Local: binary attributes, top level
 * and inside maps (how the by-day items hold bucket blobs), read back byte for byte through its base64 decoder, which
 * the client is configured with.
 */
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { base64Decoder, createDocumentClient } from '../../functions/core/db/document-client';

describe('createDocumentClient', () => {
  it('reads binary attributes back byte for byte, through the service’s base64 decoder', async () => {
    const db = createDocumentClient(process.env.DYNAMODB_ENDPOINT);
    try {
      expect(db.config.base64Decoder).toBe(base64Decoder);
      const tableName = process.env.TABLE_NAME as string;
      const key = { pk: `DOCCLIENT#${Date.now()}`, sk: 'B' };
      // Every length modulo 3 (base64's padding), every byte value, and a blob larger than Buffer's 8 KB pool.
      const blobs = [1, 2, 3, 4, 255, 256, 257, 20_000].map((n) =>
        Uint8Array.from({ length: n }, (_, i) => (i * 131 + n) & 255),
      );
      const item = { ...key, b: blobs[7], s: Object.fromEntries(blobs.map((b, i) => [`b${i}`, b])) };
      await db.send(new PutCommand({ TableName: tableName, Item: item }));
      const got = (await db.send(new GetCommand({ TableName: tableName, Key: key }))).Item as typeof item;
      expect(Buffer.from(got.b as Uint8Array).equals(blobs[7] as Uint8Array)).toBe(true);
      blobs.forEach((b, i) => {
        expect(Buffer.from(got.s[`b${i}`] as Uint8Array).equals(b)).toBe(true);
      });
      await db.send(new DeleteCommand({ TableName: tableName, Key: key }));
    } finally {
      db.destroy();
    }
  });

  it('decodes base64 as the SDK’s decoder does', () => {
    for (const text of ['', 'AA==', 'AAE=', 'AAEC', Buffer.from('every byte: \u00ff\u0000').toString('base64')]) {
      expect(Buffer.from(base64Decoder(text)).equals(Buffer.from(text, 'base64'))).toBe(true);
    }
  });
});
