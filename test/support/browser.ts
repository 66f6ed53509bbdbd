/**
 * Headless Chromium (Debian's /usr/bin/chromium) driven by playwright-core, which never downloads a browser. A fresh
 * profile per launch, and the flags that keep Chromium off the network (no background fetches, no QUIC, no updates).
 * Screenshots go to the git-ignored test-output/ folder.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Debian's Chromium (installed by .ci/run); CHROMIUM_PATH points elsewhere (GitHub's runner: Google Chrome). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const TEST_OUTPUT = path.resolve(import.meta.dirname, '..', '..', 'test-output');

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(path.join(tmpdir(), 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export function screenshotPath(name: string): string {
  mkdirSync(TEST_OUTPUT, { recursive: true });
  return path.join(TEST_OUTPUT, name);
}

/** A plain page on another loopback port: another origin for cross-origin calls. */
export async function startPageServer(): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html lang="en"><title>Another origin</title><h1>Another origin</h1></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
