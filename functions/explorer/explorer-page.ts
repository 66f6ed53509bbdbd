/**
 * explorer.page: GET / serves the Query Explorer (public; deployed with `-c explorer=true`, always served locally).
 * The page is built by infra/tools/build-explorer.ts next to this function's bundle (or where EXPLORER_PAGE_FILE
 * says, locally); this handler adds where the API is and how to sign in, and a Content-Security-Policy that lets the
 * page's own inline script run and talk to this API (and the token endpoint) only.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as env from '../_shared/env';
import { publicHttpHandler } from '../_shared/http-handler';
import { textResult } from '../_shared/http-result';
import type { ExplorerConfig } from './config';

interface Page {
  readonly html: string;
  readonly scriptHash: string;
}

let cached: { file: string; page: Promise<Page> } | undefined;

function loadPage(): Promise<Page> {
  const file = process.env.EXPLORER_PAGE_FILE ?? path.join(import.meta.dirname, 'explorer.html');
  if (cached?.file !== file) {
    const page = readFile(file, 'utf8').then((html) => {
      const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
      return { html, scriptHash: createHash('sha256').update(script).digest('base64') };
    });
    cached = { file, page };
  }
  return cached.page;
}

/** JSON inside a <script> element: `<` escaped so no text can close it. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export const handler = publicHttpHandler('explorer.page', { body: 'none' }, async ({ rootUrl }) => {
  const page = await loadPage();
  const authorizeUrl = process.env.EXPLORER_AUTHORIZE_URL;
  const tokenUrl = process.env.EXPLORER_TOKEN_URL;
  const clientId = process.env.EXPLORER_CLIENT_ID;
  const config: ExplorerConfig = {
    apiRoot: rootUrl,
    scopeBase: env.scopeBase(),
    ...(authorizeUrl && tokenUrl && clientId ? { oauth: { authorizeUrl, tokenUrl, clientId } } : {}),
  };
  const connect = ["'self'", rootUrl, ...(tokenUrl ? [new URL(tokenUrl).origin] : [])].join(' ');
  const html = page.html.replace(
    '<!-- config -->',
    () => `<script id="explorer-config" type="application/json">${scriptJson(config)}</script>`,
  );
  return textResult(200, html, {
    'Content-Type': 'text/html; charset=UTF-8',
    'Cache-Control': 'no-cache',
    'Content-Security-Policy': [
      "default-src 'none'",
      `script-src 'sha256-${page.scriptHash}'`,
      "style-src 'unsafe-inline'",
      "img-src 'self' data:",
      `connect-src ${connect}`,
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
  });
});
