/**
 * Reads one YouTube Reporting API daily file of any family (families.ts) into facts, record by record. Columns are
 * matched by header name (their order varies between files); a metric column a version lacks is null, not 0; the
 * whole file is rejected, naming file, line and column, at the first malformed value.
 *
 * Numbers become integer micro-units (units.ts), exactly from their text, rounded half up at the sixth decimal
 * place: sums of them are exact. A weighted average column (a percentage of views) is stored times the row's views,
 * computed exactly in micro-units.
 */
import { detectFamily, type FamilyDef, familyMeasures } from '../catalog/families';
import { MEASURE_INDEX, MEASURES } from '../catalog/metrics';
import { type FactRow, fullDayOf } from '../storage/cube';
import { UNIT, unitsValue } from '../storage/units';
import { CsvError, type CsvTable, csvReader, headerOf } from './csv';

export interface ReadOptions {
  /** A report type id (`--type`, or the file's folder) deciding between layouts that coincide. */
  readonly type?: string;
  /** The content owner a content-owner file belongs to (its files do not say). */
  readonly contentOwner?: string;
}

/** Where a file's facts go: per owner, each fact's grain values (the full-day grain) and measures (micro-units). */
export interface FactSink {
  /** Told the file's family once its header is read, before any fact. */
  begin?(family: FamilyDef): void;
  /** `key` and `units` are the reader's own, reused for the next row: copy what you keep. */
  add(owner: string, key: readonly string[], units: Float64Array, line: number): void;
}

/** What a file turned out to be, once read. */
export interface FileHead {
  readonly family: FamilyDef;
  readonly reportType: string;
  /** YYYY-MM-DD, or undefined for a header-only file (the caller must know its day). */
  readonly day: string | undefined;
  readonly rows: number;
}

const NUMBER = /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/**
 * The micro-units of a trimmed, non-empty number text; undefined when it is not a number or is negative or not
 * finite. Plain decimals are read digit by digit (exact); other forms (exponents) through Number().
 */
export function unitsOfText(raw: string): number | undefined {
  let int = 0;
  let i = 0;
  const n = raw.length;
  let digits = 0;
  while (i < n) {
    const c = raw.charCodeAt(i);
    if (c < 48 || c > 57) break;
    int = int * 10 + (c - 48);
    digits++;
    i++;
  }
  if (i === n && digits > 0 && digits <= 15) return int * UNIT;
  if (i < n && raw.charCodeAt(i) === 46 && digits <= 15) {
    let frac = 0;
    let places = 0;
    let roundUp = false;
    let j = i + 1;
    for (; j < n; j++) {
      const c = raw.charCodeAt(j);
      if (c < 48 || c > 57) break;
      if (places < 6) {
        frac = frac * 10 + (c - 48);
        places++;
      } else if (places === 6) {
        roundUp = c >= 53;
        places++;
      }
    }
    if (j === n && (digits > 0 || j > i + 1)) {
      for (let p = Math.min(places, 6); p < 6; p++) frac *= 10;
      return int * UNIT + frac + (roundUp ? 1 : 0);
    }
  }
  if (!NUMBER.test(raw)) return undefined;
  const v = Number(raw);
  if (!(v >= 0 && v < Number.POSITIVE_INFINITY)) return undefined;
  return Math.round(v * UNIT);
}

/**
 * Averages and rates stored weighted by another column of the row (views; impressions for the thumbnail click rate,
 * which becomes clicks), so they can be re-averaged over any set of rows.
 */
const WEIGHTED_COLUMNS: ReadonlyMap<string, string> = new Map([
  ['average_view_duration_percentage', 'views'],
  ['audience_watch_ratio', 'views'],
  ['relative_retention_performance', 'views'],
  ['video_thumbnail_impressions_ctr', 'video_thumbnail_impressions'],
]);

/** Memoizes a cell parser over the distinct raw values of a column (most columns have a few dozen). */
function memo(parse: (raw: string) => string | undefined): (raw: string) => string | undefined {
  const seen = new Map<string, string | undefined>();
  return (raw) => {
    if (seen.has(raw)) return seen.get(raw);
    const v = parse(raw);
    if (seen.size < 4096) seen.set(raw, v);
    return v;
  };
}

/**
 * A streaming reader of one file: `push` its bytes, then `end`. Facts go to `sink` as rows are read; the returned
 * head says what the file was. Throws CsvError (file, line, column) at the first problem.
 */
