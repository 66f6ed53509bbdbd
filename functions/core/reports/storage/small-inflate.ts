/**
 * Raw inflate (RFC 1951) of small inputs, in JavaScript. A report opens deflated bucket-day blobs by the hundred (a
 * year of one video: about 360 blobs of 100-200 bytes, written by small-deflate.ts), and node:zlib's inflateRawSync
 * costs 8-12 µs a call whatever the size (a stream and a zlib state built and torn down each time), about 3 µs here.
 * Every block type is read (stored, fixed and dynamic codes), so bytes from small-deflate.ts and from zlib at any level
 * read back the same; corrupt input throws, as zlib's does. inflateRaw uses it only where it is the faster: short
 * inputs of the fixed codes with short outputs (on long outputs zlib's C is up to twice as fast).
 */
import { inflateRawSync } from 'node:zlib';
import { DIST_BASE, DIST_EXTRA, LEN_BASE, LEN_EXTRA, reversed } from './deflate-tables';

/** Inputs from this size on go to zlib. */
export const SMALL_INFLATE_BELOW = 512;
/** Outputs past this size go to zlib: it is faster on them (see inflateRaw). */
export const SMALL_OUTPUT_MOST = 1536;

/** Thrown inside the inflater when the output passes its limit (never outside it). */
const TOO_LONG = Symbol('output past its limit');

/** The order in which a dynamic block sends its code-length code's lengths. */
const ORDER = Uint8Array.from([16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]);

/** Bits a code's first lookup takes; longer codes (rare in small blocks) are decoded bit by bit. */
const FAST = 9;
const FAST_MASK = (1 << FAST) - 1;
const MAX_BITS = 15;

const corrupt = (why: string) => new Error(`invalid deflate data: ${why}`);

/** A Huffman code, ready to decode. */
class Code {
  /** By the next FAST bits of the stream: symbol << 4 | code length, or 0 for a code longer than FAST (or none). */
  readonly fast = new Int32Array(1 << FAST);
  /** Codes of each length, and the symbols in canonical order (RFC 1951 §3.2.2): for the codes longer than FAST. */
  readonly count = new Uint16Array(MAX_BITS + 1);
  readonly symbol = new Uint16Array(288);
  private readonly next = new Uint16Array(MAX_BITS + 2);

  /**
   * The code of `n` symbols whose code lengths start at `lengths[from]`. What zlib refuses is refused: lengths that
   * over-subscribe the code, and an incomplete code but for no code at all or a single code of one bit (and never for
   * the code-length code, `complete`).
   */
  build(lengths: Uint8Array, from: number, n: number, complete = false): this {
    const { count, symbol, next, fast } = this;
    count.fill(0);
    let longest = 0;
    for (let s = 0; s < n; s++) {
      const len = lengths[from + s] as number;
      count[len] = (count[len] as number) + 1;
      if (len > longest) longest = len;
    }
    count[0] = 0;
    let left = 1;
    for (let len = 1; len <= MAX_BITS; len++) {
      left = (left << 1) - (count[len] as number);
      if (left < 0) throw corrupt('over-subscribed code lengths');
    }
    if (left > 0 && longest > 0 && (complete || longest !== 1)) throw corrupt('incomplete code lengths');
    next[1] = 0;
    for (let len = 1; len < MAX_BITS; len++) next[len + 1] = (next[len] as number) + (count[len] as number);
    for (let s = 0; s < n; s++) {
      const len = lengths[from + s] as number;
      if (len === 0) continue;
      const at = next[len] as number;
      symbol[at] = s;
      next[len] = at + 1;
    }
    // Canonical codes, shortest first; each of at most FAST bits fills every table slot its bits (reversed) start.
    fast.fill(0);
    let code = 0;
    let at = 0;
    for (let len = 1; len <= FAST; len++) {
      for (let k = count[len] as number; k > 0; k--, code++) {
        const entry = ((symbol[at++] as number) << 4) | len;
        for (let slot = reversed(code, len); slot <= FAST_MASK; slot += 1 << len) fast[slot] = entry;
      }
      code <<= 1;
    }
    return this;
  }
}

let fixedCodes: { literal: Code; distance: Code } | undefined;

