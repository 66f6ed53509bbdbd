/**
 * A month of one video bucket of `vd` as one binary field of its month item (by-day-items.ts monthItems): a column
 * cube, each column as items store it (cube-codec.ts: a dictionary column per grain dimension, `day` among them, and
 * one column per measure, each deflated on its own), so a reader inflates only the columns it uses. A bucket's month
 * of day blobs (encodeDayBlobs) holds every column of every day with the day's own dictionaries: as a cube it takes
 * about 0.4 of the bytes and a year of one video decodes in a third of the time (docs/scale.md).
 *
 * The field starts with a 0 byte; the day blobs' form starts with a day number (1–31).
 */
import { MEASURES } from '../catalog/metrics';
import {
  ByteReader,
  ByteWriter,
  type CubeAttributes,
  type CubeColumns,
  decodeCube,
  dimAttribute,
  HEADER,
  measureAttribute,
  type StoredCube,
} from './cube-codec';
import { encodeDimCodes, encodeUnits } from './unit-codec';
import { unitsOf } from './units';

const MARK = 0;

export const isCubeBlob = (bytes: Uint8Array) => bytes[0] === MARK;

/** A stored cube (its measures as the family's decimals: they are written exactly, as micro-units) as one field. */
export function encodeCubeBlob(cube: StoredCube): Uint8Array {
  const attributes: CubeAttributes = { [HEADER]: JSON.stringify({ g: cube.grain, n: cube.size }) };
  cube.grain.forEach((d, c) => {
    const { values, codes } = cube.keys[c] as StoredCube['keys'][number];
    attributes[dimAttribute(d)] = encodeDimCodes(codes, { values });
  });
  cube.measures.forEach((column, m) => {
    if (!column) return;
    const bytes = encodeUnits(column.map((v) => (Number.isNaN(v) ? v : unitsOf(v))));
    if (bytes) attributes[measureAttribute(MEASURES[m] as string)] = bytes;
  });
  const out = new ByteWriter();
  out.byte(MARK);
  const entries = Object.entries(attributes);
  out.varint(entries.length);
  for (const [name, value] of entries) {
    out.text(name);
    if (typeof value === 'string') out.text(value);
    else {
      out.varint(value.length);
      out.bytes(value);
    }
  }
  return out.done().slice();
}

/** The cube of a field of encodeCubeBlob; with `columns`, only those dimensions (and `day`) and measures decoded. */
export function decodeCubeBlob(bytes: Uint8Array, columns?: CubeColumns): StoredCube {
  const wanted = columns
    ? new Set([
        HEADER,
        dimAttribute('day'),
        ...columns.dims.map(dimAttribute),
        ...columns.measures.map(measureAttribute),
      ])
    : undefined;
  const r = new ByteReader(bytes);
  r.at = 1;
  const item: Record<string, unknown> = {};
  const count = r.varint();
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  for (let i = 0; i < count; i++) {
    const nameLength = r.varint();
    const name = text.toString('latin1', r.at, r.at + nameLength);
    r.at += nameLength;
    const length = r.varint();
    if (!wanted || wanted.has(name))
      item[name] = name === HEADER ? text.toString('utf8', r.at, r.at + length) : bytes.subarray(r.at, r.at + length);
    r.at += length;
  }
  return decodeCube(item);
}