export function reportFileReader(file: string, options: ReadOptions, sink: FactSink) {
  let row: ((fields: string[], line: number) => void) | undefined;
  let head: { family: FamilyDef; reportType: string } | undefined;
  let width = 0;
  let day: string | undefined;
  let rows = 0;

  const start = (rawHeader: readonly string[]) => {
    const header = headerOf(rawHeader);
    width = header.length;
    const detected = detectFamily(header, options.type);
    if (!detected) {
      const missing = ['date', 'channel_id'].filter((c) => !header.includes(c));
      throw new CsvError(
        file,
        1,
        missing[0],
        missing.length
          ? `not a Reporting API report: missing column(s) ${missing.join(', ')}`
          : options.type
            ? `the columns are not those of ${options.type}`
            : 'the columns match no known Reporting API report type',
      );
    }
    const { family, reportType } = detected;
    head = detected;
    sink.begin?.(family);
    const owner = family.owner === 'contentOwner' ? options.contentOwner : undefined;
    if (family.owner === 'contentOwner' && !owner) {
      throw new CsvError(
        file,
        1,
        undefined,
        `${reportType} is a content-owner report: put it under a folder named for the content owner or pass --content-owner`,
      );
    }
    const col = (name: string) => header.indexOf(name);
    const iDate = col('date');
    const iChannel = col('channel_id');
    const grain = fullDayOf(family).grain;
    const dims = family.columns.map((c) => ({
      ...c,
      index: col(c.column),
      at: grain.indexOf(c.dim),
      parse: memo(c.parse),
    }));
    const missingDim = dims.find((d) => d.index < 0 && d.missing === undefined);
    if (missingDim)
      throw new CsvError(file, 1, missingDim.column, `${reportType} needs the column ${missingDim.column}`);
    const only = [...familyMeasures(family)].map((m) => MEASURE_INDEX[m]).sort((a, b) => a - b);
    const measureColumns = Object.entries(family.measures)
      .map(([column, measure]) => ({ column, index: col(column), at: only.indexOf(MEASURE_INDEX[measure]) }))
      .filter((m) => m.index >= 0);
    const measures = measureColumns.filter((m) => !WEIGHTED_COLUMNS.has(m.column));
    // Each weighted column with the place of its weight column's measure (when the file has that column).
    const weighted = measureColumns
      .filter((m) => WEIGHTED_COLUMNS.has(m.column))
      .map((m) => {
        const by = WEIGHTED_COLUMNS.get(m.column) as string;
        const measure = family.measures[by];
        return {
          ...m,
          weight: measure !== undefined && col(by) >= 0 ? only.indexOf(MEASURE_INDEX[measure]) : undefined,
        };
      });
    let checkedDate = '';
    let checkedCell: string | undefined;
    const key = new Array<string>(grain.length);
    const units = new Float64Array(only.length);

    row = (fields, line) => {
      // Every row of a daily file has the same date: check a date once, then compare (the cell as it is first).
      const cell = fields[iDate] as string;
      const rawDate = cell === checkedCell ? checkedDate : cell.trim().replace(/\.0+$/, '');
      if (rawDate !== checkedDate) {
        if (!/^\d{8}$/.test(rawDate)) throw new CsvError(file, line, 'date', `"${rawDate}" is not a YYYYMMDD date`);
        const rowDay = `${rawDate.slice(0, 4)}-${rawDate.slice(4, 6)}-${rawDate.slice(6, 8)}`;
        if (
          Number.isNaN(Date.parse(`${rowDay}T00:00:00Z`)) ||
          new Date(`${rowDay}T00:00:00Z`).toISOString().slice(0, 10) !== rowDay
        ) {
          throw new CsvError(file, line, 'date', `"${rawDate}" is not a calendar date`);
        }
        if (day !== undefined && rowDay !== day)
          throw new CsvError(
            file,
            line,
            'date',
            `every row of a daily file has the same date; found ${rawDate} after ${day.replaceAll('-', '')}`,
          );
        day = rowDay;
        checkedDate = rawDate;
      }
      checkedCell = cell;
      const channel = (fields[iChannel] as string).trim();
      if (!channel) throw new CsvError(file, line, 'channel_id', 'channel_id is empty');
      for (const d of dims) {
        let v: string | undefined;
        if (d.index < 0) v = d.missing as string;
        else {
          const raw = fields[d.index] as string;
          v = d.parse(raw);
          if (v === undefined) throw new CsvError(file, line, d.column, `"${raw}" is not ${d.expected}`);
        }
        key[d.at] = v as string;
      }
      units.fill(Number.NaN);
      for (const m of measures) {
        const raw = (fields[m.index] as string).trim();
        if (raw === '') continue; // suppressed or anonymised: unknown, not zero
        const u = unitsOfText(raw);
        if (u === undefined) {
          if (!NUMBER.test(raw)) throw new CsvError(file, line, m.column, `"${raw}" is not a number`);
          throw new CsvError(file, line, m.column, `"${raw}" is not a non-negative number`);
        }
        const t = units[m.at] as number;
        units[m.at] = Number.isNaN(t) ? (u as number) : t + (u as number); // renamed columns (ad_sense → ad_auction) feed one measure
      }
      for (const m of weighted) {
        const raw = (fields[m.index] as string).trim();
        if (raw === '' || m.weight === undefined) continue;
        const u = unitsOfText(raw);
        if (u === undefined) throw new CsvError(file, line, m.column, `"${raw}" is not a non-negative number`);
        const weight = units[m.weight] as number;
        // (rate × weight) in micro-units: rate units × the whole weight (views and impressions are counts).
        units[m.at] = Number.isNaN(weight) ? Number.NaN : Math.round((u as number) * (weight / UNIT));
      }
      sink.add(owner ?? channel, key, units, line);
      rows++;
    };
  };

  const record = (fields: string[], line: number) => {
    if (!row) {
      start(fields);
      return;
    }
    if (fields.length !== width)
      throw new CsvError(file, line, undefined, `expected ${width} fields, found ${fields.length}`);
    row(fields, line);
  };
  const reader = csvReader(file, record);

  return {
    push: (bytes: Uint8Array | string) => reader.push(bytes),
    /** A record already split into fields (the header first), with its line. */
    record,
    end(): FileHead {
      reader.end();
      if (!head) throw new CsvError(file, 1, undefined, 'the file is empty (no header row)');
      return { ...head, day, rows };
    },
  };
}

