/**
 * parseLifted (core/db/lifted-json.ts): a large DynamoDB answer parsed with its binary values lifted out of the bytes.
 * What the wire client makes of such answers, against the SDK's own, is in wire-client.test.ts; here, that the values
 * are lifted at all, and what is left alone.
 */
import { describe, expect, it } from 'vitest';
import { LIFT_FROM, parseLifted } from '../../functions/core/db/lifted-json';

const bytesOf = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * seed + 11) % 256));

describe('parseLifted', () => {
  const big = bytesOf(200_000, 7919); // past one piece of base64 (PIECE)
  const small = bytesOf(5, 3);
  const escaped = bytesOf(600, 37).toString('base64');
  const answer = {
    Items: [
      { pk: { S: 'F#1' }, b: { B: big.toString('base64') }, t: { S: 'naïve {"B":"QUJD"} 日本' } },
      { pk: { S: 'F#2' }, b: { B: small.toString('base64') }, m: { M: { B: { S: 'member B' } } }, e: { B: escaped } },
    ],
    Count: 2,
  };
  const text = JSON.stringify(answer).replace(`"${escaped}"`, `"${escaped.replaceAll('/', '\\/')}"`);

  it('lifts each binary value of a large body, with its index in its place', () => {
    expect(text.length).toBeGreaterThan(LIFT_FROM);
    expect(escaped).toContain('/');
    const { value, binaries } = parseLifted(Buffer.from(text));
    const items = (value as typeof answer).Items as unknown as Record<string, Record<string, unknown>>[];
    expect(binaries).toHaveLength(2);
    expect(items[0]?.b).toEqual({ B: 0 });
    expect(items[1]?.b).toEqual({ B: 1 });
    expect(Buffer.from(binaries[0] as Uint8Array).equals(big)).toBe(true);
    expect(Buffer.from(binaries[1] as Uint8Array).equals(small)).toBe(true);
  });

  it('leaves a value with an escape, text inside strings and a member named B as JSON reads them', () => {
    const { value } = parseLifted(Buffer.from(text));
    const expected = JSON.parse(text) as typeof answer;
    const items = (value as typeof answer).Items as unknown as Record<string, unknown>[];
    expect(items[1]?.e).toEqual(expected.Items[1]?.e);
    expect(items[1]?.e).toEqual({ B: escaped });
    expect(items[0]?.t).toEqual({ S: 'naïve {"B":"QUJD"} 日本' });
    expect(items[1]?.m).toEqual({ M: { B: { S: 'member B' } } });
  });

  it('parses a small body whole', () => {
    const body = JSON.stringify({ Item: { b: { B: small.toString('base64') } } });
    expect(parseLifted(Buffer.from(body))).toEqual({ value: JSON.parse(body), binaries: [] });
  });

  it('refuses a large body cut off inside a binary value, or anywhere', () => {
    const bytes = Buffer.from(text);
    const inside = text.indexOf('"B":"') + 1000;
    expect(() => parseLifted(bytes.subarray(0, inside))).toThrow(SyntaxError);
    expect(() => parseLifted(bytes.subarray(0, bytes.length - 3))).toThrow(SyntaxError);
  });
});
