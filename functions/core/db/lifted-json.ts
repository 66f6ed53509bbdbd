/**
 * A large DynamoDB answer parsed without making it one string. A report's Query answers carry blobs as base64 (300 KB
 * for a year of a content owner's revenue), and a V8 string past its regular object size (128 KB) is allocated in its
 * own fresh pages: on the bench machine (a Firecracker VM, as Lambda is) decoding such a body cost 1.8 ms per 400 KB,
 * where 100 KB took 0.008 ms. So each binary value (`{"B":"<base64>"}`) is lifted out of the bytes and decoded on
 * its own, and what is left (names, numbers, keys: a few KB) is parsed as JSON, with the lifted value's index in
 * place of its text (`{"B":3}`); `binaryOf` gives the bytes back where the attribute values are converted.
 *
 * The pattern cannot occur inside a JSON string (a quote in one is escaped), and the only object of DynamoDB's JSON
 * whose first member is `B` with a string value is a binary attribute value. A value holding an escape (JSON allows
 * `\/`) is left in the text, decoded as before.
 */

/** Bodies below this size are parsed as one string, as before: small strings are cheap. */
export const LIFT_FROM = 64 * 1024;

const OPEN = Buffer.from('{"B":"', 'latin1');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Base64 decoded in pieces of this many characters (a multiple of 4), each a small string. */
const PIECE = 48 * 1024;

export interface LiftedJson {
  readonly value: unknown;
  /** The binary values lifted out, by the index that stands in their place. */
  readonly binaries: readonly Uint8Array[];
}

/** The JSON in `bytes` (UTF-8), binary values lifted out when the body is large. Throws on text that is not JSON. */
export function parseLifted(bytes: Buffer): LiftedJson {
  if (bytes.length < LIFT_FROM) return { value: JSON.parse(bytes.toString('utf8')), binaries: [] };
  // Where the values lie (their base64 text), then all decoded into one buffer: one allocation, not one a value.
  const starts: number[] = [];
  const ends: number[] = [];
  let backslash = bytes.indexOf(BACKSLASH, 0);
  for (let at = bytes.indexOf(OPEN, 0); at !== -1; at = bytes.indexOf(OPEN, at + OPEN.length)) {
    const start = at + OPEN.length;
    const end = bytes.indexOf(QUOTE, start);
    if (end === -1) break; // cut off: JSON.parse below refuses the rest
    // The next backslash, found once per backslash (not per value: a body without one would be searched to its end
    // for every value).
    if (backslash !== -1 && backslash < start) backslash = bytes.indexOf(BACKSLASH, start);
    if (backslash !== -1 && backslash < end) continue;
    starts.push(start);
    ends.push(end);
    at = end;
  }
  let capacity = 0;
  for (let i = 0; i < starts.length; i++) capacity += Math.ceil(((ends[i] as number) - (starts[i] as number)) / 4) * 3;
  const out = Buffer.allocUnsafe(capacity);
  const binaries: Uint8Array[] = [];
  let text = '';
  let from = 0;
  let length = 0;
  for (let i = 0; i < starts.length; i++) {
    const start = starts[i] as number;
    const end = ends[i] as number;
    // Cut before the opening quote and after the closing one: both ASCII, so never inside a UTF-8 sequence.
    text += `${bytes.toString('utf8', from, start - 1)}${i}`;
    const first = length;
    for (let at = start; at < end; at += PIECE) {
      length += out.write(bytes.toString('latin1', at, Math.min(at + PIECE, end)), length, 'base64');
    }
    binaries.push(new Uint8Array(out.buffer, out.byteOffset + first, length - first));
    from = end + 1;
  }
  text += bytes.toString('utf8', from);
  return { value: JSON.parse(text), binaries };
}
