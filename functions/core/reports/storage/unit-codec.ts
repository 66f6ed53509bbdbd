/**
 * Ingest's cubes (units.ts) in their storage form: the columns of cube-codec.ts (reports read them alike), written
 * from micro-units, so a decimal column holds every value exactly (no tolerance) and reads back as the same units.
 * Also the forms only ingest writes:
 *
 * - `c_n` / `z_<measure>`: a month's by-video-and-slices cube keeps, per row, the facts it sums and the facts without
 *   a value per measure (units.ts UnitCube.counts / nulls). Reports never project them.
 * - segments: one day of a by-day month variant (d, gd, vd, vb) as a map `{ n, k<i>, m<j> }` (row count, the i-th
 *   dimension of the grain without `day`, the measure at MEASURE_INDEX j), kept in the month item under `s<dd>`.
 */
import { MEASURE_INDEX, MEASURES, type Measure } from '../catalog/metrics';
import {
  ByteReader,
  ByteWriter,
  CONSTANT,
  type CubeAttributes,
  column,
  concatCubes,
  DECIMAL,
  DEFLATED,
  decodeCube,
  decodeDim,
  decodeMeasure,
  decodeMeasureInto,
  dimAttribute,
  FLOAT64,
  HEADER,
  isCubeItem,
  type KeyColumn,
  LEGACY,
  littleEndian,
  MAX_VARINT_INT,
  measureAttribute,
  open,
  rowsOf,
  type StoredCube,
  VARINT,
} from './cube-codec';
import { deflateBlob } from './small-deflate';
import { type Dict, type Dicts, sliceUnits, UNIT, type UnitCube, UnitCubeBuilder, unitsOf } from './units';

export const COUNT_ATTRIBUTE = 'c_n';
export const nullsAttribute = (m: string) => `z_${m}`;

/** Decimal places a whole number of micro-units needs (0 to 6). */
function placesOf(u: number): number {
  if (u % 10 !== 0) return 6;
  if (u % UNIT === 0) return 0;
  if (u % 1e5 === 0) return 1;
  if (u % 1e4 === 0) return 2;
  if (u % 1e3 === 0) return 3;
  return u % 100 === 0 ? 4 : 5;
}

/** 10^(6 - places): the micro-units of one step at that many decimal places. */
const STEP = [1e6, 1e5, 1e4, 1e3, 100, 10, 1];
/** The largest magnitude at which `q * step` below is exact. */
const EXACT = 2 ** 52;

/**
 * Whether whole `u` is a multiple of `places`' step, without `%` (a C call per value in V8: it was a sixth of a
 * 10,000-video day's load). A yes is exact: q is whole and gives u back. A no may be wrong only above EXACT, and
 * then placesOf decides.
 */
function fitsPlaces(u: number, places: number): boolean {
  const step = STEP[places] as number;
  const q = u / step;
  return q === Math.floor(q) && q * step === u && u <= EXACT && u >= -EXACT;
}

/**
 * Writes a measure column from micro-units (NaN: null) into `out` without its coding byte, and returns the coding,
 * or undefined (nothing written) when every row is null: a constant, varint integers, or varint decimals of as
 * many places as the values need (exact: k / 10^places is the stored double).
 */
function writeUnits(out: ByteWriter, units: ArrayLike<number>): number | undefined {
  const n = units.length;
  let known = 0;
  let first = Number.NaN;
  let constant = true;
  let places = 0;
  let integral = true;
  let max = 0;
  for (let i = 0; i < n; i++) {
    const u = units[i] as number;
    if (Number.isNaN(u)) {
      constant = false;
      continue;
    }
    if (known++ === 0) first = u;
    else if (constant && u !== first) constant = false;
    if (!Number.isInteger(u)) integral = false;
    else if (places < 6 && !fitsPlaces(u, places)) {
      const p = placesOf(u);
      if (p > places) places = p;
    }
    const a = u < 0 ? -u : u;
    if (a > max) max = a;
  }
  if (known === 0) return undefined;
  if (constant) {
    out.float64(first / UNIT);
    return CONSTANT;
  }
  const divisor = 10 ** (6 - places);
  if (!integral || max / divisor > MAX_VARINT_INT) {
    const values = new Float64Array(n);
    for (let i = 0; i < n; i++) values[i] = (units[i] as number) / UNIT;
    out.bytes(littleEndian(values));
    return FLOAT64;
  }
  if (places > 0) out.byte(places);
  for (let i = 0; i < n; i++) {
    const u = units[i] as number;
    if (Number.isNaN(u)) {
      out.varint(0);
      continue;
    }
    const k = u / divisor;
    out.varint(k >= 0 ? 2 * k + 1 : -2 * k);
  }
  return places > 0 ? DECIMAL : VARINT;
}

