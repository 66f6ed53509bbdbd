/**
 * The pure stages of reports.query: planReport (report-plan.ts), from a request and what is known so far to the next
 * reads or the answer, and answerFacts (engine.ts), from a cube query and the cubes read to the result table. Plain
 * data in, plain data out: nothing here touches DynamoDB. What a round reads is simulated by filling in `Known`.
 */
import { describe, expect, it } from 'vitest';
import type { Profile } from '../../functions/core/directory/directory';
import type { Group, GroupItem } from '../../functions/core/groups/group';
import { CHANNEL_BASIC } from '../../functions/core/reports/catalog/family-shapes';
import { MEASURE_INDEX, MEASURES } from '../../functions/core/reports/catalog/metrics';
import {
  answerFacts,
  type CubeQuery,
  type FactPlan,
  type FactReads,
  planFacts,
} from '../../functions/core/reports/query/engine';
import {
  ASSUMED_NO_LINK_IN_RANGE,
  assumedOwns,
  type FactsRead,
  type Known,
  type PlannedRead,
  planReport,
  type ReportPlan,
} from '../../functions/core/reports/query/report-plan';
import { prepareReport } from '../../functions/core/reports/query/report-query';
import { parseReportRequest } from '../../functions/core/reports/query/report-request';
import type { StoredCube } from '../../functions/core/reports/storage/cube-codec';
import { newReadStats } from '../../functions/core/reports/storage/fact-repository';
import { caught } from '../support/domain-error';

const SUB = 'user-1';
const SCOPES = new Set(['video-analytics.readonly', 'video-analytics-monetary.readonly'] as const);

const prepared = (params: Record<string, string>) =>
  prepareReport(
    parseReportRequest({ startDate: '2026-03-01', endDate: '2026-04-30', metrics: 'views', ...params }),
    SCOPES,
  );

const profile = (p: Partial<Profile> = {}): Profile => ({
  sub: SUB,
  channels: [],
  contentOwners: [],
  reads: new Set(),
  ...p,
});

/** Facts as a round would have read them for `plan`: every planned Query found nothing. */
const readFor = (read: PlannedRead | undefined, error?: Error): FactsRead => {
  if (read?.read !== 'facts') throw new Error(`not a facts read: ${JSON.stringify(read)}`);
  const reads: FactReads = read.plan.map((source) => source.queries.map(() => ({ cubes: [] })));
  return {
    plan: read.plan,
    assumed: read.assumed,
    result: error ? { error } : { reads },
    stats: { items: 7, bytes: 70, queries: 1 },
  };
};

const readsOf = (plan: ReportPlan): readonly PlannedRead[] => {
  if (plan.step !== 'read') throw new Error('expected reads, got an answer');
  return plan.reads;
};
const factsRead = (plan: ReportPlan) => readsOf(plan).find((r) => r.read === 'facts');
const kinds = (plan: ReportPlan) => readsOf(plan).map((r) => r.read);

