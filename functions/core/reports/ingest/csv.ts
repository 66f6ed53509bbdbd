/** CSV (RFC 4180: commas, optional double quotes) from plain or gzip bytes, with line numbers for errors. */
import { gunzipSync } from 'node:zlib';

export class CsvError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: string | undefined,
    detail: string,
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

export function parseCsv(file: string, text: string): CsvTable {
  const records: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let recordLine = 1;
  let atFieldStart = true;
  const endRecord = () => {
    fields.push(field);
    if (!(fields.length === 1 && fields[0] === '')) records.push({ line: recordLine, fields });
    fields = [];
    field = '';
    atFieldStart = true;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else {
        if (c === '\n') line++;
        field += c;
      }
      continue;
    }
    if (c === '"' && atFieldStart) {
      quoted = true;
      atFieldStart = false;
    } else if (c === ',') {
      fields.push(field);
      field = '';
      atFieldStart = true;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRecord();
      line++;
      recordLine = line;
    } else {
      field += c;
      atFieldStart = false;
    }
  }
  if (quoted) throw new CsvError(file, recordLine, undefined, 'unterminated quoted field');
  if (field !== '' || fields.length > 0) endRecord();
  const [head, ...rows] = records;
  if (!head) throw new CsvError(file, 1, undefined, 'the file is empty (no header row)');
  const header = head.fields.map((h) => h.trim().replace(/^\uFEFF/, ''));
  for (const r of rows) {
    if (r.fields.length !== header.length) {
      throw new CsvError(file, r.line, undefined, `expected ${header.length} fields, found ${r.fields.length}`);
    }
  }
  return { header, rows };
}
