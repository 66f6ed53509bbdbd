/**
 * reports.query: which report the request is (the catalog), whose data it may see (the directory), what a
 * group filter stands for, which report families answer its metrics, and the answer from the cube engine.
 */
import { actorKey, type ChannelLinks, type DirectoryRepository, type Profile } from '../../directory/directory';
import { permissionDenied } from '../../errors';
import { effectiveItemType } from '../../groups/group';
import { isGroupIdShape } from '../../groups/group-commands';
import type { GroupReader } from '../../groups/group-reader';
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
import type { FactRepository, ReadStats } from '../storage/fact-repository';
import type { RateRepository } from '../storage/rate-repository';
import { type CubeQuery, type MetricSource, type ResultTable, readAhead, runCubeQuery } from './engine';
import { invalidValue, notSupported, type ReportRequest } from './report-request';

export interface ReportDeps {
  readonly directory: DirectoryRepository & ChannelLinks;
  readonly groups: GroupReader;
  readonly facts: FactRepository;
  readonly rates: RateRepository;
}

/** What an answer read, and which report families (types) answered it: the handler publishes both. */
export interface ReportStats extends ReadStats {
  families?: readonly string[];
}

export interface ReportCaller {
  readonly sub: string;
  readonly scopes: ReadonlySet<ScopeName>;
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

export async function queryReport(
  deps: ReportDeps,
  caller: ReportCaller,
  req: ReportRequest,
  stats: ReportStats,
): Promise<ResultTable> {
  const unsupported = req.metrics.find((m) => !isSupportedMetric(m));
  if (unsupported) throw notSupported(`metric ${unsupported} is not available in this release`);
  const report = matchReport(req);
  checkPageCap(report, req);
  const metrics = req.metrics as MetricName[];
  const monetary = metrics.find((m) => MONETARY_METRICS.has(m));
  if (monetary && !caller.scopes.has('video-analytics-monetary.readonly')) {
    throw permissionDenied('forbidden', `The metric ${monetary} needs the video-analytics-monetary.readonly scope.`);
  }
  const sources = sourcesFor(report, req, metrics);
  stats.families = sources.map((s) => s.family.type);
  const filters = filtersOf(req);
  const currency = currencyOf(deps, req, metrics);
  currency.catch(() => undefined); // awaited below; an earlier 403 must not leave it unhandled

  // What the facts read depends on: everything but the rates themselves (only whether money is converted).
  const pendingRate = convertsCurrency(req, metrics) ? { rate: RATES_PENDING } : {};
  const groupId = req.filters.find((f) => f.name === 'group')?.values[0];

  if (req.ids.type === 'contentOwner') {
    const owner = req.ids.id;
    // The facts are read while the directory answers, planned as if no linked channel's link date fell inside the
    // range (the usual case); a query that turns out otherwise plans other reads and makes them (readAhead).
    const answer =
      groupId === undefined
        ? readAhead(deps.facts, { ...cubeQuery(req, sources, owner, filters), ...pendingRate }, stats)
        : undefined;
    // One read answers both whether the caller manages the owner and which channels are linked (D4); a grant an
    // earlier release wrote on the user's side only is looked up there.
    const { manages, links } = await deps.directory.contentOwnerAccess(owner, caller.sub);
    if (!manages && !(await deps.directory.profile(caller.sub)).contentOwners.includes(owner)) {
      throw permissionDenied('forbidden', 'Forbidden');
    }
    const group =
      groupId === undefined ? undefined : await groupFilter(deps, report, { type: 'contentOwner', id: owner }, groupId);
    const q: CubeQuery = {
      ...cubeQuery(req, sources, owner, withGroup(filters, group)),
      ...(req.includeHistoricalChannelData
        ? {}
        : { channelSince: new Map(links.map((l) => [l.channelId, l.linkedSince])) }),
      ...(await currency),
    };
    return answer ? answer(q) : runCubeQuery(deps.facts, q, stats);
  }

  const profileRead = deps.directory.profile(caller.sub);
  const explicit = req.ids.id === 'MINE' ? undefined : req.ids.id;
  const mineOf = (profile: Profile) => [...profile.channels].sort()[0];
  const owned = async (channel: string | undefined): Promise<string> => {
    const profile = await profileRead;
    if (!channel || !profile.channels.includes(channel)) throw permissionDenied('forbidden', 'Forbidden');
    return channel;
  };
  if (groupId !== undefined) {
    // Ownership first: what a group holds must not show through errors about another owner's group.
    const channel = await owned(explicit ?? mineOf(await profileRead));
    const group = await groupFilter(deps, report, { type: 'channel', id: channel }, groupId);
    return runCubeQuery(
      deps.facts,
      { ...cubeQuery(req, sources, channel, withGroup(filters, group)), ...(await currency) },
      stats,
    );
  }
  // The facts are read while the directory answers: for an explicit channel, that one; for channel==MINE, the
  // channel it meant for this caller last time (kept per container). Nothing is returned unless the directory then
  // says the caller owns that channel; a guess that no longer holds reads the right channel (readAhead).
  const guess = explicit ?? lastMine.get(caller.sub);
  const answer =
    guess === undefined
      ? undefined
      : readAhead(deps.facts, { ...cubeQuery(req, sources, guess, filters), ...pendingRate }, stats);
  const channel = await owned(explicit ?? mineOf(await profileRead));
  if (!explicit) rememberMine(caller.sub, channel);
  const q: CubeQuery = { ...cubeQuery(req, sources, channel, filters), ...(await currency) };
  return answer ? answer(q) : runCubeQuery(deps.facts, q, stats);
}

/** channel==MINE per caller, as last resolved in this container (a hint only: the directory always decides). */
const lastMine = new Map<string, string>();
const MAX_REMEMBERED = 10_000;

function rememberMine(sub: string, channel: string): void {
  if (lastMine.size >= MAX_REMEMBERED && !lastMine.has(sub)) lastMine.clear();
  lastMine.set(sub, channel);
}

/** Stands for the day-by-day rates while they are read: planning needs only to know that money is converted. */
const RATES_PENDING = (): number => Number.NaN;

function cubeQuery(req: ReportRequest, sources: readonly MetricSource[], owner: string, filters: Filters): CubeQuery {
  return {
    family: (sources[0] as MetricSource).family,
    ...(sources.length > 1 ? { sources } : {}),
    owner,
    startDate: req.startDate,
    endDate: req.endDate,
    dimensions: req.dimensions,
    metrics: req.metrics as MetricName[],
    filters,
    sort: req.sort,
    startIndex: req.startIndex,
    ...(req.maxResults !== undefined ? { maxResults: req.maxResults } : {}),
  };
}

/** Whether money metrics are converted: a currency other than USD (the stored unit) and a money metric asked for. */
function convertsCurrency(req: ReportRequest, metrics: readonly MetricName[]): boolean {
  const money = metrics.some((m) => METRICS[m].uses.some((u) => MONEY_MEASURES.has(u)));
  return req.currency !== undefined && req.currency !== 'USD' && money;
}

/** `currency=`: the day-by-day rates when a money metric is asked for; ignored otherwise. USD is the stored unit. */
async function currencyOf(
  deps: ReportDeps,
  req: ReportRequest,
  metrics: readonly MetricName[],
): Promise<Pick<CubeQuery, 'rate'>> {
  const code = req.currency;
  if (code === undefined || !convertsCurrency(req, metrics)) return {};
  const rate = await deps.rates.rates(code, req.startDate, req.endDate);
  if (!rate) throw invalidValue('currency', code, 'No exchange rates are loaded for this currency.');
  return { rate };
}

type Filters = { -readonly [K in keyof CubeQuery['filters']]: CubeQuery['filters'][K] };

const intersect = (a: ReadonlySet<string> | undefined, b: ReadonlySet<string>) =>
  a ? new Set([...b].filter((x) => a.has(x))) : b;

/** The query's filters and what its group stands for, together: both must hold (a `channel==` and a group intersect). */
function withGroup(filters: Filters, group: Filters | undefined): Filters {
  if (!group) return filters;
  const values: Record<string, ReadonlySet<string>> = { ...filters.values };
  for (const [dim, ids] of Object.entries(group.values ?? {})) values[dim] = intersect(values[dim], ids);
  return {
    ...filters,
    ...(group.video ? { video: intersect(filters.video, group.video) } : {}),
    ...(Object.keys(values).length > 0 ? { values } : {}),
  };
}

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

const GROUP_KINDS: Readonly<Record<string, { dim: string; report: 'video' | 'playlist' | 'any' }>> = {
  'youtube#video': { dim: 'video', report: 'video' },
  'youtube#playlist': { dim: 'playlist', report: 'playlist' },
  'youtube#channel': { dim: 'channel', report: 'any' },
};

/**
 * What the caller's group stands for in this report: its videos, playlists or (for content owners) channels as a
 * filter. A missing or foreign group and a group whose kind the report cannot use are 400s on the filter.
 */
async function groupFilter(
  deps: ReportDeps,
  report: ReportDef,
  owner: { type: 'channel' | 'contentOwner'; id: string },
  groupId: string,
): Promise<Filters> {
  const actor = actorKey(owner);
  const group = isGroupIdShape(groupId) ? await deps.groups.get(actor, groupId) : undefined;
  if (group?.status !== 'active') {
    throw invalidValue(
      'filters',
      `group==${groupId}`,
      `No such group of the ${owner.type === 'channel' ? 'channel' : 'content owner'}.`,
    );
  }
  const kind = effectiveItemType(group);
  const use = kind ? GROUP_KINDS[kind] : { dim: report.kind === 'playlist' ? 'playlist' : 'video', report: 'any' };
  const wanted = report.kind === 'playlist' ? 'playlist' : 'video';
  if (!use || (use.report !== 'any' && use.report !== wanted)) {
    throw invalidValue(
      'filters',
      `group==${groupId}`,
      `The group holds ${kind} items; this report needs a group of ${wanted === 'video' ? 'videos' : 'playlists'}${owner.type === 'contentOwner' ? ' or channels' : ''}.`,
    );
  }
  const items = await deps.groups.listItems(actor, groupId);
  const ids = new Set(items.filter((i) => GROUP_KINDS[i.kind]?.dim === use.dim).map((i) => i.resourceId));
  return use.dim === 'video' ? { video: ids } : { values: { [use.dim]: ids } };
}