describe('planReport: content-owner reports', () => {
  const co = prepared({ ids: 'contentOwner==CO1', dimensions: 'day', filters: 'claimedStatus==claimed' });

  it('round one reads the grant and links and the facts together, assuming no link date inside the range', () => {
    const plan = planReport(co, SUB, {});
    expect(kinds(plan).sort()).toEqual(['contentOwnerAccess', 'facts']);
    expect(readsOf(plan)).toContainEqual({ read: 'contentOwnerAccess', contentOwner: 'CO1', sub: SUB });
    expect(factsRead(plan)).toMatchObject({ assumed: [ASSUMED_NO_LINK_IN_RANGE] });
  });

  it('links from before the range: the facts read on the guess answer, with the links as channelSince', () => {
    const facts = readFor(factsRead(planReport(co, SUB, {})));
    const links = [{ channelId: 'UCa', linkedSince: '2020-01-01' }];
    const plan = planReport(co, SUB, { access: { manages: true, links }, facts });
    if (plan.step !== 'answer') throw new Error('expected an answer');
    expect(plan.facts).toBe(facts);
    expect(plan.query.owner).toBe('CO1');
    expect(plan.query.channelSince).toEqual(new Map([['UCa', '2020-01-01']]));
  });

  it('a link date inside the range proves the guess wrong: the right facts are read, with no assumption', () => {
    const first = factsRead(planReport(co, SUB, {}));
    const links = [{ channelId: 'UCa', linkedSince: '2026-03-15' }];
    const plan = planReport(co, SUB, { access: { manages: true, links }, facts: readFor(first) });
    expect(kinds(plan)).toEqual(['facts']);
    const second = factsRead(plan);
    expect(second).toMatchObject({ assumed: [] });
    expect(second).not.toEqual(first);
    // and those answer the next plan
    const done = planReport(co, SUB, { access: { manages: true, links }, facts: readFor(second) });
    expect(done.step).toBe('answer');
  });

  it('includeHistoricalChannelData assumes nothing about links', () => {
    const all = prepared({
      ids: 'contentOwner==CO1',
      dimensions: 'day',
      filters: 'claimedStatus==claimed',
      includeHistoricalChannelData: 'true',
    });
    expect(factsRead(planReport(all, SUB, {}))).toMatchObject({ assumed: [] });
  });

  it('a grant only on the user side: the profile decides, and a caller it does not list gets 403', () => {
    const access = { manages: false, links: [] };
    const facts = readFor(factsRead(planReport(co, SUB, {})));
    expect(kinds(planReport(co, SUB, { access, facts }))).toEqual(['profile']);
    const denied = caught(() => planReport(co, SUB, { access, facts, profile: profile() }));
    expect(denied.kind).toBe('permission_denied');
    const allowed = planReport(co, SUB, { access, facts, profile: profile({ contentOwners: ['CO1'] }) });
    expect(allowed.step).toBe('answer');
  });

  it('a caller without the grant gets 403 even though the facts were read', () => {
    const facts = readFor(factsRead(planReport(co, SUB, {})));
    const known: Known = { access: { manages: false, links: [] }, profile: profile({ contentOwners: ['CO2'] }), facts };
    expect(caught(() => planReport(co, SUB, known)).reason).toBe('forbidden');
  });
});

describe('planReport: channel reports', () => {
  it('an explicit channel: the profile and that channel’s facts at once; answered only if the caller owns it', () => {
    const q = prepared({ ids: 'channel==UCmine', dimensions: 'day' });
    const plan = planReport(q, SUB, {});
    expect(kinds(plan).sort()).toEqual(['facts', 'profile']);
    expect(factsRead(plan)).toMatchObject({ assumed: [assumedOwns('UCmine')] });
    const facts = readFor(factsRead(plan));
    expect(planReport(q, SUB, { facts, profile: profile({ channels: ['UCmine'] }) }).step).toBe('answer');
    expect(caught(() => planReport(q, SUB, { facts, profile: profile({ channels: ['UCother'] }) })).kind).toBe(
      'permission_denied',
    );
  });

  it('channel==MINE without a remembered channel reads the profile first, then the facts of its first channel', () => {
    const q = prepared({ ids: 'channel==MINE', dimensions: 'day' });
    expect(kinds(planReport(q, SUB, {}))).toEqual(['profile']);
    const next = planReport(q, SUB, { profile: profile({ channels: ['UCz', 'UCb'] }) });
    expect(kinds(next)).toEqual(['facts']);
    expect((factsRead(next) as { plan: FactPlan }).plan[0]?.owner).toBe('UCb');
  });

  it('channel==MINE guessed from the last time: a stale guess is dropped and the right channel read', () => {
    const q = prepared({ ids: 'channel==MINE', dimensions: 'day' });
    const first = planReport(q, SUB, { lastMine: 'UCold' });
    expect((factsRead(first) as { plan: FactPlan }).plan[0]?.owner).toBe('UCold');
    const known: Known = {
      lastMine: 'UCold',
      facts: readFor(factsRead(first)),
      profile: profile({ channels: ['UCnew'] }),
    };
    const second = planReport(q, SUB, known);
    expect((factsRead(second) as { plan: FactPlan }).plan[0]?.owner).toBe('UCnew');
  });

  it('a channel the caller owns none of: 403, without reading facts for nothing', () => {
    const q = prepared({ ids: 'channel==MINE' });
    expect(caught(() => planReport(q, SUB, { profile: profile() })).kind).toBe('permission_denied');
  });
});

