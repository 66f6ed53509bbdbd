/**
 * The JavaScript deflate of small inputs (functions/core/reports/storage/small-deflate.ts): whatever it is given,
 * node:zlib's inflateRawSync (what every reader uses) gives the input back; calls one after another never point into
 * an earlier input; it gives up once past its limit; and on the codec's measure columns (a blob holds them) it stays
 * close to zlib's fast level, the coder it stands in for.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { column, DEFLATED } from '../../functions/core/reports/storage/cube-codec';
import { deflateBlob, deflateSmall, SMALL_DEFLATE_BELOW } from '../../functions/core/reports/storage/small-deflate';
import { decodeUnits, encodeUnits } from '../../functions/core/reports/storage/unit-codec';
import { columnLike, EDGE_CASES, noiseOf } from '../support/deflate-inputs';

const roomy = (n: number) => 2 * n + 64;
const back = (input: Uint8Array) => {
  const packed = deflateSmall(input, roomy(input.length));
  expect(packed).toBeDefined();
  return new Uint8Array(inflateRawSync(packed as Uint8Array));
};

describe('deflateSmall', () => {
  it('round-trips the edges: nothing, one byte, every byte value, a 258-byte match and one longer', () => {
    for (const input of EDGE_CASES) expect(back(input)).toEqual(input);
  });

  it('round-trips any bytes, random or column-like, up to past the window it may point back into', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 3000 }), columnLike), (input) => {
        expect(back(input)).toEqual(input);
      }),
      { numRuns: 300 },
    );
    // Longer than deflate's 32 KB window: 20 KB of noise, 33 KB of zeros, the noise again, whose bytes were last
    // seen farther back than a match may point.
    const noise = noiseOf(20_000);
    const far = new Uint8Array(73_000);
    far.set(noise, 0);
    far.set(noise, 53_000);
    expect(back(far)).toEqual(far);
  });

  it('never points into an earlier call’s input', () => {
    fc.assert(
      fc.property(fc.array(columnLike, { minLength: 2, maxLength: 6 }), (inputs) => {
        const packed = inputs.map((x) => deflateSmall(x, roomy(x.length)) as Uint8Array);
        packed.forEach((p, i) => {
          expect(new Uint8Array(inflateRawSync(p))).toEqual(inputs[i]);
        });
      }),
      { numRuns: 100 },
    );
  });

  it('gives up past its limit, and gives the same bytes when under it', () => {
    expect(deflateSmall(noiseOf(1000), 875)).toBeUndefined();
    const runs = new Uint8Array(1000).fill(1);
    const under = deflateSmall(runs, 100) as Uint8Array;
    expect(under.length).toBeLessThanOrEqual(100);
    expect(under).toEqual(deflateSmall(runs, roomy(1000)));
  });

  it('stays within 10% of zlib’s fast level on the codec’s measure columns (what blobs hold), and column() stores it', () => {
    let ours = 0;
    let zlibs = 0;
    for (let seed = 1; seed <= 200; seed++) {
      // A column of view counts: mostly small, a few large, some repeats (a day's rows of a bucket).
      const units = Float64Array.from({ length: 20 + ((seed * 37) % 300) }, (_, i) =>
        i % 7 === 0 ? 0 : ((seed * 7_919 + i * 104_729) % (i % 5 === 0 ? 100_000 : 90)) * 1_000_000,
      );
      const encoded = encodeUnits(units) as Uint8Array;
      expect(decodeUnits(encoded, units.length)).toEqual(units);
      // The payload column() deflates: the encoded column without its coding byte, inflated if it was stored so.
      const payload =
        ((encoded[0] as number) & DEFLATED) === 0 ? encoded.subarray(1) : inflateRawSync(encoded.subarray(1));
      if (payload.length < 256 || payload.length >= SMALL_DEFLATE_BELOW) continue;
      ours += (deflateSmall(payload, roomy(payload.length)) as Uint8Array).length;
      zlibs += deflateRawSync(payload, { level: 1 }).length;
    }
    expect(zlibs).toBeGreaterThan(10_000);
    expect(ours).toBeLessThanOrEqual(zlibs * 1.1);
    // A blob's column is deflated this way under SMALL_DEFLATE_BELOW and by zlib from there; other columns by zlib.
    const payload = Uint8Array.from({ length: 600 }, (_, i) => (i % 50) + (i % 3));
    const blob = column(1, payload, 1, 48, deflateBlob);
    expect(blob[0]).toBe(1 | DEFLATED);
    expect(blob.subarray(1)).toEqual(deflateSmall(payload, roomy(600)));
    const plain = column(1, payload, 1, 48);
    expect(plain.subarray(1)).toEqual(new Uint8Array(deflateRawSync(payload, { level: 1 })));
    const large = Uint8Array.from({ length: SMALL_DEFLATE_BELOW * 2 }, (_, i) => (i % 50) + (i % 3));
    expect(column(1, large, 1, 48, deflateBlob)).toEqual(column(1, large, 1, 48));
  });
});
