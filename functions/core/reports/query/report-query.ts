/**
 * reports.query, stage 1 (after parsing): the request checked against the catalog, before anything is read. Which
 * report it is, whether the caller's scopes allow its metrics, which report families answer them, its filter values
 * checked. Pure: every 4xx a request earns on its own is thrown here, with no repository touched.
 */
import { permissionDenied } from '../../errors';
import type { ScopeName } from '../../scopes';
import { MONETARY_METRICS, type ReportDef } from '../catalog/catalog';
import {
  FAMILIES,
  type FamilyShape as FamilyDef,
  familyDims,
  familyMeasures,
  isExtension,
} from '../catalog/family-shapes';
import { CONTINENTS, countriesIn, isCountryCode, SUB_CONTINENTS } from '../catalog/geo';
import { isSupportedMetric, METRICS, type MetricName, MONEY_MEASURES } from '../catalog/metrics';
import { checkPageCap, matchReport } from '../catalog/report-matcher';
import { ANALYTICS_VALUES } from '../ingest/code-tables';
import type { CubeQuery, MetricSource } from './engine';
import { invalidValue, notSupported, type ReportRequest } from './report-request';

/** A request the catalog accepts: what the planner works from. */
export interface ReportQuery {
  readonly request: ReportRequest;
  readonly report: ReportDef;
  readonly metrics: readonly MetricName[];
  /** The families answering the metrics (the first is the cube query's family). */
  readonly sources: readonly MetricSource[];
  /** The checked filters, `group==` aside (it is resolved against the directory). */
  readonly filters: Filters;
  /** The `group==` id, if any. */
  readonly groupId?: string;
  /** Whether money is converted to `currency=` (then its rates are read). */
  readonly converts: boolean;
}

export function prepareReport(req: ReportRequest, scopes: ReadonlySet<ScopeName>): ReportQuery {
  const unsupported = req.metrics.find((m) => !isSupportedMetric(m));
  if (unsupported) throw notSupported(`metric ${unsupported} is not available in this release`);
  const report = matchReport(req);
  checkPageCap(report, req);
  const metrics = req.metrics as MetricName[];
  const monetary = metrics.find((m) => MONETARY_METRICS.has(m));
  if (monetary && !scopes.has('video-analytics-monetary.readonly')) {
    throw permissionDenied('forbidden', `The metric ${monetary} needs the video-analytics-monetary.readonly scope.`);
  }
  const sources = sourcesFor(report, req, metrics);
  const groupId = req.filters.find((f) => f.name === 'group')?.values[0];
  return {
    request: req,
    report,
    metrics,
    sources,
    filters: filtersOf(req),
    ...(groupId === undefined ? {} : { groupId }),
    converts: convertsCurrency(req, metrics),
  };
}

/** Filters that select whose rows count, rather than a dimension value. */
const ENTITY_FILTERS = new Set(['group', 'continent', 'subContinent']);

/**
 * The families that answer the request: of the owner's kind, holding every dimension the request groups or
 * filters by, and between them every metric's measures. Each metric comes from one family (the one covering the
 * most metrics, then the one with the fewest dimensions); rows of several families are joined, never added.
 */
