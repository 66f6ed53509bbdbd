/**
 * Reads one YouTube Reporting API daily file of any family (families.ts) into facts. Columns are matched by header
 * name (their order varies between files); a metric column a version lacks is null, not 0; the whole file is
 * rejected, naming file, line and column, at the first malformed value.
 */

import { detectFamily, type FamilyDef } from '../catalog/families';
import { emptySums, MEASURE_INDEX, type Sums } from '../catalog/metrics';
import { type FactRow, fullDayOf } from '../storage/cube';
import { CsvError, type CsvTable } from './csv';

export interface ParsedDayFile {
  readonly file: string;
  readonly family: FamilyDef;
  readonly reportType: string;
  /** YYYY-MM-DD, or undefined for an empty file whose day the caller must supply. */
  readonly day: string | undefined;
  /**
   * Facts per owner (the channel of a channel report; the content owner, given by the caller, of a content-owner
   * report), each list sorted by the family's dimensions.
   */
  readonly byOwner: ReadonlyMap<string, FactRow[]>;
  readonly rows: number;
}

export interface ReadOptions {
  /** A report type id (`--type`, or the file's folder) deciding between layouts that coincide. */
  readonly type?: string;
  /** The content owner a content-owner file belongs to (its files do not say). */
  readonly contentOwner?: string;
}

const NUMBER = /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;
/** Whether Number() reads `raw` the way NUMBER does: not after a plus sign, nor with a 0x / 0b / 0o prefix. */
function plainStart(raw: string): boolean {
  const c = raw.charCodeAt(0);
  if (c === 45 || c === 46) return true; // - .
  if (c < 48 || c > 57) return false;
  const next = raw.charCodeAt(1) | 32; // lower case
  return next !== 120 && next !== 98 && next !== 111; // x b o
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

export function readReportFile(file: string, table: CsvTable, options: ReadOptions = {}): ParsedDayFile {
  const detected = detectFamily(table.header, options.type);
  if (!detected) {
    const missing = ['date', 'channel_id'].filter((c) => !table.header.includes(c));
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
  const owner = family.owner === 'contentOwner' ? options.contentOwner : undefined;
  if (family.owner === 'contentOwner' && !owner) {
    throw new CsvError(
      file,
      1,
      undefined,
      `${reportType} is a content-owner report: put it under a folder named for the content owner or pass --content-owner`,
    );
  }
  const col = (name: string) => table.header.indexOf(name);
  const iDate = col('date');
  const iChannel = col('channel_id');
  const dims = family.columns.map((c) => ({ ...c, index: col(c.column) }));
  const missing = dims.find((d) => d.index < 0 && d.missing === undefined);
  if (missing) throw new CsvError(file, 1, missing.column, `${reportType} needs the column ${missing.column}`);
  const measureColumns = Object.entries(family.measures)
    .map(([column, measure]) => ({ column, index: col(column), at: MEASURE_INDEX[measure] }))
    .filter((m) => m.index >= 0);
  const measures = measureColumns.filter((m) => !WEIGHTED_COLUMNS.has(m.column));
  // Each weighted column with the measure of its weight column (when the file has that column).
  const weighted = measureColumns
    .filter((m) => WEIGHTED_COLUMNS.has(m.column))
    .map((m) => {
      const by = WEIGHTED_COLUMNS.get(m.column) as string;
      const measure = family.measures[by];
      return { ...m, weight: measure !== undefined && col(by) >= 0 ? MEASURE_INDEX[measure] : undefined };
    });

  let day: string | undefined;
  let checkedDate = '';
  const byOwner = new Map<string, FactRow[]>();
  const seen = new Set<string>();
  let line = 0;
  const fail = (column: string, detail: string): never => {
    throw new CsvError(file, line, column, detail);
  };
  for (const row of table.rows) {
    line = row.line;
    const fields = row.fields;
    const rawDate = (fields[iDate] as string).trim().replace(/\.0+$/, '');
    // Every row of a daily file has the same date: check a date once, then compare.
    if (rawDate !== checkedDate) {
      if (!/^\d{8}$/.test(rawDate)) fail('date', `"${rawDate}" is not a YYYYMMDD date`);
      const rowDay = `${rawDate.slice(0, 4)}-${rawDate.slice(4, 6)}-${rawDate.slice(6, 8)}`;
      if (
        Number.isNaN(Date.parse(`${rowDay}T00:00:00Z`)) ||
        new Date(`${rowDay}T00:00:00Z`).toISOString().slice(0, 10) !== rowDay
      ) {
        fail('date', `"${rawDate}" is not a calendar date`);
      }
      if (day !== undefined && rowDay !== day)
        fail('date', `every row of a daily file has the same date; found ${rawDate} after ${day.replaceAll('-', '')}`);
      day = rowDay;
      checkedDate = rawDate;
    }
    const rowDay = day as string;
    const channel = (fields[iChannel] as string).trim();
    if (!channel) fail('channel_id', 'channel_id is empty');

    const values: Record<string, string> = {};
    let key = '';
    for (const d of dims) {
      let v: string | undefined;
      if (d.index < 0) v = d.missing as string;
      else {
        const raw = fields[d.index] as string;
        v = d.parse(raw);
        if (v === undefined) fail(d.column, `"${raw}" is not ${d.expected}`);
      }
      values[d.dim] = v as string;
      key += `\u0000${v}`;
    }
    const sums: Sums = emptySums();
    for (const m of measures) {
      const raw = (fields[m.index] as string).trim();
      if (raw === '') continue; // suppressed or anonymised: unknown, not zero
      const v = Number(raw);
      // Number() also reads "+1", "0x1F", "0b1" and "0o7"; only those (and non-numbers) need the full pattern.
      if (!(v >= 0 && v < Number.POSITIVE_INFINITY) || !plainStart(raw)) {
        if (!NUMBER.test(raw)) fail(m.column, `"${raw}" is not a number`);
        if (!(v >= 0 && v < Number.POSITIVE_INFINITY)) fail(m.column, `"${raw}" is not a non-negative number`);
      }
      sums[m.at] = (sums[m.at] ?? 0) + v; // renamed columns (ad_sense → ad_auction) feed one measure
    }
    for (const m of weighted) {
      const raw = (fields[m.index] as string).trim();
      if (raw === '' || m.weight === undefined) continue;
      if (!NUMBER.test(raw) || Number(raw) < 0) fail(m.column, `"${raw}" is not a non-negative number`);
      const weight = sums[m.weight];
      sums[m.at] = weight === null || weight === undefined ? null : Number(raw) * weight;
    }
    const ownerKey = owner ?? channel;
    const unique = `${ownerKey}\u0000${channel}${key}`;
    if (seen.has(unique))
      fail(family.columns[0]?.column ?? 'date', 'the same dimension values appear on an earlier line');
    seen.add(unique);
    const fact: FactRow = { day: rowDay, dims: values, sums };
    const list = byOwner.get(ownerKey);
    if (list) list.push(fact);
    else byOwner.set(ownerKey, [fact]);
  }
  const compare = factOrder(family);
  for (const list of byOwner.values()) list.sort(compare);
  return { file, family, reportType, day, byOwner, rows: table.rows.length };
}

/**
 * Facts in a fixed order (day, then the full-day cube's key), so that facts read back from stored days and facts
 * fresh from a file are summed in the same order: sums are then the same however data is loaded.
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
