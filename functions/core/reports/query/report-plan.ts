/**
 * reports.query, stage 2: the plan. A pure function from the prepared request and what is known so far about its
 * owner (the grant and linked channels, the caller's profile, the group, the rates, the facts read) to either the
 * next reads, as plain data, or the cube query to answer from the facts read.
 *
 * The reads name what a repository reads (keys stay in the repositories): the content owner's grant and CHANNELS
 * list (D4), the caller's profile, a group and its items, the exchange rates, and the facts as a fact plan (every
 * Query range and block key, engine.ts). Facts are planned as early as they can be guessed, so that they are read in
 * the same round trip as the directory; what a guess took for granted is listed in `assumed`:
 *
 * - a content-owner report, before its links are known: no linked channel's link date falls inside the range;
 * - a channel report, before the caller's profile is known: the caller owns the channel asked for, or for
 *   channel==MINE the channel it meant last time in this container.
 *
 * The guess is checked in one place (factsFor): facts read under a plan are used only when the plan of the query as
 * it turned out is the same plain data; otherwise the right facts are read. Nothing is answered before the directory
 * says the caller may see the owner.
 */
import { isDeepStrictEqual } from 'node:util';
import { actorKey, type ChannelLink, type Profile } from '../../directory/directory';
import { permissionDenied } from '../../errors';
import { effectiveItemType, type Group, type GroupItem } from '../../groups/group';
import { isGroupIdShape } from '../../groups/group-commands';
import type { ReadStats } from '../storage/fact-repository';
import type { RateOf } from '../storage/rate-repository';
import { type CubeQuery, type FactPlan, type FactReads, planFacts } from './engine';
import type { Filters, ReportQuery } from './report-query';
import { invalidValue } from './report-request';

/** What a round of reads learned. Each field is read at most once, except the facts (see factsFor). */
export interface Known {
  /** Content-owner reports: whether the caller holds the grant on the content owner's side, and its links. */
  readonly access?: { readonly manages: boolean; readonly links: readonly ChannelLink[] };
  readonly profile?: Profile;
  /** The group `group==` names, null when there is none. */
  readonly group?: Group | null;
  readonly groupItems?: readonly GroupItem[];
  /** The rates of `currency=`, null when none are loaded. */
  readonly rates?: RateOf | null;
  readonly facts?: FactsRead;
  /** channel==MINE as resolved last time in this container: a hint for a guess, never a decision. */
  readonly lastMine?: string;
}

/** Facts read for a plan: the plan, what it assumed, what it read (or the error), and what that cost. */
export interface FactsRead {
  readonly plan: FactPlan;
  readonly assumed: readonly string[];
  readonly result: { readonly reads: FactReads } | { readonly error: unknown };
  readonly stats: ReadStats;
}

/** One read of a round, as a repository takes it. */
export type PlannedRead =
  | { readonly read: 'contentOwnerAccess'; readonly contentOwner: string; readonly sub: string }
  | { readonly read: 'profile'; readonly sub: string }
  | { readonly read: 'group'; readonly actor: string; readonly groupId: string }
  | { readonly read: 'groupItems'; readonly actor: string; readonly groupId: string }
  | { readonly read: 'rates'; readonly currency: string; readonly from: string; readonly to: string }
  | { readonly read: 'facts'; readonly plan: FactPlan; readonly assumed: readonly string[] };

export type ReportPlan =
  | { readonly step: 'read'; readonly reads: readonly PlannedRead[] }
  | {
      readonly step: 'answer';
      readonly query: CubeQuery;
      readonly facts: FactsRead & { result: { reads: FactReads } };
    };

/** Stands for the day-by-day rates while they are read: a fact plan needs only to know that money is converted. */
const RATES_PENDING = (): number => Number.NaN;

export const ASSUMED_NO_LINK_IN_RANGE = 'no linked channel has a link date inside the range';
export const assumedOwns = (channel: string) => `the caller owns ${channel}`;

/**
 * The next step for `query` given `known`. Throws the request's 4xx as soon as what is known decides it, in the
 * order a caller sees them: access (403), then the group (400), then the currency (400), then a combination no
 * stored cube answers (400).
 */
