/**
 * The whole report catalog (functions/core/reports/catalog/catalog.ts) through parseReportRequest and the matcher
 * (report-matcher.ts), with Google's error wording (api-contract.md §A.3, §A.6.2). Generated from the data: every
 * report's example matches exactly that report, and for every constraint of every report a query that breaks it is
 * refused by that report (and not answered by it from the whole catalog). Hand-written: facts of the contract that
 * the generated cases would only restate. (What this release answers of the catalog: reports-release-guard.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { toErrorResult } from '../../functions/_shared/http-errors';
import { DomainError } from '../../functions/core/errors';
import {
  CHANNEL_REPORTS,
  DETAIL_TRAFFIC_SOURCES,
  FILTER_ONLY,
  KNOWN_DIMENSIONS,
  KNOWN_METRICS,
  MONETARY_METRICS,
  PLAYLIST_METRICS,
  REACH_METRICS,
  REPORTS,
  type ReportDef,
  ruleNames,
} from '../../functions/core/reports/catalog/catalog';
import { catalogMarkdown, exampleOf } from '../../functions/core/reports/catalog/catalog-table';

const EXAMPLE_IDS = {
  channel: { video: 'v-c', playlist: 'p-c', channel: 'UCc' },
  contentOwner: { video: 'v-o', playlist: 'p-o', channel: 'UCo' },
};

import { METRICS } from '../../functions/core/reports/catalog/metrics';
import { exampleQuery } from '../../functions/core/reports/catalog/report-examples';
import { checkPageCap, isPlaylistRequest, matchReport } from '../../functions/core/reports/catalog/report-matcher';
import { parseReportRequest, type ReportRequest } from '../../functions/core/reports/query/report-request';
import { caught } from '../support/domain-error';

const NOT_SUPPORTED = 'The query is not supported. Check the documentation at';

type Params = Record<string, string | undefined>;

const IDS = { channel: 'channel==MINE', contentOwner: 'contentOwner==demo-co' } as const;

function request(owner: ReportDef['owner'], params: Params): ReportRequest {
  const query: Record<string, string> = {};
  const all: Params = { ids: IDS[owner], startDate: '2026-03-01', endDate: '2026-03-31', ...params };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) query[k] = v;
  return parseReportRequest(query);
}

/** `dimensions=a&metrics=b` → { dimensions: 'a', metrics: 'b' }. */
const paramsOf = (example: string): Params =>
  Object.fromEntries(example.split('&').map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));

/** A 400 INVALID_ARGUMENT badRequest on the wire whose message starts with `prefix`. */
function expectBadRequest(err: DomainError, prefix: string) {
  const res = toErrorResult(err, 'test-request');
  const body = JSON.parse(res.body) as { error: { status: string; errors: { reason: string }[] } };
  expect(res.statusCode, err.message).toBe(400);
  expect(body.error.status).toBe('INVALID_ARGUMENT');
  expect(body.error.errors[0]?.reason).toBe('badRequest');
  expect(err.message.startsWith(prefix), `${err.message} should start with ${prefix}`).toBe(true);
}

// ---------------------------------------------------------------------------------------------------------------
// Editing a query's lists

const list = (s: string | undefined, sep: string) => (s ? s.split(sep) : []);
const join = (items: readonly string[], sep: string) => (items.length > 0 ? items.join(sep) : undefined);

function filtersOf(p: Params): Map<string, string> {
  return new Map(list(p.filters, ';').map((c) => [c.slice(0, c.indexOf('==')), c.slice(c.indexOf('==') + 2)]));
}

/** Sets (or, with undefined, removes) filters. */
function withFilters(p: Params, changes: Readonly<Record<string, string | undefined>>): Params {
  const f = filtersOf(p);
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) f.delete(name);
    else f.set(name, value);
  }
  return {
    ...p,
    filters: join(
      [...f].map(([n, v]) => `${n}==${v}`),
      ';',
    ),
  };
}

function withDimensions(p: Params, add: readonly string[], remove: readonly string[] = []): Params {
  const dims = [
    ...list(p.dimensions, ',').filter((d) => !remove.includes(d)),
    ...add.filter((d) => !list(p.dimensions, ',').includes(d)),
  ];
  // a sort key must be requested: drop the ones on removed dimensions
  const sort = list(p.sort, ',').filter((k) => !remove.includes(k.replace(/^-/, '')));
  return { ...p, dimensions: join(dims, ','), sort: join(sort, ',') };
}

