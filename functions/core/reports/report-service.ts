/**
 * reports.query: which report the request is (the catalog), whose data it may see (the directory), what a
 * group filter stands for, and the answer from the cube engine.
 */
import { actorKey, type DirectoryRepository } from '../directory/directory';
import { DomainError, permissionDenied } from '../errors';
import { effectiveItemType } from '../groups/group';
import { isGroupIdShape } from '../groups/group-commands';
import type { GroupRepository } from '../groups/group-repository';
import { CHANNEL_REPORTS, type ReportDef, ruleViolation } from './catalog';
import { type CubeQuery, type QueryDim, type ResultTable, runCubeQuery } from './engine';
import type { FactRepository, ReadStats } from './fact-repository';
import { CONTINENTS, countriesIn, isCountryCode, SUB_CONTINENTS } from './geo';
import { CHANNEL_BASIC_FAMILY } from './ingest/channel-basic-file';
import { isSupportedMetric, type MetricName } from './metrics';
import { invalidValue, notSupported, type ReportRequest } from './report-request';

export interface ReportDeps {
  readonly directory: DirectoryRepository;
  readonly groups: GroupRepository;
  readonly facts: FactRepository;
}

/** The first catalog report the request fits, or "not supported" naming what the nearest report objects to. */
export function matchReport(req: ReportRequest): ReportDef {
  const dims = new Set(req.dimensions);
  const filters = new Set(req.filters.map((f) => f.name));
  let nearest: string | undefined;
  for (const report of CHANNEL_REPORTS) {
    const problem =
      ruleViolation(report.dimensions, dims, 'dimension') ??
      ruleViolation(report.filters, filters, 'filter') ??
      req.metrics
        .map((m) => (report.metrics.includes(m as MetricName) ? undefined : `metric ${m} is not available`))
        .find(Boolean) ??
      sortViolation(report, req) ??
      pageViolation(report, req);
    if (!problem) return report;
    if (!nearest && !ruleViolation(report.dimensions, dims, 'dimension'))
      nearest = `${report.name} (#${report.id}): ${problem}`;
  }
  throw notSupported(nearest);
}

function sortViolation(report: ReportDef, req: ReportRequest): string | undefined {
  if (!report.sort) return undefined;
  if (req.sort.length === 0) return `sort is required (descending, by one of ${report.sort.descendingBy.join(', ')})`;
  const bad = req.sort.find((k) => !k.descending || !report.sort?.descendingBy.includes(k.name as MetricName));
  return bad ? `sort must be descending by one of ${report.sort.descendingBy.join(', ')}` : undefined;
}

function pageViolation(report: ReportDef, req: ReportRequest): string | undefined {
  if (!report.maxResults) return undefined;
  if (req.maxResults === undefined) return 'maxResults is required';
  return undefined;
}

/** maxResults caps give Google's "invalid value" wording rather than "not supported". */
function checkPageCap(report: ReportDef, req: ReportRequest): void {
  const cap = report.maxResults?.max;
  if (cap === undefined || req.maxResults === undefined) return;
  if (req.maxResults > cap)
    throw invalidValue('maxResults', String(req.maxResults), `This report returns at most ${cap} rows.`);
  if (req.startIndex + req.maxResults - 1 > cap) {
    throw invalidValue(
      'startIndex',
      String(req.startIndex),
      `startIndex + maxResults - 1 must not exceed ${cap} for this report.`,
    );
  }
}

export async function queryReport(
  deps: ReportDeps,
  caller: { readonly sub: string },
  req: ReportRequest,
  stats: ReadStats,
): Promise<ResultTable> {
  const unsupported = req.metrics.find((m) => !isSupportedMetric(m));
  if (unsupported) throw notSupported(`metric ${unsupported} is not available in this release`);
  const report = matchReport(req);
  checkPageCap(report, req);

  const profileRead = deps.directory.profile(caller.sub);
  if (req.ids.type === 'contentOwner') {
    if (!(await profileRead).contentOwners.includes(req.ids.id)) throw permissionDenied('forbidden', 'Forbidden');
    throw new DomainError(
      'unimplemented',
      'notImplemented',
      'Content-owner reports are not implemented yet in this release.',
    );
  }
  const explicit = req.ids.id === 'MINE' ? undefined : req.ids.id;
  const channel = explicit ?? [...(await profileRead).channels].sort()[0];
  const owned = async () => {
    if (!channel || !(await profileRead).channels.includes(channel)) throw permissionDenied('forbidden', 'Forbidden');
  };
  const filters = filtersOf(req);
  const groupId = req.filters.find((f) => f.name === 'group')?.values[0];
  const run = (videos?: Set<string>) =>
    runCubeQuery(
      deps.facts,
      {
        family: CHANNEL_BASIC_FAMILY,
        channel: channel as string,
        startDate: req.startDate,
        endDate: req.endDate,
        dimensions: req.dimensions as QueryDim[],
        metrics: req.metrics as MetricName[],
        filters: videos ? { ...filters, video: videos } : filters,
        sort: req.sort,
        startIndex: req.startIndex,
        ...(req.maxResults !== undefined ? { maxResults: req.maxResults } : {}),
      },
      stats,
    );
  if (groupId !== undefined) {
    // Ownership first: what a group holds must not show through errors about another owner's group.
    await owned();
    return run(await groupVideos(deps, channel as string, groupId));
  }
  if (!explicit) {
    await owned();
    return run();
  }
  // Explicit channel: read facts while the directory answers; nothing is returned unless the caller owns it.
  const answer = run().then(
    (table) => ({ table }),
    (error: unknown) => ({ error }),
  );
  await owned();
  const result = await answer;
  if ('error' in result) throw result.error;
  return result.table;
}

type Filters = { -readonly [K in keyof CubeQuery['filters']]: CubeQuery['filters'][K] };

/** Filter values checked against their dimension's values; `group` is resolved separately. */
function filtersOf(req: ReportRequest): Filters {
  const filters: Filters = {};
  for (const f of req.filters) {
    const value = f.values[0] as string;
    const bad = () => invalidValue('filters', `${f.name}==${f.values.join(',')}`);
    switch (f.name) {
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
      case 'subscribedStatus':
        if (value !== 'SUBSCRIBED' && value !== 'UNSUBSCRIBED') throw bad();
        filters.subscribedStatus = value;
        break;
      case 'liveOrOnDemand':
        if (value !== 'LIVE' && value !== 'ON_DEMAND') throw bad();
        filters.liveOrOnDemand = value;
        break;
      case 'video':
        filters.video = new Set(f.values);
        break;
    }
  }
  return filters;
}

/** The videos of the caller's group; a group of other kinds cannot filter a video report. */
async function groupVideos(deps: ReportDeps, channel: string, groupId: string): Promise<Set<string>> {
  const actor = actorKey({ type: 'channel', id: channel });
  const group = isGroupIdShape(groupId) ? await deps.groups.get(actor, groupId) : undefined;
  if (group?.status !== 'active') {
    throw invalidValue('filters', `group==${groupId}`, 'No such group of the channel.');
  }
  const kind = effectiveItemType(group);
  if (kind && kind !== 'youtube#video') {
    throw invalidValue(
      'filters',
      `group==${groupId}`,
      `The group holds ${kind} items; this report needs a group of videos.`,
    );
  }
  const items = await deps.groups.listItems(actor, groupId);
  return new Set(items.filter((i) => i.kind === 'youtube#video').map((i) => i.resourceId));
}
