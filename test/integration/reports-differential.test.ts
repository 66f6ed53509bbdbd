/**
 * Differential test of reports.query: seeded random VALID queries, drawn from the catalog data (REPORTS: channel
 * reports #1–#30, P1–P11, AD and their content-owner twins), go through real HTTP to the local API (DynamoDB Local,
 * the real ingest, planner and cubes) and are compared with an independent DuckDB oracle over the raw CSV rows of
 * every report family (test/support/duckdb-oracle.ts states the semantics and the comparison). The data: a channel
 * world and a content-owner world (report-fixtures.ts createReportWorlds) with a2-era days, link dates, third-party
 * claimed channels and an exchange-rates file with gaps. Queries run for channel and content-owner ids, with and
 * without `currency`, with video, playlist and channel groups, with includeHistoricalChannelData both ways.
 *
 * Every report of the catalog is compared at least once, except those listed in NOT_SERVABLE with the reason (the
 * service must answer those "not supported"); reports that need the extension layouts are listed in NEEDS_EXTENSIONS
 * and must also return data when the generator writes those layouts. Plus targeted cases.
 *
 * REPORTS_DIFF_SEED=<n> replays another query sequence; REPORTS_DIFF_QUERIES=<n> changes how many are run;
 * REPORTS_DIFF_DUMP=<file> writes every mismatch (query, problem, first rows of both answers) and every query (with
 * the oracle's row count) to a JSON file.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MONETARY_METRICS,
  PLAYLIST_METRICS,
  REPORTS,
  type ReportDef,
  type SetRule,
} from '../../functions/core/reports/catalog/catalog';
import { CONTINENTS, SUB_CONTINENTS } from '../../functions/core/reports/catalog/geo';
import { ANALYTICS_VALUES } from '../../functions/core/reports/ingest/code-tables';
import {
  type Cell,
  compareWithOracle,
  createOracle,
  ORACLE_METRICS,
  type Oracle,
  type OracleGroup,
  type OracleRequest,
  OracleUnanswerable,
} from '../support/duckdb-oracle';
import { groupsClient } from '../support/groups';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { createReportWorlds, type ReportWorld, type ReportWorlds } from '../support/report-fixtures';

const SEED = Number(process.env.REPORTS_DIFF_SEED ?? 424242);
const QUERIES = Number(process.env.REPORTS_DIFF_QUERIES ?? 600);
const IN_FLIGHT = 8;

/** Reports no loaded family can answer at all: the service must say "not supported". */
const NOT_SERVABLE: Readonly<Record<string, string>> = {};

/** Reports whose data only the extension layouts carry (empty answers without them). */
const NEEDS_EXTENSIONS: Readonly<Record<string, string>> = {
  '7': 'city: channel_city_x1',
  '25': 'audience retention: channel_audience_retention_x1',
  AD: 'ad performance of a channel: channel_ad_rates_x1',
  'CO-7': 'city: content_owner_city_x1',
  'CO-25': 'audience retention: content_owner_audience_retention_x1',
};

const READ = 'video-analytics.readonly';
const MONEY = 'video-analytics-monetary.readonly';

let api: LocalApi;
let worlds: ReportWorlds;
let oracle: Oracle;

interface GroupInfo {
  readonly id: string;
  readonly kind?: OracleGroup['kind'];
  readonly ids: readonly string[];
}

/** What a world offers the query generator. */
interface WorldCtx {
  readonly world: ReportWorld;
  readonly ids: { readonly type: 'channel' | 'contentOwner'; readonly id: string };
  readonly tokens: { readonly read: string; readonly money: string; readonly moneyOnly: string };
  readonly groups: readonly GroupInfo[];
  readonly oracleGroups: Record<string, OracleGroup>;
  /** Distinct values per dimension in the world's rows. */
  readonly domain: Map<string, string[]>;
  /** The videos with the most audience-retention rows (#25 names one). */
  readonly retentionVideos: readonly string[];
}
const ctx: Partial<Record<'channel' | 'contentOwner', WorldCtx>> = {};
/** Report → the draws the oracle could not answer (a valid combination no family holds) and how often. */
const unanswerable = new Map<string, Map<string, number>>();
/** Those draws as queries: the service must answer them "not supported". */
const refused: Query[] = [];
const worldCtx = (owner: 'channel' | 'contentOwner') => ctx[owner] as WorldCtx;

/** mulberry32: a small seeded generator, independent of the export generator's streams. */
class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** Integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  /** k distinct items in random order. */
  sample<T>(items: readonly T[], k: number): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
    }
    return copy.slice(0, Math.min(k, copy.length));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Dates

const DAY_MS = 86_400_000;
const toMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
const fromMs = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const addDays = (day: string, n: number) => fromMs(toMs(day) + n * DAY_MS);
const monthStart = (day: string) => `${day.slice(0, 7)}-01`;
const monthEnd = (day: string) => {
  const [y, m] = day.split('-').map(Number) as [number, number];
  return fromMs(Date.UTC(y, m, 0));
};
const addMonths = (day: string, n: number) => {
  const [y, m] = day.split('-').map(Number) as [number, number];
  return fromMs(Date.UTC(y, m - 1 + n, 1));
};