/** The fixed codes (RFC 1951 §3.2.6), built on first use. */
function fixed(): { literal: Code; distance: Code } {
  if (fixedCodes) return fixedCodes;
  const lengths = new Uint8Array(320);
  // 32 distance codes, as RFC 1951 gives them (30 and 31 never occur: decoding one throws).
  lengths.fill(8, 0, 144).fill(9, 144, 256).fill(7, 256, 280).fill(8, 280, 288).fill(5, 288, 320);
  fixedCodes = { literal: new Code().build(lengths, 0, 288), distance: new Code().build(lengths, 288, 32) };
  return fixedCodes;
}

/** One inflate at a time (it is synchronous): the state and the dynamic blocks' codes are reused. */
class Inflater {
  private input: Uint8Array = new Uint8Array(0);
  private pos = 0;
  private buf = 0;
  private bits = 0;
  private out = new Uint8Array(4096);
  private n = 0;
  /** Bytes the output may hold before the next write must check its room: out.length, or less under a limit. */
  private cap = 0;
  private limit = Number.POSITIVE_INFINITY;
  private readonly lengths = new Uint8Array(320);
  private readonly lengthCode = new Code();
  private readonly literal = new Code();
  private readonly distance = new Code();

  /** `input` inflated, or undefined once its output passes `limit` bytes. */
  run(input: Uint8Array, limit = Number.POSITIVE_INFINITY): Uint8Array | undefined {
    try {
      return this.inflate(input, limit);
    } catch (e) {
      if (e === TOO_LONG) return undefined;
      throw e;
    }
  }

  private inflate(input: Uint8Array, limit: number): Uint8Array {
    this.input = input;
    this.limit = limit;
    this.cap = Math.min(this.out.length, limit);
    this.pos = 0;
    this.buf = 0;
    this.bits = 0;
    this.n = 0;
    let last: number;
    do {
      last = this.take(1);
      const type = this.take(2);
      if (type === 0) this.stored();
      else if (type === 1) this.codes(fixed().literal, fixed().distance);
      else if (type === 2) this.dynamic();
      else throw corrupt('invalid block type');
    } while (last === 0);
    // Whole bytes fetched ahead but not used go back; a stream that needed more than it has is truncated.
    if (this.pos - (this.bits >>> 3) > input.length) throw corrupt('unexpected end of data');
    return this.out.slice(0, this.n);
  }

  /**
   * At least 17 bits in the buffer (at most 24: it stays a small integer); past the input's end zeros, at most 3
   * bytes of them (see inflate's last check).
   */
  private fill(): void {
    while (this.bits <= 16) {
      const at = this.pos++;
      if (at < this.input.length) this.buf |= (this.input[at] as number) << this.bits;
      else if (at >= this.input.length + 4) throw corrupt('unexpected end of data');
      this.bits += 8;
    }
  }

  private take(count: number): number {
    if (this.bits < count) this.fill();
    const v = this.buf & ((1 << count) - 1);
    this.buf >>>= count;
    this.bits -= count;
    return v;
  }

  private decode(code: Code): number {
    if (this.bits < MAX_BITS) this.fill();
    const entry = code.fast[this.buf & FAST_MASK] as number;
    if (entry !== 0) {
      const len = entry & 15;
      this.buf >>>= len;
      this.bits -= len;
      return entry >>> 4;
    }
    // Bit by bit, as RFC 1951's canonical codes allow (zlib's puff.c): first code and index of each length.
    let c = 0;
    let first = 0;
    let index = 0;
    for (let len = 1; len <= MAX_BITS; len++) {
      c |= (this.buf >>> (len - 1)) & 1;
      const count = code.count[len] as number;
      if (c - count < first) {
        this.buf >>>= len;
        this.bits -= len;
        return code.symbol[index + c - first] as number;
      }
      index += count;
      first = (first + count) << 1;
      c <<= 1;
    }
    throw corrupt('invalid code');
  }

  private room(more: number): void {
    if (this.n + more <= this.cap) return;
    if (this.n + more > this.limit) throw TOO_LONG;
    if (this.n + more > this.out.length) {
      const bigger = new Uint8Array(Math.max(this.out.length * 2, this.n + more));
      bigger.set(this.out.subarray(0, this.n));
      this.out = bigger;
    }
    this.cap = Math.min(this.out.length, this.limit);
  }

