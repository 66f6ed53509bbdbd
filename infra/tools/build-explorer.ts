/**
 * Builds the Query Explorer page (functions/explorer/page/) into one self-contained HTML file: the script (with
 * Chart.js) bundled and minified by esbuild and inlined with the styles, so the page needs nothing from any other
 * host. Used by the stack (the explorer function's bundling hook) and by the local server (once per process).
 *
 * `tsx infra/tools/build-explorer.ts OUT_FILE` writes the page to OUT_FILE.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';

const PAGE_DIR = path.resolve(import.meta.dirname, '..', '..', 'functions', 'explorer', 'page');

/** `</script` inside inlined code would end the script element early. */
const inlineSafe = (code: string) => code.replace(/<\/(script)/gi, '<\\/$1');

export async function buildExplorerPage(): Promise<string> {
  const result = await build({
    entryPoints: [path.join(PAGE_DIR, 'main.ts')],
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2022'],
    write: false,
    legalComments: 'inline',
    logLevel: 'silent',
  });
  const script = result.outputFiles[0]?.text ?? '';
  const html = readFileSync(path.join(PAGE_DIR, 'index.html'), 'utf8');
  const css = readFileSync(path.join(PAGE_DIR, 'styles.css'), 'utf8');
  return html
    .replace('<!-- styles -->', () => `<style>\n${css}</style>`)
    .replace('<!-- script -->', () => `<script>${inlineSafe(script)}</script>`);
}

export async function writeExplorerPage(file: string): Promise<void> {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, await buildExplorerPage());
}

let localPage: Promise<string> | undefined;

/** The page built once per process into a temporary folder (the local server, `npm run invoke`); its path. */
export function localExplorerPageFile(): Promise<string> {
  localPage ??= (async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'analytics-api-explorer-')), 'explorer.html');
    await writeExplorerPage(file);
    return file;
  })();
  return localPage;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = process.argv[2];
  if (!out) {
    console.error('usage: tsx infra/tools/build-explorer.ts OUT_FILE');
    process.exit(2);
  }
  await writeExplorerPage(path.resolve(out));
  console.error(`wrote ${out}`);
}
