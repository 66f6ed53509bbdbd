/**
 * The ingest codec's byte level (functions/core/reports/storage/cube-codec.ts ByteWriter, unit-codec.ts): varints on
 * both sides of the 2^31 fast path, strings in and out of ASCII, constants, and encoders that reuse their scratch
 * buffers giving each cube the bytes a fresh encoder would (one cube's rows never leak into the next one's), and
 * measure columns that read back exactly whatever their values' decimal places, signs and sizes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeCubeBlob } from '../../functions/core/reports/storage/cube-blob';
import {
  ByteReader,
  ByteWriter,
  type KeyColumn,
  type StoredCube,
} from '../../functions/core/reports/storage/cube-codec';
import {
  cubeOfDays,
  decodeBlob,
  decodeBlobs,
  decodeUnits,
  encodeBlob,
  encodeToFit,
  encodeUnits,
  storedBlob,
} from '../../functions/core/reports/storage/unit-codec';
import { Dicts, type UnitCube, UnitCubeBuilder } from '../../functions/core/reports/storage/units';

describe('ByteWriter', () => {
  it('writes varints that read back on both sides of 2^31 and up to 2^53', () => {
    const values = [
      0,
      1,
      127,
      128,
      16_383,
      16_384,
      2 ** 31 - 1,
      2 ** 31,
      2 ** 31 + 1,
      2 ** 32 - 1,
      2 ** 32,
      2 ** 50 + 3,
    ];
    values.push(2 ** 53 - 1);
    const out = new ByteWriter(4);
    for (const v of values) out.varint(v);
    const r = new ByteReader(out.done());
    expect(values.map(() => r.varint())).toEqual(values);
    expect(r.at).toBe(out.length);
  });

  it('writes 2^31 - 1 in five bytes and 127 in one, as seven bits a byte', () => {
    const out = new ByteWriter();
    out.varint(127);
    expect(out.length).toBe(1);
    out.varint(2 ** 31 - 1);
    expect([...out.done().subarray(1)]).toEqual([0xff, 0xff, 0xff, 0xff, 0x07]);
  });

  it('writes text as its UTF-8 length and bytes, ASCII or not', () => {
    const texts = ['', 'US', 'pq0001', 'Zürich', '東京', 'emoji 🎬', 'a'.repeat(300)];
    const out = new ByteWriter(2);
    for (const t of texts) out.text(t);
    const bytes = out.done();
    const r = new ByteReader(bytes);
    const back = texts.map(() => {
      const n = r.varint();
      const s = Buffer.from(bytes.subarray(r.at, r.at + n)).toString('utf8');
      r.at += n;
      return s;
    });
    expect(back).toEqual(texts);
  });

  it('writes a float64 in little-endian order', () => {
    const out = new ByteWriter();
    out.float64(-1234.5);
    expect(Buffer.from(out.done()).readDoubleLE(0)).toBe(-1234.5);
    out.reset();
    expect(out.length).toBe(0);
  });
});

/** A cube of `rows` rows over video × country with views and watch minutes (micro-units), from a seed. */
function cube(dicts: Dicts, seed: number, rows: number): UnitCube {
  const b = new UnitCubeBuilder(['video', 'country'], dicts, [0, 1]);
  let s = seed;
  const next = () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s;
  };
  for (let i = 0; i < rows; i++) {
    const row = b.add([`v${next() % 500}`, ['US', 'DE', 'Ωland', 'JP'][next() % 4] as string]);
    b.addUnits(row, 0, (next() % 1000) * 1e6);
    b.addUnits(row, 1, next() % 3 === 0 ? Number.NaN : next() * 1000 + 7);
  }
  return b.build();
}

/** The rows of a decoded cube as text: each kept dimension's value and every measure slot (undefined, NaN or value). */
function cubeRows(c: StoredCube): string[] {
  return Array.from({ length: c.size }, (_, i) =>
    [
      ...c.keys.map((k) => k.values[k.codes[i] as number]),
      ...c.measures.map((m) => (m === undefined ? '-' : String(m[i]))),
    ].join('|'),
  );
}

