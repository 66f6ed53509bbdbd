/**
 * `npm run generate -- --channel UCdemo-alice --videos 600 --days 365 --out DIR [--start 2025-11-01] [--seed 42]
 *   [--video-prefix alice-v] [--video-width 4] [--version a3] [--gzip] [--reports all|a,b,c] [--playlists 10]
 *   [--playlist-prefix alice-p] [--content-owner demo-co --channels UCdemo-carol,UCx] [--assets 50]
 *   [--asset-prefix co-a] [--rates] [--extensions]`
 * Writes seeded, realistic YouTube Reporting API bulk export files (one CSV per report type and day) to
 * DIR/<channel or content owner>/<report type id>/YYYYMMDD.csv[.gz] (default: channel_basic only), and with --rates
 * DIR/exchange_rates.csv; prints a one-line summary per report type. --extensions adds the extension columns
 * creator_content_type and youtube_product to the video reports and lets "all" and prefixes select the x1 extension
 * layouts (city, audience retention, channel revenue and ad rates, playlist demographics). See export-generator.ts
 * and export-world.ts.
 */
import { parseArgs } from 'node:util';
import {
  defaultVideoPrefix,
  type GeneratorOptions,
  REPORT_VERSIONS,
  type ReportVersion,
  validateOptions,
} from './export-generator';
import { writeAllExports } from './export-world';

const USAGE = `usage: npm run generate -- --channel <channel id> --videos <n> --days <n> --out <dir>
         [--start YYYY-MM-DD] [--seed <int>] [--video-prefix <prefix>] [--video-width <n>] [--version a1|a2|a3] [--gzip]
         [--reports all|<type or prefix>,...] [--playlists <n>] [--playlist-prefix <prefix>]
         [--content-owner <id> [--channels <channel id>,...] [--assets <n>] [--asset-prefix <prefix>]] [--rates]
         [--extensions]
defaults: --start 2025-11-01 --seed 42 --video-prefix <from channel: UCdemo-alice -> alice-v> --video-width 4 --version a3
          --reports channel_basic --playlists 10 --playlist-prefix <UCdemo-alice -> alice-p> --channels <--channel>
          --assets 50 --asset-prefix <demo-co -> co-a>
--reports takes report type ids (channel_traffic_source_a2) or prefixes (channel_traffic_source, playlist,
content_owner, channel_reach, ...; at the version matching --version); "all" adds content-owner types only with
--content-owner.
--extensions: video reports get creator_content_type and youtube_product columns, and "all" or a prefix also selects
the x1 extension layouts (channel_city_x1, channel_audience_retention_x1, channel_estimated_revenue_x1,
channel_ad_rates_x1, playlist_demographics_x1, content_owner_playlist_demographics_x1, content_owner_city_x1,
content_owner_audience_retention_x1); x1 ids or a prefix naming only extension layouts (channel_city,
playlist_demographics) select them without it.`;

function fail(message: string): never {
  console.error(`error: ${message}\n${USAGE}`);
  process.exit(2);
}

/** A whole decimal number, or NaN (so "12abc", "1e3" and "" are rejected). */
const integer = (s: string) => (/^-?\d+$/.test(s.trim()) ? Number(s) : Number.NaN);
/** A comma-separated list without empty entries. */
const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

function parse() {
  return parseArgs({
    strict: true,
    allowPositionals: false,
    options: {
      channel: { type: 'string' },
      videos: { type: 'string' },
      days: { type: 'string' },
      out: { type: 'string' },
      start: { type: 'string', default: '2025-11-01' },
      seed: { type: 'string', default: '42' },
      'video-prefix': { type: 'string' },
      'video-width': { type: 'string', default: '4' },
      version: { type: 'string', default: 'a3' },
      gzip: { type: 'boolean', default: false },
      reports: { type: 'string' },
      playlists: { type: 'string' },
      'playlist-prefix': { type: 'string' },
      'content-owner': { type: 'string' },
      channels: { type: 'string' },
      assets: { type: 'string' },
      'asset-prefix': { type: 'string' },
      rates: { type: 'boolean', default: false },
      extensions: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}
let parsed: ReturnType<typeof parse>;
try {
  parsed = parse();
} catch (err) {
  fail((err as Error).message);
}
const { values } = parsed;

if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
for (const required of ['channel', 'videos', 'days', 'out'] as const) {
  if (!values[required]) fail(`--${required} is required`);
}
if (!REPORT_VERSIONS.includes(values.version as ReportVersion)) fail('--version must be one of a1, a2, a3');
for (const needsOwner of ['channels', 'assets', 'asset-prefix'] as const) {
  if (values[needsOwner] !== undefined && values['content-owner'] === undefined) {
    fail(`--${needsOwner} needs --content-owner`);
  }
}

const channel = values.channel!;
const options: GeneratorOptions = {
  channel,
  videos: integer(values.videos!),
  days: integer(values.days!),
  start: values.start,
  seed: integer(values.seed),
  videoPrefix: values['video-prefix'] ?? defaultVideoPrefix(channel),
  videoWidth: integer(values['video-width']),
  version: values.version as ReportVersion,
  gzip: values.gzip,
  ...(values.reports !== undefined && { reports: list(values.reports) }),
  ...(values.playlists !== undefined && { playlists: integer(values.playlists) }),
  ...(values['playlist-prefix'] !== undefined && { playlistPrefix: values['playlist-prefix'] }),
  ...(values['content-owner'] !== undefined && { contentOwner: values['content-owner'] }),
  ...(values.channels !== undefined && { channels: list(values.channels) }),
  ...(values.assets !== undefined && { assets: integer(values.assets) }),
  ...(values['asset-prefix'] !== undefined && { assetPrefix: values['asset-prefix'] }),
  ...(values.rates && { rates: true }),
  ...(values.extensions && { extensions: true }),
};
const errors = validateOptions(options);
if (errors.length > 0) fail(errors.join('\n       '));

const started = performance.now();
const summary = await writeAllExports(options, values.out!);
const rate = (rows: number, seconds: number) => Math.round(rows / Math.max(seconds, 1e-3));
for (const r of summary.reports) {
  console.log(
    `${r.reportType} ${r.owner}: ${r.files} files, ${r.rows} rows in ${r.seconds.toFixed(2)} s ` +
      `(${rate(r.rows, r.seconds)} rows/s${r.headerOnly > 0 ? `, ${r.headerOnly} header-only` : ''}) -> ${r.dir}`,
  );
}
if (summary.rates) console.log(`exchange rates: ${summary.rates.rows} rows -> ${summary.rates.file}`);
if (summary.reports.length > 1) {
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `total: ${summary.reports.length} report types, ${summary.files} files, ${summary.rows} rows in ` +
      `${seconds.toFixed(2)} s (${rate(summary.rows, seconds)} rows/s)`,
  );
}
