/**
 * The Query Explorer in headless Chromium, served by the local server at `/`: alice signs in (the local issuer, as
 * a demo user), runs daily views over October 2026, and the page shows the API's rows as a table and a line chart,
 * the cost, and the request as curl and Python; a refused query shows the API's own 400 message. A screenshot is
 * saved under test-output/. The demo world's directory and alice's October channel_basic exports (a slice of what
 * `npm start` loads, to keep the cost down) are loaded into a table of this file's own.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import { loadDirectory } from '../../functions/core/directory/directory-loader';
import { localFile } from '../../functions/core/reports/ingest/ingest-file';
import { dynamoIngestStores, ingestFiles } from '../../functions/core/reports/ingest/ingest-service';
import { writeAllExports } from '../../infra/generator/export-world';
import { DEMO_EXPORTS, demoDirectoryDocument } from '../../infra/local/demo-world';
import { ensureTable } from '../../infra/local/dynamo-local';
import { type Browser, launchBrowser, screenshotPath } from '../support/browser';
import { type LocalApi, startLocalApi } from '../support/local-api';

let api: LocalApi;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

const OCTOBER = { startDate: '2026-10-01', endDate: '2026-10-31' };

/** alice's channel_basic exports for October 2026 (60 of her videos), ingested into `tableName`. */
async function loadAliceOctober(endpoint: string, tableName: string): Promise<void> {
  await ensureTable(endpoint, tableName);
  const db = createDocumentClient(endpoint);
  const work = mkdtempSync(path.join(tmpdir(), 'explorer-exports-'));
  try {
    await loadDirectory({ db, tableName }, demoDirectoryDocument());
    const alice = DEMO_EXPORTS[0] as (typeof DEMO_EXPORTS)[number];
    await writeAllExports({ ...alice, videos: 60, start: OCTOBER.startDate, days: 31 }, work);
    const files = (readdirSync(work, { recursive: true, encoding: 'utf8' }) as string[])
      .filter((f) => f.endsWith('.csv'))
      .map((f) => localFile(path.join(work, f)));
    const summary = await ingestFiles(dynamoIngestStores({ db, tableName }), files);
    if (summary.rejected.length > 0) throw new Error(`rejected: ${JSON.stringify(summary.rejected[0])}`);
  } finally {
    db.destroy();
    rmSync(work, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  const endpoint = process.env.DYNAMODB_ENDPOINT as string;
  const tableName = `${process.env.TABLE_NAME}-explorer`;
  await loadAliceOctober(endpoint, tableName);
  process.env.TABLE_NAME = tableName; // this file's worker only
  [api, browser] = await Promise.all([startLocalApi(), launchBrowser()]);
  page = await browser.context.newPage();
  page.on('pageerror', (err) => pageErrors.push(String(err)));
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await api?.close();
});

async function signInAs(sub: string): Promise<void> {
  await page.goto(`${api.baseUrl}/`);
  await page.locator(`#demo-user option[value="${sub}"]`).waitFor({ state: 'attached' });
  await page.selectOption('#demo-user', sub);
  await page.click('#demo-sign-in');
  await expect.poll(() => page.textContent('#who')).toBe(`Signed in as ${sub}.`);
}

describe('Query Explorer at /', () => {
  it('is a self-contained page under a strict Content-Security-Policy', async () => {
    const res = await fetch(`${api.baseUrl}/`);
    const html = await res.text();

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=UTF-8');
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'sha256-/);
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=["']https?:/);
  });

  it('alice signs in, runs daily views over October 2026, and sees the API’s rows as a table and a line chart', async () => {
    await signInAs('alice');
    await page.fill('#start-date', OCTOBER.startDate);
    await page.fill('#end-date', OCTOBER.endDate);
    expect(await page.isChecked('#dimensions-day')).toBe(true);
    expect(await page.isChecked('#metrics-views')).toBe(true);
    expect(await page.inputValue('#owner')).toBe('channel==MINE');
    // Keyboard: focus the button and press Enter, as a person without a mouse would.
    await page.focus('#run');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.textContent('#status'), { timeout: 20_000 })
      .toMatch(/^31 rows\. Cost: \d+ items read/);

    const token = await api.token('alice', ['video-analytics.readonly']);
    const direct = await api.call(
      `/v2/reports?${new URLSearchParams({ ids: 'channel==MINE', ...OCTOBER, metrics: 'views', dimensions: 'day', sort: 'day' })}`,
      { token },
    );
    const shown = await page.$$eval('#result-table tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
    );
    expect(direct.body.rows).toHaveLength(31);
    expect(shown).toEqual(direct.body.rows.map((r: unknown[]) => r.map(String)));
    expect(await page.$$eval('#result-table thead th', (ths) => ths.map((th) => th.textContent))).toEqual([
      'day',
      'views',
    ]);

    expect(await page.getAttribute('#chart', 'data-rendered')).toBe('line');
    // Runs in the page (DOM types are not in this project's Node typings).
    const painted = await page.$eval('#chart', (canvas: any) => {
      const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data ?? [];
      let n = 0;
      for (let i = 3; i < data.length; i += 4) if ((data[i] as number) > 0) n++;
      return n;
    });
    expect(painted).toBeGreaterThan(2000);
    expect(await page.getAttribute('#chart', 'aria-label')).toBe('Line chart of views by day, 31 points.');

    expect(await page.textContent('#curl')).toContain('v2/reports?ids=channel%3D%3DMINE&startDate=2026-10-01');
    expect(await page.textContent('#python')).toContain("discoveryServiceUrl='");
    expect(await page.textContent('#python')).toContain("metrics='views',");

    await page.screenshot({ path: screenshotPath('explorer-alice-october.png'), fullPage: true });
  });

  it('offers dimensions only in combinations some report takes', async () => {
    // With day chosen, month (the other time dimension of the same reports) cannot join it.
    expect(await page.isDisabled('#dimensions-month')).toBe(true);
    expect(await page.isEnabled('#dimensions-creatorContentType')).toBe(true);
  });

  it('explains a refused query with the API’s own 400 message', async () => {
    await page.fill('#start-date', '2026-10-31');
    await page.fill('#end-date', '2026-10-01');
    await page.click('#run');
    await expect.poll(() => page.isVisible('#error')).toBe(true);

    expect(await page.textContent('#error')).toBe(
      'The API refused the query (400): The start date (2026-10-31) must not be after the end date (2026-10-01).',
    );
    expect(await page.getAttribute('#error', 'role')).toBe('alert');
  });

  it('lists the groups, uses one as a group== filter, and draws bars for a non-time dimension', async () => {
    const token = await api.token('alice', ['video-platform']);
    const group = await api.call('/v2/groups', {
      token,
      method: 'POST',
      body: JSON.stringify({ snippet: { title: 'Explorer picks' } }),
    });
    for (const id of ['alice-v0001', 'alice-v0002', 'alice-v0003']) {
      await api.call('/v2/groupItems', {
        token,
        method: 'POST',
        body: JSON.stringify({ groupId: group.body.id, resource: { kind: 'youtube#video', id } }),
      });
    }
    await page.click('#list-groups');
    await page.getByRole('button', { name: 'Filter by group Explorer picks' }).click();
    expect(await page.inputValue('#filter-name-0')).toBe('group');
    expect(await page.inputValue('#filter-value-0')).toBe(group.body.id);

    await page.fill('#start-date', OCTOBER.startDate);
    await page.fill('#end-date', OCTOBER.endDate);
    await page.uncheck('#dimensions-day');
    await page.check('#dimensions-subscribedStatus');
    await page.click('#run');
    await expect.poll(() => page.getAttribute('#chart', 'data-rendered'), { timeout: 20_000 }).toBe('bar');

    const alice = await api.token('alice', ['video-analytics.readonly']);
    const direct = await api.call(
      `/v2/reports?${new URLSearchParams({ ids: 'channel==MINE', ...OCTOBER, metrics: 'views', dimensions: 'subscribedStatus', filters: `group==${group.body.id}`, sort: 'subscribedStatus' })}`,
      { token: alice },
    );
    const shown = await page.$$eval('#result-table tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
    );
    expect(direct.status).toBe(200);
    expect(direct.body.rows.length).toBeGreaterThan(0);
    expect(shown).toEqual(direct.body.rows.map((r: unknown[]) => r.map(String)));
    expect(await page.textContent('#curl')).toContain(`filters=group%3D%3D${group.body.id}`);
  });

  it('labels every control', async () => {
    const unlabelled = await page.$$eval('input, select, textarea, button', (els: any[]) =>
      els
        .filter((e) => !e.hidden && e.offsetParent !== null)
        .filter((e) => {
          const labels = e.labels;
          return !labels?.length && !e.getAttribute('aria-label') && !(e.tagName === 'BUTTON' && e.textContent?.trim());
        })
        .map((e) => e.id || e.outerHTML.slice(0, 60)),
    );
    expect(unlabelled).toEqual([]);
  });

  it('raised no script error', () => {
    expect(pageErrors).toEqual([]);
  });
});

/**
 * The deployed sign-in (authorization code + PKCE, as against a user pool's hosted UI) with a local stand-in for the
 * identity provider: it redirects back with a code, and its token endpoint redeems the code only with the verifier
 * whose S256 challenge came with the authorization request. (A real Cognito user pool cannot be reached from here.)
 */
describe('Query Explorer sign-in through an identity provider (authorization code + PKCE)', () => {
  let idp: Server;
  let idpOrigin: string;
  const seen: { authorize?: URLSearchParams; token?: URLSearchParams } = {};

  beforeAll(async () => {
    idp = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://idp');
      if (req.method === 'GET' && url.pathname === '/oauth2/authorize') {
        seen.authorize = url.searchParams;
        const back = new URL(url.searchParams.get('redirect_uri') ?? '');
        back.searchParams.set('code', 'code-123');
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        res.writeHead(302, { Location: back.toString() });
        res.end();
        return;
      }
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString('utf8');
      });
      req.on('end', async () => {
        const form = new URLSearchParams(body);
        seen.token = form;
        const challenge = createHash('sha256')
          .update(form.get('code_verifier') ?? '')
          .digest('base64url');
        const ok = form.get('code') === 'code-123' && challenge === seen.authorize?.get('code_challenge');
        const headers = { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*' };
        res.writeHead(ok ? 200 : 400, headers);
        res.end(
          JSON.stringify(
            ok
              ? { access_token: await api.token('alice', ['video-analytics.readonly']), token_type: 'Bearer' }
              : { error: 'invalid_grant' },
          ),
        );
      });
    });
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    idpOrigin = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
    // The explorer function reads these per request (the stack sets them from explorerAuthorizeUrl, …).
    Object.assign(process.env, {
      EXPLORER_AUTHORIZE_URL: `${idpOrigin}/oauth2/authorize`,
      EXPLORER_TOKEN_URL: `${idpOrigin}/oauth2/token`,
      EXPLORER_CLIENT_ID: 'explorer-client',
    });
  });

  afterAll(async () => {
    for (const k of ['EXPLORER_AUTHORIZE_URL', 'EXPLORER_TOKEN_URL', 'EXPLORER_CLIENT_ID']) delete process.env[k];
    idp?.closeAllConnections();
    await new Promise<void>((resolve) => idp?.close(() => resolve()));
  });

  it('goes to the provider with an S256 challenge, comes back signed in, and runs a query', async () => {
    const fresh = await browser.context.newPage();
    await fresh.goto(`${api.baseUrl}/`);
    await fresh.click('#oauth-button');
    await expect.poll(() => fresh.textContent('#who'), { timeout: 20_000 }).toBe('Signed in as your account.');

    expect(Object.fromEntries(seen.authorize ?? [])).toMatchObject({
      response_type: 'code',
      client_id: 'explorer-client',
      redirect_uri: `${api.baseUrl}/`,
      code_challenge_method: 'S256',
    });
    expect(seen.authorize?.get('scope')).toContain('https://www.googleapis.com/auth/video-analytics.readonly');
    expect(Object.fromEntries(seen.token ?? [])).toMatchObject({
      grant_type: 'authorization_code',
      client_id: 'explorer-client',
      code: 'code-123',
      redirect_uri: `${api.baseUrl}/`,
    });
    expect(fresh.url()).toBe(`${api.baseUrl}/`); // the code is gone from the address bar

    await fresh.fill('#start-date', OCTOBER.startDate);
    await fresh.fill('#end-date', OCTOBER.endDate);
    await fresh.click('#run');
    await expect.poll(() => fresh.textContent('#status'), { timeout: 20_000 }).toMatch(/^31 rows\./);
    await fresh.close();
  });
});
