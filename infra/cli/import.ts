/**
 * `npm run import -- <files or folders> [--type REPORT_TYPE] [--channel UC…] [--content-owner ID] [--table NAME
 * --region REGION]` loads Reporting API daily files of any report type (plain or gzip) into the local table that
 * `npm start` uses (or a deployed one), with a progress bar and a summary.
 * A malformed file is rejected whole (file, line, column); the others still load. Exit code 1 if any was rejected.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { dynamoResourceSink } from '../../functions/core/directory/resource-sink';
import { familyOfReportType } from '../../functions/core/reports/catalog/families';
import { type IngestFile, ingestFiles } from '../../functions/core/reports/ingest/ingest-service';
import { dynamoFactRepository } from '../../functions/core/reports/storage/fact-repository';
import { dynamoRateRepository } from '../../functions/core/reports/storage/rate-repository';
import { openTargetTable, TARGET_OPTIONS, TARGET_USAGE, UsageError } from './target-table';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    type: { type: 'string' },
    channel: { type: 'string' },
    'content-owner': { type: 'string' },
    ...TARGET_OPTIONS,
  },
});
if (positionals.length === 0 || (values.type && !familyOfReportType(values.type))) {
  console.error(
    `usage: npm run import -- <files or folders> [--type REPORT_TYPE (e.g. channel_basic_a3)] [--channel UC…] [--content-owner ID] ${TARGET_USAGE}`,
  );
  process.exit(2);
}

function collect(target: string): string[] {
  const st = statSync(target);
  if (st.isFile()) return [target];
  return readdirSync(target)
    .sort()
    .flatMap((name) => collect(path.join(target, name)))
    .filter((f) => /\.(csv|csv\.gz|gz)$/i.test(f));
}

const paths = positionals.flatMap((p) => collect(path.resolve(p)));
const files: IngestFile[] = paths.map((p) => ({ name: p, read: async () => readFileSync(p) }));
const table = await openTargetTable(values).catch((err: unknown) => {
  if (!(err instanceof UsageError)) throw err;
  console.error(`import: ${err.message}`);
  process.exit(2);
});
const bar = (done: number, total: number) => {
  const width = 30;
  const filled = Math.round((done / Math.max(total, 1)) * width);
  process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} files`);
};
const summary = await ingestFiles(dynamoFactRepository(table), files, {
  ...(values.type ? { type: values.type } : {}),
  ...(values.channel ? { channel: values.channel } : {}),
  ...(values['content-owner'] ? { contentOwner: values['content-owner'] } : {}),
  rates: dynamoRateRepository(table),
  resources: dynamoResourceSink(table),
  onFile: (done, total) => bar(done, total),
});
process.stderr.write('\n');
console.log(
  `Imported ${summary.loaded} of ${summary.files} files: ${summary.rows} rows, ${summary.days} owner-days, ${summary.seconds.toFixed(1)} s`,
);
for (const r of summary.rejected) console.error(`rejected ${r.message}`);
await table.close();
process.exit(summary.rejected.length > 0 ? 1 : 0);
