/**
 * The JavaScript inflate of small inputs (functions/core/reports/storage/small-inflate.ts), against node:zlib, the
 * inflate it stands in for: whatever zlib or small-deflate.ts wrote (stored, fixed and dynamic blocks, one or many)
 * reads back as the input; on damaged bytes it throws where zlib throws and otherwise gives what zlib gives; and
 * inflateRaw hands long inputs to zlib. The codec's own tests read every stored column through it.
 */
import { constants, deflateRawSync, inflateRawSync, type ZlibOptions } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deflateSmall } from '../../functions/core/reports/storage/small-deflate';
import {
  inflateRaw,
  inflateSmall,
  SMALL_INFLATE_BELOW,
  SMALL_OUTPUT_MOST,
} from '../../functions/core/reports/storage/small-inflate';
import { columnLike, EDGE_CASES, noiseOf } from '../support/deflate-inputs';

/** Every way zlib codes a block: stored (level 0), fast and best LZ77 with dynamic codes, fixed codes, no LZ77, runs. */
const WRITERS: readonly ZlibOptions[] = [
  { level: 0 },
  { level: 1 },
  { level: 6 },
  { level: 9 },
  { level: 6, strategy: constants.Z_FIXED },
  { level: 6, strategy: constants.Z_HUFFMAN_ONLY },
  { level: 6, strategy: constants.Z_RLE },
];

/** What zlib makes of `bytes`: its output, or that it threw. */
function zlibOf(bytes: Uint8Array): Uint8Array | 'throws' {
  try {
    return new Uint8Array(inflateRawSync(bytes));
  } catch {
    return 'throws';
  }
}

function oursOf(bytes: Uint8Array): Uint8Array | 'throws' {
  try {
    return inflateSmall(bytes);
  } catch (e) {
    expect((e as Error).message).toMatch(/^invalid deflate data: /);
    return 'throws';
  }
}

describe('inflateSmall', () => {
  it('reads back the edges from every writer: nothing, one byte, every byte value, long runs, a pattern', () => {
    for (const input of EDGE_CASES) {
      for (const options of WRITERS) expect(inflateSmall(deflateRawSync(input, options))).toEqual(input);
      expect(inflateSmall(deflateSmall(input, 2 * input.length + 64) as Uint8Array)).toEqual(input);
    }
  });

  it('reads any bytes back, random or column-like, whoever deflated them', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.uint8Array({ maxLength: 3000 }), columnLike),
        fc.constantFrom(...WRITERS),
        (input, options) => {
          expect(inflateSmall(deflateRawSync(input, options))).toEqual(input);
          expect(inflateSmall(deflateSmall(input, 2 * input.length + 64) as Uint8Array)).toEqual(input);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads streams of many blocks, and matches that reach back across them', () => {
    // Stored blocks hold at most 65,535 bytes; zlib ends a coded block every 16K symbols or so.
    const noise = noiseOf(150_000);
    const mixed = new Uint8Array(200_000);
    for (let i = 0; i < mixed.length; i += 1000) mixed.set(noise.subarray(i % 20_000, (i % 20_000) + 500), i);
    for (const input of [noise, mixed]) {
      for (const options of WRITERS) {
        // Compared as Buffers: vitest's deep equality walks 200,000 elements slowly.
        expect(Buffer.from(inflateSmall(deflateRawSync(input, options))).equals(input)).toBe(true);
      }
    }
  });

  it('gives each call its own bytes: an answer is not overwritten by the next inflate', () => {
    const a = Uint8Array.from({ length: 300 }, (_, i) => i % 17);
    const b = Uint8Array.from({ length: 300 }, (_, i) => i % 5);
    const first = inflateSmall(deflateRawSync(a));
    inflateSmall(deflateRawSync(b));
    expect(first).toEqual(a);
  });

  it('throws on every truncation of a stream, as zlib does', () => {
    for (const options of WRITERS) {
      const packed = deflateRawSync(
        Uint8Array.from({ length: 700 }, (_, i) => (i * 31) % 97),
        options,
      );
      for (let n = 0; n < packed.length; n++) {
        const cut = packed.subarray(0, n);
        expect(zlibOf(cut), `zlib, ${n} of ${packed.length} bytes`).toBe('throws');
        expect(oursOf(cut), `${n} of ${packed.length} bytes, ${JSON.stringify(options)}`).toBe('throws');
      }
    }
  });

  it('agrees with zlib on damaged streams: it throws where zlib throws, and otherwise gives the same bytes', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 600 }), columnLike),
        fc.constantFrom(...WRITERS),
        fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
        (input, options, flips) => {
          const damaged = new Uint8Array(deflateRawSync(input, options));
          for (const f of flips)
            damaged[(f >>> 3) % damaged.length] = (damaged[(f >>> 3) % damaged.length] as number) ^ (1 << (f & 7));
          expect(oursOf(damaged)).toEqual(zlibOf(damaged));
        },
      ),
      { numRuns: 2000 },
    );
    // Bytes no deflate wrote.
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        expect(oursOf(bytes)).toEqual(zlibOf(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses what RFC 1951 forbids, with zlib’s reasons', () => {
    // A block of type 3; a stored block whose length's complement does not match; a match before any output.
    expect(() => inflateSmall(Uint8Array.of(0b111))).toThrow('invalid block type');
    expect(() => inflateSmall(Uint8Array.of(0b001, 4, 0, 0, 0, 1, 2, 3, 4))).toThrow('invalid stored block lengths');
    // Fixed codes: 0000001 is length 3 (symbol 257), then distance code 00000 (distance 1) with nothing written yet.
    expect(() => inflateSmall(Uint8Array.of(0b0000_0011, 0b0000_0010, 0))).toThrow('too far back');
  });
});