/** A measure column (cube-codec.ts form) from micro-units, or undefined when every row is null. */
export function encodeUnits(units: ArrayLike<number>): Uint8Array | undefined {
  const out = UNITS_OUT.reset();
  const coding = writeUnits(out, units);
  if (coding === undefined) return undefined;
  // The fast level: ingest rewrites month cubes on every load, and the slower one saves a few percent.
  return column(coding, out.done(), 1, DEFLATE_FROM);
}

/** Columns smaller than this are stored as they are: a deflate call costs more than it saves on them. */
const DEFLATE_FROM = 256;

/** A stored measure column as micro-units (NaN: null). Exact for columns encodeUnits wrote. */
export function decodeUnits(bytes: Uint8Array, n: number): Float64Array {
  const { coding, payload } = open(bytes);
  if (coding === VARINT || coding === DECIMAL) {
    const out = new Float64Array(n);
    const r = new ByteReader(payload);
    const places = coding === DECIMAL ? (payload[r.at++] as number) : 0;
    const up = places <= 6 ? 10 ** (6 - places) : 0;
    const down = places > 6 ? 10 ** (places - 6) : 1;
    for (let i = 0; i < n; i++) {
      const z = r.varint();
      if (z === 0) {
        out[i] = Number.NaN;
        continue;
      }
      const k = z % 2 === 1 ? (z - 1) / 2 : -z / 2;
      out[i] = up > 0 ? k * up : Math.round(k / down);
    }
    return out;
  }
  const values = decodeMeasure(bytes, n);
  for (let i = 0; i < n; i++) {
    const v = values[i] as number;
    values[i] = Number.isNaN(v) ? v : unitsOf(v);
  }
  return values;
}

/**
 * A grain column from codes: encodeDim's form (its dictionary in order of first appearance, and each row's index),
 * deflated at the fast level when that pays (`level` 0: never, for columns inside a blob deflated whole). `dict` is any
 * dictionary the codes index: a Dict, or a stored cube's key column.
 */
export function encodeDimCodes(
  codes: ArrayLike<number>,
  dict: { readonly values: readonly string[] },
  level = 1,
): Uint8Array {
  const order: number[] = [];
  const indices = DIM_INDICES.reset();
  const size = dict.values.length;
  if (localIds.length < size) localIds = new Int32Array(Math.max(size, localIds.length * 2)).fill(-1);
  const local = localIds;
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i] as number;
    let id = local[code] as number;
    if (id < 0) {
      id = order.length;
      local[code] = id;
      order.push(code);
    }
    indices.varint(id);
  }
  const out = DIM_OUT.reset();
  out.varint(order.length);
  for (const code of order) {
    out.text(dict.values[code] as string);
    local[code] = -1;
  }
  out.bytes(indices.done());
  if (level === 0) {
    const raw = out.done();
    const bytes = new Uint8Array(raw.length + 1);
    bytes.set(raw, 1);
    return bytes;
  }
  return column(0, out.done(), level, DEFLATE_FROM);
}

// Scratch space of the encoders, reused from call to call: ingest encodes hundreds of thousands of small cubes (a
// bucket's day), and a fresh buffer each time cost more than the encoding. Each encoder copies its result out
// (column() does) before it returns, and none calls itself, so one set serves every call.
const UNITS_OUT = new ByteWriter();
const DIM_INDICES = new ByteWriter();
const DIM_OUT = new ByteWriter();
const BLOB_OUT = new ByteWriter();
const BLOB_BODY = new ByteWriter();
const BLOB_COLUMN = new ByteWriter();
/** Each dictionary code's index in the column being encoded (-1: not seen); put back to -1 after each column. */
let localIds = new Int32Array(0);