/** A valid value for each name used as a filter below. */
const SAMPLE: Readonly<Record<string, string>> = {
  video: 'vid0001',
  playlist: 'PLsample',
  channel: 'UCsample',
  group: 'G0001',
  country: 'FR',
  province: 'US-CA',
  continent: '150',
  subContinent: '155',
  creatorContentType: 'SHORTS',
  liveOrOnDemand: 'LIVE',
  subscribedStatus: 'SUBSCRIBED',
  youtubeProduct: 'CORE',
  deviceType: 'MOBILE',
  operatingSystem: 'ANDROID',
  insightPlaybackLocationType: 'EMBEDDED',
  insightTrafficSourceType: 'YT_SEARCH',
  sharingService: 'FACEBOOK',
  audienceType: 'ORGANIC',
  claimedStatus: 'claimed',
  uploaderType: 'self',
};
/** A value outside what the report requires, per filter with required values. */
const WRONG: Readonly<Record<string, string>> = {
  country: 'CA',
  insightPlaybackLocationType: 'SEARCH',
  insightTrafficSourceType: 'PLAYLIST',
  claimedStatus: 'disputed',
  uploaderType: 'partner',
};
// Candidates for "a name the report does not take" ('playlist' and 'group' are left out: they change the kind).
// biome-ignore format: word lists read best packed
const OTHER_DIMENSIONS = [
  'creatorContentType', 'day', 'country', 'subscribedStatus', 'youtubeProduct', 'liveOrOnDemand', 'deviceType',
  'operatingSystem', 'ageGroup', 'sharingService', 'video', 'city', 'adType', 'elapsedVideoTimeRatio',
];
// biome-ignore format: word lists read best packed
const OTHER_FILTERS = [
  'audienceType', 'youtubeProduct', 'liveOrOnDemand', 'subscribedStatus', 'deviceType', 'operatingSystem',
  'creatorContentType', 'province', 'country', 'video', 'channel', 'claimedStatus', 'sharingService',
];
const ENTITY_FILTERS = ['video', 'channel', 'group', 'playlist'];
const CLAIM_FILTERS = ['claimedStatus', 'uploaderType'];