export function sourcesFor(report: ReportDef, req: ReportRequest, metrics: readonly MetricName[]): MetricSource[] {
  const needed = new Set<string>();
  for (const d of req.dimensions) if (d !== 'day' && d !== 'month') needed.add(d);
  for (const f of req.filters) {
    if (f.name === 'continent' || f.name === 'subContinent') needed.add('country');
    else if (!ENTITY_FILTERS.has(f.name)) needed.add(f.name);
  }
  const playlist = report.kind === 'playlist';
  const candidates = FAMILIES.filter(
    (f) =>
      f.owner === report.owner &&
      (playlist ? f.kind === 'playlist' : f.kind === 'video' || f.kind === 'revenue' || f.kind === 'ad') &&
      [...needed].every((d) => familyDims(f).includes(d)),
    // Bulk report types before extension layouts, then the fewest dimensions (the smallest cubes).
  ).sort((a, b) => Number(isExtension(a)) - Number(isExtension(b)) || a.columns.length - b.columns.length);
  const serves = (f: FamilyDef, m: MetricName) => {
    const has = familyMeasures(f);
    return METRICS[m].uses.every((u) => has.has(u));
  };
  const sources: MetricSource[] = [];
  let left = [...metrics];
  while (left.length > 0) {
    let best: { family: FamilyDef; metrics: MetricName[] } | undefined;
    for (const family of candidates) {
      const covered = left.filter((m) => serves(family, m));
      if (covered.length > (best?.metrics.length ?? 0)) best = { family, metrics: covered };
    }
    if (!best) {
      const missing = needed.size > 0 ? ` with ${[...needed].join(', ')}` : '';
      throw notSupported(
        `${report.name} (#${report.id}): no loaded report type carries ${left.join(', ')}${missing} (the bulk exports do not hold it)`,
      );
    }
    // Two families never feed one metric: a measure a chosen family already answers is not taken from another.
    const shared = best.metrics.find((m) =>
      METRICS[m].uses.some((u) =>
        sources.some((src) => src.metrics.some((x) => (METRICS[x].uses as readonly string[]).includes(u))),
      ),
    );
    if (shared) {
      throw notSupported(
        `${report.name} (#${report.id}): ${shared} and the other metrics come from different report types`,
      );
    }
    sources.push(best);
    left = left.filter((m) => !best.metrics.includes(m));
  }
  return sources;
}

/** Whether money metrics are converted: a currency other than USD (the stored unit) and a money metric asked for. */
function convertsCurrency(req: ReportRequest, metrics: readonly MetricName[]): boolean {
  const money = metrics.some((m) => METRICS[m].uses.some((u) => MONEY_MEASURES.has(u)));
  return req.currency !== undefined && req.currency !== 'USD' && money;
}

export type Filters = { -readonly [K in keyof CubeQuery['filters']]: CubeQuery['filters'][K] };

/** Free-text dimensions (any value can be filtered on) and the formats of the others without a value list. */
const FREE_TEXT = new Set([
  'video',
  'playlist',
  'channel',
  'insightPlaybackLocationDetail',
  'insightTrafficSourceDetail',
]);

/** Filter values checked against their dimension's values; `group` is resolved separately. */
function filtersOf(req: ReportRequest): Filters {
  const filters: Filters = {};
  const values: Record<string, ReadonlySet<string>> = {};
  for (const f of req.filters) {
    const value = f.values[0] as string;
    const bad = () => invalidValue('filters', `${f.name}==${f.values.join(',')}`);
    switch (f.name) {
      case 'group':
        break;
      case 'country':
        if (!isCountryCode(value)) throw bad();
        filters.country = new Set([value]);
        filters.region = { kind: 'country', code: value };
        break;
      case 'continent':
      case 'subContinent': {
        const known: readonly string[] = f.name === 'continent' ? CONTINENTS : SUB_CONTINENTS;
        if (!known.includes(value)) throw bad();
        filters.country = countriesIn({ [f.name]: value });
        filters.region = { kind: f.name, code: value };
        break;
      }
      case 'video':
        filters.video = new Set(f.values);
        break;
      case 'province':
        if (!/^US-[A-Z]{2}$/.test(value)) throw bad();
        values.province = new Set([value]);
        break;
      default: {
        const allowed = ANALYTICS_VALUES[f.name];
        if (allowed && !f.values.every((v) => allowed.includes(v))) throw bad();
        if (!allowed && !FREE_TEXT.has(f.name)) throw bad();
        // claimedStatus==claimed is the claimed rows; uploaderType==self the owner's uploads.
        values[f.name] = new Set(f.values);
      }
    }
  }
  if (Object.keys(values).length > 0) filters.values = values;
  return filters;
}
