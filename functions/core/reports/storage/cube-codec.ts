/**
 * The storage form of a fact cube: one item attribute per column, so a report reads only the columns it uses
 * (a ProjectionExpression) and decodes only those. DynamoDB's read cost follows the item size, but the bytes
 * sent and decoded follow the projection, and most reports use two to four of a family's twenty-odd measures.
 *
 * - `h`: the header, JSON `{ "g": grain, "n": row count }`, plus `"c": chunks` in the first of a cube's chunks.
 * - `k_<dimension>`: one grain column: a dictionary of its distinct values and one index per row (varints).
 * - `m_<measure>`: one measure column, by name (a cube written before a measure existed decodes it as null):
 *   a constant, varint integers (most measures are counts), decimals (watch minutes, revenue: varint multiples of
 *   10^-scale) or float64, with NaN / 0 standing for null.
 * Columns are deflated when that makes them clearly smaller; the first byte says how a column is stored.
 * Items written by earlier releases (one `cube` attribute, row-major) still decode (decodeRowMajor).
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { MEASURE_INDEX, MEASURES, type Measure } from '../catalog/metrics';
import type { Cube, CubeRow, GrainDim } from './cube';
import { inflateRaw } from './small-inflate';
import { gather } from './units';

export type CubeAttributes = Record<string, string | Uint8Array>;

/**
 * A cube as read: by column, so a report's loop touches only the columns it uses and decoding allocates a few
 * arrays, not one per row.
 */
export interface StoredCube {
  readonly grain: readonly GrainDim[];
  readonly size: number;
  /** Per grain dimension: its values, and each row's position among them. */
  readonly keys: readonly KeyColumn[];
  /** Per measure (MEASURES order), each row's sum (NaN: null); undefined when not stored or not read. */
  readonly measures: readonly (Float64Array | undefined)[];
}

/**
 * One grain column as stored: the distinct values and, per row, the position of the row's value among them. A
 * reader decides a filter or a group once per value, not once per row.
 */
export interface KeyColumn {
  readonly values: readonly string[];
  readonly codes: Uint32Array;
}

/** The columns a reader needs; absent: all of them. */
export interface CubeColumns {
  readonly dims: readonly GrainDim[];
  readonly measures: readonly Measure[];
}

export const HEADER = 'h';
/** On a month's flat cube and its pieces: the compaction it belongs to (month-pieces.ts). */
export const PIECE_BASE = 'pb';
export const LEGACY = 'cube';
export const dimAttribute = (d: GrainDim) => `k_${d}`;
export const measureAttribute = (m: string) => `m_${m}`;

// First byte of a column: its coding, plus DEFLATED when the rest is deflated.
export const CONSTANT = 0;
export const VARINT = 1;
export const FLOAT64 = 2;
export const DECIMAL = 3;
export const DEFLATED = 0x80;
/** Below this many bytes deflate rarely pays for its call. */
const DEFLATE_FROM = 48;
/** Deflated only when that saves at least this share: every read of a deflated column pays for an inflate call. */
const DEFLATE_GAIN = 1 / 8;
/** Integers up to this size are stored as varints (zigzag doubles them; 2^53 is the safe limit). */
export const MAX_VARINT_INT = 2 ** 50;
/** Decimals have at most this many places (the exports' watch minutes have six, revenue two). */
const MAX_SCALE = 9;
/**
 * How far a float may lie from its decimal and still count as that decimal: the noise of summing decimals in
 * binary floating point (n additions err by at most n·2^-53 relative; this allows ~10^5).
 */
const SUM_NOISE = 2 ** -36;

