/**
 * reports.query parameters (functions/core/reports/query/report-request.ts) and the catalog match / page caps of
 * report-service.ts, with Google's error wording (api-contract.md §A.1, §A.3, §A.6.2). Errors are checked as
 * DomainErrors and as the HTTP answer the one error mapper (functions/_shared/http-errors.ts) makes of them.
 */
import { describe, expect, it } from 'vitest';
import { toErrorResult } from '../../functions/_shared/http-errors';
import { DomainError } from '../../functions/core/errors';
import { matchReport } from '../../functions/core/reports/catalog/report-matcher';
import { parseReportRequest, type ReportRequest } from '../../functions/core/reports/query/report-request';
import { queryReport, type ReportDeps } from '../../functions/core/reports/query/report-service';
import { newReadStats } from '../../functions/core/reports/storage/fact-repository';
import { caught } from '../support/domain-error';

const NOT_SUPPORTED =
  'The query is not supported. Check the documentation at https://developers.google.com/youtube/analytics/v2/available_reports for a list of supported queries.';

const BASE: Readonly<Record<string, string>> = {
  ids: 'channel==MINE',
  startDate: '2026-03-01',
  endDate: '2026-03-31',
  metrics: 'views',
};

const parse = (overrides: Record<string, string | undefined> = {}) => {
  const query: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...BASE, ...overrides })) if (v !== undefined) query[k] = v;
  return parseReportRequest(query);
};

async function caughtAsync(fn: () => Promise<unknown>): Promise<DomainError> {
  try {
    await fn();
  } catch (err) {
    expect(err, String(err)).toBeInstanceOf(DomainError);
    return err as DomainError;
  }
  throw new Error('expected a DomainError, nothing was thrown');
}

/** The HTTP status and Google error item the error becomes on the wire. */
function wire(err: DomainError) {
  const res = toErrorResult(err, 'test-request');
  const body = JSON.parse(res.body) as {
    error: { code: number; message: string; status: string; errors: { reason: string; location?: string }[] };
  };
  return { status: res.statusCode, body: body.error, item: body.error.errors[0] };
}

/** A 400 badRequest whose message starts with `prefix`, located at parameter `location` when given. */
function expectBadRequest(err: DomainError, prefix: string, location?: string) {
  const w = wire(err);
  expect(w.status, err.message).toBe(400);
  expect(w.body.status).toBe('INVALID_ARGUMENT');
  expect(err.message.startsWith(prefix), `${err.message} should start with ${prefix}`).toBe(true);
  expect(w.item?.reason).toBe('badRequest');
  if (location !== undefined) expect(w.item?.location).toBe(location);
}

describe('parseReportRequest: required parameters', () => {
  it.each(['ids', 'startDate', 'endDate', 'metrics'])('missing %s → 400 reason required naming it', (name) => {
    const err = caught(() => parse({ [name]: undefined }));
    const w = wire(err);
    expect(w.status).toBe(400);
    expect(err.reason).toBe('required');
    expect(w.item?.reason).toBe('required');
    expect(w.item?.location).toBe(name);
    expect(err.where).toEqual({ location: name, locationType: 'parameter' });
    expect(err.message).toContain(name);
  });

  it.each(['ids', 'startDate', 'endDate', 'metrics'])('an empty (or blank) %s counts as missing', (name) => {
    for (const blank of ['', '  ']) {
      const err = caught(() => parse({ [name]: blank }));
      expect(err.reason).toBe('required');
      expect(err.where.location).toBe(name);
    }
  });

  it('the first missing one is named when several are missing (ids first)', () => {
    const err = caught(() => parseReportRequest({}));
    expect(err.reason).toBe('required');
    expect(err.where.location).toBe('ids');
  });
});

