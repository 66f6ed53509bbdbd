/**
 * reports.query parameters (api-contract.md §A.1): parsing and syntax checks, with Google's error wording.
 * Whether the combination is a supported report is decided against the catalog (report-matcher.ts).
 */
import { DomainError, invalidArgument, required } from '../../errors';
import { KNOWN_DIMENSIONS, KNOWN_METRICS } from '../catalog/catalog';

export interface Filter {
  readonly name: string;
  readonly values: readonly string[];
}

export interface SortKey {
  readonly name: string;
  readonly descending: boolean;
}

export type ReportOwner =
  | { readonly type: 'channel'; readonly id: string }
  | { readonly type: 'contentOwner'; readonly id: string };

export interface ReportRequest {
  readonly ids: ReportOwner;
  readonly startDate: string;
  readonly endDate: string;
  readonly metrics: readonly string[];
  readonly dimensions: readonly string[];
  readonly filters: readonly Filter[];
  readonly sort: readonly SortKey[];
  readonly maxResults?: number;
  readonly startIndex: number;
  readonly currency?: string;
  readonly includeHistoricalChannelData: boolean;
}

/** Filters that take a comma-separated list of up to 500 ids. */
export const LIST_FILTERS = new Set(['video', 'playlist', 'channel']);
export const MAX_FILTER_IDS = 500;

const field = (name: string) => ({ location: name, locationType: 'parameter' as const });

export const invalidValue = (param: string, value: string, why?: string) =>
  invalidArgument(
    'badRequest',
    `Invalid value (${value}) given in field parameters.${param}.${why ? ` ${why}` : ''}`,
    field(param),
  );

const unknownIdentifier = (param: string, name: string) =>
  invalidArgument('badRequest', `Unknown identifier (${name}) given in field parameters.${param}.`, field(param));

const KNOWN_DIMENSION_SET = new Set<string>(KNOWN_DIMENSIONS);
const KNOWN_METRIC_SET = new Set<string>(KNOWN_METRICS);

/** Parameters analytix and other clients send empty mean "absent". */
const present = (v: string | undefined): string | undefined => (v === undefined || v.trim() === '' ? undefined : v);

function requireParam(query: Readonly<Record<string, string>>, name: string): string {
  const v = present(query[name]);
  if (v === undefined) throw required(name);
  return v;
}

function nameList(param: string, raw: string | undefined, known: ReadonlySet<string>): string[] {
  if (raw === undefined) return [];
  const names = raw.split(',').map((s) => s.trim());
  const seen = new Set<string>();
  for (const n of names) {
    if (n === '') throw invalidValue(param, raw);
    if (!known.has(n)) throw unknownIdentifier(param, n);
    if (seen.has(n)) throw invalidValue(param, raw, `${n} is listed more than once.`);
    seen.add(n);
  }
  return names;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function parseDate(param: string, raw: string): string {
  const m = DATE.exec(raw);
  const d = m ? new Date(`${raw}T00:00:00Z`) : undefined;
  if (!m || !d || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== raw) {
    throw invalidValue(param, raw, 'Dates are YYYY-MM-DD.');
  }
  return raw;
}

function positiveInt(param: string, raw: string | undefined, zeroMeansAbsent: boolean): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d{1,9}$/.test(raw)) throw invalidValue(param, raw);
  const n = Number(raw);
  if (n === 0 && zeroMeansAbsent) return undefined;
  if (n < 1) throw invalidValue(param, raw);
  return n;
}

function parseIds(raw: string): ReportOwner {
  const m = /^(channel|contentOwner)==([a-zA-Z0-9_+-]+)$/.exec(raw);
  if (!m) throw invalidValue('ids', raw, 'Expected channel==MINE, channel==CHANNEL_ID or contentOwner==OWNER_NAME.');
  return { type: m[1] as 'channel' | 'contentOwner', id: m[2] as string };
}