interface Negative {
  readonly constraint: string;
  readonly params: Params;
  /** What the report's objection must mention. */
  readonly says: RegExp;
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const KIND = 'playlist report';

/** One query per constraint of `def`, each breaking that constraint of its example. */
function negatives(def: ReportDef): Negative[] {
  const base = paramsOf(exampleQuery(def));
  const dims = list(base.dimensions, ',');
  const filters = filtersOf(base);
  const out: Negative[] = [];
  const add = (constraint: string, params: Params, says: RegExp) => {
    // Removing `playlist` (or a group with playlist metrics) turns the query into a video one: the playlist report
    // then objects to the kind.
    const flips = (def.kind === 'playlist') !== isPlaylistRequest(request(def.owner, params));
    out.push({ constraint, params, says: flips ? new RegExp(KIND) : says });
  };

  const allowedDims = ruleNames(def.dimensions);
  const dim = OTHER_DIMENSIONS.find((d) => !allowedDims.has(d) && !dims.includes(d));
  if (dim)
    add(`a disallowed dimension (${dim})`, withDimensions(base, [dim]), new RegExp(`dimension ${dim} is not allowed`));
  for (const d of def.dimensions.required ?? []) {
    add(`missing required dimension ${d}`, withDimensions(base, [], [d]), new RegExp(`dimension ${d} is required`));
  }
  for (const g of def.dimensions.exactlyOne ?? []) {
    add(`none of the dimensions ${g}`, withDimensions(base, [], g), /exactly one of the dimensions/);
    add(`two of the dimensions ${g}`, withDimensions(base, g.slice(0, 2)), /exactly one of the dimensions/);
  }
  for (const g of def.dimensions.atLeastOne ?? []) {
    add(`none of the dimensions ${g}`, withDimensions(base, [], g), /at least one of the dimensions/);
  }
  for (const g of def.dimensions.atMostOne ?? []) {
    add(`two of the dimensions ${g}`, withDimensions(base, g.slice(0, 2)), /at most one of the dimensions/);
  }

  const allowedFilters = ruleNames(def.filters);
  const filter = OTHER_FILTERS.find((f) => !allowedFilters.has(f) && !filters.has(f));
  if (filter) {
    add(
      `a disallowed filter (${filter})`,
      withFilters(base, { [filter]: SAMPLE[filter] }),
      new RegExp(`filter ${filter} is not allowed`),
    );
  }
  for (const f of def.filters.required ?? []) {
    add(
      `missing required filter ${f}`,
      withFilters(base, { [f]: undefined }),
      new RegExp(`${f}.*required|requires the filter ${f}`),
    );
  }
  for (const g of def.filters.exactlyOne ?? []) {
    const none = Object.fromEntries(g.map((f) => [f, undefined]));
    add(`none of the filters ${g}`, withFilters(base, none), /exactly one of the filters/);
    const two = Object.fromEntries(g.slice(0, 2).map((f) => [f, filters.get(f) ?? SAMPLE[f]]));
    add(`two of the filters ${g}`, withFilters(base, two), /exactly one of the filters/);
  }
  for (const g of def.filters.atMostOne ?? []) {
    const two = Object.fromEntries(g.slice(0, 2).map((f) => [f, SAMPLE[f]]));
    add(`two of the filters ${g}`, withFilters(base, two), /at most one of the filters/);
  }
  for (const [f, values] of Object.entries(def.requiredFilterValues ?? {})) {
    add(
      `wrong value of filter ${f}`,
      withFilters(base, { [f]: WRONG[f] }),
      new RegExp(`${f}==(X with X one of )?${esc(values[0] ?? '')}`),
    );
  }
  for (const f of def.singleValueFilters ?? []) {
    add(
      `several ids in filter ${f}`,
      withFilters(base, { [f]: 'vidA,vidB' }),
      new RegExp(`${f} filter must name exactly one id`),
    );
  }
  for (const [d, needs] of Object.entries(def.requiredDimensionFilters ?? {})) {
    for (const [f, values] of Object.entries(needs)) {
      const withDim = withDimensions(base, [d]);
      const says = new RegExp(`dimension ${d} requires the filter ${f}==(X with X one of )?${esc(values[0] ?? '')}`);
      add(`dimension ${d} with a wrong ${f} filter`, withFilters(withDim, { [f]: WRONG[f] }), says);
      add(`dimension ${d} without a ${f} filter`, withFilters(withDim, { [f]: undefined }), says);
    }
  }
  if (def.entityFilter) {
    const none = Object.fromEntries([...ENTITY_FILTERS, ...CLAIM_FILTERS].map((f) => [f, undefined]));
    const own = def.filters.required?.includes('video') || def.filters.exactlyOne?.some((g) => g.includes('playlist'));
    add(
      'a content-owner query without an entity filter',
      withFilters(base, none),
      own ? /required|exactly one/ : /must filter by/,
    );
  }

  const metric = KNOWN_METRICS.find(
    (m) => !def.metrics.includes(m) && (def.kind === 'playlist' || !PLAYLIST_METRICS.has(m)),
  );
  if (metric) {
    add(
      `a disallowed metric (${metric})`,
      { ...base, metrics: `${base.metrics},${metric}` },
      new RegExp(`metric ${metric} is not available`),
    );
  }
  if (def.sort) {
    const by = def.sort.descendingBy;
    add('missing sort', { ...base, sort: undefined }, /sort is required/);
    add('ascending sort', { ...base, sort: base.sort?.replace(/^-/, '') }, /sort must be descending/);
    const other = def.metrics.find((m) => !by.includes(m));
    const sortBad = other
      ? {
          ...base,
          metrics: list(base.metrics, ',').includes(other) ? base.metrics : `${base.metrics},${other}`,
          sort: `-${other}`,
        }
      : { ...base, sort: `-${def.dimensions.required?.[0]}` };
    add(
      `sort by a disallowed key (${other ?? def.dimensions.required?.[0]})`,
      sortBad,
      /sort must be descending by one of/,
    );
  }
  if (def.maxResults?.required) add('missing maxResults', { ...base, maxResults: undefined }, /maxResults is required/);

  if (def.owner === 'channel') {
    for (const f of CLAIM_FILTERS) {
      add(`${f} on a channel query`, withFilters(base, { [f]: SAMPLE[f] }), new RegExp(`filter ${f} is not allowed`));
    }
    add(
      'the channel dimension on a channel query',
      withDimensions(base, ['channel']),
      /dimension channel is not allowed/,
    );
  } else if (def.kind === 'playlist') {
    add(
      'claimedStatus on a content-owner playlist report',
      withFilters(base, { claimedStatus: 'claimed' }),
      /filter claimedStatus is not allowed/,
    );
  }
  return out;
}

const EXPECTED_IDS = [
  ...Array.from({ length: 30 }, (_, i) => String(i + 1)),
  ...Array.from({ length: 11 }, (_, i) => `P${i + 1}`),
  'AD',
];

// ---------------------------------------------------------------------------------------------------------------

describe('the catalog data', () => {
  it('holds every published report once: #1–#30, P1–P11, AD, each also for content owners; and reach R1, R2', () => {
    const ids = REPORTS.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual([...EXPECTED_IDS, ...EXPECTED_IDS.map((id) => `CO-${id}`), 'R1', 'R2'].sort());
    expect(CHANNEL_REPORTS.map((r) => r.id)).toEqual(EXPECTED_IDS);
    for (const r of REPORTS) expect(r.owner).toBe(r.id.startsWith('CO-') ? 'contentOwner' : 'channel');
    expect(REPORTS.filter((r) => r.kind === 'playlist').map((r) => r.id.replace('CO-', ''))).toEqual([
      ...EXPECTED_IDS.filter((id) => id.startsWith('P')),
      ...EXPECTED_IDS.filter((id) => id.startsWith('P')),
    ]);
    expect(REPORTS.filter((r) => r.kind === 'ad').map((r) => r.id)).toEqual(['AD', 'CO-AD']);
  });

  it('uses only known names: dimensions, filters, metrics; sort keys are report metrics', () => {
    const known = new Set<string>(KNOWN_DIMENSIONS);
    for (const r of REPORTS) {
      for (const n of ruleNames(r.dimensions)) {
        expect(known.has(n), `${r.id}: ${n}`).toBe(true);
        expect(FILTER_ONLY.has(n), `${r.id}: ${n} is a filter only`).toBe(false);
      }
      for (const n of ruleNames(r.filters)) expect(known.has(n), `${r.id}: ${n}`).toBe(true);
      for (const m of r.metrics) expect(KNOWN_METRICS, r.id).toContain(m);
      for (const m of r.sort?.descendingBy ?? []) expect(r.metrics, r.id).toContain(m);
      for (const f of [...Object.keys(r.requiredFilterValues ?? {}), ...(r.singleValueFilters ?? [])]) {
        expect(ruleNames(r.filters).has(f), `${r.id}: ${f}`).toBe(true);
      }
    }
  });

  it('every metric the engine computes is a known API name', () => {
    for (const m of Object.keys(METRICS)) expect(KNOWN_METRICS).toContain(m);
  });

  it('monetary metrics are the eight of the contract and part of M_ALL (#1, #3, #5, #26) and the ad report', () => {
    // biome-ignore format: word lists read best packed
    expect([...MONETARY_METRICS].sort()).toEqual([
      'adImpressions', 'cpm', 'estimatedAdRevenue', 'estimatedRedPartnerRevenue', 'estimatedRevenue', 'grossRevenue',
      'monetizedPlaybacks', 'playbackBasedCpm',
    ]);
    for (const id of ['1', '3', '5', '26', 'CO-1', 'CO-26']) {
      const r = REPORTS.find((x) => x.id === id);
      for (const m of MONETARY_METRICS) expect(r?.metrics, id).toContain(m);
    }
    for (const id of ['2', '8', '10', '16', '27']) {
      const r = REPORTS.find((x) => x.id === id);
      for (const m of MONETARY_METRICS) expect(r?.metrics, id).not.toContain(m);
    }
    expect(REPORTS.find((r) => r.id === 'AD')?.metrics).toEqual(['grossRevenue', 'adImpressions', 'cpm']);
  });

  it('content-owner reports mirror the channel ones: same metrics, sort and page rules', () => {
    for (const c of CHANNEL_REPORTS) {
      const co = REPORTS.find((r) => r.id === `CO-${c.id}`);
      expect(co?.name).toBe(c.name);
      expect(co?.kind).toBe(c.kind);
      expect(co?.metrics).toEqual(c.metrics);
      expect(co?.sort).toEqual(c.sort);
      expect(co?.maxResults).toEqual(c.maxResults);
      expect(co?.entityFilter?.anyOf).toEqual(['video', 'channel', 'group', 'playlist']);
    }
  });

  it('channel, claimedStatus and uploaderType belong to content-owner reports only; not to their playlist reports', () => {
    for (const r of REPORTS) {
      const names = new Set([...ruleNames(r.dimensions), ...ruleNames(r.filters)]);
      if (r.owner === 'channel') {
        for (const n of ['channel', 'claimedStatus', 'uploaderType']) expect(names.has(n), `${r.id}: ${n}`).toBe(false);
      } else {
        expect(ruleNames(r.filters).has('channel'), r.id).toBe(true);
        for (const n of ['claimedStatus', 'uploaderType'])
          expect(names.has(n), `${r.id}: ${n}`).toBe(r.kind !== 'playlist');
      }
    }
  });
});

describe('every report: its example matches exactly that report', () => {
  it.each(REPORTS.map((r) => [r.id, r] as const))('%s', (id, def) => {
    const req = request(def.owner, paramsOf(exampleQuery(def)));
    expect(matchReport(req).id).toBe(id);
    expect(() => checkPageCap(def, req)).not.toThrow();
  });
});

describe('every report: each constraint, broken on its own, is "not supported"', () => {
  const cases = REPORTS.flatMap((def) => negatives(def).map((n) => [`${def.id}: ${n.constraint}`, def, n] as const));

  it('covers every report', () => {
    expect(new Set(cases.map(([, def]) => def.id)).size).toBe(REPORTS.length);
  });

  it.each(cases)('%s', (_name, def, n) => {
    const req = request(def.owner, n.params);
    // That report objects, naming itself and what it objects to.
    const err = caught(() => matchReport(req, [def]));
    expectBadRequest(err, NOT_SUPPORTED);
    expect(err.message).toContain(`${def.name} (#${def.id}): `);
    expect(err.message).toMatch(n.says);
    // The whole catalog does not answer it with this report either.
    let matched: ReportDef | undefined;
    try {
      matched = matchReport(req);
    } catch (e) {
      expect(e).toBeInstanceOf(DomainError);
      expectBadRequest(e as DomainError, NOT_SUPPORTED);
    }
    expect(matched?.id).not.toBe(def.id);
  });
});

describe('every capped report: page caps give "Invalid value"', () => {
  const capped = REPORTS.filter((r) => r.maxResults).map((r) => [r.id, r] as const);

  it.each(capped)('%s: maxResults over the cap', (_id, def) => {
    const max = def.maxResults?.max ?? 0;
    const req = request(def.owner, { ...paramsOf(exampleQuery(def)), maxResults: String(max + 1) });
    const report = matchReport(req);
    expect(report.id).toBe(def.id);
    expectBadRequest(
      caught(() => checkPageCap(report, req)),
      `Invalid value (${max + 1}) given in field parameters.maxResults.`,
    );
    // the cap itself is fine
    expect(() =>
      checkPageCap(report, request(def.owner, { ...paramsOf(exampleQuery(def)), maxResults: String(max) })),
    ).not.toThrow();
  });

  it.each(capped)('%s: startIndex + maxResults − 1 over the cap', (_id, def) => {
    const max = def.maxResults?.max ?? 0;
    const req = request(def.owner, { ...paramsOf(exampleQuery(def)), maxResults: String(max), startIndex: '2' });
    expectBadRequest(
      caught(() => checkPageCap(matchReport(req), req)),
      'Invalid value (2) given in field parameters.startIndex.',
    );
    const last = request(def.owner, { ...paramsOf(exampleQuery(def)), maxResults: '5', startIndex: String(max - 4) });
    expect(() => checkPageCap(matchReport(last), last)).not.toThrow();
  });
});

describe('content owners: the entity filter or a claimedStatus / uploaderType combination', () => {
  const video = REPORTS.filter((r) => r.owner === 'contentOwner' && r.kind !== 'playlist');
  const combos = [
    'claimedStatus==claimed',
    'uploaderType==self',
    'uploaderType==thirdParty',
    'claimedStatus==claimed;uploaderType==self',
    'claimedStatus==claimed;uploaderType==thirdParty',
  ];

  it.each(video.filter((r) => !r.filters.required?.includes('video')).map((r) => [r.id, r] as const))(
    '%s: each supported combination stands in for an entity filter',
    (id, def) => {
      const none = Object.fromEntries([...ENTITY_FILTERS, ...CLAIM_FILTERS].map((f) => [f, undefined]));
      const bare = withFilters(paramsOf(exampleQuery(def)), none);
      for (const combo of combos) {
        const params = withFilters(bare, Object.fromEntries(combo.split(';').map((c) => c.split('=='))));
        expect(matchReport(request(def.owner, params)).id, combo).toBe(id);
      }
    },
  );
});

// ---------------------------------------------------------------------------------------------------------------
// Hand-written facts of api-contract.md §A.2–§A.4

const channel = (params: Params) => request('channel', params);
const owner = (params: Params) => request('contentOwner', params);

describe('matchReport: facts of the contract', () => {
  it.each([
    ['1', channel({ metrics: 'estimatedRevenue,adImpressions,cpm,playbackBasedCpm' })],
    ['1', channel({ metrics: 'views', filters: 'group==G1' })],
    ['2', channel({ metrics: 'views', filters: 'province==US-CA;video==a,b' })],
    [
      '7',
      channel({
        dimensions: 'city,province',
        metrics: 'views',
        filters: 'country==US',
        sort: '-views',
        maxResults: '25',
      }),
    ],
    [
      '7',
      channel({
        dimensions: 'city,month',
        metrics: 'estimatedMinutesWatched',
        sort: '-estimatedMinutesWatched',
        maxResults: '3',
      }),
    ],
    ['9', channel({ metrics: 'views', filters: 'province==US-WA;subscribedStatus==UNSUBSCRIBED' })],
    ['12', channel({ dimensions: 'country,youtubeProduct', metrics: 'views,redViews' })],
    ['13', channel({ dimensions: 'country,youtubeProduct', metrics: 'averageViewPercentage' })],
    [
      '19',
      channel({
        dimensions: 'insightTrafficSourceDetail',
        metrics: 'views',
        filters: 'insightTrafficSourceType==RELATED_VIDEO',
        sort: '-views',
        maxResults: '25',
      }),
    ],
    ['22', channel({ dimensions: 'operatingSystem,deviceType,day', metrics: 'estimatedMinutesWatched' })],
    ['23', channel({ dimensions: 'gender', metrics: 'viewerPercentage', filters: 'group==G1' })],
    [
      '25',
      channel({
        dimensions: 'elapsedVideoTimeRatio',
        metrics: 'audienceWatchRatio',
        filters: 'video==v1;audienceType==AD_INSTREAM',
      }),
    ],
    [
      '26',
      channel({ dimensions: 'video', metrics: 'estimatedRevenue,views', sort: '-estimatedRevenue', maxResults: '200' }),
    ],
    [
      '28',
      channel({
        dimensions: 'video',
        metrics: 'views',
        filters: 'subscribedStatus==SUBSCRIBED',
        sort: '-views',
        maxResults: '10',
      }),
    ],
    ['P1', channel({ metrics: 'playlistViews', filters: 'group==G1' })],
    ['P1', channel({ metrics: 'views', filters: 'playlist==PL1,PL2' })],
    ['P9', channel({ dimensions: 'operatingSystem', metrics: 'playlistStarts', filters: 'playlist==PL1' })],
    ['P10', channel({ dimensions: 'ageGroup,gender', metrics: 'viewerPercentage', filters: 'playlist==PL1' })],
    ['P11', channel({ dimensions: 'playlist', metrics: 'playlistStarts', sort: '-playlistStarts' })],
    ['AD', channel({ dimensions: 'adType,day', metrics: 'cpm', filters: 'video==v1;country==JP' })],
    ['CO-1', owner({ metrics: 'views', filters: 'claimedStatus==claimed' })],
    ['CO-1', owner({ metrics: 'estimatedRevenue', filters: 'channel==UC1,UC2' })],
    ['CO-3', owner({ dimensions: 'day,channel', metrics: 'views', filters: 'uploaderType==thirdParty' })],
    ['CO-5', owner({ dimensions: 'country,uploaderType', metrics: 'views', filters: 'claimedStatus==claimed' })],
    [
      'CO-26',
      owner({
        dimensions: 'video',
        metrics: 'estimatedRevenue',
        filters: 'claimedStatus==claimed;uploaderType==self',
        sort: '-estimatedRevenue',
        maxResults: '10',
      }),
    ],
    ['CO-P1', owner({ metrics: 'views', filters: 'playlist==PL1' })],
    [
      'CO-P11',
      owner({ dimensions: 'playlist', metrics: 'playlistViews', filters: 'channel==UC1', sort: '-playlistViews' }),
    ],
    ['CO-AD', owner({ dimensions: 'adType', metrics: 'grossRevenue', filters: 'uploaderType==self' })],
  ] as const)('#%s', (id, req) => {
    expect(matchReport(req).id).toBe(id);
  });

  const refused: [string, ReportRequest, RegExp][] = [
    [
      'video,day (any channel)',
      channel({ dimensions: 'video,day', metrics: 'views', sort: '-views', maxResults: '10' }),
      /no channel video report takes the dimensions video, day/,
    ],
    ['country + day', channel({ dimensions: 'country,day', metrics: 'views' }), /no channel video report/],
    [
      'country + deviceType',
      channel({ dimensions: 'country,deviceType', metrics: 'views' }),
      /no channel video report takes the dimensions country, deviceType/,
    ],
    [
      'country + operatingSystem',
      channel({ dimensions: 'operatingSystem,country', metrics: 'views' }),
      /no channel video report takes the dimensions operatingSystem, country/,
    ],
    [
      'liveOrOnDemand with averageViewPercentage',
      channel({ dimensions: 'liveOrOnDemand', metrics: 'averageViewPercentage' }),
      /\(#10\): metric averageViewPercentage/,
    ],
    [
      'city without maxResults',
      channel({ dimensions: 'city', metrics: 'views', sort: '-views' }),
      /\(#7\): maxResults is required/,
    ],
    [
      'city by province without country==US',
      channel({ dimensions: 'city,province', metrics: 'views', sort: '-views', maxResults: '5' }),
      /province requires the filter country==US/,
    ],
    [
      'city by province with country==CA',
      channel({
        dimensions: 'city,province',
        metrics: 'views',
        filters: 'country==CA',
        sort: '-views',
        maxResults: '5',
      }),
      /country==US/,
    ],
    [
      'playback location detail outside EMBEDDED',
      channel({
        dimensions: 'insightPlaybackLocationDetail',
        metrics: 'views',
        filters: 'insightPlaybackLocationType==SEARCH',
        sort: '-views',
        maxResults: '5',
      }),
      /insightPlaybackLocationType==EMBEDDED/,
    ],
    [
      'retention of two videos',
      channel({ dimensions: 'elapsedVideoTimeRatio', metrics: 'audienceWatchRatio', filters: 'video==a,b' }),
      /\(#25\): the video filter must name exactly one id/,
    ],
    [
      'retention of a group',
      channel({ dimensions: 'elapsedVideoTimeRatio', metrics: 'audienceWatchRatio', filters: 'group==G1' }),
      /\(#25\)/,
    ],
    [
      'top videos by likes',
      channel({ dimensions: 'video', metrics: 'views,likes', sort: '-likes', maxResults: '10' }),
      /sort must be descending/,
    ],
    [
      'top videos by state, ascending',
      channel({ dimensions: 'video', metrics: 'views', filters: 'province==US-CA', sort: 'views' }),
      /\(#27\): sort must be descending/,
    ],
    [
      'a playlist and a group',
      channel({ metrics: 'playlistViews', filters: 'playlist==PL1;group==G1' }),
      /exactly one of the filters playlist, group/,
    ],
    [
      'top playlists with views',
      channel({ dimensions: 'playlist', metrics: 'views', sort: '-views' }),
      /\(#P11\): metric views/,
    ],
    [
      'playlist metrics without a playlist or group',
      channel({ metrics: 'playlistViews' }),
      /playlist metrics \(playlistViews\) need/,
    ],
    [
      'a playlist dimension with video reports only dimensions',
      channel({ dimensions: 'playlist,video', metrics: 'views' }),
      /no channel playlist report/,
    ],
    [
      'ads by month',
      channel({ dimensions: 'adType,month', metrics: 'cpm' }),
      /no channel video report takes the dimensions adType, month/,
    ],
    ['ads with views', channel({ dimensions: 'adType', metrics: 'views' }), /\(#AD\): metric views/],
    [
      'claimedStatus on a channel query',
      channel({ metrics: 'views', filters: 'claimedStatus==claimed' }),
      /filter claimedStatus is only available in content-owner reports/,
    ],
    [
      'uploaderType dimension on a channel query',
      channel({ dimensions: 'uploaderType', metrics: 'views' }),
      /dimension uploaderType is only available in content-owner reports/,
    ],
    [
      'channel dimension on a channel query',
      channel({ dimensions: 'channel', metrics: 'views' }),
      /dimension channel is only available in content-owner reports/,
    ],
    [
      'content owner without any filter',
      owner({ metrics: 'views' }),
      /\(#CO-1\): a content-owner query must filter by video, channel or group, or by one of claimedStatus==claimed/,
    ],
    ['content owner with only a country filter', owner({ metrics: 'views', filters: 'country==US' }), /must filter by/],
    [
      'content owner: claimedStatus other than claimed',
      owner({ metrics: 'views', filters: 'claimedStatus==unclaimed' }),
      /it must be claimedStatus==claimed/,
    ],
    [
      'content owner: top playlists without a channel',
      owner({ dimensions: 'playlist', metrics: 'playlistViews', sort: '-playlistViews' }),
      /\(#CO-P11\): a content-owner query must filter by channel\)$/,
    ],
    [
      'content owner: uploaderType on a playlist report',
      owner({ metrics: 'playlistViews', filters: 'playlist==PL1;uploaderType==self' }),
      /\(#CO-P1\): filter uploaderType is not allowed/,
    ],
  ];
  it.each(refused)('%s → "The query is not supported…"', (_name, req, detail) => {
    const err = caught(() => matchReport(req));
    expectBadRequest(err, NOT_SUPPORTED);
    expect(err.message).toMatch(detail);
  });

  const NO_DETAIL = [
    'ANNOTATION',
    'NO_LINK_EMBEDDED',
    'NO_LINK_OTHER',
    'PLAYLIST',
    'PROMOTED',
    'SHORTS',
    'YT_PLAYLIST_PAGE',
  ];
  it.each(NO_DETAIL)('traffic source %s has no detail report (#19, P8)', (source) => {
    expect(DETAIL_TRAFFIC_SOURCES).not.toContain(source);
    const detail = { dimensions: 'insightTrafficSourceDetail', sort: '-views', maxResults: '10' };
    expectBadRequest(
      caught(() =>
        matchReport(channel({ ...detail, metrics: 'views', filters: `insightTrafficSourceType==${source}` })),
      ),
      NOT_SUPPORTED,
    );
  });

  it.each(DETAIL_TRAFFIC_SOURCES)('traffic source %s has one', (source) => {
    const params = { dimensions: 'insightTrafficSourceDetail', sort: '-views', maxResults: '10', metrics: 'views' };
    expect(matchReport(channel({ ...params, filters: `insightTrafficSourceType==${source}` })).id).toBe('19');
  });

  it('the city report takes at most 25 rows (what the API accepts), not the documented 250', () => {
    const city = (maxResults: string, startIndex?: string) =>
      channel({
        dimensions: 'city',
        metrics: 'views',
        sort: '-views',
        maxResults,
        ...(startIndex ? { startIndex } : {}),
      });
    expect(() => checkPageCap(matchReport(city('25')), city('25'))).not.toThrow();
    for (const n of ['26', '250']) {
      expectBadRequest(
        caught(() => checkPageCap(matchReport(city(n)), city(n))),
        `Invalid value (${n}) given in field parameters.maxResults.`,
      );
    }
    expectBadRequest(
      caught(() => checkPageCap(matchReport(city('5', '22')), city('5', '22'))),
      'Invalid value (22)',
    );
  });

  it('top playlists and top videos by state cap at 200, detail reports at 25', () => {
    const p11 = (n: string) =>
      channel({ dimensions: 'playlist', metrics: 'playlistViews', sort: '-playlistViews', maxResults: n });
    expect(() => checkPageCap(matchReport(p11('200')), p11('200'))).not.toThrow();
    expectBadRequest(
      caught(() => checkPageCap(matchReport(p11('201')), p11('201'))),
      'Invalid value (201)',
    );
    const p6 = channel({
      dimensions: 'insightPlaybackLocationDetail',
      metrics: 'playlistStarts',
      filters: 'insightPlaybackLocationType==EMBEDDED;group==G1',
      sort: '-playlistStarts',
      maxResults: '26',
    });
    expect(matchReport(p6).id).toBe('P6');
    expectBadRequest(
      caught(() => checkPageCap(matchReport(p6), p6)),
      'Invalid value (26)',
    );
  });
});

describe('reach reports (this service only)', () => {
  const reach = (params: Params) => request('channel', { metrics: REACH_METRICS.join(','), ...params });

  it.each([
    ['R1', {}],
    ['R1', { dimensions: 'day' }],
    ['R1', { dimensions: 'month,deviceType,operatingSystem', filters: 'video==a,b' }],
    ['R1', { dimensions: 'insightTrafficSourceType', filters: 'group==G1;deviceType==MOBILE' }],
    ['R2', { dimensions: 'video', sort: '-videoThumbnailImpressions', maxResults: '10' }],
    ['R2', { dimensions: 'video,deviceType', sort: '-videoThumbnailImpressionsClickRate', maxResults: '200' }],
  ])('%s answers %j', (id, params) => {
    expect(matchReport(reach(params)).id).toBe(id);
  });

  it('top videos by impressions need a descending sort and maxResults; other slices are not carried', () => {
    expectBadRequest(
      caught(() => matchReport(reach({ dimensions: 'video', maxResults: '10' }))),
      NOT_SUPPORTED,
    );
    expectBadRequest(
      caught(() => matchReport(reach({ dimensions: 'country' }))),
      NOT_SUPPORTED,
    );
    expectBadRequest(
      caught(() => matchReport(reach({ dimensions: 'day', filters: 'country==US' }))),
      NOT_SUPPORTED,
    );
    // Reach metrics come with no other metric: they are a different report type.
    expectBadRequest(
      caught(() => matchReport(reach({ metrics: 'views,videoThumbnailImpressions' }))),
      NOT_SUPPORTED,
    );
  });

  it('content owners are told reach is for channels only (their reach reports are not loaded)', () => {
    const err = caught(() =>
      matchReport(request('contentOwner', { metrics: 'videoThumbnailImpressions', filters: 'uploaderType==self' })),
    );
    expectBadRequest(err, NOT_SUPPORTED);
    expect(err.message).toContain('videoThumbnailImpressions is answered for channels only');
  });

  it('the click rate is recomputed from summed clicks and impressions, never averaged', () => {
    const rate = METRICS.videoThumbnailImpressionsClickRate;
    expect(rate.uses).toEqual(['thumbnailClicks', 'thumbnailImpressions']);
    const sums: Record<string, number> = { thumbnailClicks: 12, thumbnailImpressions: 400 };
    expect(rate.compute((m) => sums[m] ?? null)).toBeCloseTo(0.03, 12);
    expect(rate.dataType).toBe('FLOAT');
    expect(METRICS.videoThumbnailImpressions.dataType).toBe('INTEGER');
  });

  it('the docs mark them as answered here, not by Google', () => {
    const rows = catalogMarkdown(EXAMPLE_IDS).split('\n');
    expect(rows.find((r) => r.startsWith('| R1 '))).toContain('(this service only)');
    expect(rows.some((r) => r.includes("Google's Analytics API answers 400 for these metrics"))).toBe(true);
  });
});

describe('catalogMarkdown', () => {
  it('has a header and one row per report, with its example', () => {
    const lines = catalogMarkdown(EXAMPLE_IDS).split('\n');
    expect(lines[0]).toMatch(
      /^\| # +\| Report +\| Owner +\| Dimensions +\| Filters +\| Metrics +\| Sort \/ maxResults +\| Example +\|$/,
    );
    const rows = lines.filter((l) => /^\| (CO-)?[0-9PAR]/.test(l));
    expect(rows).toHaveLength(REPORTS.length);
    for (const [i, r] of REPORTS.entries()) {
      expect(rows[i]).toContain(`| ${r.id} `);
      expect(rows[i]).toContain(`\`${exampleOf(r, EXAMPLE_IDS)}\``);
      expect(rows[i]).not.toMatch(/\{(video|playlist|channel)\}/);
    }
    expect(rows.find((r) => r.startsWith('| P1 '))).toContain('playlist==p-c');
    expect(rows.find((r) => r.startsWith('| CO-P1 '))).toContain('playlist==p-o');
    // every row as wide as the header: the table is aligned
    expect(new Set(lines.filter((l) => l.startsWith('|')).map((l) => l.length)).size).toBe(1);
    expect(rows.find((r) => r.startsWith('| 26 '))).toContain('M_ALL');
    expect(rows.find((r) => r.startsWith('| 7 '))).toContain('`maxResults` ≤ 25 required');
  });
});

describe('the docs are generated from the catalog', () => {
  it('README.md and docs/reports-catalog.md are up to date (npm run report-table)', async () => {
    const { readFileSync } = await import('node:fs');
    const { CATALOG_DOC, README, renderCatalogDoc, renderReadme } = await import('../../infra/tools/report-table');
    const readme = readFileSync(README, 'utf8');
    expect(renderReadme(readme), 'run npm run report-table').toBe(readme);
    expect(readFileSync(CATALOG_DOC, 'utf8'), 'run npm run report-table').toBe(renderCatalogDoc());
    for (const r of REPORTS) expect(readme).toContain(`| ${r.id} `);
  });
});