describe('planReport: failed and impossible fact reads', () => {
  const q = prepared({ ids: 'channel==UCa', dimensions: 'day' });
  const owns = profile({ channels: ['UCa'] });

  it('a failed read is thrown when its plan is used, and dropped when the plan changed', () => {
    const failed = readFor(factsRead(planReport(q, SUB, {})), new Error('throttled'));
    expect(() => planReport(q, SUB, { facts: failed, profile: owns })).toThrow('throttled');
    const mine = prepared({ ids: 'channel==MINE', dimensions: 'day' });
    const stale = readFor(factsRead(planReport(mine, SUB, { lastMine: 'UCb' })), new Error('throttled'));
    expect(kinds(planReport(mine, SUB, { lastMine: 'UCb', facts: stale, profile: owns }))).toEqual(['facts']);
  });

  it('a content-owner top-videos query over a link date on a guess plans months; known, it reads days', () => {
    const top = prepared({
      ids: 'contentOwner==CO1',
      dimensions: 'video',
      sort: '-views',
      maxResults: '10',
      filters: 'claimedStatus==claimed',
    });
    const guess = factsRead(planReport(top, SUB, {})) as { plan: FactPlan };
    expect(guess.plan[0]?.queries.some((p) => p.from.startsWith('D#'))).toBe(false);
    const links = [{ channelId: 'UCa', linkedSince: '2026-04-01' }];
    const right = factsRead(planReport(top, SUB, { access: { manages: true, links }, facts: readFor(guess as never) }));
    expect((right as { plan: FactPlan }).plan[0]?.queries.every((p) => p.from.startsWith('D#'))).toBe(true);
  });
});

describe('planReport: group filters', () => {
  const q = prepared({ ids: 'channel==MINE', dimensions: 'day', filters: 'group==G1' });
  const owns = profile({ channels: ['UCa'] });
  const group = (g: Partial<Group> = {}): Group => ({
    id: 'G1',
    actor: 'channel:UCa',
    title: 't',
    itemType: 'youtube#video',
    itemCount: 2,
    status: 'active',
    etag: 'e',
    publishedAt: '2026-01-01T00:00:00Z',
    ...g,
  });
  const item = (resourceId: string, kind: GroupItem['kind'] = 'youtube#video'): GroupItem => ({
    id: `i-${resourceId}`,
    groupId: 'G1',
    kind,
    resourceId,
    etag: 'e',
  });

  it('reads the group only after ownership, then its items, then the facts of its videos', () => {
    expect(kinds(planReport(q, SUB, {}))).toEqual(['profile']);
    expect(readsOf(planReport(q, SUB, { profile: owns }))).toEqual([
      { read: 'group', actor: 'channel:UCa', groupId: 'G1' },
    ]);
    expect(kinds(planReport(q, SUB, { profile: owns, group: group() }))).toEqual(['groupItems']);
    const known: Known = { profile: owns, group: group(), groupItems: [item('v1'), item('v2')] };
    const facts = factsRead(planReport(q, SUB, known));
    expect(facts).toMatchObject({ assumed: [] });
    const answer = planReport(q, SUB, { ...known, facts: readFor(facts) });
    if (answer.step !== 'answer') throw new Error('expected an answer');
    expect(answer.query.filters.video).toEqual(new Set(['v1', 'v2']));
  });

  it('a missing, deleting or playlist group is a 400 on the filter, before its items are read', () => {
    for (const g of [null, group({ status: 'deleting' }), group({ itemType: 'youtube#playlist' })]) {
      const err = caught(() => planReport(q, SUB, { profile: owns, group: g }));
      expect(err.kind).toBe('invalid_argument');
      expect(err.message).toContain('group==G1');
    }
  });

  it('another caller’s channel: 403 before anything about the group', () => {
    expect(caught(() => planReport(q, SUB, { profile: profile(), group: null })).kind).toBe('permission_denied');
  });
});

