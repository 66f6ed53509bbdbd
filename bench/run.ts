/**
 * `npm run bench`: first the benchmarks that need nothing running (cold start), then an in-memory DynamoDB Local with
 * the table and the demo world, the local server on a free loopback port, and every other benchmark in BENCHES; prints
 * one table per benchmark. Stops DynamoDB Local and the server at the end; starts neither when no selected benchmark
 * needs them. Exit code 1 when a result misses its target.
 *
 * Options (environment): BENCH_N (measured requests per operation, default 300), BENCH_WARMUP (default 30),
 * BENCH_COLD_RUNS (fresh processes per bundle, default 21, at least 10), BENCH_ONLY (a name prefix: one benchmark).
 */
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import { createDocumentClient } from '../functions/core/db/document-client';
import type { TableContext } from '../functions/core/directory/directory-repository';
import { DEFAULT_SCOPE_BASE } from '../functions/core/scopes';
import { ensureDemoWorld } from '../infra/local/demo-world';
import { createDevServer } from '../infra/local/dev-server';
import { ensureTable, startDynamoLocal } from '../infra/local/dynamo-local';
import { createIssuerKey, DEFAULT_AUDIENCE, mintToken } from '../infra/local/local-issuer';
import { benchDirectoryResources } from './directory-resources';
import { benchGroups, formatBenchTable, sdkDocumentClient } from './groups';
import { benchIngest } from './ingest';
import { formatMachine, probeMachine } from './machine';
import { benchReports } from './reports';

export interface BenchEnvironment {
  readonly baseUrl: string;
  readonly table: TableContext;
  token(sub: string, scopes: string[]): Promise<string>;
}

interface BenchOptions {
  readonly n: number;
  readonly warmup: number;
  readonly coldRuns: number;
  readonly log: (line: string) => void;
}
type BenchResult = { text: string; pass: boolean };

/** A benchmark that runs against the local server and DynamoDB Local, or (standalone) on its own. */
type Bench =
  | {
      readonly name: string;
      readonly standalone?: false;
      run(env: BenchEnvironment, o: BenchOptions): Promise<BenchResult>;
    }
  | { readonly name: string; readonly standalone: true; run(o: BenchOptions): Promise<BenchResult> };

/** Add further benchmarks here. BENCH_ONLY=groups|reports|ingest|directory|cold runs one. */
const ALL_BENCHES: readonly Bench[] = [
  {
    name: 'cold start (each function of the stack, bundled as the stack bundles it, imported in fresh processes)',
    standalone: true,
    run: async (options) => {
      // Loaded only when selected: it brings aws-cdk-lib and the whole stack.
      const { benchColdStart, formatColdStartTable } = await import('./cold-start');
      const { rows, pass } = await benchColdStart({ runs: options.coldRuns, log: options.log });
      return { text: formatColdStartTable(rows), pass };
    },
  },
  {
    name: 'groups and group items (local server vs bare DynamoDB Local, sequential)',
    run: async (env, options) => {
      // The bare calls also through the SDK's own document client: a reference column beside the judged ratio.
      const sdk = sdkDocumentClient(process.env.DYNAMODB_ENDPOINT as string);
      try {
        const rows = await benchGroups({ ...env, sdkTable: { db: sdk, tableName: env.table.tableName } }, options);
        return { text: formatBenchTable(rows), pass: rows.every((r) => r.pass) };
      } finally {
        sdk.destroy();
      }
    },
  },
  { name: 'reports.query (local server vs DuckDB on the raw rows)', run: (env, options) => benchReports(env, options) },
  {
    name: 'ingest (62 daily files of a 1,000-video channel: batch, as Lambda, first vs last day of a month)',
    run: (env, options) => benchIngest(env, options),
  },
  {
    name: 'directory resources recorded by ingest (a 1,000-video day)',
    run: (env, options) => benchDirectoryResources(env, options),
  },
];
const BENCHES = ALL_BENCHES.filter((b) => !process.env.BENCH_ONLY || b.name.startsWith(process.env.BENCH_ONLY));

const TABLE = 'analytics-api-bench';

/** DynamoDB Local with the demo world and the local server around `use`; both stopped afterwards. */
async function withServedTable<T>(log: (line: string) => void, use: (env: BenchEnvironment) => Promise<T>): Promise<T> {
  log('starting DynamoDB Local (in memory, full JIT: a benchmark measures the steady state)');
  const ddb = await startDynamoLocal({ fastStart: false });
  try {
    await ensureTable(ddb.endpoint, TABLE);
    Object.assign(process.env, {
      DYNAMODB_ENDPOINT: ddb.endpoint,
      TABLE_NAME: TABLE,
      AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });
    const db = createDocumentClient(ddb.endpoint);
    const table = { db, tableName: TABLE };
    log('loading the demo world');
    await ensureDemoWorld(table, { facts: false });
    const issuerKey = await createIssuerKey();
    const server = createDevServer({
      tableName: TABLE,
      dynamodbEndpoint: ddb.endpoint,
      issuerKey,
      audience: DEFAULT_AUDIENCE,
      scopeBase: DEFAULT_SCOPE_BASE,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      return await use({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        table,
        token: (sub, scopes) => mintToken(issuerKey, { sub, scopes, scopeBase: DEFAULT_SCOPE_BASE }),
      });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      db.destroy();
    }
  } finally {
    await ddb.stop();
  }
}

async function main(): Promise<number> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  const started = performance.now();
  const options: BenchOptions = {
    n: Number(process.env.BENCH_N ?? 300),
    warmup: Number(process.env.BENCH_WARMUP ?? 30),
    coldRuns: Number(process.env.BENCH_COLD_RUNS ?? 21),
    log: (line: string) =>
      console.error(`[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}`),
  };
  // Other processes on the machine skew every latency and ingest time: the load average goes with the results.
  const loadBefore = loadavg()[0] as number;
  // Probed before anything else runs, so the machine's own speed is read on a quiet process.
  const machine = formatMachine(probeMachine(), availableParallelism());
  options.log(machine);
  let failed = false;
  const report = (bench: Bench, result: BenchResult) => {
    console.log(`\n${bench.name}\n`);
    console.log(result.text);
    failed ||= !result.pass;
  };
  // The standalone benchmarks first, while no DynamoDB Local competes with them for the CPU.
  for (const bench of BENCHES) {
    if (!bench.standalone) continue;
    options.log(`${bench.name}: ${options.coldRuns} fresh processes per bundle`);
    report(bench, await bench.run(options));
  }
  const served = BENCHES.filter((b) => !b.standalone);
  if (served.length > 0) {
    await withServedTable(options.log, async (env) => {
      for (const bench of served) {
        if (bench.standalone) continue;
        options.log(`${bench.name}: ${options.n} measured requests per operation after ${options.warmup} warm-up`);
        report(bench, await bench.run(env, options));
      }
    });
  }
  console.log(`\ntotal ${((performance.now() - started) / 1000).toFixed(1)} s`);
  console.log(
    `load average (1 min) at start ${loadBefore.toFixed(2)}, at end ${(loadavg()[0] as number).toFixed(2)}, on ${availableParallelism()} cores`,
  );
  console.log(machine);
  return failed ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(err);
    process.exitCode = 2;
  },
);
