/**
 * Every report of the catalog on the demo world: the demo exports (the ones `npm start` loads) are ingested, and
 * each report's README example runs through the official @googleapis/youtubeanalytics v2 client as alice (channel
 * reports) or bob (demo-co's content-owner reports), over October 2026. A report the demo data can serve answers
 * with real numbers (extension layouts feed what the bulk exports cannot).
 */

import { auth, youtubeAnalytics } from '@googleapis/youtubeanalytics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import { REPORTS, type ReportDef } from '../../functions/core/reports/catalog/catalog';
import { exampleOf } from '../../functions/core/reports/catalog/catalog-table';
import { DEMO_EXAMPLE_IDS, ensureDemoWorld } from '../../infra/local/demo-world';
import { ensureTable } from '../../infra/local/dynamo-local';
import { type LocalApi, startLocalApi } from '../support/local-api';

let api: LocalApi;
let alice: ReturnType<typeof youtubeAnalytics>;
let bob: ReturnType<typeof youtubeAnalytics>;

const client = async (sub: string) => {
  const oauth = new auth.OAuth2();
  oauth.setCredentials({
    access_token: await api.token(sub, ['video-analytics.readonly', 'video-analytics-monetary.readonly']),
  });
  return youtubeAnalytics({ version: 'v2', rootUrl: `${api.baseUrl}/`, auth: oauth });
};

beforeAll(async () => {
  // The demo world exactly as `npm start` loads it, in a table of its own: its million rows must not slow the
  // other test files that share this DynamoDB Local (some of them list whole partitions or the table).
  const endpoint = process.env.DYNAMODB_ENDPOINT as string;
  const tableName = `${process.env.TABLE_NAME}-demo`;
  await ensureTable(endpoint, tableName);
  const db = createDocumentClient(endpoint);
  await ensureDemoWorld({ db, tableName });
  db.destroy();
  process.env.TABLE_NAME = tableName; // this file's worker only: the local API below serves the demo table
  api = await startLocalApi();
  alice = await client('alice');
  bob = await client('bob');
}, 600_000);

afterAll(async () => {
  await api?.close();
});

function query(def: ReportDef) {
  const params = Object.fromEntries(
    exampleOf(def, DEMO_EXAMPLE_IDS)
      .split('&')
      .map((p) => [p.slice(0, p.indexOf('=')), decodeURIComponent(p.slice(p.indexOf('=') + 1))]),
  );
  const ids = def.owner === 'channel' ? 'channel==MINE' : 'contentOwner==demo-co';
  const { maxResults, startIndex, ...rest } = params;
  return {
    ids,
    startDate: '2026-10-01',
    endDate: '2026-10-31',
    ...rest,
    ...(maxResults ? { maxResults: Number(maxResults) } : {}),
    ...(startIndex ? { startIndex: Number(startIndex) } : {}),
  };
}

describe('every catalog report answers its README example on the demo world (official client)', () => {
  it.each(REPORTS.map((r) => [r.id, r] as const))('#%s answers with rows', async (_id, def) => {
    const yt = def.owner === 'channel' ? alice : bob;
    const res = await yt.reports.query(query(def));
    expect(res.status).toBe(200);
    expect(res.data.kind).toBe('youtubeAnalytics#resultTable');
    const names = (res.data.columnHeaders ?? []).map((h) => h.name);
    const params = query(def) as Record<string, unknown>;
    const dims = params.dimensions ? String(params.dimensions).split(',') : [];
    expect(names).toEqual([...dims, ...String(params.metrics).split(',')]);
    // Real numbers, not just a row: a query without dimensions always has one (zeros when nothing matched).
    const values = (res.data.rows ?? []).flatMap((r) => r.slice(dims.length));
    expect(
      values.some((v) => typeof v === 'number' && v !== 0),
      JSON.stringify(params),
    ).toBe(true);
  });
});
