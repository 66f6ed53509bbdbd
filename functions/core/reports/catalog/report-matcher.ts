/**
 * Which catalog report a reports.query request is (api-contract.md §A.3): the first report of the caller's kind of
 * owner whose rules the request satisfies. Otherwise Google's "not supported", followed by what the nearest report
 * objects to: the one that passes the most checks below, in their order. Page caps are checked after the match and
 * give Google's "Invalid value" instead.
 */

import { invalidValue, notSupported, type ReportRequest } from '../query/report-request';
import { PLAYLIST_METRICS, REACH_METRICS, REPORTS, type ReportDef, ruleNames, ruleViolation } from './catalog';

/**
 * A playlist report: the `playlist` dimension or filter, or a `group` filter with playlist metrics (§A.3.2). A
 * group filter alone keeps a video report.
 */
export function isPlaylistRequest(req: ReportRequest): boolean {
  const filtered = (name: string) => req.filters.some((f) => f.name === name);
  return (
    req.dimensions.includes('playlist') ||
    filtered('playlist') ||
    (filtered('group') && req.metrics.some((m) => PLAYLIST_METRICS.has(m)))
  );
}

const filterOf = (req: ReportRequest, name: string) => req.filters.find((f) => f.name === name);

/** `country==US`, or `insightTrafficSourceType==X with X one of …`. */
const needText = (filter: string, values: readonly string[]) =>
  values.length === 1 ? `${filter}==${values[0]}` : `${filter}==X with X one of ${values.join(', ')}`;

type Check = (report: ReportDef, req: ReportRequest) => string | undefined;

function kindViolation(report: ReportDef, req: ReportRequest): string | undefined {
  const playlist = isPlaylistRequest(req);
  if (report.kind === 'playlist' && !playlist) {
    return 'a playlist report needs the playlist dimension or filter, or a group filter with playlist metrics';
  }
  if (report.kind !== 'playlist' && playlist) {
    return 'the playlist dimension or filter (or a group filter with playlist metrics) makes this a playlist report';
  }
  return undefined;
}

function dimensionFilterViolation(report: ReportDef, req: ReportRequest): string | undefined {
  for (const d of req.dimensions) {
    for (const [filter, values] of Object.entries(report.requiredDimensionFilters?.[d] ?? {})) {
      const given = filterOf(req, filter);
      if (!given || given.values.some((v) => !values.includes(v))) {
        return `dimension ${d} requires the filter ${needText(filter, values)}`;
      }
    }
  }
  return undefined;
}

function filterValueViolation(report: ReportDef, req: ReportRequest): string | undefined {
  for (const [filter, values] of Object.entries(report.requiredFilterValues ?? {})) {
    const given = filterOf(req, filter);
    if (given?.values.some((v) => !values.includes(v))) {
      return `filter ${filter}==${given.values.join(',')} is not supported: it must be ${needText(filter, values)}`;
    }
  }
  return undefined;
}

function singleValueViolation(report: ReportDef, req: ReportRequest): string | undefined {
  const multi = (report.singleValueFilters ?? []).find((name) => (filterOf(req, name)?.values.length ?? 1) !== 1);
  return multi ? `the ${multi} filter must name exactly one id` : undefined;
}

function entityViolation(report: ReportDef, req: ReportRequest): string | undefined {
  const rule = report.entityFilter;
  if (!rule || rule.anyOf.some((name) => filterOf(req, name))) return undefined;
  const keys = new Set(rule.combinations.flatMap((c) => Object.keys(c)));
  const given = req.filters.filter((f) => keys.has(f.name));
  const fits = (c: Readonly<Record<string, string>>) =>
    given.length === Object.keys(c).length && given.every((f) => f.values.length === 1 && c[f.name] === f.values[0]);
  if (given.length > 0 && rule.combinations.some(fits)) return undefined;
  const allowed = ruleNames(report.filters);
  const names = rule.anyOf.filter((name) => allowed.has(name));
  const entities = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names.join('');
  const combinations = rule.combinations.map((c) =>
    Object.entries(c)
      .map(([k, v]) => `${k}==${v}`)
      .join(';'),
  );
  return `a content-owner query must filter by ${entities}${combinations.length > 0 ? `, or by one of ${combinations.join(', ')}` : ''}`;
}

function metricViolation(report: ReportDef, req: ReportRequest): string | undefined {
  const m = req.metrics.find((name) => !report.metrics.includes(name));
  return m ? `metric ${m} is not available` : undefined;
}

export function sortViolation(report: ReportDef, req: ReportRequest): string | undefined {
  if (!report.sort) return undefined;
  const by = report.sort.descendingBy;
  if (req.sort.length === 0) return `sort is required (descending, by one of ${by.join(', ')})`;
  const bad = req.sort.find((k) => !k.descending || !by.includes(k.name));
  return bad ? `sort must be descending by one of ${by.join(', ')}` : undefined;
}

