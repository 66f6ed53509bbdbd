/** Inputs for the deflate and inflate tests (small-deflate.test.ts, small-inflate.test.ts). */
import fc from 'fast-check';

/** `n` bytes of a xorshift generator: no 3 bytes recur often enough to match near by, and no deflate shrinks them. */
export function noiseOf(n: number): Uint8Array {
  let x = 2_463_534_242;
  return Uint8Array.from({ length: n }, () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 24;
  });
}

/** Bytes drawn from a few values, in runs: what varint columns look like (and what finds matches of every length). */
export const columnLike = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 300 })), { maxLength: 40 })
  .map((runs) => Uint8Array.from(runs.flatMap(([b, n]) => Array.from({ length: n }, (_, i) => (b + (i % 3)) & 255))));

/** Nothing, one byte, every byte value, a 258-byte match (the longest) and longer runs, a short-period pattern. */
export const EDGE_CASES: readonly Uint8Array[] = [
  new Uint8Array(0),
  Uint8Array.of(7),
  Uint8Array.from({ length: 256 }, (_, i) => i),
  new Uint8Array(3 + 258).fill(9),
  new Uint8Array(2000).fill(200),
  Uint8Array.from({ length: 1500 }, (_, i) => (i * 7) % 13),
];