const dimColumn = (cube: UnitCube, d: number, level = 1) =>
  encodeDimCodes(cube.keys[d] as Int32Array, cube.dicts.of(cube.grain[d] as string), level);

/** A cube as item attributes: the header (grain, rows, and `extra` fields), its dimensions and measures. */
export function encodeUnitCube(cube: UnitCube, extra: Record<string, unknown> = {}): CubeAttributes {
  const attributes: CubeAttributes = { [HEADER]: JSON.stringify({ g: cube.grain, n: cube.size, ...extra }) };
  if (cube.size === 0) return attributes;
  cube.grain.forEach((d, c) => {
    attributes[dimAttribute(d)] = dimColumn(cube, c);
  });
  cube.measures.forEach((m, j) => {
    const bytes = encodeUnits(cube.sums[j] as Float64Array);
    if (bytes) attributes[measureAttribute(MEASURES[m] as string)] = bytes;
  });
  if (cube.counts) {
    attributes[COUNT_ATTRIBUTE] = encodeUnits(scaled(cube.counts)) as Uint8Array;
    cube.measures.forEach((m, j) => {
      const nulls = cube.nulls?.[j] as Float64Array;
      if (nulls.some((z) => z !== 0))
        attributes[nullsAttribute(MEASURES[m] as string)] = encodeUnits(scaled(nulls)) as Uint8Array;
    });
  }
  return attributes;
}

/** Counts as micro-units, so they share the measures' coding. */
const scaled = (counts: Float64Array) => counts.map((c) => c * UNIT);
const unscaled = (units: Float64Array) => units.map((u) => u / UNIT);

/** A stored grain column as codes into `dict`. */
function decodeDimCodes(bytes: Uint8Array, n: number, dict: Dict): Int32Array {
  const column = decodeDim(bytes, n);
  const global = column.values.map((v) => dict.code(v));
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = global[column.codes[i] as number] as number;
  return out;
}

/**
 * A stored cube in ingest's form: the measures `measures` (MEASURE_INDEX positions) as micro-units, with the
 * counts when the item has them. Items of earlier releases (row-major, or decimals within summing noise) read as
 * the nearest micro-units.
 */
export function decodeUnitCube(
  item: Readonly<Record<string, unknown>>,
  dicts: Dicts,
  measures: readonly number[],
): UnitCube {
  if (item[LEGACY] !== undefined) return fromStored(decodeCube(item), dicts, measures);
  const head = JSON.parse(String(item[HEADER])) as { g: string[]; n: number };
  const n = head.n;
  const keys = head.g.map((d) =>
    n === 0 ? new Int32Array(0) : decodeDimCodes(item[dimAttribute(d)] as Uint8Array, n, dicts.of(d)),
  );
  const sums = measures.map((m) => {
    const bytes = item[measureAttribute(MEASURES[m] as string)] as Uint8Array | undefined;
    return bytes && n > 0 ? decodeUnits(bytes, n) : new Float64Array(n).fill(Number.NaN);
  });
  const countBytes = item[COUNT_ATTRIBUTE] as Uint8Array | undefined;
  const counts = countBytes && n > 0 ? unscaled(decodeUnits(countBytes, n)) : undefined;
  const nulls = counts
    ? measures.map((m) => {
        const bytes = item[nullsAttribute(MEASURES[m] as string)] as Uint8Array | undefined;
        return bytes ? unscaled(decodeUnits(bytes, n)) : new Float64Array(n);
      })
    : undefined;
  return { grain: head.g, dicts, measures, size: n, keys, sums, ...(counts ? { counts, nulls } : {}) };
}

/** A decoded (report-form) cube as micro-units. */
export function fromStored(stored: StoredCube, dicts: Dicts, measures: readonly number[]): UnitCube {
  const out = new UnitCubeBuilder(stored.grain, dicts, measures, { capacity: stored.size });
  for (const row of rowsOf(stored)) {
    const i = out.add(row.key);
    measures.forEach((m, j) => {
      const v = row.sums[m] as number;
      out.addUnits(i, j, Number.isNaN(v) ? Number.NaN : unitsOf(v));
    });
  }
  return out.build();
}