/** A whole file read in memory (tests, and the generator's checks): facts per owner, as values. */
export interface ParsedDayFile {
  readonly file: string;
  readonly family: FamilyDef;
  readonly reportType: string;
  readonly day: string | undefined;
  /** Facts per owner, sorted by the family's full-day grain. */
  readonly byOwner: ReadonlyMap<string, FactRow[]>;
  readonly rows: number;
}

/** A parsed table read as a file; a row repeating another's dimension values is rejected at its line. */
export function readReportFile(file: string, table: CsvTable, options: ReadOptions = {}): ParsedDayFile {
  const byOwner = new Map<string, FactRow[]>();
  const seen = new Set<string>();
  let family: FamilyDef | undefined;
  const reader = reportFileReader(file, options, {
    add(owner, key, units, line) {
      const id = `${owner}\u0000${key.join('\u0000')}`;
      if (seen.has(id))
        throw new CsvError(
          file,
          line,
          family?.columns[0]?.column ?? 'date',
          'the same dimension values appear on an earlier line',
        );
      seen.add(id);
      const grain = fullDayOf(family as FamilyDef).grain;
      const only = [...familyMeasures(family as FamilyDef)].map((m) => MEASURE_INDEX[m]).sort((a, b) => a - b);
      const sums: (number | null)[] = MEASURES.map(() => null);
      only.forEach((m, j) => {
        const u = units[j] as number;
        sums[m] = Number.isNaN(u) ? null : unitsValue(u);
      });
      const fact: FactRow = {
        day: day as string,
        dims: Object.fromEntries(grain.map((d, i) => [d, key[i] as string])),
        sums,
      };
      const list = byOwner.get(owner);
      if (list) list.push(fact);
      else byOwner.set(owner, [fact]);
    },
  });
  let day: string | undefined;
  reader.record([...table.header], 1);
  family = detectFamily(headerOf(table.header), options.type)?.family;
  for (const r of table.rows) {
    // The day is known once the first row is read; facts take it from there.
    if (day === undefined) {
      const raw = (r.fields[table.header.indexOf('date')] ?? '').trim().replace(/\.0+$/, '');
      day = `${raw.slice(0, 4)}-${raw.slice(4, 6)}-${raw.slice(6, 8)}`;
    }
    reader.record([...r.fields], r.line);
  }
  const head = reader.end();
  const compare = factOrder(head.family);
  for (const list of byOwner.values()) list.sort(compare);
  return { file, family: head.family, reportType: head.reportType, day: head.day, byOwner, rows: head.rows };
}

/**
 * Facts in a fixed order (day, then the full-day cube's key), the order the parse tests and the generator's checks
 * compare in.
 */
export function factOrder(family: FamilyDef): (a: FactRow, b: FactRow) => number {
  const dims = fullDayOf(family).grain;
  return (a, b) => {
    if (a.day !== b.day) return a.day < b.day ? -1 : 1;
    for (const k of dims) {
      const x = a.dims[k] as string;
      const y = b.dims[k] as string;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
}