describe('planReport: currency', () => {
  const q = prepared({ ids: 'channel==UCa', dimensions: 'day', metrics: 'estimatedRevenue', currency: 'EUR' });

  it('the rates are read in round one beside the profile and the facts', () => {
    expect(kinds(planReport(q, SUB, {})).sort()).toEqual(['facts', 'profile', 'rates']);
  });

  it('no rates loaded: a 400 on currency, but only once the caller is known to own the channel', () => {
    expect(caught(() => planReport(q, SUB, { rates: null, profile: profile() })).kind).toBe('permission_denied');
    const err = caught(() => planReport(q, SUB, { rates: null, profile: profile({ channels: ['UCa'] }) }));
    expect(err.message).toContain('parameters.currency');
  });

  it('the answer converts with the rates read', () => {
    const facts = readFor(factsRead(planReport(q, SUB, {})));
    const rate = () => 2;
    const plan = planReport(q, SUB, { rates: rate, facts, profile: profile({ channels: ['UCa'] }) });
    if (plan.step !== 'answer') throw new Error('expected an answer');
    expect(plan.query.rate).toBe(rate);
  });
});

// ---------------------------------------------------------------------------------------------------------------

/** A cube with a `day` column and views per row. */
function cube(days: string[], views: number[]): StoredCube {
  const values = [...new Set(days)].sort();
  const measures: (Float64Array | undefined)[] = new Array(MEASURES.length).fill(undefined);
  measures[MEASURE_INDEX.views] = Float64Array.from(views);
  return {
    grain: ['day'],
    size: days.length,
    keys: [{ values, codes: Uint32Array.from(days.map((d) => values.indexOf(d))) }],
    measures,
  };
}

describe('answerFacts', () => {
  const q: CubeQuery = {
    family: CHANNEL_BASIC,
    owner: 'UCa',
    startDate: '2026-03-05',
    endDate: '2026-03-31',
    dimensions: ['day'],
    metrics: ['views'],
    filters: {},
    sort: [{ name: 'views', descending: true }],
    startIndex: 1,
    maxResults: 2,
  };

  it('keeps the days a month item was read for, sums by day, sorts and pages', () => {
    const month = cube(['2026-03-01', '2026-03-05', '2026-03-06', '2026-03-07', '2026-03-06'], [100, 5, 3, 4, 6]);
    const reads: FactReads = [
      [
        {
          days: new Map([['M#2026-03', ['2026-03-05', '2026-03-31'] as const]]),
          cubes: [{ period: 'M#2026-03', cube: month }],
        },
      ],
    ];
    expect(answerFacts(q, reads)).toEqual({
      kind: 'youtubeAnalytics#resultTable',
      columnHeaders: [
        { name: 'day', columnType: 'DIMENSION', dataType: 'STRING' },
        { name: 'views', columnType: 'METRIC', dataType: 'INTEGER' },
      ],
      rows: [
        ['2026-03-06', 9],
        ['2026-03-05', 5],
      ],
    });
  });

  it('nothing read: no rows with dimensions, one row of zeros without', () => {
    const none: FactReads = [[{ cubes: [] }]];
    expect(answerFacts(q, none).rows).toBeUndefined();
    expect(answerFacts({ ...q, dimensions: [], sort: [] }, none).rows).toEqual([[0]]);
  });

  it('a plan is plain data: made twice from the same query it compares equal', () => {
    expect(planFacts(q)).toEqual(planFacts({ ...q }));
    expect(planFacts(q)).not.toEqual(planFacts({ ...q, owner: 'UCb' }));
    expect(newReadStats()).toEqual({ items: 0, bytes: 0, queries: 0 });
  });
});
