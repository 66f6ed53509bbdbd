/**
 * Wire compatibility of reports.query: the official @googleapis/youtubeanalytics v2 client, pointed at the local
 * API on loopback, gets the answer the DuckDB oracle computes from the raw export rows, and sees a bad query as
 * a GaxiosError 400 with Google's message.
 */
import { auth, youtubeAnalytics } from '@googleapis/youtubeanalytics';
import { GaxiosError } from 'gaxios';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareWithOracle, createOracle, type Oracle } from '../support/duckdb-oracle';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { createReportFixture, type ReportFixture } from '../support/report-fixtures';

let api: LocalApi;
let fx: ReportFixture;
let oracle: Oracle;
let yt: ReturnType<typeof youtubeAnalytics>;

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

beforeAll(async () => {
  api = await startLocalApi();
  // A smaller channel than the differential test's: still two partial months, a2 and a3 files.
  fx = await createReportFixture({ videos: 15, days: 50, start: '2026-03-17', a2Days: 10 });
  oracle = await createOracle(fx.rawRows);
  const oauth = new auth.OAuth2();
  oauth.setCredentials({ access_token: await api.token(fx.sub, ['video-analytics.readonly']) });
  yt = youtubeAnalytics({ version: 'v2', rootUrl: `${api.baseUrl}/`, auth: oauth });
}, 120_000);

afterAll(async () => {
  oracle?.close();
  await api?.close();
});

describe('@googleapis/youtubeanalytics v2: reports.query against the local API', () => {
  it('talks only to the loopback server', () => {
    expect(new URL(api.baseUrl).hostname).toBe('127.0.0.1');
  });

  it('a day report equals the oracle', async () => {
    const startDate = '2026-03-10';
    const endDate = '2026-04-20';
    const res = await yt.reports.query({
      ids: 'channel==MINE',
      startDate,
      endDate,
      metrics: 'views,estimatedMinutesWatched',
      dimensions: 'day',
      sort: 'day',
    });
    const expected = await oracle.query({
      startDate,
      endDate,
      dimensions: ['day'],
      metrics: ['views', 'estimatedMinutesWatched'],
      filters: [],
      sort: [{ name: 'day', descending: false }],
    });

    expect(res.status).toBe(200);
    expect(String(res.config.url)).toMatch(new RegExp(`^${api.baseUrl}/v2/reports\\?`));
    expect(expected.rows.length).toBeGreaterThan(30);
    expect(expected.rows[0]?.[0]).toBe(fx.days[0]);
    expect(compareWithOracle(res.data, expected)).toBeUndefined();
  });

  it('an unknown metric rejects with GaxiosError 400 and Google’s message', async () => {
    const err = await rejection(
      yt.reports.query(
        { ids: 'channel==MINE', startDate: '2026-03-17', endDate: '2026-03-31', metrics: 'nope' },
        { retry: false },
      ),
    );

    expect(err).toBeInstanceOf(GaxiosError);
    const g = err as GaxiosError;
    expect(g.status).toBe(400);
    expect(g.message).toBe('Unknown identifier (nope) given in field parameters.metrics.');
    expect((g.response?.data as any)?.error?.code).toBe(400);
  });
});