export function planReport(query: ReportQuery, sub: string, known: Known): ReportPlan {
  const reads: PlannedRead[] = [];
  const req = query.request;
  // Rates are read in the first round, beside everything else: only their presence shapes the fact plan.
  if (query.converts && known.rates === undefined) {
    reads.push({ read: 'rates', currency: req.currency as string, from: req.startDate, to: req.endDate });
  }

  // Whose facts, and whether the caller may see them: true, false (403), or not known yet (a guess, if any).
  const who = ownerOf(query, sub, known, reads);
  if (who.allowed === false) throw permissionDenied('forbidden', 'Forbidden');

  // `group==`: read only once access is decided (what a group holds must not show through errors about another
  // owner's group), then its items once the group is known to be usable here.
  let group: Filters | undefined;
  if (query.groupId !== undefined) {
    if (who.allowed !== true) return { step: 'read', reads };
    const actor = actorKey(who.actor);
    if (!isGroupIdShape(query.groupId) || known.group === null) throw noSuchGroup(query.groupId, who.actor.type);
    if (known.group === undefined) {
      reads.push({ read: 'group', actor, groupId: query.groupId });
      return { step: 'read', reads };
    }
    const use = groupUse(query, known.group, who.actor.type);
    if (known.groupItems === undefined) {
      reads.push({ read: 'groupItems', actor, groupId: query.groupId });
      return { step: 'read', reads };
    }
    group = groupFilter(use, known.groupItems);
  }

  const decided = who.allowed === true && (!query.converts || known.rates !== undefined);
  if (decided && known.rates === null) {
    throw invalidValue('currency', req.currency as string, 'No exchange rates are loaded for this currency.');
  }
  const filters = group ? withGroup(query.filters, group) : query.filters;
  const links = known.access?.links;
  const q: CubeQuery | undefined =
    who.channel === undefined
      ? undefined
      : {
          ...cubeQuery(query, who.channel, filters),
          ...(req.ids.type === 'contentOwner' && links && !req.includeHistoricalChannelData
            ? { channelSince: new Map(links.map((l) => [l.channelId, l.linkedSince])) }
            : {}),
          ...(query.converts ? { rate: known.rates ?? RATES_PENDING } : {}),
        };
  const assumed = [
    ...(req.ids.type === 'contentOwner' && !links && !req.includeHistoricalChannelData
      ? [ASSUMED_NO_LINK_IN_RANGE]
      : []),
    ...(who.allowed === undefined && who.channel !== undefined && req.ids.type === 'channel'
      ? [assumedOwns(who.channel)]
      : []),
  ];
  const facts = q && factsFor(q, assumed, decided, known.facts);
  if (facts && 'read' in facts) reads.push(facts);
  // Once decided, nothing else is read: the plan answers as soon as the facts of its own plan are in.
  if (!decided || !q || !facts || !('ready' in facts)) return { step: 'read', reads };
  return { step: 'answer', query: q, facts: facts.ready };
}

/**
 * The one place a guess is checked: facts read under a plan answer the query only when its plan now is the same.
 * A plan that cannot be made yet on a guess reads nothing early; once everything is known its error is the answer.
 */
function factsFor(
  q: CubeQuery,
  assumed: readonly string[],
  decided: boolean,
  read: FactsRead | undefined,
): PlannedRead | { ready: FactsRead & { result: { reads: FactReads } } } | undefined {
  let plan: FactPlan;
  try {
    plan = planFacts(q);
  } catch (error) {
    if (decided) throw error;
    return undefined;
  }
  if (read && isDeepStrictEqual(read.plan, plan)) {
    if (!decided) return undefined; // read already; waiting for the directory
    if ('error' in read.result) throw read.result.error;
    return { ready: read as FactsRead & { result: { reads: FactReads } } };
  }
  return { read: 'facts', plan, assumed };
}

interface Owner {
  /** Whether the caller may see the owner's data; undefined while the directory has not said. */
  allowed: boolean | undefined;
  /** Whose facts are read (the content owner, or the channel), when known or guessed. */
  channel: string | undefined;
  actor: { type: 'channel' | 'contentOwner'; id: string };
}