describe('parseReportRequest: what analytix sends for "absent"', () => {
  it('empty dimensions, filters and sort are absent', () => {
    const req = parse({ dimensions: '', filters: '', sort: '' });
    expect(req.dimensions).toEqual([]);
    expect(req.filters).toEqual([]);
    expect(req.sort).toEqual([]);
  });

  it('maxResults=0 is absent, startIndex=0 means the first row', () => {
    const req = parse({ maxResults: '0', startIndex: '0' });
    expect(req.maxResults).toBeUndefined();
    expect(Object.hasOwn(req, 'maxResults')).toBe(false);
    expect(req.startIndex).toBe(1);
  });

  it('a minimal request gets the documented defaults', () => {
    const req = parse();
    expect(req).toEqual({
      ids: { type: 'channel', id: 'MINE' },
      startDate: '2026-03-01',
      endDate: '2026-03-31',
      metrics: ['views'],
      dimensions: [],
      filters: [],
      sort: [],
      startIndex: 1,
      includeHistoricalChannelData: false,
    } satisfies ReportRequest);
  });

  it('parses every parameter of a full request', () => {
    const req = parse({
      ids: 'channel==UCabc_-1',
      metrics: 'views,likes',
      dimensions: 'day',
      filters: 'video==a,b,a;country==US',
      sort: 'day,-views',
      maxResults: '10',
      startIndex: '3',
      currency: 'EUR',
      includeHistoricalChannelData: 'true',
    });
    expect(req.ids).toEqual({ type: 'channel', id: 'UCabc_-1' });
    expect(req.metrics).toEqual(['views', 'likes']);
    expect(req.filters).toEqual([
      { name: 'video', values: ['a', 'b'] },
      { name: 'country', values: ['US'] },
    ]);
    expect(req.sort).toEqual([
      { name: 'day', descending: false },
      { name: 'views', descending: true },
    ]);
    expect(req.maxResults).toBe(10);
    expect(req.startIndex).toBe(3);
    expect(req.currency).toBe('EUR');
    expect(req.includeHistoricalChannelData).toBe(true);
    expect(parse({ ids: 'contentOwner==demo-co' }).ids).toEqual({ type: 'contentOwner', id: 'demo-co' });
  });
});

describe('parseReportRequest: dates', () => {
  it.each(['2026-02-30', '2026-1-1', 'abc', '2026-13-01', '20260301'])('startDate=%s → Invalid value', (bad) => {
    const err = caught(() => parse({ startDate: bad, endDate: '2026-12-31' }));
    expectBadRequest(err, `Invalid value (${bad}) given in field parameters.startDate.`, 'startDate');
  });

  it.each(['2026-02-30', '2026-1-1', 'abc'])('endDate=%s → Invalid value', (bad) => {
    const err = caught(() => parse({ startDate: '2025-01-01', endDate: bad }));
    expectBadRequest(err, `Invalid value (${bad}) given in field parameters.endDate.`, 'endDate');
  });

  it('accepts 29 February of a leap year only', () => {
    expect(parse({ startDate: '2028-02-29', endDate: '2028-03-01' }).startDate).toBe('2028-02-29');
    expect(() => parse({ startDate: '2026-02-29', endDate: '2026-03-01' })).toThrow(DomainError);
  });

  it('a start after the end → 400 located at startDate, naming both dates', () => {
    const err = caught(() => parse({ startDate: '2026-03-02', endDate: '2026-03-01' }));
    const w = wire(err);
    expect(w.status).toBe(400);
    expect(w.item?.reason).toBe('badRequest');
    expect(w.item?.location).toBe('startDate');
    expect(err.message).toContain('2026-03-02');
    expect(err.message).toContain('2026-03-01');
    // the same day on both ends is a one-day report
    expect(parse({ startDate: '2026-03-01', endDate: '2026-03-01' }).endDate).toBe('2026-03-01');
  });
});

describe('parseReportRequest: names', () => {
  it('an unknown metric → exactly Google’s "Unknown identifier" message', () => {
    const err = caught(() => parse({ metrics: 'views,impressions' }));
    expect(err.message).toBe('Unknown identifier (impressions) given in field parameters.metrics.');
    expectBadRequest(err, 'Unknown identifier', 'metrics');
  });

  it('an unknown dimension → "…parameters.dimensions."', () => {
    const err = caught(() => parse({ dimensions: 'day,weekday' }));
    expect(err.message).toBe('Unknown identifier (weekday) given in field parameters.dimensions.');
    expectBadRequest(err, 'Unknown identifier', 'dimensions');
  });

  it('Reporting API (snake_case) names are unknown metrics', () => {
    const err = caught(() => parse({ metrics: 'watch_time_minutes' }));
    expect(err.message).toBe('Unknown identifier (watch_time_minutes) given in field parameters.metrics.');
  });

  it('a duplicate metric → 400 on metrics', () => {
    expectBadRequest(
      caught(() => parse({ metrics: 'views,likes,views' })),
      'Invalid value (views,likes,views) given in field parameters.metrics.',
      'metrics',
    );
  });

  it('a duplicate dimension or an empty name in a list → 400', () => {
    expectBadRequest(
      caught(() => parse({ dimensions: 'day,day' })),
      'Invalid value',
      'dimensions',
    );
    expectBadRequest(
      caught(() => parse({ metrics: 'views,,likes' })),
      'Invalid value',
      'metrics',
    );
  });
});