export function pageViolation(report: ReportDef, req: ReportRequest): string | undefined {
  if (report.maxResults?.required && req.maxResults === undefined) return 'maxResults is required';
  return undefined;
}

/** The checks, in order; how far a report gets through them makes it the nearest one. */
const CHECKS: readonly Check[] = [
  kindViolation,
  (report, req) => ruleViolation(report.dimensions, new Set(req.dimensions), 'dimension'),
  dimensionFilterViolation,
  (report, req) => ruleViolation(report.filters, new Set(req.filters.map((f) => f.name)), 'filter'),
  filterValueViolation,
  singleValueViolation,
  entityViolation,
  metricViolation,
  sortViolation,
  pageViolation,
];
/** Reports that fail at this check or before it object to the request's kind or dimensions. */
const DIMENSIONS_CHECK = 1;

/** What `report` objects to in `req` and at which check, or undefined when the request is that report. */
export function reportProblem(report: ReportDef, req: ReportRequest): { check: number; problem: string } | undefined {
  for (const [check, fn] of CHECKS.entries()) {
    const problem = fn(report, req);
    if (problem) return { check, problem };
  }
  return undefined;
}

const OWNER_WORDS = { channel: 'channel', contentOwner: 'content-owner' } as const;

/** Dimensions and filters that only the other kind of owner's reports take (`channel`, `claimedStatus`, …). */
function otherOwnerName(req: ReportRequest, catalog: readonly ReportDef[]): string | undefined {
  const names = (owner: string, part: 'dimensions' | 'filters') =>
    new Set(catalog.filter((r) => r.owner === owner).flatMap((r) => [...ruleNames(r[part])]));
  const other = req.ids.type === 'channel' ? 'contentOwner' : 'channel';
  for (const [part, what, given] of [
    ['dimensions', 'dimension', req.dimensions],
    ['filters', 'filter', req.filters.map((f) => f.name)],
  ] as const) {
    const own = names(req.ids.type, part);
    const theirs = names(other, part);
    const name = given.find((n) => !own.has(n) && theirs.has(n));
    if (name) return `${what} ${name} is only available in ${OWNER_WORDS[other]} reports`;
  }
  return undefined;
}

/**
 * The report `req` is: the first of `catalog` for its owner (channel or content owner) whose rules it satisfies.
 * Throws "The query is not supported" naming what the nearest report objects to.
 */
export function matchReport(req: ReportRequest, catalog: readonly ReportDef[] = REPORTS): ReportDef {
  const candidates = catalog.filter((r) => r.owner === req.ids.type);
  let nearest: { report: ReportDef; check: number; problem: string } | undefined;
  for (const report of candidates) {
    const miss = reportProblem(report, req);
    if (!miss) return report;
    if (!nearest || miss.check > nearest.check) nearest = { report, ...miss };
  }
  const owner = OWNER_WORDS[req.ids.type];
  const reach = req.ids.type === 'contentOwner' ? req.metrics.find((m) => REACH_METRICS.includes(m)) : undefined;
  if (reach) {
    throw notSupported(
      `${reach} is answered for channels only: the columns of the content-owner reach reports are not known, so they are not loaded`,
    );
  }
  const playlist = isPlaylistRequest(req);
  const playlistMetric = req.metrics.find((m) => PLAYLIST_METRICS.has(m));
  const detail =
    otherOwnerName(req, catalog) ??
    (!playlist && playlistMetric && nearest?.report.kind !== 'playlist'
      ? `playlist metrics (${playlistMetric}) need the playlist dimension or filter, or a group filter`
      : undefined) ??
    (nearest && (candidates.length === 1 || nearest.check > DIMENSIONS_CHECK)
      ? `${nearest.report.name} (#${nearest.report.id}): ${nearest.problem}`
      : `no ${owner} ${playlist ? 'playlist' : 'video'} report takes the dimensions ${req.dimensions.join(', ') || '(none)'}`);
  throw notSupported(detail);
}

/** maxResults caps give Google's "invalid value" wording rather than "not supported". */
export function checkPageCap(report: ReportDef, req: ReportRequest): void {
  const cap = report.maxResults?.max;
  if (cap === undefined || req.maxResults === undefined) return;
  if (req.maxResults > cap) {
    throw invalidValue('maxResults', String(req.maxResults), `This report returns at most ${cap} rows.`);
  }
  if (req.startIndex + req.maxResults - 1 > cap) {
    throw invalidValue(
      'startIndex',
      String(req.startIndex),
      `startIndex + maxResults - 1 must not exceed ${cap} for this report.`,
    );
  }
}