describe('inflateRaw', () => {
  // zlib's answer is a Buffer, the JavaScript one a plain Uint8Array: that is how to tell which one answered.
  const byZlib = (packed: Uint8Array) => {
    const out = inflateRaw(packed);
    expect(Buffer.from(out).equals(inflateRawSync(packed))).toBe(true);
    return Buffer.isBuffer(out);
  };

  it('inflates a short input of fixed codes with a short output in JavaScript, with zlib’s answer', () => {
    const blob = deflateSmall(
      Uint8Array.from({ length: 400 }, (_, i) => (i * i) % 23),
      1000,
    ) as Uint8Array;
    expect(blob.length).toBeLessThan(SMALL_INFLATE_BELOW);
    expect(((blob[0] as number) >> 1) & 3).toBe(1);
    expect(byZlib(blob)).toBe(false);
  });

  it('leaves to zlib a long input, dynamic codes, a stored block, and an output past SMALL_OUTPUT_MOST', () => {
    const long = deflateRawSync(noiseOf(2000), { level: 0 });
    expect(long.length).toBeGreaterThanOrEqual(SMALL_INFLATE_BELOW);
    expect(byZlib(long)).toBe(true);
    const dynamic = deflateRawSync(
      Uint8Array.from({ length: 3000 }, (_, i) => ((i * 7) % 11 < 9 ? 0 : i % 5)),
      { level: 9 },
    );
    expect(dynamic.length).toBeLessThan(SMALL_INFLATE_BELOW);
    expect(((dynamic[0] as number) >> 1) & 3).toBe(2);
    expect(byZlib(dynamic)).toBe(true);
    expect(byZlib(deflateRawSync(Uint8Array.of(1, 2, 3), { level: 0 }))).toBe(true);
    // Fixed codes, a short input, a long output: JavaScript stops at the limit and zlib answers.
    const zeros = deflateSmall(new Uint8Array(SMALL_OUTPUT_MOST + 1), 1000) as Uint8Array;
    expect(zeros.length).toBeLessThan(SMALL_INFLATE_BELOW);
    expect(inflateSmall(zeros, SMALL_OUTPUT_MOST)).toBeUndefined();
    expect(inflateSmall(zeros, SMALL_OUTPUT_MOST + 1)).toEqual(new Uint8Array(SMALL_OUTPUT_MOST + 1));
    expect(byZlib(zeros)).toBe(true);
    expect(byZlib(deflateSmall(new Uint8Array(SMALL_OUTPUT_MOST), 1000) as Uint8Array)).toBe(false);
  });
});
