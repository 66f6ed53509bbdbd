/**
 * Cold start of every function of the stack: each is bundled exactly as the stack bundles it
 * (infra/constructs/function-bundling.ts), then imported in fresh Node processes, round after round, next to bare
 * handlers that only create the SDK clients (bench/bare-handlers/). The table gives each bundle's size and median
 * module init time against its baseline. Needs no DynamoDB Local and no server; nothing leaves loopback.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { build, type Metafile } from 'esbuild';
import { loadConfig } from '../infra/config';
import { ApiFunction, REPO_ROOT } from '../infra/constructs/api-function';
import { BUNDLE_FILE, esbuildOptions } from '../infra/constructs/function-bundling';
import { AnalyticsApiStack } from '../infra/stacks/analytics-api-stack';
import { percentile } from './groups';
import { formatTable } from './table';

/** A function's init and size may be at most this multiple of its baseline's. */
export const COLD_START_TARGET = 1.2;

interface Baseline {
  readonly name: string;
  readonly entry: string;
  /** False: bundled without the stack's BUNDLE_ALIASES, so the SDK keeps its defaults (the judged baselines). */
  readonly stackAliases?: boolean;
}
/** The issue's baseline: a handler that only creates a DynamoDB document client, as the SDK makes it by default. */
const BARE: Baseline = {
  name: 'bare (document client)',
  entry: 'bench/bare-handlers/dynamodb.ts',
  stackAliases: false,
};
/** Functions that hold an S3 client (the ingest reads exports, the sync worker writes them) are measured against this. */
const BARE_S3: Baseline = {
  name: 'bare + S3 client',
  entry: 'bench/bare-handlers/dynamodb-s3.ts',
  stackAliases: false,
};
/**
 * Shown, not judged: the bare handler with the stack's aliases (credentials from the environment only), so the table
 * tells what the stack's own code adds apart from what it trims from the SDK.
 */
const BARE_ENV: Baseline = { name: 'bare, env credentials', entry: BARE.entry };

interface Bundle {
  readonly name: string;
  readonly entry: string;
  readonly file: string;
  readonly bytes: number;
  /** Output bytes by package (or by source folder for our own code). */
  readonly parts: ReadonlyMap<string, number>;
  readonly initMs: number[];
  /** CPU time (user + system, every thread of the process) of the same imports. */
  readonly cpuMs: number[];
}

export interface ColdStartRow {
  readonly name: string;
  readonly entry: string;
  readonly baseline: string;
  readonly kb: number;
  readonly sizeRatio: number;
  readonly initMs: number;
  readonly initRatio: number;
  /** Median CPU time of the imports and its ratio to the baseline's: far less sensitive to other processes' load. */
  readonly cpuMs: number;
  readonly cpuRatio: number;
  /** What the bundle carries beyond its baseline, largest first. */
  readonly additions: string;
  /** A function passes when both ratios are within the target; the baselines are not judged. */
  readonly result: 'PASS' | 'FAIL' | 'baseline';
}

/** Every Lambda function the stack defines (with every option that adds one on), by construct id and entry. */
function stackFunctions(outdir: string): { name: string; entry: string }[] {
  // Bundling off: only the construct tree is wanted here; the bench bundles each entry itself.
  const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
  const config = loadConfig((key) => ({ explorer: 'true', userPool: 'true' })[key], {});
  const stack = new AnalyticsApiStack(app, 'ColdStart', config);
  return stack.node
    .findAll()
    .filter((c): c is ApiFunction => c instanceof ApiFunction)
    .map((fn) => ({ name: fn.node.id, entry: fn.entry }));
}

function partsOf(metafile: Metafile): Map<string, number> {
  const out = Object.values(metafile.outputs).find((o) => o.entryPoint);
  const parts = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(out?.inputs ?? {})) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
    const key = pkg ?? path.dirname(input);
    parts.set(key, (parts.get(key) ?? 0) + bytesInOutput);
  }
  return parts;
}

async function bundle({ name, entry, stackAliases = true }: Baseline, outdir: string): Promise<Bundle> {
  const options = esbuildOptions(REPO_ROOT, entry, outdir);
  if (!stackAliases) options.alias = {};
  const result = await build({ ...options, metafile: true, logLevel: 'error' });
  const file = path.join(outdir, BUNDLE_FILE);
  return { name, entry, file, bytes: statSync(file).size, parts: partsOf(result.metafile), initMs: [], cpuMs: [] };
}

/**
 * Prints the milliseconds `await import(bundle)` took in this fresh process (module init, as Lambda's INIT runs it)
 * and the CPU time the process spent on it.
 */
const RUNNER = `import { pathToFileURL } from 'node:url';
const started = performance.now();
const cpu = process.cpuUsage();
await import(pathToFileURL(process.argv[2]).href);
const { user, system } = process.cpuUsage(cpu);
process.stdout.write('\\nINIT_MS=' + (performance.now() - started) + ' CPU_MS=' + (user + system) / 1000 + '\\n');
`;

