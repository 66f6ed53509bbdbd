/**
 * `npm run import -- <files or folders> [--type REPORT_TYPE] [--channel UC…] [--content-owner ID]
 * [--as-lambda [--concurrency N]] [--table NAME --region REGION]` loads Reporting API daily files of any report type
 * (plain or gzip) into the local table that `npm start` uses (or a deployed one), with a progress bar and a summary.
 *
 * By default the files load as one batch (each month's files together). With `--as-lambda` each file goes through
 * the cloud ingest handler (functions/ingest/s3-ingest.ts) as its own event, an SQS message carrying an S3
 * notification, exactly as in the stack; only the object reader differs (it reads the local file). N events run at
 * once (default 1); a message the handler asks to retry (its month was busy) is retried after a pause, as SQS would.
 * A malformed file is rejected whole (file, line, column) and recorded; the others still load. Exit code 1 if any
 * file was rejected or could not be loaded.
 */
import { createReadStream, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { dynamoResourceSink } from '../../functions/core/directory/resource-sink';
import { familyOfReportType } from '../../functions/core/reports/catalog/families';
import { localFile } from '../../functions/core/reports/ingest/ingest-file';
import {
  addSummary,
  dynamoIngestStores,
  emptySummary,
  type IngestSummary,
  ingestFiles,
} from '../../functions/core/reports/ingest/ingest-service';
import { dynamoRateRepository } from '../../functions/core/reports/storage/rate-repository';
import { queuedS3Message } from '../../functions/ingest/queued-s3-event';
import { createIngestHandler, type ObjectReader } from '../../functions/ingest/s3-ingest';
import { openTargetTable, TARGET_OPTIONS, TARGET_USAGE, UsageError } from './target-table';

const USAGE = `usage: npm run import -- <files or folders> [--type REPORT_TYPE (e.g. channel_basic_a3)] [--channel UC…] [--content-owner ID] [--as-lambda [--concurrency N]] ${TARGET_USAGE}`;

function usage(message?: string): never {
  if (message) console.error(`import: ${message}`);
  console.error(USAGE);
  process.exit(2);
}

const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        type: { type: 'string' },
        channel: { type: 'string' },
        'content-owner': { type: 'string' },
        'as-lambda': { type: 'boolean' },
        concurrency: { type: 'string' },
        ...TARGET_OPTIONS,
      },
    });
  } catch (err) {
    return usage((err as Error).message);
  }
})();
if (positionals.length === 0) usage();
if (values.type && !familyOfReportType(values.type)) usage(`unknown report type ${values.type}`);
const asLambda = values['as-lambda'] === true;
const concurrency = Number(values.concurrency ?? 1);
if (values.concurrency !== undefined && !asLambda) usage('--concurrency goes with --as-lambda');
if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
  usage('--concurrency takes a whole number from 1 to 64');
if (asLambda && (values.type || values.channel || values['content-owner']))
  usage(
    '--as-lambda reads files as the cloud does: the report type and owner come from the folders (<owner>/<report_type>/)',
  );

function collect(target: string): string[] {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(target);
  } catch {
    return usage(`no such file or folder: ${target}`);
  }
  if (st.isFile()) return [target];
  return readdirSync(target)
    .sort()
    .flatMap((name) => collect(path.join(target, name)))
    .filter((f) => /\.(csv|csv\.gz|gz)$/i.test(f));
}

const paths = positionals.flatMap((p) => collect(path.resolve(p)));
const table = await openTargetTable(values).catch((err: unknown) => {
  if (!(err instanceof UsageError)) throw err;
  return usage(err.message);
});
const bar = (done: number, total: number) => {
  const width = 30;
  const filled = Math.round((done / Math.max(total, 1)) * width);
  process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} files`);
};
const stores = dynamoIngestStores(table);
const rates = dynamoRateRepository(table);
const resources = dynamoResourceSink(table);

/** The local file system as the bucket: an object key is a path. */
const localObjects: ObjectReader = {
  async get(_bucket, key) {
    return { body: createReadStream(key), metadata: {} };
  },
};

async function runAsLambda(): Promise<{ summary: IngestSummary; latencies: number[]; retries: number }> {
  const summary = emptySummary(paths.length);
  const handler = createIngestHandler({
    stores,
    rates,
    objects: localObjects,
    resources,
    onSummary: (s) => addSummary(summary, s),
  });
  const started = performance.now();
  const latencies: number[] = [];
  let retries = 0;
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < paths.length) {
      const i = next++;
      const file = paths[i] as string;
      for (let attempt = 1; ; attempt++) {
        const t0 = performance.now();
        const out = (await handler({
          Records: [queuedS3Message(file, { id: `local-${i}`, size: statSync(file).size })],
        })) as { batchItemFailures: unknown[] };
        latencies.push(performance.now() - t0);
        if (out.batchItemFailures.length === 0) break;
        if (attempt === 5) {
          summary.failed.push({
            file,
            message: 'still not loaded after 5 attempts (its month was busy or the load failed)',
          });
          break;
        }
        retries++;
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
      bar(++done, paths.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, paths.length) }, worker));
  summary.seconds = (performance.now() - started) / 1000;
  return { summary, latencies, retries };
}

let summary: IngestSummary;
if (asLambda) {
  const run = await runAsLambda();
  summary = run.summary;
  const sorted = [...run.latencies].sort((a, b) => a - b);
  const p50 = sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
  process.stderr.write('\n');
  console.log(
    `As Lambda: ${paths.length} events, concurrency ${concurrency}, ${run.retries} retried, p50 ${p50.toFixed(0)} ms an event`,
  );
} else {
  summary = await ingestFiles(
    stores,
    paths.map((p) => localFile(p)),
    {
      ...(values.type ? { type: values.type } : {}),
      ...(values.channel ? { channel: values.channel } : {}),
      ...(values['content-owner'] ? { contentOwner: values['content-owner'] } : {}),
      rates,
      resources,
      onFile: (done, total) => bar(done, total),
    },
  );
  process.stderr.write('\n');
}
console.log(
  `Imported ${summary.loaded} of ${summary.files} files: ${summary.rows} rows, ${summary.days} owner-days, ${summary.seconds.toFixed(1)} s`,
);
for (const r of summary.rejected) console.error(`rejected ${r.message}`);
for (const s of summary.skipped) console.error(`skipped ${s.file}: ${s.reason}`);
for (const f of summary.failed) console.error(`not loaded ${f.file}: ${f.message}`);
await table.close();
process.exit(summary.rejected.length > 0 || summary.failed.length > 0 ? 1 : 0);
