/**
 * CSV (RFC 4180: commas, optional double quotes) read as a stream of bytes, plain or gzip, record by record, with
 * the line each record starts on (for errors). Only a record's text is held at once, so a file of any size reads in
 * bounded memory. `parseCsv` reads a whole text the same way (small files: exchange rates, tests).
 */
import { Readable } from 'node:stream';
import { createGunzip, gunzipSync } from 'node:zlib';

export class CsvError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: string | undefined,
    /** What is wrong, without the file, line and column (ingest-status prints those beside it). */
    readonly detail: string,
  ) {
    super(`${file}: line ${line}${column ? `, column ${column}` : ''}: ${detail}`);
    this.name = 'CsvError';
  }
}

export interface CsvTable {
  readonly header: readonly string[];
  /** Data rows with their 1-based line numbers in the file. */
  readonly rows: readonly { readonly line: number; readonly fields: readonly string[] }[];
}

export const isGzip = (bytes: Uint8Array) => bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

export function decodeText(file: string, bytes: Uint8Array): string {
  try {
    return (isGzip(bytes) ? gunzipSync(bytes) : Buffer.from(bytes)).toString('utf8');
  } catch (err) {
    throw new CsvError(file, 1, undefined, `cannot decompress: ${(err as Error).message}`);
  }
}

/**
 * The bytes of a file, gunzipped when they start with gzip's magic number. A failure of the source itself (a read
 * error) comes through as it is; a corrupt gzip stream is a CsvError naming the file.
 */
export async function* plainBytes(file: string, source: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  const it = source[Symbol.asyncIterator]();
  const head = await it.next();
  if (head.done) return;
  let sourceError: unknown;
  const all = (async function* () {
    yield head.value;
    try {
      for (;;) {
        const next = await it.next();
        if (next.done) return;
        yield next.value;
      }
    } catch (err) {
      sourceError = err;
      throw err;
    }
  })();
  if (!isGzip(head.value)) {
    yield* all;
    return;
  }
  const gunzip = createGunzip();
  const input = Readable.from(all);
  input.on('error', (err) => gunzip.destroy(err));
  input.pipe(gunzip);
  try {
    for await (const chunk of gunzip) yield chunk as Buffer;
  } catch (err) {
    if (sourceError !== undefined) throw sourceError;
    throw new CsvError(file, 1, undefined, `cannot decompress: ${(err as Error).message}`);
  }
}

/**
 * A CSV reader fed text (or bytes, decoded as UTF-8 across chunk boundaries) a piece at a time; `onRecord` gets each
 * non-empty record's fields and the line it starts on. Lines end with \n, \r\n or \r.
 */
export function csvReader(file: string, onRecord: (fields: string[], line: number) => void) {
  const decoder = new TextDecoder('utf-8');
  let carry = '';
  let line = 1;

  const emit = (fields: string[], at: number) => {
    if (!(fields.length === 1 && fields[0] === '')) onRecord(fields, at);
  };

  /** A quoted record from `start`: its fields, where it ends (after its line break) and the lines it spans. */
  const quoted = (text: string, start: number, final: boolean) => {
    const fields: string[] = [];
    let field = '';
    let inQuotes = false;
    let atFieldStart = true;
    let lines = 0;
    let i = start;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (inQuotes) {
        if (c === 34) {
          if (text.charCodeAt(i + 1) === 34) {
            field += '"';
            i++;
          } else if (i + 1 === text.length && !final)
            return undefined; // a "" may straddle pieces
          else inQuotes = false;
        } else {
          if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) lines++;
          field += text[i];
        }
        continue;
      }
      if (c === 34 && atFieldStart) {
        inQuotes = true;
        atFieldStart = false;
      } else if (c === 44) {
        fields.push(field);
        field = '';
        atFieldStart = true;
      } else if (c === 10 || c === 13) {
        if (c === 13 && i + 1 === text.length && !final) return undefined;
        const end = c === 13 && text.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
        fields.push(field);
        return { fields, end, lines: lines + 1 };
      } else {
        field += text[i];
        atFieldStart = false;
      }
    }
    if (inQuotes) {
      if (final) throw new CsvError(file, line, undefined, 'unterminated quoted field');
      return undefined;
    }
    if (!final) return undefined;
    fields.push(field);
    return { fields, end: text.length, lines: 0 };
  };

  const parse = (text: string, final: boolean) => {
    let i = 0;
    while (i < text.length) {
      let j = text.indexOf('\n', i);
      if (j < 0 && !final) break;
      if (j < 0) j = text.length;
      let end = j;
      if (end > i && text.charCodeAt(end - 1) === 13) end--;
      const record = text.slice(i, end);
      if (record.indexOf('"') < 0 && record.indexOf('\r') < 0) {
        emit(record.split(','), line);
        line++;
        i = j + 1;
        continue;
      }
      const q = quoted(text, i, final);
      if (!q) break;
      emit(q.fields, line);
      line += q.lines;
      i = q.end;
    }
    carry = text.slice(i);
  };

  return {
    push(piece: Uint8Array | string) {
      parse(carry + (typeof piece === 'string' ? piece : decoder.decode(piece, { stream: true })), false);
    },
    end() {
      parse(carry + decoder.decode(), true);
      carry = '';
    },
  };
}

/** The header's column names, trimmed, without a byte-order mark. */
export const headerOf = (fields: readonly string[]) => fields.map((h) => h.trim().replace(/^\uFEFF/, ''));

export function parseCsv(file: string, text: string): CsvTable {
  const records: { line: number; fields: string[] }[] = [];
  const reader = csvReader(file, (fields, line) => records.push({ line, fields }));
  reader.push(text);
  reader.end();
  const [head, ...rows] = records;
  if (!head) throw new CsvError(file, 1, undefined, 'the file is empty (no header row)');
  const header = headerOf(head.fields);
  for (const r of rows) {
    if (r.fields.length !== header.length) {
      throw new CsvError(file, r.line, undefined, `expected ${header.length} fields, found ${r.fields.length}`);
    }
  }
  return { header, rows };
}