export class ByteWriter {
  private buf: Uint8Array;
  length = 0;
  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
  }
  private room(n: number) {
    if (this.length + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }
  byte(b: number) {
    this.room(1);
    this.buf[this.length++] = b;
  }
  /** A non-negative integer up to 2^53, seven bits a byte. */
  varint(value: number) {
    this.room(8);
    let x = value;
    // Above 2^31 the bit operators would truncate; below it (nearly every value) they are the fast path.
    while (x > 0x7fffffff) {
      this.buf[this.length++] = (x % 128) | 128;
      x = Math.floor(x / 128);
    }
    while (x >= 128) {
      this.buf[this.length++] = (x & 127) | 128;
      x >>>= 7;
    }
    this.buf[this.length++] = x;
  }
  bytes(b: Uint8Array) {
    this.room(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }
  /** A string as its UTF-8 length (varint) and bytes. */
  text(s: string) {
    const n = s.length;
    let ascii = true;
    for (let i = 0; i < n && ascii; i++) ascii = s.charCodeAt(i) < 128;
    if (!ascii) {
      const utf8 = Buffer.from(s, 'utf8');
      this.varint(utf8.length);
      this.bytes(utf8);
      return;
    }
    this.varint(n);
    this.room(n);
    for (let i = 0; i < n; i++) this.buf[this.length++] = s.charCodeAt(i);
  }
  /** The writer's float64 in little-endian order (the platform's own on every platform Lambda runs). */
  float64(value: number) {
    SCRATCH_F64[0] = value;
    if (LITTLE_ENDIAN) this.bytes(SCRATCH_F64_BYTES);
    else this.bytes(littleEndian(SCRATCH_F64));
  }
  done(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
  /** Empties the writer for reuse (what done() returned is then overwritten). */
  reset(): this {
    this.length = 0;
    return this;
  }
}

const SCRATCH_F64 = new Float64Array(1);
const SCRATCH_F64_BYTES = new Uint8Array(SCRATCH_F64.buffer);

export class ByteReader {
  at = 0;
  constructor(readonly buf: Uint8Array) {}
  varint(): number {
    let x = 0;
    let mul = 1;
    let b: number;
    do {
      b = this.buf[this.at++] as number;
      x += (b & 127) * mul;
      mul *= 128;
    } while (b & 128);
    return x;
  }
}

/** Deflates `payload`, or gives up (undefined) once its output would pass `most` bytes. */
export type Deflater = (payload: Uint8Array, most: number) => Uint8Array | undefined;

/**
 * `coding` then `payload`, deflated when that is smaller (tried from `from` bytes on), by zlib at `level` or by
 * `deflate` (bucket-day blobs: small-deflate.ts).
 */
export function column(
  coding: number,
  payload: Uint8Array,
  level = 6,
  from = DEFLATE_FROM,
  deflate?: Deflater,
): Uint8Array {
  let body = payload;
  let flag = 0;
  if (payload.length >= from) {
    const most = Math.floor(payload.length * (1 - DEFLATE_GAIN));
    const packed = deflate ? deflate(payload, most) : deflateRawSync(payload, { level });
    if (packed && packed.length <= most) {
      body = packed;
      flag = DEFLATED;
    }
  }
  const out = new Uint8Array(body.length + 1);
  out[0] = coding | flag;
  out.set(body, 1);
  return out;
}

/** The coding and the payload of a stored column. */
export function open(bytes: Uint8Array): { coding: number; payload: Uint8Array } {
  const first = bytes[0] as number;
  const rest = bytes.subarray(1);
  return { coding: first & ~DEFLATED, payload: first & DEFLATED ? inflateRaw(rest) : rest };
}

/** A grain column: its values' dictionary (in order of first appearance) and each row's index in it. */
export function encodeDim(values: readonly string[]): Uint8Array {
  const ids = new Map<string, number>();
  const indices = new ByteWriter();
  for (const value of values) {
    let id = ids.get(value);
    if (id === undefined) {
      id = ids.size;
      ids.set(value, id);
    }
    indices.varint(id);
  }
  const out = new ByteWriter();
  out.varint(ids.size);
  for (const value of ids.keys()) {
    const utf8 = Buffer.from(value, 'utf8');
    out.varint(utf8.length);
    out.bytes(utf8);
  }
  out.bytes(indices.done());
  return column(0, out.done());
}

export function decodeDim(bytes: Uint8Array, n: number): KeyColumn {
  const { payload } = open(bytes);
  const r = new ByteReader(payload);
  const count = r.varint();
  const values: string[] = new Array(count);
  const text = Buffer.from(payload.buffer, payload.byteOffset, payload.length);
  const starts = new Uint32Array(count);
  const ends = new Uint32Array(count);
  const begin = r.at;
  for (let i = 0; i < count; i++) {
    const length = r.varint();
    starts[i] = r.at;
    r.at += length;
    ends[i] = r.at;
  }
  // Ids are ASCII: then the dictionary becomes text once and is cut, rather than decoded value by value.
  let ascii = true;
  for (let i = begin; i < r.at && ascii; i++) ascii = (payload[i] as number) < 0x80;
  const whole = ascii ? text.toString('latin1', begin, r.at) : '';
  for (let i = 0; i < count; i++) {
    const [from, to] = [starts[i] as number, ends[i] as number];
    values[i] = ascii ? whole.substring(from - begin, to - begin) : text.toString('utf8', from, to);
  }
  const codes = new Uint32Array(n);
  for (let i = 0; i < n; i++) codes[i] = r.varint();
  return { values, codes };
}

/** A column of plain values as a key column. */
function keyColumn(cells: readonly string[]): KeyColumn {
  const at = new Map<string, number>();
  const codes = new Uint32Array(cells.length);
  cells.forEach((value, i) => {
    let code = at.get(value);
    if (code === undefined) {
      code = at.size;
      at.set(value, code);
    }
    codes[i] = code;
  });
  return { values: [...at.keys()], codes };
}

/** A measure column, or undefined when no row has a value (the column is left out: null everywhere). */
function encodeMeasure(rows: readonly CubeRow[], j: number): Uint8Array | undefined {
  const n = rows.length;
  const values = new Float64Array(n);
  let known = 0;
  let integers = true;
  let constant = true;
  let first = Number.NaN;
  for (let i = 0; i < n; i++) {
    const v = (rows[i] as CubeRow).sums[j];
    const x = v === null || v === undefined ? Number.NaN : v;
    values[i] = x;
    if (Number.isNaN(x)) {
      constant = false;
      continue;
    }
    const negativeZero = x === 0 && 1 / x < 0;
    if (known++ === 0) first = x;
    else if (constant && (x !== first || (x === 0 && negativeZero !== 1 / first < 0))) constant = false;
    if (integers && (negativeZero || !Number.isInteger(x) || Math.abs(x) > MAX_VARINT_INT)) integers = false;
  }
  if (known === 0) return undefined;
  if (constant) return column(CONSTANT, littleEndian(values.subarray(0, 1)));
  if (integers) return column(VARINT, scaledVarints(values, 1).done());
  const scale = decimalScale(values);
  if (scale !== undefined) {
    const out = scaledVarints(values, 10 ** scale, [scale]);
    return column(DECIMAL, out.done());
  }
  // Float columns rarely deflate much (their low bits are noise): the fast level is enough.
  return column(FLOAT64, littleEndian(values), 1);
}

/** Each value times `factor`, rounded, zigzag-coded plus one (0 is null), after the `head` bytes. */
function scaledVarints(values: Float64Array, factor: number, head: readonly number[] = []): ByteWriter {
  const out = new ByteWriter();
  for (const b of head) out.byte(b);
  for (let i = 0; i < values.length; i++) {
    const x = values[i] as number;
    const k = Math.round(x * factor);
    out.varint(Number.isNaN(x) ? 0 : k >= 0 ? 2 * k + 1 : -2 * k);
  }
  return out;
}

/**
 * The fewest decimal places that hold every value of a float column, or undefined when none up to MAX_SCALE do.
 * The exports' numbers are decimals and their sums are too, up to the noise of binary floating point: such a
 * value is stored as its decimal (a float within SUM_NOISE of it, relatively), which decodes to the double nearest
 * that decimal. -0 and values too large for a varint keep the float coding.
 */
function decimalScale(values: Float64Array): number | undefined {
  let scale = 0;
  let factor = 1;
  for (let i = 0; i < values.length; i++) {
    const x = values[i] as number;
    if (Number.isNaN(x)) continue;
    if (x === 0 && 1 / x < 0) return undefined;
    for (;;) {
      const k = Math.round(x * factor);
      if (Math.abs(k) > MAX_VARINT_INT) return undefined;
      if (Math.abs(k / factor - x) <= Math.abs(x) * SUM_NOISE) break;
      if (scale === MAX_SCALE) return undefined;
      scale++;
      factor *= 10;
    }
  }
  return scale;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The float64s as little-endian bytes (the platform's own order on every platform Lambda runs). */
export function littleEndian(values: Float64Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  const out = new Uint8Array(values.byteLength);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) view.setFloat64(i * 8, values[i] as number, true);
  return out;
}

export function decodeMeasure(bytes: Uint8Array, n: number): Float64Array {
  const out = new Float64Array(n);
  decodeMeasureInto(bytes[0] as number, bytes, 1, bytes.length, n, out, 0);
  return out;
}

/**
 * The n values of a measure column, its coding byte `first` and its payload `buf[from, to)`, written into `out` from
 * `at`. By offsets: a blob's columns decode where they lie and into one array for all its days, with no view, copy
 * or array of each (a year of one video is about 360 blobs).
 */
export function decodeMeasureInto(
  first: number,
  buf: Uint8Array,
  from: number,
  to: number,
  n: number,
  out: Float64Array,
  at: number,
): void {
  if (first & DEFLATED) {
    const payload = inflateRaw(buf.subarray(from, to));
    decodeMeasureInto(first & ~DEFLATED, payload, 0, payload.length, n, out, at);
    return;
  }
  if (first === CONSTANT) {
    out.fill(new DataView(buf.buffer, buf.byteOffset + from, 8).getFloat64(0, true), at, at + n);
  } else if (first === VARINT || first === DECIMAL) {
    let p = from;
    // k / 10^scale: both exact, so the quotient is the double nearest the decimal (as parsing its text gives).
    const factor = first === DECIMAL ? 10 ** (buf[p++] as number) : 1;
    for (let i = 0; i < n; i++) {
      // ByteReader.varint, inlined: this loop runs for every value a report reads.
      let z = 0;
      let mul = 1;
      let b: number;
      do {
        b = buf[p++] as number;
        z += (b & 127) * mul;
        mul *= 128;
      } while (b & 128);
      out[at + i] = z === 0 ? Number.NaN : (z % 2 === 1 ? (z - 1) / 2 : -z / 2) / factor;
    }
  } else {
    const view = new DataView(buf.buffer, buf.byteOffset + from, to - from);
    for (let i = 0; i < n; i++) out[at + i] = view.getFloat64(i * 8, true);
  }
}

/** A cube as item attributes: the header, one attribute per grain dimension and per measure some row has. */
export function encodeCube(cube: Cube): CubeAttributes {
  const attributes: CubeAttributes = { [HEADER]: JSON.stringify({ g: cube.grain, n: cube.rows.length }) };
  if (cube.rows.length === 0) return attributes;
  cube.grain.forEach((d, c) => {
    attributes[dimAttribute(d)] = encodeDim(cube.rows.map((r) => r.key[c] as string));
  });
  for (const j of cube.measures ?? MEASURES.map((_, i) => i)) {
    const bytes = encodeMeasure(cube.rows, j);
    if (bytes) attributes[measureAttribute(MEASURES[j] as string)] = bytes;
  }
  return attributes;
}

/** Whether an item holds a column cube: its header counts rows (a by-day item of day blobs names its layout). */
export const isCubeItem = (item: Readonly<Record<string, unknown>>) =>
  typeof item[HEADER] === 'string' && (item[HEADER] as string).includes('"n":');

/** The first chunk of a cube stored in several: its header also says how many chunks there are (`c`). */
export function withChunkCount(attributes: CubeAttributes, chunks: number): CubeAttributes {
  const head = JSON.parse(String(attributes[HEADER])) as Record<string, unknown>;
  return { ...attributes, [HEADER]: JSON.stringify({ ...head, c: chunks }) };
}

/** How many chunks the cube of this (first) item has: 1 unless its header says more. */
export function chunkCount(attributes: Readonly<CubeAttributes>): number {
  const header = attributes[HEADER];
  if (typeof header !== 'string' || !header.includes('"c"')) return 1;
  return Number((JSON.parse(header) as { c?: number }).c ?? 1);
}

/** Bytes an item of these attributes takes (names and values), as DynamoDB counts them. */
export function attributesSize(attributes: CubeAttributes): number {
  let size = 0;
  // Numbers (a month cube's `pb`, month-pieces.ts): DynamoDB stores them in up to 21 bytes; 8 is close for small ones.
  for (const [name, value] of Object.entries(attributes))
    size += name.length + (typeof value === 'number' ? 8 : value.length);
  return size;
}

/**
 * A cube from an item's attributes. With a projection, the grain holds only the dimension columns read (rows that
 * differ only in the others then have equal keys: a reader sums them anyway) and measures not read are undefined.
 */
export function decodeCube(item: Readonly<Record<string, unknown>>): StoredCube {
  if (item[LEGACY] !== undefined) return decodeRowMajor(item[LEGACY] as Uint8Array);
  const head = JSON.parse(String(item[HEADER])) as { g: GrainDim[]; n: number };
  const n = head.n;
  const grain = n === 0 ? head.g : head.g.filter((d) => item[dimAttribute(d)] !== undefined);
  const keys = grain.map((d) =>
    n === 0 ? { values: [], codes: new Uint32Array(0) } : decodeDim(item[dimAttribute(d)] as Uint8Array, n),
  );
  const measures: (Float64Array | undefined)[] = MEASURES.map(() => undefined);
  for (const [name, value] of Object.entries(item)) {
    if (!name.startsWith('m_')) continue;
    const measure = name.slice(2);
    // A measure this release no longer knows is ignored.
    if (Object.hasOwn(MEASURE_INDEX, measure))
      measures[MEASURE_INDEX[measure as Measure]] = decodeMeasure(value as Uint8Array, n);
  }
  return { grain, size: n, keys, measures };
}

/** Cubes stored in chunks (one period), as one. */
export function concatCubes(a: StoredCube, b: StoredCube): StoredCube {
  const join = (x: Float64Array | undefined, y: Float64Array | undefined, nx: number, ny: number) => {
    if (!x && !y) return undefined;
    const out = new Float64Array(nx + ny).fill(Number.NaN);
    if (x) out.set(x, 0);
    if (y) out.set(y, nx);
    return out;
  };
  return {
    grain: a.grain,
    size: a.size + b.size,
    // The second chunk's values follow the first's (a value may appear in both: readers map values, not codes).
    keys: a.keys.map((column, c) => {
      const other = b.keys[c] as KeyColumn;
      const codes = new Uint32Array(a.size + b.size);
      codes.set(column.codes, 0);
      other.codes.forEach((code, i) => {
        codes[a.size + i] = code + column.values.length;
      });
      return { values: [...column.values, ...other.values], codes };
    }),
    measures: a.measures.map((x, j) => join(x, b.measures[j], a.size, b.size)),
  };
}

/**
 * The rows of a cube whose value of `dim` passes `keep` (decided once per value). When every value passes (a month
 * with no day overridden, the common case) the cube itself: stored cubes are never changed in place.
 */
export function rowsWhere(cube: StoredCube, dim: GrainDim, keep: (value: string) => boolean): StoredCube {
  const c = cube.grain.indexOf(dim);
  if (c < 0) throw new Error(`rows by ${dim} need ${dim} in the grain`);
  const column = cube.keys[c] as KeyColumn;
  const inside = column.values.map(keep);
  if (inside.every(Boolean)) return cube;
  let size = 0;
  const all = new Uint32Array(cube.size);
  for (let i = 0; i < cube.size; i++) if (inside[column.codes[i] as number]) all[size++] = i;
  const rows = all.subarray(0, size);
  return {
    grain: cube.grain,
    size,
    keys: cube.keys.map((k) => ({ values: k.values, codes: gather(k.codes, rows) })),
    measures: cube.measures.map((m) => (m ? gather(m, rows) : undefined)),
  };
}

/** The rows of a stored cube (for ingest and tests; reports read the columns). */
export function rowsOf(cube: StoredCube): CubeRow[] {
  return Array.from({ length: cube.size }, (_, i) => ({
    key: cube.keys.map((column) => column.values[column.codes[i] as number] as string),
    sums: cube.measures.map((column) => (column ? (column[i] as number) : Number.NaN)),
  }));
}

/** A stored cube as rows (keys and sums), the in-memory form ingest computes. */
export const asCube = (cube: StoredCube): Cube => ({ grain: cube.grain, rows: rowsOf(cube) });

/** The attribute names to read for `columns` (the header, the legacy form, and the columns asked for). */
export function projectionOf(columns: CubeColumns): string[] {
  return [HEADER, LEGACY, PIECE_BASE, ...columns.dims.map(dimAttribute), ...columns.measures.map(measureAttribute)];
}

const SEP = '\u0001';

/**
 * The row-major form of earlier releases, deflated: a JSON header (grain, measure names, row count, key text
 * length), the row keys as one text (fields joined by U+0001), and the measures as little-endian float64 (NaN for
 * null). Read only: what is loaded now is stored by column.
 */
function decodeRowMajor(bytes: Uint8Array): StoredCube {
  const raw = inflateRawSync(bytes);
  const headLength = raw.readUInt32LE(0);
  const head = JSON.parse(raw.subarray(4, 4 + headLength).toString('utf8')) as {
    g: GrainDim[];
    m: string[];
    n: number;
    k: number;
  };
  const keyStart = 4 + headLength;
  const fields =
    head.k > 0
      ? raw
          .subarray(keyStart, keyStart + head.k)
          .toString('utf8')
          .split(SEP)
      : [];
  const used = keyStart + head.k;
  const valueStart = used + ((8 - (used % 8)) % 8);
  const values = new DataView(raw.buffer, raw.byteOffset + valueStart, head.n * head.m.length * 8);
  const width = head.m.length;
  const k = head.g.length;
  const measures: (Float64Array | undefined)[] = MEASURES.map(() => undefined);
  head.m.forEach((m, j) => {
    if (!Object.hasOwn(MEASURE_INDEX, m)) return;
    const column = new Float64Array(head.n);
    for (let i = 0; i < head.n; i++) column[i] = values.getFloat64((i * width + j) * 8, true);
    measures[MEASURE_INDEX[m as Measure]] = column;
  });
  const keys = head.g.map((_, c) => keyColumn(Array.from({ length: head.n }, (_, i) => fields[i * k + c] as string)));
  return { grain: head.g, size: head.n, keys, measures };
}