/**
 * A day of a by-day variant as written by earlier releases: a map of fields, `n` (rows), `k<i>` (the i-th dimension
 * of the grain without `day`), `m<j>` (a measure). Days are one blob now (encodeBlob); these are still read.
 */
export const SEGMENT_ROWS = 'n';
export const segmentDim = (i: number) => `k${i}`;
export const segmentMeasure = (m: number) => `m${m}`;

/**
 * Segments (days as maps, earlier releases) of one period (their days given) as one report-form cube of `grain`
 * (which holds `day`): the day column is the segments' days; a dimension no segment was read with leaves the grain
 * (a projection), as in decodeCube.
 */
export function decodeSegments(
  grain: readonly string[],
  segments: readonly { day: string; map: Readonly<Record<string, unknown>> }[],
): StoredCube {
  const rest = grain.filter((d) => d !== 'day');
  const read = segments.filter((s) => Number(s.map[SEGMENT_ROWS] ?? 0) > 0);
  const size = read.reduce((n, s) => n + Number(s.map[SEGMENT_ROWS]), 0);
  const kept = grain.filter(
    (d) => d === 'day' || size === 0 || read.some((s) => s.map[segmentDim(rest.indexOf(d))] !== undefined),
  );
  const keys: KeyColumn[] = kept.map((d) => {
    const codes = new Uint32Array(size);
    const values: string[] = [];
    let at = 0;
    for (const s of read) {
      const n = Number(s.map[SEGMENT_ROWS]);
      if (d === 'day') {
        codes.fill(values.length, at, at + n);
        values.push(s.day);
      } else {
        const column = decodeDim(s.map[segmentDim(rest.indexOf(d))] as Uint8Array, n);
        for (let i = 0; i < n; i++) codes[at + i] = (column.codes[i] as number) + values.length;
        values.push(...column.values);
      }
      at += n;
    }
    return { values, codes };
  });
  const measures: (Float64Array | undefined)[] = MEASURES.map((_, m) => {
    if (!read.some((s) => s.map[segmentMeasure(m)] !== undefined)) return undefined;
    const out = new Float64Array(size).fill(Number.NaN);
    let at = 0;
    for (const s of read) {
      const n = Number(s.map[SEGMENT_ROWS]);
      const bytes = s.map[segmentMeasure(m)] as Uint8Array | undefined;
      if (bytes) out.set(decodeMeasure(bytes, n), at);
      at += n;
    }
    return out;
  });
  return { grain: kept, size, keys, measures };
}

/** The measure MEASURE_INDEX positions of measure names. */
export const measurePositions = (names: Iterable<Measure>): number[] =>
  [...names].map((m) => MEASURE_INDEX[m]).sort((a, b) => a - b);