describe('decodeBlobs', () => {
  it('equals each blob decoded on its own and laid end to end, whatever the measures, deflate and columns', () => {
    const columnChoices = [
      undefined,
      { dims: ['day', 'country'], measures: [1] },
      { dims: ['video'], measures: [0, 1] },
      { dims: [], measures: [0, 5] },
    ];
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            seed: fc.integer({ min: 1, max: 1e6 }),
            rows: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constant(2000)),
            minutes: fc.boolean(),
            deflateFrom: fc.constantFrom(1, 1 << 20),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        fc.integer({ min: 0, max: columnChoices.length - 1 }),
        (specs, choice) => {
          const dicts = new Dicts();
          const blobs = specs.map((spec, i) => {
            const c = cube(dicts, spec.seed, spec.rows);
            // A blob without watch minutes: the measure is absent from it, and null on its rows in the month.
            if (!spec.minutes) (c.sums[1] as Float64Array).fill(Number.NaN);
            return { day: `2026-01-${String(i + 1).padStart(2, '0')}`, bytes: encodeBlob(c, spec.deflateFrom) };
          });
          const columns = columnChoices[choice];
          const grain = ['day', 'video', 'country'];
          const got = decodeBlobs(grain, blobs, columns);
          // The reference: decodeBlob one blob at a time.
          const kept = grain.filter((d) => d === 'day' || !columns || columns.dims.includes(d));
          const each = blobs.map((b) => ({
            day: b.day,
            ...decodeBlob(b.bytes, columns ? { measures: new Set(columns.measures) } : {}),
          }));
          const anyHas = (m: number) => each.some((b) => b.measures.has(m));
          const expected = each.flatMap((b) =>
            Array.from({ length: b.size }, (_, i) =>
              [
                ...kept.map((d) => {
                  if (d === 'day') return b.day;
                  const k = b.dims[grain.indexOf(d) - 1] as KeyColumn;
                  return k.values[k.codes[i] as number];
                }),
                ...got.measures.map((_, m) => (anyHas(m) ? String(b.measures.get(m)?.[i] ?? Number.NaN) : '-')),
              ].join('|'),
            ),
          );
          expect(got.grain).toEqual(kept);
          expect(cubeRows(got)).toEqual(expected);
          expect(got.measures.filter(Boolean).length).toBe(got.measures.filter((_, m) => anyHas(m)).length);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('storedBlob', () => {
  it('gives a blob encoded without deflate the bytes encodeBlob stores, and leaves a stored blob as it is', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1e6 }),
        // From a row (far under the size deflate starts at) to thousands (deflated with zlib).
        fc.oneof(fc.integer({ min: 1, max: 60 }), fc.constant(3000)),
        fc.boolean(),
        (seed, rows, minutes) => {
          const c = cube(new Dicts(), seed, rows);
          if (!minutes) (c.sums[1] as Float64Array).fill(Number.NaN);
          const stored = encodeBlob(c);
          const transient = encodeBlob(c, Number.POSITIVE_INFINITY);
          expect(storedBlob(transient)).toEqual(stored);
          expect(storedBlob(stored)).toEqual(stored);
          expect(decodeBlob(transient)).toEqual(decodeBlob(stored));
        },
      ),
      { numRuns: 30 },
    );
  });

  it('deflates a large blob that came undeflated (the case where stored and transient differ)', () => {
    const c = cube(new Dicts(), 7, 3000);
    const transient = encodeBlob(c, Number.POSITIVE_INFINITY);
    expect(storedBlob(transient).length).toBeLessThan(transient.length);
  });
});

