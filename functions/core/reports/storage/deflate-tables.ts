/**
 * What small-deflate.ts and small-inflate.ts share of RFC 1951: the length and distance codes (§3.2.5), the first
 * value of each and its extra bits, and the bit order of Huffman codes.
 */
export const LEN_BASE: readonly number[] = [
  3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
];
export const LEN_EXTRA: readonly number[] = [
  0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
export const DIST_BASE: readonly number[] = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
  8193, 12289, 16385, 24577,
];
export const DIST_EXTRA: readonly number[] = [
  0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
];

/** `code` of `length` bits, reversed: Huffman codes go out most significant bit first, into an LSB-first stream. */
export function reversed(code: number, length: number): number {
  let r = 0;
  for (let i = 0; i < length; i++) r = (r << 1) | ((code >> i) & 1);
  return r;
}