/** 64 bits of FNV-1a over the attributes (names and bytes, in name order) as 12 hex digits: a cube's content id. */
export function contentGen(parts: readonly CubeAttributes[]): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  const mix = (b: number) => {
    h1 = Math.imul(h1 ^ b, 0x01000193);
    h2 = Math.imul(h2 ^ b ^ (h1 >>> 13), 0x5bd1e995);
  };
  for (const attributes of parts) {
    for (const name of Object.keys(attributes).sort()) {
      for (let i = 0; i < name.length; i++) mix(name.charCodeAt(i));
      const value = attributes[name] as string | Uint8Array;
      if (typeof value === 'string') for (let i = 0; i < value.length; i++) mix(value.charCodeAt(i));
      else for (let i = 0; i < value.length; i++) mix(value[i] as number);
    }
  }
  return ((h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0')).slice(0, 12);
}

/** Cubes of this many rows or more are measured by a sample before they are encoded (encodeToFit). */
const SAMPLE_FROM = 8192;

/**
 * `cube` encoded by `encode`, cut by rows until every piece's `size` is at most `limit`: the pieces in row order.
 * The same rows always split the same way. A cube of many rows is first measured by its first eighth (up to 8,192
 * rows) encoded. One clearly over the limit by that estimate (a by-video month: 70,000 rows, 1.4 MB) is cut at once
 * into as many runs as the estimate needs, rather than encoded whole and then halved level by level: that encoded
 * each row once per level (a 10,000-video load encoded 5.7M rows for its 3.5M; 3.8M this way) and made up to twice
 * the pieces. "Clearly": a quarter over, as a sample's estimate runs a little high (its dictionaries and deflate
 * see fewer rows: 1-7% on the bench's months), and a cube that fits whole must stay one piece. Any piece that still
 * does not fit is halved.
 */
export function encodeToFit<T>(
  cube: UnitCube,
  encode: (c: UnitCube) => T,
  size: (encoded: T) => number,
  limit: number,
): { cube: UnitCube; encoded: T }[] {
  if (cube.size >= SAMPLE_FROM) {
    const sample = Math.min(SAMPLE_FROM, Math.floor(cube.size / 8));
    const estimate = (size(encode(sliceUnits(cube, 0, sample))) / sample) * cube.size;
    if (estimate > 1.25 * limit) {
      const runs = Math.ceil(estimate / limit);
      return Array.from({ length: runs }, (_, k) =>
        halveToFit(
          sliceUnits(cube, Math.floor((k * cube.size) / runs), Math.floor(((k + 1) * cube.size) / runs)),
          encode,
          size,
          limit,
        ),
      ).flat();
    }
  }
  return halveToFit(cube, encode, size, limit);
}

function halveToFit<T>(
  cube: UnitCube,
  encode: (c: UnitCube) => T,
  size: (encoded: T) => number,
  limit: number,
): { cube: UnitCube; encoded: T }[] {
  const encoded = encode(cube);
  if (size(encoded) <= limit || cube.size < 2) return [{ cube, encoded }];
  const half = Math.ceil(cube.size / 2);
  return [
    ...halveToFit(sliceUnits(cube, 0, half), encode, size, limit),
    ...halveToFit(sliceUnits(cube, half, cube.size), encode, size, limit),
  ];
}

/**
 * One bucket's rows of one day of a grouped variant (vd, vb) as a single binary: the row count, each dimension
 * (dictionary and codes) and each measure present (its index, coding and payload), deflated when that saves an
 * eighth. A report reads a bucket's day whole (one attribute path) and decodes only the columns it needs.
 */
export function encodeBlob(cube: UnitCube, deflateFrom = DEFLATE_FROM): Uint8Array {
  const out = BLOB_OUT.reset();
  out.varint(cube.size);
  out.varint(cube.keys.length);
  for (let d = 0; d < cube.keys.length; d++) {
    const dim = dimColumn(cube, d, 0);
    // encodeDim's column: a coding byte (and maybe deflated); stored here as it is, length first.
    out.varint(dim.length);
    out.bytes(dim);
  }
  const body = BLOB_BODY.reset();
  let present = 0;
  const scratch = BLOB_COLUMN;
  cube.measures.forEach((m, j) => {
    scratch.length = 0;
    const coding = writeUnits(scratch, cube.sums[j] as Float64Array);
    if (coding === undefined) return;
    present++;
    const bytes = scratch.done();
    body.varint(m);
    body.byte(coding);
    body.varint(bytes.length);
    body.bytes(bytes);
  });
  out.varint(present);
  out.bytes(body.done());
  return column(BLOB, out.done(), 1, deflateFrom, deflateBlob);
}

/**
 * `blob` (encodeBlob's, whatever its `deflateFrom`) as encodeBlob(cube) stores it: deflated when that pays. A blob
 * made only to be decoded again (a bucket's days becoming its month cube, by-day-items.ts monthItems) is encoded with
 * no deflate, and deflated here only if it is stored after all: the same bytes either way.
 */
export function storedBlob(blob: Uint8Array): Uint8Array {
  return (blob[0] as number) & DEFLATED ? blob : column(BLOB, blob.subarray(1), 1, DEFLATE_FROM, deflateBlob);
}

/**
 * A by-day variant's day (`d`, `gd`) is deflated from this size on, not DEFLATE_FROM. A report reads such days by the
 * hundred (a year is 365) and each inflate costs a few microseconds whatever its size: on a `d` day of one row (about
 * 300 bytes) that was a tenth of a report's time, to save 150 bytes of an item read whole anyway. A bucket's day
 * (`vd`, `vb`) keeps DEFLATE_FROM: its item holds other buckets' days too, so its bytes weigh more than its inflate.
 */
export const DAY_BLOB_DEFLATE_FROM = 1024;

/** The coding byte of a blob (cube-codec.ts's column form: the deflated flag applies). */
const BLOB = 4;

/** A blob's payload (inflated when stored so), read from its row count on. */
const blobReader = (bytes: Uint8Array) => new ByteReader(open(bytes).payload);

/** Where a blob's measure column lies: its index, its coding byte and its payload `buf[from, to)`. */
type BlobMeasure = (m: number, first: number, buf: Uint8Array, from: number, to: number) => void;

/**
 * A blob's columns after its row count (`size`): the dimensions at `dims` (grain indices; all when undefined)
 * decoded into `dimsOut`, the measures in `measures` (all when undefined) handed to `measure` where they lie.
 */
function readBlob(
  r: ByteReader,
  size: number,
  dims: readonly number[] | undefined,
  measures: ReadonlySet<number> | undefined,
  dimsOut: (KeyColumn | undefined)[],
  measure: BlobMeasure,
): void {
  const payload = r.buf;
  const nk = r.varint();
  for (let i = 0; i < nk; i++) {
    const length = r.varint();
    dimsOut.push(
      dims === undefined || dims.includes(i) ? decodeDim(payload.subarray(r.at, r.at + length), size) : undefined,
    );
    r.at += length;
  }
  const present = r.varint();
  for (let i = 0; i < present; i++) {
    const m = r.varint();
    const first = payload[r.at++] as number;
    const length = r.varint();
    if (measures === undefined || measures.has(m)) measure(m, first, payload, r.at, r.at + length);
    r.at += length;
  }
}

/** A bucket-day blob, decoding the dimensions at `dims` (grain indices) and the measures in `measures` only. */
export function decodeBlob(
  bytes: Uint8Array,
  wanted: { dims?: readonly number[]; measures?: ReadonlySet<number> } = {},
): { size: number; dims: (KeyColumn | undefined)[]; measures: Map<number, Float64Array> } {
  const r = blobReader(bytes);
  const size = r.varint();
  const dims: (KeyColumn | undefined)[] = [];
  const measures = new Map<number, Float64Array>();
  readBlob(r, size, wanted.dims, wanted.measures, dims, (m, first, buf, from, to) => {
    const out = new Float64Array(size);
    decodeMeasureInto(first, buf, from, to, size, out, 0);
    measures.set(m, out);
  });
  return { size, dims, measures };
}

/**
 * Blobs of one period (their days given) as one report-form cube of `grain` (which holds `day`). Their row counts
 * first (the cube's size), then each blob's measures decoded straight into the cube's columns: a year of one video
 * or of a channel's totals is about 360 blobs, and a view, copy and array of each column of each was most of the
 * decoding's time.
 */
export function decodeBlobs(
  grain: readonly string[],
  blobs: readonly { day: string; bytes: Uint8Array }[],
  columns?: { dims: readonly string[]; measures: readonly number[] },
): StoredCube {
  const rest = grain.filter((d) => d !== 'day');
  const kept = grain.filter((d) => d === 'day' || !columns || columns.dims.includes(d));
  const dimsWanted = kept.filter((d) => d !== 'day').map((d) => rest.indexOf(d));
  const measuresWanted = columns ? new Set(columns.measures) : undefined;
  const readers = blobs.map((b) => blobReader(b.bytes));
  const sizes = readers.map((r) => r.varint());
  const size = sizes.reduce((n, rows) => n + rows, 0);
  // A measure no blob holds stays undefined; one some blobs lack is null (NaN) on their rows.
  const measures: (Float64Array | undefined)[] = MEASURES.map(() => undefined);
  // The blob being read: where its rows start in the cube, and how many it has (one callback for every blob).
  let blobStart = 0;
  let rows = 0;
  const measure: BlobMeasure = (m, first, buf, from, to) => {
    if (m >= measures.length) return;
    let out = measures[m];
    if (out === undefined) {
      out = new Float64Array(size).fill(Number.NaN);
      measures[m] = out;
    }
    decodeMeasureInto(first, buf, from, to, rows, out, blobStart);
  };
  const decoded = readers.map((r, i) => {
    rows = sizes[i] as number;
    const dims: (KeyColumn | undefined)[] = [];
    readBlob(r, rows, dimsWanted, measuresWanted, dims, measure);
    blobStart += rows;
    return { day: (blobs[i] as { day: string }).day, size: rows, dims };
  });
  const keys: KeyColumn[] = kept.map((d) => {
    const codes = new Uint32Array(size);
    const values: string[] = [];
    let at = 0;
    for (const b of decoded) {
      if (d === 'day') {
        codes.fill(values.length, at, at + b.size);
        values.push(b.day);
      } else {
        const column = b.dims[rest.indexOf(d)] as KeyColumn;
        for (let i = 0; i < b.size; i++) codes[at + i] = (column.codes[i] as number) + values.length;
        values.push(...column.values);
      }
      at += b.size;
    }
    return { values, codes };
  });
  return { grain: kept, size, keys, measures };
}

/**
 * What decodeBlobs gives for the blobs of `days` (each a day's rows, one blob a day: encodeBlob's), made from the unit
 * cubes without encoding them: a batch load's `vd` bucket-days become their month's cube (by-day-items.ts
 * monthCubeItems), and encoding each day only to decode it again took a tenth of the load. Undefined when the blobs
 * could read back otherwise: a day whose blob might pass `blobLimit` (a load splits such a day, encodeToFit), or a
 * zero of negative sign, which most codings read back as 0.
 */
export function cubeOfDays(
  grain: readonly string[],
  days: readonly { day: string; cube: UnitCube }[],
  blobLimit: number,
): StoredCube | undefined {
  const rest = grain.filter((d) => d !== 'day');
  let size = 0;
  for (const { cube } of days) {
    if (cube.grain.length !== rest.length || cube.grain.some((d, i) => d !== rest[i])) return undefined;
    size += cube.size;
  }
  // A measure no day holds stays undefined; one some days lack is null (NaN) on their rows.
  const measures: (Float64Array | undefined)[] = MEASURES.map(() => undefined);
  let at = 0;
  for (const { cube } of days) {
    for (let j = 0; j < cube.measures.length; j++) {
      const m = cube.measures[j] as number;
      const sums = cube.sums[j] as Float64Array;
      let known = false;
      for (let i = 0; i < cube.size; i++) {
        const u = sums[i] as number;
        if (Number.isNaN(u)) continue;
        if (u === 0 && 1 / u < 0) return undefined;
        known = true;
      }
      if (!known || m >= measures.length) continue;
      let out = measures[m];
      if (out === undefined) {
        out = new Float64Array(size).fill(Number.NaN);
        measures[m] = out;
      }
      // What every coding of writeUnits reads back: the units over UNIT, the double nearest the decimal.
      for (let i = 0; i < cube.size; i++) out[at + i] = (sums[i] as number) / UNIT;
    }
    at += cube.size;
  }
  // Each day's dictionary in order of first appearance (encodeDimCodes), laid end to end as decodeBlobs lays them.
  const keys: KeyColumn[] = grain.map(() => ({ values: [], codes: new Uint32Array(size) }));
  at = 0;
  for (const { day, cube } of days) {
    let text = 0;
    grain.forEach((d, c) => {
      const key = keys[c] as { values: string[]; codes: Uint32Array };
      if (d === 'day') {
        key.codes.fill(key.values.length, at, at + cube.size);
        key.values.push(day);
        return;
      }
      const codes = cube.keys[rest.indexOf(d)] as Int32Array;
      const dict = cube.dicts.of(d).values;
      const ids = new Map<number, number>();
      const base = key.values.length;
      for (let i = 0; i < cube.size; i++) {
        const code = codes[i] as number;
        let id = ids.get(code);
        if (id === undefined) {
          id = ids.size;
          ids.set(code, id);
          const value = dict[code] as string;
          key.values.push(value);
          text += 5 + 3 * value.length;
        }
        key.codes[at + i] = base + id;
      }
    });
    if (blobBound(cube, text) > blobLimit) return undefined;
    at += cube.size;
  }
  return { grain, size, keys, measures };
}

/**
 * The most bytes encodeBlob can give `cube`, its dictionaries' text taking `text`: the header, each dimension's and
 * each measure's own (index, coding, length, places), and each row's codes and values (a varint or a float64: 8
 * bytes at most).
 */
const blobBound = (cube: UnitCube, text: number) =>
  32 +
  16 * cube.keys.length +
  12 * cube.measures.length +
  cube.size * (5 * cube.keys.length + 8 * cube.measures.length) +
  text;

/** Day order of blobs and segments. */
export const byDayOf = (a: { day: string }, b: { day: string }) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0);