describe('encoders reusing their scratch buffers', () => {
  it('give each cube the bytes it gets when encoded first, and decode back to its rows', () => {
    const dicts = new Dicts();
    const cubes = [cube(dicts, 1, 5), cube(dicts, 2, 3000), cube(dicts, 3, 1), cube(dicts, 4, 40)];
    const inOrder = cubes.map((c) => encodeBlob(c));
    // Each encoded again after a large one, in reverse: the same bytes.
    for (let i = cubes.length - 1; i >= 0; i--) {
      encodeBlob(cubes[1] as UnitCube);
      expect(encodeBlob(cubes[i] as UnitCube)).toEqual(inOrder[i]);
    }
    for (const [i, c] of cubes.entries()) {
      const back = decodeBlob(inOrder[i] as Uint8Array);
      expect(back.size).toBe(c.size);
      for (let d = 0; d < 2; d++) {
        const column = back.dims[d];
        const dict = dicts.of(c.grain[d] as string);
        const values = Array.from(column?.codes ?? [], (code) => column?.values[code]);
        expect(values).toEqual(Array.from(c.keys[d] as Int32Array, (code) => dict.values[code]));
      }
      expect(Array.from(back.measures.get(0) ?? [], (v) => v * 1e6)).toEqual(Array.from(c.sums[0] as Float64Array));
    }
  });

  it('keep a measure column exact after a longer one used the buffer (constant, integers, decimals)', () => {
    const long = Float64Array.from({ length: 5000 }, (_, i) => i * 1_234_567);
    const columns = [Float64Array.of(5e6, 5e6, 5e6), Float64Array.of(1e6, Number.NaN, 3e6), Float64Array.of(1.5e6, 2)];
    for (const units of columns) {
      encodeUnits(long);
      const bytes = encodeUnits(units) as Uint8Array;
      expect(Array.from(decodeUnits(bytes, units.length))).toEqual(Array.from(units));
    }
    expect(encodeUnits(Float64Array.of(Number.NaN, Number.NaN))).toBeUndefined();
  });

  it('write a dictionary column whose values read back after many columns of a large dictionary', () => {
    const dicts = new Dicts();
    const big = cube(dicts, 9, 4000);
    encodeBlob(big);
    const small = cube(dicts, 10, 2);
    const blob = decodeBlob(encodeBlob(small), { dims: [0] });
    const column = blob.dims[0];
    expect(column).toBeDefined();
    const dict = dicts.of('video');
    expect(Array.from(column?.codes ?? [], (code) => column?.values[code])).toEqual(
      Array.from(small.keys[0] as Int32Array, (code) => dict.values[code]),
    );
    // Its dictionary holds only the small cube's values, not the large one's.
    expect(column?.values.length).toBeLessThanOrEqual(2);
  });
});

describe('encodeUnits', () => {
  // A value with `places` decimals in micro-units: a whole multiple of 10^(6 - places); any whole number of micro-units
  // up to 2^50 (the varint range); and whole units around 2^52 micro-units, where the places test without `%` must
  // leave the decision to the exact one (past 2^50 a column is stored as float64 units, exact for whole units).
  const unit = fc.oneof(
    fc
      .tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: -2_000_000_000, max: 2_000_000_000 }))
      .map(([places, k]) => k * 10 ** (6 - places)),
    fc.double({ min: -(2 ** 50), max: 2 ** 50, noNaN: true }).map((x) => Math.round(x) + 0),
    fc.integer({ min: -1000, max: 1000 }).map((d) => (Math.round(2 ** 52 / 1e6) + d) * 1e6),
    fc.constant(Number.NaN),
  );

  it('reads every column back exactly: nulls, constants, integers, decimals of 1 to 6 places, floats', () => {
    fc.assert(
      fc.property(fc.array(unit, { minLength: 1, maxLength: 40 }), (values) => {
        const units = Float64Array.from(values);
        const bytes = encodeUnits(units);
        if (values.every(Number.isNaN)) expect(bytes).toBeUndefined();
        else expect(Array.from(decodeUnits(bytes as Uint8Array, units.length))).toEqual(Array.from(units));
      }),
      { numRuns: 2000 },
    );
  });

  it('stores a column at the fewest decimal places its values need', () => {
    // Coding byte, then for decimals the places: 2 places take one byte fewer per value than 6 would.
    const cents = encodeUnits(Float64Array.from({ length: 50 }, (_, i) => (i + 1) * 10_000 + 1e9)) as Uint8Array;
    const micros = encodeUnits(Float64Array.from({ length: 50 }, (_, i) => (i + 1) * 10_000 + 1e9 + 1)) as Uint8Array;
    expect(cents.length).toBeLessThan(micros.length);
  });
});

