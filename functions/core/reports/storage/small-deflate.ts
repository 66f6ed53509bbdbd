/**
 * Raw deflate (RFC 1951) of small inputs, in JavaScript: one block of the fixed Huffman codes, greedy LZ77 over a hash
 * of 3-byte prefixes. A load deflates hundreds of bucket-day blobs a day (`vd`, `vb`: up to 512, most under 1 KB),
 * and node:zlib's deflateRawSync costs 20-30 µs a call whatever the size (a stream and a zlib state built and torn
 * down each time), about 5 µs here: 12% more rows a second in the ingest bench's batch. On blobs the bytes are within
 * about 1% of zlib's fast level; on a month cube's columns zlib's dynamic codes save 5% more, so those stay with zlib,
 * as do inputs from SMALL_DEFLATE_BELOW on (zlib is as fast there). The output is standard deflate: inflateRawSync
 * reads it as it reads zlib's.
 */
import { deflateRawSync } from 'node:zlib';
import { DIST_BASE, DIST_EXTRA, LEN_BASE, LEN_EXTRA, reversed } from './deflate-tables';

/** Inputs from this size on go to zlib (see above). */
export const SMALL_DEFLATE_BELOW = 1024;
/** The farthest a match may point back (deflate's window). */
const WINDOW = 32_768;

/** A code to write: its bits (already reversed, extra bits above them) | its bit count << 24. */
const packed = (bits: number, count: number) => bits | (count << 24);

const bitsOf = (code: number) => code & 0xffffff;
const countOf = (code: number) => code >>> 24;

/** The fixed codes as tables, built on first use (not when a bundle that never deflates imports this module). */
interface Codes {
  /** Literal/length symbols 0…287 (RFC 1951 §3.2.6). */
  readonly literal: Int32Array;
  /** Match lengths 3…258: the length symbol's code with its extra bits. */
  readonly length: Int32Array;
  /** Distance code of each distance 1…32768. */
  readonly distCode: Uint8Array;
  readonly distReversed: Int32Array;
}
let built: Codes | undefined;

function codes(): Codes {
  if (built) return built;
  const literal = Int32Array.from({ length: 288 }, (_, s) => {
    const [code, length] =
      s < 144 ? [0x30 + s, 8] : s < 256 ? [0x190 + s - 144, 9] : s < 280 ? [s - 256, 7] : [0xc0 + s - 280, 8];
    return packed(reversed(code, length), length);
  });
  const length = new Int32Array(259);
  for (let c = 0; c < LEN_BASE.length; c++) {
    const symbol = literal[257 + c] as number;
    const end = c === LEN_BASE.length - 1 ? 259 : (LEN_BASE[c + 1] as number);
    for (let l = LEN_BASE[c] as number; l < end; l++) {
      const extra = l - (LEN_BASE[c] as number);
      length[l] = packed(bitsOf(symbol) | (extra << countOf(symbol)), countOf(symbol) + (LEN_EXTRA[c] as number));
    }
  }
  const distCode = new Uint8Array(WINDOW + 1);
  for (let c = 0; c < DIST_BASE.length; c++) {
    const end = c === DIST_BASE.length - 1 ? WINDOW + 1 : (DIST_BASE[c + 1] as number);
    for (let d = DIST_BASE[c] as number; d < end; d++) distCode[d] = c;
  }
  const distReversed = Int32Array.from({ length: DIST_BASE.length }, (_, c) => reversed(c, 5));
  built = { literal, length, distCode, distReversed };
  return built;
}

const HASH_BITS = 12;
/**
 * Last position + 1 + `base` of each 3-byte hash. `base` moves past every input, so entries of earlier inputs read
 * as out of range and the table is never cleared between calls (wrapping clears it).
 */
const lastAt = new Int32Array(1 << HASH_BITS);
let base = 0;
let out = new Uint8Array(0);

const hash = (a: number, b: number, c: number) => Math.imul((a << 16) | (b << 8) | c, 2654435761) >>> (32 - HASH_BITS);

// The bit writer of the call in progress (deflateSmall runs to its end before another starts): module state and a
// module function rather than a closure made per call (a fifth of a small blob's deflate: 5.9 µs → 4.7 on this VM).
let buf = out;
let o = 0;
let bits = 0;
let count = 0;
function put(code: number): void {
  bits |= bitsOf(code) << count;
  count += countOf(code);
  while (count >= 8) {
    buf[o++] = bits & 255;
    bits >>>= 8;
    count -= 8;
  }
}

/** `input` deflated (raw), or undefined once the output passes `limit` bytes (not worth storing deflated). */
export function deflateSmall(input: Uint8Array, limit: number): Uint8Array | undefined {
  const { literal: LITERAL, length: LENGTH, distCode: DIST_CODE, distReversed: DIST_REVERSED } = codes();
  const n = input.length;
  if (base > 0x3fff_ffff - n) {
    lastAt.fill(0);
    base = 0;
  }
  const b0 = base;
  base += n + 1;
  // Fixed codes take at most 9 bits a byte: the buffer holds any output up to the limit checked each step.
  if (out.length < 2 * n + 64) out = new Uint8Array(2 * n + 64);
  buf = out;
  o = 0;
  // The block header: BFINAL 1, BTYPE 01 (fixed codes).
  bits = 0b011;
  count = 3;
  let i = 0;
  while (i < n) {
    if (o > limit) return undefined;
    let length = 0;
    let distance = 0;
    if (i + 2 < n) {
      const h = hash(input[i] as number, input[i + 1] as number, input[i + 2] as number);
      const at = (lastAt[h] as number) - b0 - 1;
      lastAt[h] = i + b0 + 1;
      if (
        at >= 0 &&
        i - at <= WINDOW &&
        input[at] === input[i] &&
        input[at + 1] === input[i + 1] &&
        input[at + 2] === input[i + 2]
      ) {
        const max = Math.min(258, n - i);
        length = 3;
        while (length < max && input[at + length] === input[i + length]) length++;
        distance = i - at;
      }
    }
    if (length === 0) {
      put(LITERAL[input[i] as number] as number);
      i++;
      continue;
    }
    put(LENGTH[length] as number);
    const c = DIST_CODE[distance] as number;
    put(
      packed(
        (DIST_REVERSED[c] as number) | ((distance - (DIST_BASE[c] as number)) << 5),
        5 + (DIST_EXTRA[c] as number),
      ),
    );
    // Every position the match covers goes into the table: later matches may start there.
    const end = i + length;
    for (i++; i < end; i++) {
      if (i + 2 < n) lastAt[hash(input[i] as number, input[i + 1] as number, input[i + 2] as number)] = i + b0 + 1;
    }
  }
  put(LITERAL[256] as number); // end of block
  if (count > 0) buf[o++] = bits & 255;
  return o > limit ? undefined : buf.slice(0, o);
}

/**
 * How a bucket-day blob is deflated (unit-codec.ts encodeBlob): under SMALL_DEFLATE_BELOW here, from there on by zlib
 * at its fast level; undefined when the output would pass `most` bytes.
 */
export function deflateBlob(payload: Uint8Array, most: number): Uint8Array | undefined {
  if (payload.length < SMALL_DEFLATE_BELOW) return deflateSmall(payload, most);
  const packed = deflateRawSync(payload, { level: 1 });
  return packed.length <= most ? packed : undefined;
}