function parseFilters(raw: string | undefined): Filter[] {
  if (raw === undefined) return [];
  const filters: Filter[] = [];
  for (const clause of raw.split(';')) {
    const m = /^([A-Za-z0-9]+)==(.+)$/.exec(clause.trim());
    if (!m) throw invalidValue('filters', clause);
    const name = m[1] as string;
    if (!KNOWN_DIMENSION_SET.has(name)) throw unknownIdentifier('filters', name);
    if (filters.some((f) => f.name === name)) throw invalidValue('filters', raw, `${name} is filtered more than once.`);
    const values = (m[2] as string).split(',').map((v) => v.trim());
    if (values.some((v) => v === '')) throw invalidValue('filters', clause);
    if (values.length > 1 && !LIST_FILTERS.has(name)) {
      throw invalidValue('filters', clause, `Only video, playlist and channel filters take a list.`);
    }
    if (values.length > MAX_FILTER_IDS) throw invalidValue('filters', clause, `At most ${MAX_FILTER_IDS} ids.`);
    filters.push({ name, values: [...new Set(values)] });
  }
  return filters;
}

function parseSort(raw: string | undefined): SortKey[] {
  if (raw === undefined) return [];
  const keys: SortKey[] = [];
  for (const part of raw.split(',').map((s) => s.trim())) {
    const descending = part.startsWith('-');
    const name = descending ? part.slice(1) : part;
    if (name === '') throw invalidValue('sort', raw);
    if (!KNOWN_DIMENSION_SET.has(name) && !KNOWN_METRIC_SET.has(name)) throw unknownIdentifier('sort', name);
    if (keys.some((k) => k.name === name)) throw invalidValue('sort', raw, `${name} is listed more than once.`);
    keys.push({ name, descending });
  }
  return keys;
}

export function parseReportRequest(query: Readonly<Record<string, string>>): ReportRequest {
  const ids = parseIds(requireParam(query, 'ids'));
  const startDate = parseDate('startDate', requireParam(query, 'startDate'));
  const endDate = parseDate('endDate', requireParam(query, 'endDate'));
  if (startDate > endDate) {
    throw invalidArgument(
      'badRequest',
      `The start date (${startDate}) must not be after the end date (${endDate}).`,
      field('startDate'),
    );
  }
  const metrics = nameList('metrics', requireParam(query, 'metrics'), KNOWN_METRIC_SET);
  const dimensions = nameList('dimensions', present(query.dimensions), KNOWN_DIMENSION_SET);
  const filters = parseFilters(present(query.filters));
  const sort = parseSort(present(query.sort));
  for (const key of sort) {
    if (!dimensions.includes(key.name) && !metrics.includes(key.name)) {
      throw invalidValue('sort', key.name, 'A sort field must be one of the requested dimensions or metrics.');
    }
  }
  const maxResults = positiveInt('maxResults', present(query.maxResults), true);
  const startIndex = positiveInt('startIndex', present(query.startIndex), true) ?? 1;
  const currency = present(query.currency);
  if (currency !== undefined && !/^[A-Z]{3}$/.test(currency)) throw invalidValue('currency', currency);
  const historical = present(query.includeHistoricalChannelData);
  if (historical !== undefined && historical !== 'true' && historical !== 'false') {
    throw invalidValue('includeHistoricalChannelData', historical);
  }
  return {
    ids,
    startDate,
    endDate,
    metrics,
    dimensions,
    filters,
    sort,
    ...(maxResults !== undefined ? { maxResults } : {}),
    startIndex,
    ...(currency !== undefined ? { currency } : {}),
    includeHistoricalChannelData: historical === 'true',
  };
}

export const notSupported = (detail?: string) =>
  new DomainError(
    'invalid_argument',
    'badRequest',
    `The query is not supported. Check the documentation at https://developers.google.com/youtube/analytics/v2/available_reports for a list of supported queries.${detail ? ` (${detail})` : ''}`,
  );