describe('parseReportRequest: filters', () => {
  it('an unknown filter name → "…parameters.filters."', () => {
    const err = caught(() => parse({ filters: 'bogus==1' }));
    expect(err.message).toBe('Unknown identifier (bogus) given in field parameters.filters.');
    expectBadRequest(err, 'Unknown identifier', 'filters');
  });

  it.each(['video=abc', 'video==', '==US', 'country', 'country==US;;video==a', 'video==a,,b'])(
    'a malformed clause (%s) → Invalid value on filters',
    (filters) => {
      expectBadRequest(
        caught(() => parse({ filters })),
        'Invalid value (',
        'filters',
      );
    },
  );

  it('a list on a filter that takes one value → 400', () => {
    expectBadRequest(
      caught(() => parse({ filters: 'country==US,GB' })),
      'Invalid value (country==US,GB)',
      'filters',
    );
    expectBadRequest(
      caught(() => parse({ filters: 'subscribedStatus==SUBSCRIBED,UNSUBSCRIBED' })),
      'Invalid value',
    );
  });

  it('the same filter twice → 400', () => {
    expectBadRequest(
      caught(() => parse({ filters: 'country==US;country==GB' })),
      'Invalid value',
      'filters',
    );
  });

  it('up to 500 video ids are accepted, 501 are not', () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`).join(',');
    expect(parse({ filters: `video==${ids(500)}` }).filters[0]?.values).toHaveLength(500);
    expectBadRequest(
      caught(() => parse({ filters: `video==${ids(501)}` })),
      'Invalid value (video==',
      'filters',
    );
  });
});

describe('parseReportRequest: sort, ids, currency, includeHistoricalChannelData', () => {
  it('a sort on a field that is not in the query → 400 on sort', () => {
    expectBadRequest(
      caught(() => parse({ sort: '-likes' })),
      'Invalid value (likes) given in field parameters.sort.',
    );
    expectBadRequest(
      caught(() => parse({ sort: 'day' })),
      'Invalid value (day)',
      'sort',
    );
  });

  it('a sort on an unknown name → Unknown identifier on sort', () => {
    const err = caught(() => parse({ sort: '-bogus' }));
    expect(err.message).toBe('Unknown identifier (bogus) given in field parameters.sort.');
    expectBadRequest(err, 'Unknown identifier', 'sort');
  });

  it('a bare "-" or a repeated sort key → 400', () => {
    expectBadRequest(
      caught(() => parse({ sort: '-' })),
      'Invalid value',
      'sort',
    );
    expectBadRequest(
      caught(() => parse({ sort: 'views,-views' })),
      'Invalid value',
      'sort',
    );
  });

  it.each(['channel=MINE', 'foo==bar', 'channel==', 'channel==UC abc', 'channel==UC1;channel==UC2'])(
    'ids=%s → Invalid value on ids',
    (ids) => {
      expectBadRequest(
        caught(() => parse({ ids })),
        `Invalid value (${ids}) given in field parameters.ids.`,
        'ids',
      );
    },
  );

  it('currency must be an upper-case ISO 4217 code', () => {
    expectBadRequest(
      caught(() => parse({ currency: 'usd' })),
      'Invalid value (usd) given in field parameters.currency.',
    );
    expectBadRequest(
      caught(() => parse({ currency: 'EURO' })),
      'Invalid value (EURO)',
      'currency',
    );
    expect(parse({ currency: 'JPY' }).currency).toBe('JPY');
  });

  it('includeHistoricalChannelData takes true or false only', () => {
    expectBadRequest(
      caught(() => parse({ includeHistoricalChannelData: 'maybe' })),
      'Invalid value (maybe) given in field parameters.includeHistoricalChannelData.',
      'includeHistoricalChannelData',
    );
    expect(parse({ includeHistoricalChannelData: 'false' }).includeHistoricalChannelData).toBe(false);
  });

  it.each([
    ['maxResults', '-1'],
    ['maxResults', 'ten'],
    ['maxResults', '1.5'],
    ['startIndex', '-3'],
    ['startIndex', 'x'],
  ])('%s=%s → Invalid value', (name, value) => {
    expectBadRequest(
      caught(() => parse({ [name]: value })),
      `Invalid value (${value}) given in field parameters.${name}.`,
    );
  });
});

describe('matchReport: the supported channel reports', () => {
  it.each([
    ['1', { metrics: 'views,likes,subscribersGained' }],
    ['1', { metrics: 'views', filters: 'country==US;video==abc' }],
    ['3', { metrics: 'views,estimatedMinutesWatched', dimensions: 'day', sort: 'day' }],
    ['3', { metrics: 'views,averageViewPercentage', dimensions: 'month', filters: 'continent==150' }],
    ['5', { metrics: 'views,averageViewDuration', dimensions: 'country', sort: '-views' }],
    ['8', { metrics: 'views,likes', dimensions: 'subscribedStatus' }],
    ['8', { metrics: 'views', dimensions: 'subscribedStatus,day', filters: 'subscribedStatus==SUBSCRIBED' }],
    ['10', { metrics: 'views,averageViewDuration', dimensions: 'liveOrOnDemand,month' }],
    ['10', { metrics: 'views', dimensions: 'day', filters: 'liveOrOnDemand==LIVE' }],
    ['26', { metrics: 'views,likes', dimensions: 'video', sort: '-views', maxResults: '10' }],
    ['26', { metrics: 'views,subscribersLost', dimensions: 'video', sort: '-subscribersLost,-views', maxResults: '5' }],
    ['26', { metrics: 'views', dimensions: 'video', filters: 'subContinent==155', sort: '-views', maxResults: '200' }],
  ] as const)('#%s matches %j', (id, params) => {
    expect(matchReport(parse(params)).id).toBe(id);
  });

  const unsupported: [string, Record<string, string>][] = [
    ['dimensions=video without sort', { dimensions: 'video', maxResults: '10' }],
    ['dimensions=video without maxResults', { dimensions: 'video', sort: '-views' }],
    ['video,day', { dimensions: 'video,day', sort: '-views', maxResults: '10' }],
    ['country,day', { dimensions: 'country,day' }],
    ['top videos sorted ascending', { dimensions: 'video', sort: 'views', maxResults: '10' }],
    [
      'top videos sorted by a metric that is not a top-N key',
      { metrics: 'views,likes', dimensions: 'video', sort: '-likes', maxResults: '10' },
    ],
    ['subscribersGained by liveOrOnDemand', { metrics: 'subscribersGained', dimensions: 'liveOrOnDemand' }],
    ['averageViewPercentage by liveOrOnDemand', { metrics: 'averageViewPercentage', dimensions: 'liveOrOnDemand' }],
    ['day and month together', { dimensions: 'day,month' }],
    ['country dimension with a country filter', { dimensions: 'country', filters: 'country==US' }],
    ['a video and a group filter together', { filters: 'video==a;group==g' }],
    ['a province dimension without country==US', { dimensions: 'province' }],
    ['a retention metric (audienceWatchRatio) without elapsedVideoTimeRatio', { metrics: 'audienceWatchRatio' }],
  ];
  it.each(unsupported)('%s → "The query is not supported…"', (_name, params) => {
    const err = caught(() => matchReport(parse(params)));
    expectBadRequest(err, NOT_SUPPORTED);
  });
});

describe('queryReport: checks made before any data is read', () => {
  // No repository is touched by these: a call to one would fail with a TypeError, not a DomainError.
  const noDeps = {} as ReportDeps;
  const run = (params: Record<string, string>) =>
    caughtAsync(() =>
      queryReport(
        noDeps,
        { sub: 'nobody', scopes: new Set(['video-analytics.readonly']) },
        parse(params),
        newReadStats(),
      ),
    );

  it('a monetary metric without the monetary scope → 403 forbidden naming the metric', async () => {
    const err = await run({ metrics: 'views,estimatedRevenue' });
    expect(err.kind).toBe('permission_denied');
    expect(err.reason).toBe('forbidden');
    expect(err.message).toContain('estimatedRevenue');
    expect(err.message).toContain('video-analytics-monetary.readonly');
  });

  it('traffic sources filtered by province → not supported: no report type carries both', async () => {
    const err = await run({ dimensions: 'insightTrafficSourceType', filters: 'province==US-CA' });
    expectBadRequest(err, NOT_SUPPORTED);
    expect(err.message).toContain('no loaded report type carries');
  });

  it('maxResults 201 on #26 → 400 naming maxResults', async () => {
    const err = await run({ dimensions: 'video', sort: '-views', maxResults: '201' });
    expectBadRequest(err, 'Invalid value (201) given in field parameters.maxResults.', 'maxResults');
  });

  it('startIndex 150 + maxResults 100 on #26 → 400 naming startIndex', async () => {
    const err = await run({ dimensions: 'video', sort: '-views', maxResults: '100', startIndex: '150' });
    expectBadRequest(err, 'Invalid value (150) given in field parameters.startIndex.', 'startIndex');
  });

  it('an unsupported combination is refused before the directory is asked', async () => {
    expectBadRequest(await run({ dimensions: 'video,day', sort: '-views', maxResults: '10' }), NOT_SUPPORTED);
  });
});