/** A random [start, end] in, around and partly outside the data window; `inside` keeps it on data days. */
function randomRange(rnd: Random, forMonth: boolean, inside: boolean): [string, string] {
  const first = worlds.days[0] as string;
  const last = worlds.days[worlds.days.length - 1] as string;
  const span = Math.round((toMs(last) - toMs(first)) / DAY_MS);
  if (inside) return [addDays(first, -rnd.between(0, 5)), addDays(last, rnd.between(0, 5))];
  const anyDay = () => addDays(first, rnd.between(-20, span + 20));
  if (forMonth && rnd.chance(0.7)) {
    // Whole months (as the docs recommend for month), from before the window to after it.
    const from = addMonths(first, rnd.between(-1, 2));
    const to = monthEnd(addMonths(from, rnd.between(0, 2)));
    return [from, to];
  }
  switch (rnd.int(8)) {
    case 0: {
      const d = rnd.chance(0.3) ? rnd.pick([first, last, addDays(first, -1), addDays(last, 1)]) : anyDay();
      return [d, d];
    }
    case 1: {
      const m = addMonths(first, rnd.between(0, 2));
      return [m, monthEnd(m)];
    }
    case 2: {
      const m = addMonths(first, rnd.between(-1, 1));
      return [m, monthEnd(addMonths(m, rnd.between(1, 2)))];
    }
    case 3: {
      // Partial months at both ends.
      const a = addDays(monthStart(anyDay()), rnd.between(1, 25));
      const b = addDays(addMonths(a, rnd.between(1, 2)), rnd.between(-5, 5));
      return a <= b ? [a, b] : [b, a];
    }
    case 4:
      return [addDays(first, -rnd.between(0, 40)), addDays(last, rnd.between(0, 40))];
    case 5: {
      // Short ranges inside one month or across a month boundary.
      const a = anyDay();
      return [a, addDays(a, rnd.between(1, 12))];
    }
    case 6:
      // Entirely outside the data (sometimes).
      return rnd.chance(0.5)
        ? [addDays(first, -rnd.between(30, 90)), addDays(first, -rnd.between(1, 29))]
        : [addDays(last, rnd.between(1, 20)), addDays(last, rnd.between(21, 60))];
    default: {
      const a = anyDay();
      const b = anyDay();
      return a <= b ? [a, b] : [b, a];
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Queries drawn from the catalog

interface Query {
  readonly report: string;
  readonly owner: 'channel' | 'contentOwner';
  readonly params: Record<string, string>;
  readonly token: string;
  readonly request: OracleRequest;
}

type Filter = { name: string; values: string[] };

const ruleNames = (rule: SetRule): Set<string> =>
  new Set([
    ...(rule.required ?? []),
    ...(rule.exactlyOne ?? []).flat(),
    ...(rule.atLeastOne ?? []).flat(),
    ...(rule.atMostOne ?? []).flat(),
    ...(rule.optional ?? []),
  ]);

/** Whether `names` follows `rule` (this file's reading of the catalog's rules). */
function follows(rule: SetRule, names: ReadonlySet<string>): boolean {
  const allowed = ruleNames(rule);
  if ([...names].some((n) => !allowed.has(n))) return false;
  if ((rule.required ?? []).some((n) => !names.has(n))) return false;
  if ((rule.exactlyOne ?? []).some((g) => g.filter((n) => names.has(n)).length !== 1)) return false;
  if ((rule.atLeastOne ?? []).some((g) => !g.some((n) => names.has(n)))) return false;
  if ((rule.atMostOne ?? []).some((g) => g.filter((n) => names.has(n)).length > 1)) return false;
  return true;
}

/** Random names that follow `rule`, starting from `given`; undefined when `given` cannot be completed. */
function pickNames(rnd: Random, rule: SetRule, given: readonly string[], p: number): Set<string> | undefined {
  for (let attempt = 0; attempt < 20; attempt++) {
    const out = new Set([...given, ...(rule.required ?? [])]);
    for (const g of rule.exactlyOne ?? []) if (!g.some((n) => out.has(n))) out.add(rnd.pick(g));
    for (const g of rule.atLeastOne ?? []) {
      if (!g.some((n) => out.has(n))) for (const n of rnd.sample(g, rnd.between(1, g.length))) out.add(n);
    }
    for (const g of rule.atMostOne ?? []) if (!g.some((n) => out.has(n)) && rnd.chance(p)) out.add(rnd.pick(g));
    for (const n of rule.optional ?? []) if (rnd.chance(p)) out.add(n);
    if (follows(rule, out)) return out;
  }
  return undefined;
}

const PLAYLIST_KINDS = new Set(['youtube#playlist']);

/** One of `values`, the first ones (the most frequent, for data values) more often. */
const pickFrequent = <T>(rnd: Random, values: readonly T[]): T =>
  values[Math.floor(rnd.next() ** 2 * values.length)] as T;

/** Values for a filter: from the data mostly (the frequent ones more often), sometimes valid values without data. */
function filterValues(rnd: Random, w: WorldCtx, report: ReportDef, name: string, fixed?: readonly string[]): string[] {
  const data = w.domain.get(name) ?? [];
  if (fixed) {
    const present = fixed.filter((v) => data.includes(v));
    return [rnd.pick(present.length > 0 && rnd.chance(0.85) ? present : fixed)];
  }
  const world = w.world;
  switch (name) {
    case 'country':
      return [rnd.chance(0.9) && data.length > 0 ? pickFrequent(rnd, data) : rnd.pick(['FI', 'KE', 'CL', 'ZZ'])];
    case 'province':
      return [
        rnd.chance(0.9) && data.length > 0
          ? pickFrequent(
              rnd,
              data.filter((v) => v !== ''),
            )
          : 'US-WY',
      ];
    case 'continent':
      return [rnd.pick(CONTINENTS)];
    case 'subContinent':
      return [rnd.pick(SUB_CONTINENTS)];
    case 'video':
      if (report.singleValueFilters?.includes('video')) {
        return [rnd.pick(w.retentionVideos.length > 0 && rnd.chance(0.9) ? w.retentionVideos : world.videoIds)];
      }
      return rnd.sample(world.videoIds, rnd.chance(0.3) ? 1 : rnd.between(2, 25));
    case 'playlist':
      return rnd.sample(world.playlistIds, rnd.chance(0.5) ? 1 : rnd.between(2, 5));
    case 'channel':
      return rnd.sample(
        world.channels.map((c) => c.id),
        rnd.between(1, 3),
      );
    case 'group': {
      const playlist = report.kind === 'playlist';
      const usable = w.groups.filter((g) =>
        playlist
          ? g.kind === undefined || PLAYLIST_KINDS.has(g.kind) || g.kind === 'youtube#channel'
          : g.kind !== 'youtube#playlist',
      );
      return [rnd.pick(usable).id];
    }
    default: {
      const values = ANALYTICS_VALUES[name] ?? [];
      return [
        rnd.chance(0.85) && data.length > 0 ? pickFrequent(rnd, data) : rnd.pick(values.length > 0 ? values : data),
      ];
    }
  }
}

function randomMetrics(rnd: Random, allowed: readonly string[], must?: string): string[] {
  const k = rnd.chance(0.1) ? allowed.length : rnd.between(1, Math.min(6, allowed.length));
  const metrics = rnd.sample(allowed, k);
  if (must && !metrics.includes(must)) metrics.splice(rnd.int(metrics.length + 1), 0, must);
  return metrics;
}

const CURRENCIES_TO_TRY = ['EUR', 'JPY', 'GBP', 'INR', 'BRL', 'CAD', 'AUD', 'MXN', 'USD'];

/**
 * One random valid query of `report` for the world, or undefined when no draw the oracle can answer was found.
 * `anchor` asks for a range on data days and few optional filters (so every report gets an answer with data).
 */
function randomQuery(rnd: Random, report: ReportDef, anchor: boolean): Query | undefined {
  const w = worldCtx(report.owner);
  const p = anchor ? 0.05 : 0.45;
  for (let attempt = 0; attempt < 30; attempt++) {
    const dims = pickNames(rnd, report.dimensions, [], p);
    if (!dims) continue;
    // Dimensions that need a filter value (province → country==US, …).
    const forced = new Map<string, readonly string[]>();
    for (const d of dims)
      for (const [f, vs] of Object.entries(report.requiredDimensionFilters?.[d] ?? {})) forced.set(f, vs);
    const names = pickNames(rnd, report.filters, [...forced.keys()], p);
    if (!names) continue;
    const allowedMetrics = report.metrics.filter((m) => Object.hasOwn(ORACLE_METRICS, m));
    const hasPlaylistMetric = allowedMetrics.some((m) => PLAYLIST_METRICS.has(m));
    // A group filter makes a playlist report only with a playlist metric; without any, name playlists instead.
    if (report.kind === 'playlist' && names.has('group') && !hasPlaylistMetric) {
      names.delete('group');
      names.add('playlist');
    }
    // Content owners must say whose data: an entity filter, or a claimedStatus / uploaderType combination.
    if (report.entityFilter && !report.entityFilter.anyOf.some((n) => names.has(n))) {
      const combos = report.entityFilter.combinations;
      const claims = ['claimedStatus', 'uploaderType'];
      if (combos.length > 0 && !claims.some((c) => names.has(c))) {
        // Anchor queries take the first combination (claimed videos), which has data in every report.
        for (const k of Object.keys(anchor ? (combos[0] as object) : rnd.pick(combos))) names.add(k);
      } else if (combos.length === 0) {
        const entity = report.entityFilter.anyOf.find((n) => ruleNames(report.filters).has(n));
        if (entity) names.add(entity);
      }
    }
    if (!follows(report.filters, names)) continue;

    const filters: Filter[] = [];
    for (const name of names) {
      const fixed = forced.get(name) ?? report.requiredFilterValues?.[name];
      filters.push({ name, values: filterValues(rnd, w, report, name, fixed) });
    }
    if (report.singleValueFilters?.some((n) => (filters.find((f) => f.name === n)?.values.length ?? 1) !== 1)) continue;

    const dimList = rnd.sample([...dims], dims.size);
    let metrics: string[];
    let sort: { name: string; descending: boolean }[] = [];
    const groupPlaylist = report.kind === 'playlist' && names.has('group');
    // An anchor query asks for the report's first metric (views, grossRevenue, shares, …): it has data.
    const must = groupPlaylist
      ? rnd.pick(allowedMetrics.filter((m) => PLAYLIST_METRICS.has(m)))
      : anchor
        ? allowedMetrics[0]
        : undefined;
    if (report.sort) {
      const by = rnd.pick(report.sort.descendingBy.filter((m) => allowedMetrics.includes(m)));
      metrics = randomMetrics(rnd, allowedMetrics, by);
      if (must && !metrics.includes(must)) metrics.push(must);
      sort = [{ name: by, descending: true }];
    } else {
      metrics = randomMetrics(rnd, allowedMetrics, must);
      if (rnd.chance(0.65)) {
        sort = rnd
          .sample([...dimList, ...metrics], rnd.between(1, 2))
          .map((name) => ({ name, descending: rnd.chance(0.5) }));
      }
    }
    let maxResults: number | undefined;
    let startIndex: number | undefined;
    if (report.maxResults) {
      const cap = report.maxResults.max;
      if (report.maxResults.required || rnd.chance(0.6)) {
        maxResults = rnd.chance(0.4) ? rnd.between(1, Math.min(10, cap)) : rnd.between(1, cap);
        if (rnd.chance(0.3)) startIndex = rnd.between(1, cap - maxResults + 1);
      }
    } else if (rnd.chance(0.15)) {
      startIndex = rnd.between(1, 20);
      maxResults = rnd.between(1, 50);
    } else if (rnd.chance(0.05)) {
      maxResults = rnd.between(1, 5);
    }
    const [startDate, endDate] = randomRange(rnd, dims.has('month'), anchor);
    const money = metrics.some((m) => MONETARY_METRICS.has(m));
    const converts = metrics.some((m) =>
      [
        'estimatedRevenue',
        'estimatedAdRevenue',
        'grossRevenue',
        'estimatedRedPartnerRevenue',
        'cpm',
        'playbackBasedCpm',
      ].includes(m),
    );
    const currency =
      (converts && rnd.chance(0.6)) || rnd.chance(0.08)
        ? rnd.pick(CURRENCIES_TO_TRY.filter((c) => c === 'USD' || worlds.currencies.includes(c)))
        : undefined;
    const historical =
      report.owner === 'contentOwner'
        ? rnd.pick([true, true, false, false, undefined])
        : rnd.chance(0.1)
          ? rnd.chance(0.5)
          : undefined;
    const request: OracleRequest = {
      ids: w.ids,
      startDate,
      endDate,
      dimensions: dimList,
      metrics,
      filters,
      sort,
      ...(startIndex !== undefined ? { startIndex } : {}),
      ...(maxResults !== undefined ? { maxResults } : {}),
      ...(currency !== undefined ? { currency } : {}),
      ...(historical !== undefined ? { includeHistoricalChannelData: historical } : {}),
      groups: w.oracleGroups,
    };
    const ids =
      report.owner === 'contentOwner'
        ? `contentOwner==${w.ids.id}`
        : rnd.chance(0.5)
          ? 'channel==MINE'
          : `channel==${w.ids.id}`;
    const params: Record<string, string> = { ids, startDate, endDate, metrics: metrics.join(',') };
    if (dimList.length > 0) params.dimensions = dimList.join(',');
    if (filters.length > 0) params.filters = filters.map((f) => `${f.name}==${f.values.join(',')}`).join(';');
    if (sort.length > 0) params.sort = sort.map((k) => `${k.descending ? '-' : ''}${k.name}`).join(',');
    if (maxResults !== undefined) params.maxResults = String(maxResults);
    if (startIndex !== undefined) params.startIndex = String(startIndex);
    if (currency !== undefined) params.currency = currency;
    if (historical !== undefined) params.includeHistoricalChannelData = String(historical);
    const token = money ? (rnd.chance(0.8) ? w.tokens.money : w.tokens.moneyOnly) : w.tokens.read;
    const query = { report: report.id, owner: report.owner, params, token, request };
    try {
      oracle.plan(request);
    } catch (err) {
      if (!(err instanceof OracleUnanswerable)) throw err;
      // A combination the catalog allows but no family holds (e.g. a content owner's revenue by creatorContentType):
      // the service must refuse it too; then draw again.
      const named = (list: Iterable<string>) => [...list].filter((n) => n !== 'day' && n !== 'month').join(', ');
      const why = `${err.message} (dimensions: ${named(dims) || '-'}; filters: ${named(names) || '-'})`;
      const seen = unanswerable.get(report.id) ?? new Map<string, number>();
      seen.set(why, (seen.get(why) ?? 0) + 1);
      unanswerable.set(report.id, seen);
      refused.push(query);
      continue;
    }
    return query;
  }
  return undefined;
}

const queryString = (params: Record<string, string>) => new URLSearchParams(params).toString();

/** A row has information when some metric is neither null nor 0. */
const informative = (rows: readonly Cell[][], dims: number) =>
  rows.some((r) => r.slice(dims).some((v) => v !== null && v !== 0));

/** Runs the query through HTTP and the oracle: the difference as text (or undefined), and what the oracle saw. */
async function check(q: Query) {
  const res = await api.call(`/v2/reports?${queryString(q.params)}`, { token: q.token });
  const expected = await oracle.query(q.request);
  const seen = {
    rows: expected.rows.length,
    nulls: expected.rows.some((r) => r.includes(null)),
    informative: informative(expected.rows, q.request.dimensions.length),
    sources: expected.sources.map((s) => s.family),
  };
  if (res.status !== 200) {
    return {
      problem: `HTTP ${res.status}: ${JSON.stringify(res.body).slice(0, 500)}`,
      got: res.body,
      expected: expected.rows.slice(0, 5),
      ...seen,
    };
  }
  const problem = compareWithOracle(res.body, expected);
  return { problem, got: res.body?.rows?.slice(0, 5), expected: expected.rows.slice(0, 5), ...seen };
}

async function report(params: Record<string, string>, owner: 'channel' | 'contentOwner' = 'channel', token?: string) {
  const w = worldCtx(owner);
  const ids = owner === 'channel' ? 'channel==MINE' : `contentOwner==${w.ids.id}`;
  const res = await api.call(`/v2/reports?${queryString({ ids, ...params })}`, { token: token ?? w.tokens.money });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

// ---------------------------------------------------------------------------------------------------------------

async function makeGroups(w: ReportWorld, token: string, onBehalfOf: string | undefined, rnd: Random) {
  const client = groupsClient(api, token, onBehalfOf);
  const groups: GroupInfo[] = [];
  const make = async (title: string, kind: NonNullable<OracleGroup['kind']> | undefined, ids: readonly string[]) => {
    const g = await client.createGroup(`differential: ${title}`, kind);
    for (const id of ids) {
      const item = await client.insertItem(g.id, kind as string, id);
      expect(item.status, JSON.stringify(item.body)).toBe(200);
    }
    groups.push({ id: g.id, ...(kind ? { kind } : {}), ids });
  };
  await make('videos', 'youtube#video', rnd.sample(w.videoIds, 12));
  await make('one video', 'youtube#video', rnd.sample(w.videoIds, 1));
  await make('playlists', 'youtube#playlist', rnd.sample(w.playlistIds, 3));
  await make('one playlist', 'youtube#playlist', rnd.sample(w.playlistIds, 1));
  await make('empty', undefined, []);
  if (w.ownerType === 'contentOwner') {
    const linked = w.channels.filter((c) => c.linkedSince !== undefined).map((c) => c.id);
    const mid = [...w.channels]
      .filter((c) => c.linkedSince !== undefined)
      .sort((a, b) => ((a.linkedSince as string) < (b.linkedSince as string) ? 1 : -1))[0] as { id: string };
    await make('linked channels', 'youtube#channel', rnd.sample(linked, 2));
    await make('the channel linked mid-period', 'youtube#channel', [mid.id]);
    // Claimed videos of third-party channels with some of the owner's own.
    const thirdParty = w.channels.filter((c) => c.uploader === 'thirdParty').flatMap((c) => c.videos);
    await make('claimed third-party videos', 'youtube#video', [
      ...rnd.sample(thirdParty, 3),
      ...rnd.sample(w.channels[0]?.videos ?? [], 2),
    ]);
  }
  return groups;
}

async function setUpWorld(w: ReportWorld, rnd: Random): Promise<WorldCtx> {
  const co = w.ownerType === 'contentOwner';
  const manage = await api.token(w.sub, co ? ['video-platform-partner'] : ['video-platform']);
  const groups = await makeGroups(w, manage, co ? w.owner : undefined, rnd);
  const dims = [
    'country',
    'province',
    'subscribedStatus',
    'liveOrOnDemand',
    'youtubeProduct',
    'insightPlaybackLocationType',
    'insightTrafficSourceType',
    'deviceType',
    'operatingSystem',
    'audienceType',
  ];
  const domain = new Map<string, string[]>();
  for (const d of dims) domain.set(d, await oracle.values(w.owner, d));
  domain.set('province', await oracle.values(w.owner, 'province', ['channel_province', 'content_owner_province']));
  return {
    world: w,
    ids: { type: w.ownerType, id: w.owner },
    tokens: {
      read: await api.token(w.sub, [READ]),
      money: await api.token(w.sub, [READ, MONEY]),
      moneyOnly: await api.token(w.sub, [MONEY]),
    },
    groups,
    oracleGroups: Object.fromEntries(groups.map((g) => [g.id, { ...(g.kind ? { kind: g.kind } : {}), ids: g.ids }])),
    domain,
    // The videos with the most retention rows (retention needs enough viewers, so most videos have few or none).
    retentionVideos: (
      await oracle.values(w.owner, 'video', ['channel_audience_retention', 'content_owner_audience_retention'])
    ).slice(0, 5),
  };
}

let setupSeconds = 0;

beforeAll(async () => {
  const started = performance.now();
  api = await startLocalApi();
  // Ids from the seed: the generator draws from them, so a seed replays the same data and the same queries.
  worlds = await createReportWorlds({ seed: SEED, tag: `s${SEED.toString(36)}` });
  oracle = await createOracle({
    files: [...worlds.channel.files, ...worlds.contentOwner.files],
    rates: worlds.rates,
    links: worlds.contentOwner.channels
      .filter((c) => c.linkedSince !== undefined)
      .map((c) => ({ contentOwner: worlds.contentOwner.owner, channelId: c.id, linkedSince: c.linkedSince as string })),
  });
  const rnd = new Random(SEED ^ 0x5eed);
  ctx.channel = await setUpWorld(worlds.channel, rnd);
  ctx.contentOwner = await setUpWorld(worlds.contentOwner, rnd);
  setupSeconds = (performance.now() - started) / 1000;
}, 240_000);

afterAll(async () => {
  oracle?.close();
  await api?.close();
});

describe('reports.query against a DuckDB oracle', () => {
  it(`agrees on ${QUERIES} seeded random valid queries of every report of the catalog (seed ${SEED})`, async () => {
    const started = performance.now();
    // Every metric of the catalog has an oracle definition (none is skipped silently).
    expect(REPORTS.flatMap((r) => r.metrics).filter((m) => !Object.hasOwn(ORACLE_METRICS, m))).toEqual([]);
    const rnd = new Random(SEED);
    const servable = REPORTS.filter((r) => !Object.hasOwn(NOT_SERVABLE, r.id));
    const queries: Query[] = [];
    const undrawable = new Set<string>();
    for (let round = 0; queries.length < QUERIES; round++) {
      for (const r of rnd.sample(servable, servable.length)) {
        if (queries.length >= QUERIES) break;
        const q = randomQuery(rnd, r, round === 0);
        if (q) queries.push(q);
        else undrawable.add(r.id);
      }
    }
    const mismatches: { report: string; query: string; problem: string; got: unknown; expected: unknown }[] = [];
    const answered: { report: string; query: string; rows: number }[] = [];
    const stats = new Map<string, { queries: number; withRows: number; informative: number; families: Set<string> }>();
    const seen = { withRows: 0, multiRow: 0, withNulls: 0, multiFamily: 0, currency: 0, historical: 0 };
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < queries.length) {
          const q = queries[next++] as Query;
          const out = await check(q);
          const s = stats.get(q.report) ?? { queries: 0, withRows: 0, informative: 0, families: new Set() };
          s.queries++;
          if (out.rows > 0) s.withRows++;
          if (out.informative) s.informative++;
          for (const f of out.sources) s.families.add(f);
          stats.set(q.report, s);
          answered.push({ report: q.report, query: queryString(q.params), rows: out.rows });
          if (out.rows > 0) seen.withRows++;
          if (out.rows > 1) seen.multiRow++;
          if (out.nulls) seen.withNulls++;
          if (out.sources.length > 1) seen.multiFamily++;
          if (q.params.currency && q.params.currency !== 'USD') seen.currency++;
          if (q.params.includeHistoricalChannelData) seen.historical++;
          if (out.problem) {
            mismatches.push({
              report: q.report,
              query: queryString(q.params),
              problem: out.problem,
              got: out.got,
              expected: out.expected,
            });
          }
        }
      }),
    );
    // The draws no family can answer: the service must refuse them too (not answer from some other family).
    const accepted: { report: string; query: string; status: number; body: string }[] = [];
    for (const q of refused) {
      const res = await api.call(`/v2/reports?${queryString(q.params)}`, { token: q.token });
      if (res.status !== 400 || !/^The query is not supported/.test(res.body?.error?.message ?? '')) {
        accepted.push({
          report: q.report,
          query: queryString(q.params),
          status: res.status,
          body: JSON.stringify(res.body).slice(0, 300),
        });
      }
    }
    const seconds = (performance.now() - started) / 1000;
    const counts = async (w: ReportWorld) =>
      Object.entries(await oracle.rowCounts(w.owner))
        .filter(([, n]) => n > 0)
        .map(([code, n]) => `${code} ${n}`)
        .join(', ');
    const coverage = REPORTS.map((r) => {
      const s = stats.get(r.id);
      const why = NOT_SERVABLE[r.id] ?? (!worlds.extensions ? NEEDS_EXTENSIONS[r.id] : undefined);
      return `${r.id.padEnd(7)} ${String(s?.queries ?? 0).padStart(3)} queries, ${String(s?.withRows ?? 0).padStart(3)} with rows, ${String(s?.informative ?? 0).padStart(3)} with data; ${[...(s?.families ?? [])].join(' ')}${why ? ` [${why}]` : ''}`;
    });
    console.log(
      [
        `setup ${setupSeconds.toFixed(1)} s (ingest ${worlds.ingest.files} files, ${worlds.ingest.rows} rows, ${worlds.ingest.seconds.toFixed(1)} s; extensions: ${worlds.extensions ? 'yes' : `no, ${worlds.extensionsProblem}`})`,
        `rows per family: channel ${await counts(worlds.channel)}; content owner ${await counts(worlds.contentOwner)}`,
        `${queries.length} queries (and ${refused.length} no family answers) in ${seconds.toFixed(1)} s: ${JSON.stringify(seen)}; ${mismatches.length} mismatches`,
        ...coverage,
        'Draws no family could answer (the generator drew again):',
        ...[...unanswerable].flatMap(([id, reasons]) => [...reasons].map(([why, n]) => `${id.padEnd(7)} ${n}× ${why}`)),
      ].join('\n'),
    );
    if (process.env.REPORTS_DIFF_DUMP) {
      writeFileSync(process.env.REPORTS_DIFF_DUMP, JSON.stringify({ mismatches, accepted, answered }, null, 1));
    }
    expect(mismatches.length, JSON.stringify(mismatches.slice(0, 5), null, 2)).toBe(0);
    expect(accepted).toEqual([]);
    // Every report the catalog has is compared, but those no family can answer.
    expect([...undrawable]).toEqual([]);
    const missing = servable.filter((r) => !stats.has(r.id)).map((r) => r.id);
    expect(missing).toEqual([]);
    // And returns data, but those only the extension layouts feed when the generator cannot write them.
    const empty = servable
      .filter((r) => (stats.get(r.id)?.informative ?? 0) === 0)
      .filter((r) => worlds.extensions || !Object.hasOwn(NEEDS_EXTENSIONS, r.id))
      .map((r) => r.id);
    expect(empty).toEqual([]);
    expect(seen.withRows).toBeGreaterThan(queries.length * 0.5);
    expect(seen.multiRow).toBeGreaterThan(queries.length * 0.25);
    expect(seen.withNulls).toBeGreaterThan(0);
    expect(seen.multiFamily).toBeGreaterThan(0);
    expect(seen.currency).toBeGreaterThan(0);
  }, 240_000);

  it('the ingest places every file by its folder names (<owner>/<report type>/YYYYMMDD.csv)', () => {
    // Report types whose files were rejected as "put it under a folder named for the content owner" although they
    // were (the fixture then loaded them with the content owner named explicitly).
    expect(worlds.ingest.unplacedTypes).toEqual([]);
  });

  it('a playlist or channel group keeps the other filters: it answers like the equivalent playlist== / channel==', async () => {
    const range = { startDate: worlds.days[0] as string, endDate: worlds.days[worlds.days.length - 1] as string };
    const ch = worldCtx('channel');
    const playlists = ch.groups.find((g) => g.kind === 'youtube#playlist' && g.ids.length > 1) as GroupInfo;
    const p8 = {
      ...range,
      dimensions: 'insightTrafficSourceDetail',
      metrics: 'playlistViews,playlistStarts',
      sort: '-playlistViews',
      maxResults: '25',
    };
    const byPlaylistGroup = await report({
      ...p8,
      filters: `insightTrafficSourceType==YT_SEARCH;group==${playlists.id}`,
    });
    const byPlaylists = await report({
      ...p8,
      filters: `insightTrafficSourceType==YT_SEARCH;playlist==${playlists.ids.join(',')}`,
    });
    expect(byPlaylists.rows?.length).toBeGreaterThan(0);
    expect(byPlaylistGroup).toEqual(byPlaylists);

    const co = worldCtx('contentOwner');
    const channels = co.groups.find((g) => g.kind === 'youtube#channel' && g.ids.length > 1) as GroupInfo;
    const co3 = {
      ...range,
      dimensions: 'month',
      metrics: 'views,estimatedRevenue',
      includeHistoricalChannelData: 'true',
    };
    const byChannelGroup = await report(
      { ...co3, filters: `group==${channels.id};claimedStatus==claimed` },
      'contentOwner',
    );
    const byChannels = await report(
      { ...co3, filters: `channel==${channels.ids.join(',')};claimedStatus==claimed` },
      'contentOwner',
    );
    expect(byChannels.rows?.length).toBeGreaterThan(0);
    expect(byChannelGroup).toEqual(byChannels);
  });

  it('a combination no family can answer is "not supported" on both sides', async () => {
    // #18 allows a province filter, but no report type carries traffic sources by province.
    const w = worldCtx('channel');
    const params = {
      ids: 'channel==MINE',
      startDate: worlds.days[0] as string,
      endDate: worlds.days[worlds.days.length - 1] as string,
      dimensions: 'insightTrafficSourceType',
      metrics: 'views',
      filters: 'province==US-CA',
    };
    expect(() =>
      oracle.plan({
        ...params,
        ids: w.ids,
        dimensions: ['insightTrafficSourceType'],
        metrics: ['views'],
        filters: [{ name: 'province', values: ['US-CA'] }],
        sort: [],
      }),
    ).toThrow(OracleUnanswerable);
    const res = await api.call(`/v2/reports?${queryString(params)}`, { token: w.tokens.read });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.message).toMatch(/^The query is not supported/);
  });

  it('a range with no data: no dimensions give one row of zeros, the day report omits rows', async () => {
    const metrics = 'views,engagedViews,likes,estimatedMinutesWatched,averageViewDuration,averageViewPercentage';
    const range = { startDate: '2024-01-01', endDate: '2024-01-31' };
    const none = await report({ ...range, metrics });
    expect(none.rows).toEqual([[0, 0, 0, 0, 0, 0]]);

    const byDay = await report({ ...range, metrics, dimensions: 'day', sort: 'day' });
    expect(byDay.columnHeaders.map((h: { name: string }) => h.name)).toEqual(['day', ...metrics.split(',')]);
    expect(Object.hasOwn(byDay, 'rows')).toBe(false);

    // Several families, nothing in any of them: still one row of zeros.
    const coNone = await report(
      { ...range, metrics: 'views,estimatedRevenue,cpm', filters: 'uploaderType==self' },
      'contentOwner',
    );
    expect(coNone.rows).toEqual([[0, 0, 0]]);
  });

  it('engagedViews over a range of a2 days only is null (the column does not exist there), views is not', async () => {
    const a2 = worlds.a2Days;
    const range = { startDate: a2[0] as string, endDate: a2[a2.length - 1] as string };
    const total = await report({ ...range, metrics: 'engagedViews,views' });
    expect(total.rows).toHaveLength(1);
    expect(total.rows[0][0]).toBeNull();
    expect(total.rows[0][1]).toBeGreaterThan(0);

    const byDay = await report({ ...range, metrics: 'engagedViews,views', dimensions: 'day', sort: 'day' });
    expect(byDay.rows.length).toBeGreaterThan(0);
    for (const row of byDay.rows) expect(row[1]).toBeNull();

    // A few more days take in a3 days (the first ones might be header-only): engagedViews becomes a number.
    const wider = await report({ ...range, endDate: addDays(range.endDate, 3), metrics: 'engagedViews' });
    expect(typeof wider.rows[0][0]).toBe('number');
  });

  it('reach (thumbnail impressions, click rate) by day, month, video, device and traffic source equals the oracle', async () => {
    const w = worldCtx('channel');
    const first = worlds.days[0] as string;
    const group = w.groups.find((g) => g.kind === 'youtube#video' && g.ids.length > 1) as GroupInfo;
    const metrics = ['videoThumbnailImpressions', 'videoThumbnailImpressionsClickRate'];
    const cases: { dimensions: string[]; filters?: Filter[]; sort?: string; maxResults?: number; months?: number }[] = [
      { dimensions: ['day'], sort: 'day' },
      { dimensions: ['month'], months: 2 },
      { dimensions: ['video'], sort: '-videoThumbnailImpressions', maxResults: 25 },
      { dimensions: ['video', 'deviceType'], sort: '-videoThumbnailImpressionsClickRate', maxResults: 50 },
      { dimensions: ['insightTrafficSourceType'], filters: [{ name: 'group', values: [group.id] }] },
      { dimensions: ['day', 'operatingSystem'], filters: [{ name: 'deviceType', values: ['MOBILE'] }] },
    ];
    for (const c of cases) {
      const startDate = c.months ? monthStart(first) : addDays(first, 2);
      const endDate = c.months ? monthEnd(addMonths(first, c.months - 1)) : addDays(first, 40);
      const sort = c.sort ? [{ name: c.sort.replace('-', ''), descending: c.sort.startsWith('-') }] : [];
      const params: Record<string, string> = {
        ids: 'channel==MINE',
        startDate,
        endDate,
        metrics: metrics.join(','),
        dimensions: c.dimensions.join(','),
        ...(c.filters ? { filters: c.filters.map((f) => `${f.name}==${f.values.join(',')}`).join(';') } : {}),
        ...(c.sort ? { sort: c.sort } : {}),
        ...(c.maxResults ? { maxResults: String(c.maxResults) } : {}),
      };
      const request = {
        ids: w.ids,
        startDate,
        endDate,
        dimensions: c.dimensions,
        metrics,
        filters: c.filters ?? [],
        sort,
        ...(c.maxResults ? { maxResults: c.maxResults } : {}),
        groups: w.oracleGroups,
      };
      const out = await check({ report: 'R', owner: 'channel', params, token: w.tokens.read, request });
      expect(out.problem, JSON.stringify(params)).toBeUndefined();
      expect(out.informative, JSON.stringify(params)).toBe(true);
      expect(out.sources[0]).toMatch(/^channel_reach_/);
    }
  });

  it('a group filter answers exactly like the equivalent video== filter', async () => {
    const w = worldCtx('channel');
    const group = w.groups.find((g) => g.kind === 'youtube#video' && g.ids.length > 1) as GroupInfo;
    const first = worlds.days[0] as string;
    const cases: Record<string, string>[] = [
      {
        startDate: monthStart(first),
        endDate: monthEnd(addMonths(first, 2)),
        metrics: 'views,likes,averageViewPercentage',
      },
      {
        startDate: addDays(first, 3),
        endDate: addDays(first, 40),
        metrics: 'views,estimatedMinutesWatched',
        dimensions: 'day',
      },
      {
        startDate: monthStart(first),
        endDate: monthEnd(addMonths(first, 1)),
        metrics: 'views,subscribersGained',
        dimensions: 'month',
      },
      {
        startDate: addDays(first, 5),
        endDate: addDays(first, 50),
        metrics: 'views,averageViewDuration',
        dimensions: 'country',
        sort: '-views',
      },
    ];
    for (const params of cases) {
      const byGroup = await report({ ...params, filters: `group==${group.id}` });
      const byVideo = await report({ ...params, filters: `video==${group.ids.join(',')}` });
      expect(byGroup.rows, JSON.stringify(params)).toBeDefined();
      expect(byGroup).toEqual(byVideo);
    }
  });

  it('content owners: a channel linked mid-period counts from its link date unless historical data is asked for', async () => {
    const w = worldCtx('contentOwner');
    // The channel linked last: in the middle of the period.
    const mid = w.world.channels
      .filter((c) => c.linkedSince !== undefined)
      .sort((a, b) => ((a.linkedSince as string) < (b.linkedSince as string) ? 1 : -1))[0] as {
      id: string;
      linkedSince: string;
    };
    expect(mid.linkedSince > (worlds.days[0] as string)).toBe(true);
    const before = { startDate: worlds.days[0] as string, endDate: addDays(mid.linkedSince, -1) };
    const params = { ...before, metrics: 'views,estimatedRevenue', filters: `channel==${mid.id}` };
    const cut = await report(params, 'contentOwner');
    expect(cut.rows).toEqual([[0, 0]]);
    const all = await report({ ...params, includeHistoricalChannelData: 'true' }, 'contentOwner');
    expect(all.rows[0][0]).toBeGreaterThan(0);
    const expected = await oracle.query({
      ids: w.ids,
      ...before,
      dimensions: [],
      metrics: ['views', 'estimatedRevenue'],
      filters: [{ name: 'channel', values: [mid.id] }],
      sort: [],
      includeHistoricalChannelData: true,
    });
    expect(compareWithOracle(all, expected)).toBeUndefined();
  });

  it('currency converts revenue day by day (gaps use the latest earlier rate, early days the first rate)', async () => {
    const w = worldCtx('contentOwner');
    const params = {
      startDate: worlds.days[0] as string,
      endDate: worlds.days[worlds.days.length - 1] as string,
      metrics: 'estimatedRevenue,grossRevenue,cpm,views',
      dimensions: 'day',
      filters: 'uploaderType==self',
      includeHistoricalChannelData: 'true',
    };
    const usd = await report(params, 'contentOwner');
    const usdByDay = new Map<string, Cell[]>(usd.rows.map((r: Cell[]) => [r[0] as string, r]));
    for (const currency of ['EUR', 'JPY']) {
      const converted = await report({ ...params, currency }, 'contentOwner');
      const expected = await oracle.query({
        ids: w.ids,
        startDate: params.startDate,
        endDate: params.endDate,
        dimensions: ['day'],
        metrics: params.metrics.split(','),
        filters: [{ name: 'uploaderType', values: ['self'] }],
        sort: [],
        currency,
        includeHistoricalChannelData: true,
      });
      expect(compareWithOracle(converted, expected)).toBeUndefined();
      // Day by day: the day's USD amount times the rate of the day, else of the latest earlier day, else the first.
      const rates = worlds.rates.filter((r) => r.currency === currency);
      const rateOf = (day: string) =>
        [...rates].reverse().find((r) => r.day <= day)?.rate ?? (rates[0]?.rate as number);
      let gapDays = 0;
      for (const row of converted.rows as Cell[][]) {
        const day = row[0] as string;
        const dollars = usdByDay.get(day) as Cell[];
        expect(row[4]).toBe(dollars[4]); // views are not money
        expect(row[1] as number).toBeCloseTo((dollars[1] as number) * rateOf(day), 6);
        expect(row[2] as number).toBeCloseTo((dollars[2] as number) * rateOf(day), 6);
        if (!rates.some((r) => r.day === day) && (dollars[1] as number) > 0) gapDays++;
      }
      // Days without a rate of their own were met: before the first rate, in gaps, after the last.
      expect(gapDays).toBeGreaterThan(3);
    }
  });
});