function initOnce(runner: string, file: string, env: NodeJS.ProcessEnv): Promise<{ wall: number; cpu: number }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [runner, file], { env, timeout: 30_000 }, (err, stdout, stderr) => {
      const m = /INIT_MS=([\d.]+) CPU_MS=([\d.]+)/.exec(stdout);
      if (err || !m) reject(new Error(`importing ${file} failed: ${err?.message ?? ''} ${stderr}`));
      else resolve({ wall: Number(m[1]), cpu: Number(m[2]) });
    });
  });
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The largest contributions of `b` beyond `base`, e.g. `core/reports/catalog 40 KB, core/reports/query 17 KB`. */
function additions(b: Bundle, base: Bundle): string {
  return [...b.parts]
    .map(([part, bytes]) => [part.replace(/^functions\//, ''), bytes - (base.parts.get(part) ?? 0)] as const)
    .filter(([, extra]) => extra >= 1024)
    .sort((x, y) => y[1] - x[1])
    .slice(0, 3)
    .map(([part, extra]) => `${part} ${(extra / 1024).toFixed(0)} KB`)
    .join(', ');
}

export async function benchColdStart(options: {
  runs: number;
  log: (line: string) => void;
}): Promise<{ rows: ColdStartRow[]; pass: boolean }> {
  const runs = Math.max(10, options.runs);
  const work = mkdtempSync(path.join(tmpdir(), 'cold-start-'));
  try {
    const functions = stackFunctions(path.join(work, 'cdk.out'));
    options.log(`bundling ${functions.length} functions and 3 bare handlers with the stack's esbuild settings`);
    const bundles: Bundle[] = [];
    for (const [i, f] of [BARE, BARE_S3, BARE_ENV, ...functions].entries()) {
      bundles.push(await bundle(f, path.join(work, String(i))));
    }
    const [bare, bareS3, bareEnv] = bundles as [Bundle, Bundle, Bundle];
    const runner = path.join(work, 'runner.mjs');
    writeFileSync(runner, RUNNER);
    // What Lambda sets, and the authorizer's issuer: its JWKS fetch at init meets a closed loopback port and fails at
    // once (it then fetches on first use), so the figure is module init, not a network round trip.
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      AWS_REGION: 'us-east-1',
      AWS_LAMBDA_FUNCTION_NAME: 'cold-start-bench',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
      AWS_ACCESS_KEY_ID: 'bench',
      AWS_SECRET_ACCESS_KEY: 'bench',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      POWERTOOLS_SERVICE_NAME: 'analytics-api',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      TABLE_NAME: 'cold-start-bench',
      JWT_ISSUER: 'https://issuer.example/',
      JWT_AUDIENCE: 'analytics-api',
      JWKS_URI: `https://127.0.0.1:${await closedPort()}/jwks.json`,
    };
    // Round-robin, so a burst of load on the machine falls on every bundle alike.
    for (let round = 0; round < runs; round++) {
      for (const b of bundles) {
        const { wall, cpu } = await initOnce(runner, b.file, env);
        b.initMs.push(wall);
        b.cpuMs.push(cpu);
      }
      if ((round + 1) % 5 === 0) options.log(`cold start: ${round + 1}/${runs} rounds`);
    }

    const rows = bundles.map((b): ColdStartRow => {
      const isBaseline = b === bare || b === bareS3 || b === bareEnv;
      // Functions holding an S3 client are held to bare + S3; that baseline itself is shown against the bare one.
      const base = b === bareS3 || !b.parts.has('@aws-sdk/client-s3') ? bare : bareS3;
      const initMs = percentile(b.initMs, 0.5);
      const sizeRatio = b.bytes / base.bytes;
      const initRatio = initMs / percentile(base.initMs, 0.5);
      const cpuMs = percentile(b.cpuMs, 0.5);
      return {
        name: b.name,
        entry: b.entry,
        baseline: b === bare ? '-' : base.name,
        kb: b.bytes / 1024,
        sizeRatio,
        initMs,
        initRatio,
        cpuMs,
        cpuRatio: cpuMs / percentile(base.cpuMs, 0.5),
        additions: b === bare ? '' : additions(b, base),
        result: isBaseline
          ? 'baseline'
          : sizeRatio <= COLD_START_TARGET && initRatio <= COLD_START_TARGET
            ? 'PASS'
            : 'FAIL',
      };
    });
    return { rows, pass: rows.every((r) => r.result !== 'FAIL') };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Plain-text table of the results. */
export function formatColdStartTable(rows: readonly ColdStartRow[]): string {
  const header = [
    'function',
    'entry',
    'bundle KB',
    'size vs baseline',
    'init ms (median)',
    'init vs baseline',
    'init CPU ms (vs baseline)',
    'baseline',
    'target',
    'result',
    'largest additions over the baseline',
  ];
  const body = rows.map((r) => [
    r.name,
    r.entry,
    r.kb.toFixed(0),
    `${r.sizeRatio.toFixed(2)}x`,
    r.initMs.toFixed(1),
    `${r.initRatio.toFixed(2)}x`,
    `${r.cpuMs.toFixed(1)} (${r.cpuRatio.toFixed(2)}x)`,
    r.baseline,
    `≤${COLD_START_TARGET}x`,
    r.result,
    r.additions,
  ]);
  return formatTable(header, body);
}