  private stored(): void {
    // To the byte boundary; whole bytes already in the buffer go back to the input.
    this.pos -= this.bits >>> 3;
    this.buf = 0;
    this.bits = 0;
    const { input, pos } = this;
    if (pos + 4 > input.length) throw corrupt('unexpected end of data');
    const len = (input[pos] as number) | ((input[pos + 1] as number) << 8);
    const nlen = (input[pos + 2] as number) | ((input[pos + 3] as number) << 8);
    if (len !== (~nlen & 0xffff)) throw corrupt('invalid stored block lengths');
    if (pos + 4 + len > input.length) throw corrupt('unexpected end of data');
    this.room(len);
    this.out.set(input.subarray(pos + 4, pos + 4 + len), this.n);
    this.n += len;
    this.pos = pos + 4 + len;
  }

  private dynamic(): void {
    const nlen = this.take(5) + 257;
    const ndist = this.take(5) + 1;
    const ncode = this.take(4) + 4;
    if (nlen > 286 || ndist > 30) throw corrupt('too many length or distance symbols');
    const { lengths } = this;
    lengths.fill(0, 0, 19);
    for (let i = 0; i < ncode; i++) lengths[ORDER[i] as number] = this.take(3);
    const lengthCode = this.lengthCode.build(lengths, 0, 19, true);
    const total = nlen + ndist;
    let i = 0;
    while (i < total) {
      const sym = this.decode(lengthCode);
      if (sym < 16) {
        lengths[i++] = sym;
        continue;
      }
      let value = 0;
      let repeat: number;
      if (sym === 16) {
        if (i === 0) throw corrupt('invalid bit length repeat');
        value = lengths[i - 1] as number;
        repeat = 3 + this.take(2);
      } else if (sym === 17) repeat = 3 + this.take(3);
      else repeat = 11 + this.take(7);
      if (i + repeat > total) throw corrupt('invalid bit length repeat');
      lengths.fill(value, i, i + repeat);
      i += repeat;
    }
    if (lengths[256] === 0) throw corrupt('missing end-of-block code');
    this.codes(this.literal.build(lengths, 0, nlen), this.distance.build(lengths, nlen, ndist));
  }

  private codes(literal: Code, distance: Code): void {
    for (;;) {
      let sym = this.decode(literal);
      if (sym < 256) {
        if (this.n === this.cap) this.room(1);
        this.out[this.n++] = sym;
        continue;
      }
      if (sym === 256) return;
      sym -= 257;
      if (sym >= 29) throw corrupt('invalid literal/length code');
      const length = (LEN_BASE[sym] as number) + this.take(LEN_EXTRA[sym] as number);
      const ds = this.decode(distance);
      if (ds >= 30) throw corrupt('invalid distance code');
      const back = (DIST_BASE[ds] as number) + this.take(DIST_EXTRA[ds] as number);
      if (back > this.n) throw corrupt('invalid distance too far back');
      this.room(length);
      const { out } = this;
      let to = this.n;
      // Byte by byte: a match may overlap what it copies (a run).
      for (let from = to - back, end = to + length; to < end; ) out[to++] = out[from++] as number;
      this.n = to;
    }
  }
}

let inflater: Inflater | undefined;

/** `bytes` inflated (raw deflate, no header) in JavaScript, or undefined once the output passes `limit` bytes. */
export function inflateSmall(bytes: Uint8Array): Uint8Array;
export function inflateSmall(bytes: Uint8Array, limit: number): Uint8Array | undefined;
export function inflateSmall(bytes: Uint8Array, limit?: number): Uint8Array | undefined {
  inflater ??= new Inflater();
  return inflater.run(bytes, limit);
}

/**
 * `bytes` inflated (raw deflate, no header). In JavaScript when that is the faster: an input under
 * SMALL_INFLATE_BELOW bytes whose first block has the fixed codes (what small-deflate.ts writes; zlib's dynamic codes
 * mean a longer input), up to SMALL_OUTPUT_MOST bytes out; by zlib otherwise, and from the start when the output
 * turns out longer (a run of zeros: 400 bytes in, 20 KB out, where JavaScript takes twice zlib's time).
 */
export function inflateRaw(bytes: Uint8Array): Uint8Array {
  if (bytes.length >= SMALL_INFLATE_BELOW || ((bytes[0] as number) & 0b110) !== 0b010) return inflateRawSync(bytes);
  return inflateSmall(bytes, SMALL_OUTPUT_MOST) ?? inflateRawSync(bytes);
}
