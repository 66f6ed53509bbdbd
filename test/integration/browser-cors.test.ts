/**
 * CORS in a real browser: headless Chromium loads a page from another origin (a second loopback server) whose
 * script calls the local API with a bearer token (a preflighted request) and reads the report, its X-Items-Read cost
 * and, on a 401, the gateway's error body. With an origin list, an allowed origin reads and another is blocked.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayErrors } from '../../functions/_shared/error-envelope';
import { type Browser, launchBrowser, startPageServer } from '../support/browser';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { createReportFixture, type ReportFixture } from '../support/report-fixtures';

let browser: Browser;
let fx: ReportFixture;
let pageA: Awaited<ReturnType<typeof startPageServer>>;
let pageB: Awaited<ReturnType<typeof startPageServer>>;

interface Seen {
  ok: boolean;
  status?: number;
  body?: any;
  itemsRead?: string | null;
  bytesRead?: string | null;
  error?: string;
}

/** Runs fetch in a page of `origin` (so the browser applies CORS) and returns what the script could read. */
async function fetchFrom(page: Page, origin: string, url: string, token: string | undefined): Promise<Seen> {
  await page.goto(`${origin}/`);
  return page.evaluate(
    async ({ url, token }) => {
      try {
        const res = await fetch(url, token ? { headers: { Authorization: `Bearer ${token}` } } : {});
        return {
          ok: true,
          status: res.status,
          body: await res.json(),
          itemsRead: res.headers.get('X-Items-Read'),
          bytesRead: res.headers.get('X-Bytes-Read'),
        };
      } catch (err) {
        return { ok: false, error: String(err) };
      }
    },
    { url, token },
  );
}

beforeAll(async () => {
  fx = await createReportFixture({ videos: 3, days: 20, a2Days: 0 });
  [browser, pageA, pageB] = await Promise.all([launchBrowser(), startPageServer(), startPageServer()]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await pageA?.close();
  await pageB?.close();
});

const reportPath = () =>
  `/v2/reports?ids=channel==MINE&startDate=${fx.days[0]}&endDate=${fx.days[19]}&metrics=views&dimensions=day&sort=day`;

describe('any origin (the default)', () => {
  let api: LocalApi;
  let page: Page;
  beforeAll(async () => {
    api = await startLocalApi();
    page = await browser.context.newPage();
  });
  afterAll(async () => {
    await page?.close();
    await api?.close();
  });

  it('a page of another origin reads a report with a bearer token, and its X-Items-Read cost', async () => {
    const token = await api.token(fx.sub, ['video-analytics.readonly']);
    const seen = await fetchFrom(page, pageA.origin, `${api.baseUrl}${reportPath()}`, token);

    expect(new URL(pageA.origin).port).not.toBe(new URL(api.baseUrl).port);
    expect(seen.ok, seen.error).toBe(true);
    expect(seen.status).toBe(200);
    expect(seen.body.kind).toBe('youtubeAnalytics#resultTable');
    expect(seen.body.rows.length).toBeGreaterThan(10);
    expect(Number(seen.itemsRead)).toBeGreaterThan(0);
    expect(Number(seen.bytesRead)).toBeGreaterThan(0);
  });

  it('reads the gateway’s 401 body too (no token)', async () => {
    const seen = await fetchFrom(page, pageA.origin, `${api.baseUrl}${reportPath()}`, undefined);

    expect(seen.ok, seen.error).toBe(true);
    expect(seen.status).toBe(401);
    expect(seen.body).toStrictEqual(gatewayErrors.UNAUTHORIZED);
  });
});

describe('an origin list', () => {
  let api: LocalApi;
  let page: Page;
  beforeAll(async () => {
    api = await startLocalApi({ corsAllowedOrigins: pageA.origin });
    page = await browser.context.newPage();
  });
  afterAll(async () => {
    await page?.close();
    await api?.close();
  });

  it('the listed origin reads the report', async () => {
    const token = await api.token(fx.sub, ['video-analytics.readonly']);
    const seen = await fetchFrom(page, pageA.origin, `${api.baseUrl}${reportPath()}`, token);

    expect(seen.ok, seen.error).toBe(true);
    expect(seen.status).toBe(200);
    expect(seen.body.rows.length).toBeGreaterThan(10);
  });

  it('another origin is blocked by the browser (the preflight allows no such origin)', async () => {
    const token = await api.token(fx.sub, ['video-analytics.readonly']);
    const seen = await fetchFrom(page, pageB.origin, `${api.baseUrl}${reportPath()}`, token);

    expect(seen.ok).toBe(false);
    expect(seen.error).toMatch(/TypeError: Failed to fetch/);
  });
});