describe('encodeToFit', () => {
  // A cube of 60,000 distinct rows in key order, as a month's by-video cube reaches the writer.
  const dicts = new Dicts();
  const b = new UnitCubeBuilder(['video', 'country'], dicts, [0, 1]);
  for (let v = 0; v < 15_000; v++)
    for (const c of ['DE', 'JP', 'US', 'ZA']) {
      const row = b.add([`v${String(v).padStart(6, '0')}`, c]);
      b.addUnits(row, 0, ((v * 7919 + c.charCodeAt(0)) % 5000) * 1e6);
      b.addUnits(row, 1, (v * 104_729 + c.charCodeAt(1)) % 9_000_000_007);
    }
  const large = b.build();
  const limit = 64 * 1024;
  const fitted = () => {
    let encodedRows = 0;
    const pieces = encodeToFit(
      large,
      (c) => {
        encodedRows += c.size;
        return encodeBlob(c);
      },
      (bytes) => bytes.length,
      limit,
    );
    return { pieces, encodedRows };
  };
  const whole = encodeBlob(large).length;

  it('cuts a cube far over the limit into pieces that fit, every row once and in order', () => {
    expect(whole).toBeGreaterThan(4 * limit); // else the test proves nothing
    const { pieces } = fitted();
    expect(pieces.length).toBeGreaterThan(1);
    for (const p of pieces) expect(p.encoded.length).toBeLessThanOrEqual(limit);
    const rows = pieces.flatMap((p) => {
      const back = decodeBlob(p.encoded);
      const videos = back.dims[0];
      const countries = back.dims[1];
      return Array.from(
        { length: back.size },
        (_, i) => `${videos?.values[videos.codes[i] as number]}|${countries?.values[countries.codes[i] as number]}`,
      );
    });
    const expected = Array.from(
      { length: large.size },
      (_, i) =>
        `${dicts.of('video').values[large.keys[0]?.[i] as number]}|${dicts.of('country').values[large.keys[1]?.[i] as number]}`,
    );
    expect(rows).toEqual(expected);
    // Close to the fewest pieces the bytes need (the cut leaves a fifth to spare; halving would double at worst).
    expect(pieces.length).toBeLessThanOrEqual(Math.ceil((whole / limit) * 1.5));
  });

  it('encodes each row about once: measured by a sample, not encoded whole and halved level by level', () => {
    const { encodedRows } = fitted();
    // Halving from the whole cube encodes every row once per level: here at least three times.
    expect(encodedRows).toBeLessThan(1.5 * large.size);
  });

  it('cuts the same rows the same way every time', () => {
    const a = fitted().pieces.map((p) => p.cube.size);
    const b = fitted().pieces.map((p) => p.cube.size);
    expect(a).toEqual(b);
  });

  it('encodes a cube that fits whole as one piece', () => {
    const small = encodeToFit(large, encodeBlob, (bytes) => bytes.length, whole + 1);
    expect(small).toHaveLength(1);
    expect(small[0]?.cube.size).toBe(large.size);
  });
});

describe('cubeOfDays', () => {
  const grain = ['day', 'video', 'country'];
  const day = (i: number) => `2026-01-${String(i + 1).padStart(2, '0')}`;
  /** What a load made of the same days before: each day's blob, undeflated, decoded again. */
  const viaBlobs = (days: { day: string; cube: UnitCube }[]) =>
    decodeBlobs(
      grain,
      days.map((d) => ({ day: d.day, bytes: encodeBlob(d.cube, Number.POSITIVE_INFINITY) })),
    );

  it("gives the cube decodeBlobs reads from the days' blobs, and the same month cube bytes", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            seed: fc.integer({ min: 1, max: 1e6 }),
            rows: fc.integer({ min: 0, max: 60 }),
            minutes: fc.boolean(),
            constant: fc.boolean(),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        (specs) => {
          const dicts = new Dicts();
          const days = specs.map((spec, i) => {
            const c = cube(dicts, spec.seed, spec.rows);
            // A day without watch minutes (absent from its blob), or with one value in every row (a constant column).
            if (!spec.minutes) (c.sums[1] as Float64Array).fill(Number.NaN);
            if (spec.constant) (c.sums[0] as Float64Array).fill(1_500_000);
            return { day: day(i), cube: c };
          });
          const direct = cubeOfDays(grain, days, 1 << 20);
          const expected = viaBlobs(days);
          expect(direct).toEqual(expected);
          expect(encodeCubeBlob(direct as StoredCube)).toEqual(encodeCubeBlob(expected));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('declines a day whose blob might pass the limit, and a zero of negative sign', () => {
    const dicts = new Dicts();
    const days = [0, 1].map((i) => ({ day: day(i), cube: cube(dicts, 11 + i, 20) }));
    const largest = Math.max(...days.map((d) => encodeBlob(d.cube, Number.POSITIVE_INFINITY).length));
    expect(cubeOfDays(grain, days, largest - 1)).toBeUndefined();
    expect(cubeOfDays(grain, days, 1 << 20)).toEqual(viaBlobs(days));
    (days[1]?.cube.sums[0] as Float64Array)[3] = -0;
    expect(cubeOfDays(grain, days, 1 << 20)).toBeUndefined();
  });
});