/** Who the report is about and whether the caller may see it, adding the directory reads that would decide it. */
function ownerOf(query: ReportQuery, sub: string, known: Known, reads: PlannedRead[]): Owner {
  const ids = query.request.ids;
  if (ids.type === 'contentOwner') {
    const actor = { type: 'contentOwner' as const, id: ids.id };
    // One read answers both whether the caller manages the owner and which channels are linked (D4); a grant an
    // earlier release wrote on the user's side only is looked up in the caller's profile.
    if (!known.access) {
      reads.push({ read: 'contentOwnerAccess', contentOwner: ids.id, sub });
      return { allowed: undefined, channel: ids.id, actor };
    }
    if (known.access.manages) return { allowed: true, channel: ids.id, actor };
    if (!known.profile) {
      reads.push({ read: 'profile', sub });
      return { allowed: undefined, channel: ids.id, actor };
    }
    return { allowed: known.profile.contentOwners.includes(ids.id), channel: ids.id, actor };
  }
  const explicit = ids.id === 'MINE' ? undefined : ids.id;
  if (!known.profile) {
    reads.push({ read: 'profile', sub });
    // A report filtered by a group reads nothing before ownership is known.
    const guess = query.groupId === undefined ? (explicit ?? known.lastMine) : undefined;
    return { allowed: undefined, channel: guess, actor: { type: 'channel', id: guess ?? '' } };
  }
  const channel = explicit ?? [...known.profile.channels].sort()[0];
  const allowed = channel !== undefined && known.profile.channels.includes(channel);
  return { allowed, channel, actor: { type: 'channel', id: channel ?? '' } };
}

function cubeQuery(query: ReportQuery, owner: string, filters: Filters): CubeQuery {
  const req = query.request;
  return {
    family: query.sources[0]?.family as CubeQuery['family'],
    ...(query.sources.length > 1 ? { sources: query.sources } : {}),
    owner,
    startDate: req.startDate,
    endDate: req.endDate,
    dimensions: req.dimensions,
    metrics: query.metrics,
    filters,
    sort: req.sort,
    startIndex: req.startIndex,
    ...(req.maxResults !== undefined ? { maxResults: req.maxResults } : {}),
  };
}

const intersect = (a: ReadonlySet<string> | undefined, b: ReadonlySet<string>) =>
  a ? new Set([...b].filter((x) => a.has(x))) : b;

/** The query's filters and what its group stands for, together: both must hold (a `channel==` and a group intersect). */
function withGroup(filters: Filters, group: Filters): Filters {
  const values: Record<string, ReadonlySet<string>> = { ...filters.values };
  for (const [dim, ids] of Object.entries(group.values ?? {})) values[dim] = intersect(values[dim], ids);
  return {
    ...filters,
    ...(group.video ? { video: intersect(filters.video, group.video) } : {}),
    ...(Object.keys(values).length > 0 ? { values } : {}),
  };
}

const GROUP_KINDS: Readonly<Record<string, { dim: string; report: 'video' | 'playlist' | 'any' }>> = {
  'youtube#video': { dim: 'video', report: 'video' },
  'youtube#playlist': { dim: 'playlist', report: 'playlist' },
  'youtube#channel': { dim: 'channel', report: 'any' },
};

const noSuchGroup = (groupId: string, owner: 'channel' | 'contentOwner') =>
  invalidValue(
    'filters',
    `group==${groupId}`,
    `No such group of the ${owner === 'channel' ? 'channel' : 'content owner'}.`,
  );

/**
 * Which dimension the caller's group filters in this report: its videos, playlists or (for content owners)
 * channels. A group being deleted, and a group whose kind the report cannot use, are 400s on the filter.
 */
function groupUse(query: ReportQuery, group: Group, owner: 'channel' | 'contentOwner'): { dim: string } {
  const groupId = query.groupId as string;
  if (group.status !== 'active') throw noSuchGroup(groupId, owner);
  const kind = effectiveItemType(group);
  const use = kind
    ? GROUP_KINDS[kind]
    : { dim: query.report.kind === 'playlist' ? 'playlist' : 'video', report: 'any' };
  const wanted = query.report.kind === 'playlist' ? 'playlist' : 'video';
  if (!use || (use.report !== 'any' && use.report !== wanted)) {
    throw invalidValue(
      'filters',
      `group==${groupId}`,
      `The group holds ${kind} items; this report needs a group of ${wanted === 'video' ? 'videos' : 'playlists'}${owner === 'contentOwner' ? ' or channels' : ''}.`,
    );
  }
  return use;
}

/** What the group stands for: its items of the dimension it filters, as a filter. */
function groupFilter(use: { dim: string }, items: readonly GroupItem[]): Filters {
  const ids = new Set(items.filter((i) => GROUP_KINDS[i.kind]?.dim === use.dim).map((i) => i.resourceId));
  return use.dim === 'video' ? { video: ids } : { values: { [use.dim]: ids } };
}
