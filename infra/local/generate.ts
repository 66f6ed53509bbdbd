/**
 * `npm run generate -- --channel UCdemo-alice --videos 600 --days 365 --out DIR [--start 2025-11-01] [--seed 42]
 *   [--video-prefix alice-v] [--video-width 4] [--version a3] [--gzip]`
 * Writes seeded, realistic YouTube Reporting API channel_basic bulk export files (one CSV per day) to
 * DIR/<channel>/channel_basic_<version>/YYYYMMDD.csv[.gz] and prints a one-line summary. See export-generator.ts.
 */
import { parseArgs } from 'node:util';
import {
  defaultVideoPrefix,
  exportDir,
  type GeneratorOptions,
  REPORT_VERSIONS,
  type ReportVersion,
  validateOptions,
  writeExports,
} from './export-generator';

const USAGE = `usage: npm run generate -- --channel <channel id> --videos <n> --days <n> --out <dir>
         [--start YYYY-MM-DD] [--seed <int>] [--video-prefix <prefix>] [--video-width <n>] [--version a1|a2|a3] [--gzip]
defaults: --start 2025-11-01 --seed 42 --video-prefix <from channel: UCdemo-alice -> alice-v> --video-width 4 --version a3`;

function fail(message: string): never {
  console.error(`error: ${message}\n${USAGE}`);
  process.exit(2);
}

/** A whole decimal number, or NaN (so "12abc", "1e3" and "" are rejected). */
const integer = (s: string) => (/^-?\d+$/.test(s.trim()) ? Number(s) : Number.NaN);

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
};
const errors = validateOptions(options);
if (errors.length > 0) fail(errors.join('\n       '));

const started = performance.now();
const { files, rows } = await writeExports(options, values.out!);
const seconds = (performance.now() - started) / 1000;
console.log(
  `channel_basic_${options.version} ${channel}: ${files} files, ${rows} rows in ${seconds.toFixed(2)} s ` +
    `(${Math.round(rows / seconds)} rows/s) -> ${exportDir(options, values.out!)}`,
);