/**
 * A by-day month (`d`, `gd`) from its items as stored (by-day-items.ts, ingest/by-day-month-cube.ts), as readers
 * take it and as a rewrite reads it back: the cube its month item holds is the month (blobs beside it are a crash's
 * leftovers); else its days' blobs and the maps of columns of earlier releases. Undefined when it holds no row.
 * `wanted` limits the blobs' columns (a cube item or a map is read as projected).
 */
export function decodeByDayMonth(
  grain: readonly string[],
  month: string,
  items: readonly Readonly<Record<string, unknown>>[],
  wanted?: { dims: readonly string[]; measures: readonly number[] },
): StoredCube | undefined {
  const cubeItem = items.find(isCubeItem);
  if (cubeItem) {
    const cube = decodeCube(cubeItem);
    return cube.size > 0 ? cube : undefined;
  }
  const blobs: { day: string; bytes: Uint8Array }[] = [];
  const maps: { day: string; map: Record<string, unknown> }[] = [];
  for (const item of items) {
    for (const [name, value] of Object.entries(item)) {
      if (!/^s\d\d$/.test(name) || !value) continue;
      const day = `${month}-${name.slice(1)}`;
      if (value instanceof Uint8Array) blobs.push({ day, bytes: value });
      else maps.push({ day, map: value as Record<string, unknown> });
    }
  }
  const fromMaps = maps.length > 0 ? decodeSegments(grain, maps.sort(byDayOf)) : undefined;
  // A month of both (days loaded before and after the change): the blobs at the maps' grain, every dimension.
  const fromBlobs =
    blobs.length > 0 ? decodeBlobs(grain, blobs.sort(byDayOf), fromMaps ? undefined : wanted) : undefined;
  return fromBlobs && fromMaps ? concatCubes(fromBlobs, fromMaps) : (fromBlobs ?? fromMaps);
}

/**
 * Several days' blobs of one bucket as one binary (a daily variant's month item, by-day-items.ts monthItems): per
 * day its number (dd, one byte), the blob's length (varint) and the blob. The blobs keep their own coding.
 */
export function encodeDayBlobs(days: readonly { dd: string; blob: Uint8Array }[]): Uint8Array {
  const out = new ByteWriter(days.reduce((n, d) => n + d.blob.length + 4, 0));
  for (const { dd, blob } of days) {
    out.byte(Number(dd));
    out.varint(blob.length);
    out.bytes(blob);
  }
  return out.done().slice();
}

/** The blobs of encodeDayBlobs, each with its day (`month` and the day number). */
export function decodeDayBlobs(bytes: Uint8Array, month: string): { day: string; bytes: Uint8Array }[] {
  const r = new ByteReader(bytes);
  const out: { day: string; bytes: Uint8Array }[] = [];
  while (r.at < bytes.length) {
    const dd = bytes[r.at++] as number;
    const length = r.varint();
    out.push({ day: `${month}-${String(dd).padStart(2, '0')}`, bytes: bytes.subarray(r.at, r.at + length) });
    r.at += length;
  }
  return out;
}
