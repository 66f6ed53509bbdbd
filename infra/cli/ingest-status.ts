/**
 * `npm run ingest-status -- [--owner ID] [--from YYYY-MM-DD --to YYYY-MM-DD] [--table NAME --region REGION]` lists,
 * per owner and report type, what ingest has loaded: days loaded, the latest day, days missing in the range (default:
 * between the first and the latest day loaded), files rejected with their reasons, loads in flight and months whose
 * blocks are due, and a sync column (the connected-channel sync state, when a SyncStateReader is wired).
 * A thin adapter over functions/core/reports/ingest/ingest-status.ts. Exit code 2 on a usage error, 1 on a failure.
 */
import { parseArgs } from 'node:util';
import {
  type IngestStatus,
  readIngestStatus,
  runsText,
  StatusRangeError,
  statusRange,
  syncText,
} from '../../functions/core/reports/ingest/ingest-status';
import type { RejectedFile } from '../../functions/core/reports/storage/ingest-status-repository';
import { dynamoIngestStatusRepository } from '../../functions/core/reports/storage/ingest-status-repository';
import { readSyncStates } from '../../functions/core/sync/sync-state';
import { openTargetTable, TARGET_OPTIONS, TARGET_USAGE, UsageError } from './target-table';

const USAGE = `usage: npm run ingest-status -- [--owner ID] [--from YYYY-MM-DD --to YYYY-MM-DD] ${TARGET_USAGE}`;

function usage(message?: string): never {
  if (message) console.error(`ingest-status: ${message}`);
  console.error(USAGE);
  process.exit(2);
}

const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: { owner: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, ...TARGET_OPTIONS },
    });
  } catch (err) {
    return usage((err as Error).message);
  }
})();
if (positionals.length > 0) usage(`unexpected argument ${positionals[0]}`);
const range = (() => {
  try {
    return statusRange(values.from, values.to);
  } catch (err) {
    if (err instanceof StatusRangeError) return usage(err.message);
    throw err;
  }
})();

const table = await openTargetTable(values).catch((err: unknown) => {
  if (!(err instanceof UsageError)) throw err;
  return usage(err.message);
});

/** A report's gaps shown in its row; the count before them is every missing day. */
const MISSING_RUNS_SHOWN = 10;

function rejectedLine(r: RejectedFile): string {
  const at = [r.line !== undefined ? `line ${r.line}` : '', r.column ? `column ${r.column}` : '']
    .filter(Boolean)
    .join(', ');
  return `  ${r.file}${at ? ` (${at})` : ''}: ${r.reason} [${r.at}]`;
}

function print(status: IngestStatus): void {
  const rows = status.reports.map((r) => [
    r.owner,
    r.reportType,
    String(r.days),
    r.latestDay ?? '-',
    r.missing.count === 0 ? '0' : `${r.missing.count}: ${runsText(r.missing.runs, MISSING_RUNS_SHOWN)}`,
    String(r.rejected.length),
    [
      ...r.pending.map((p) => `load of ${p.month} (${p.days.length} days) since ${p.startedAt}`),
      ...(r.blocksDue.length > 0 ? [`blocks of ${r.blocksDue.join(', ')}`] : []),
    ].join('; ') || '-',
    syncText(status, r.owner),
  ]);
  const head = ['OWNER', 'REPORT TYPE', 'DAYS', 'LATEST', 'MISSING', 'REJECTED', 'PENDING', 'SYNC'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] as string).length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  console.log(line(head));
  for (const row of rows) console.log(line(row));
  const rejected = [...status.reports.flatMap((r) => r.rejected), ...status.unattributed];
  if (rejected.length > 0) {
    console.log('\nRejected files:');
    for (const r of rejected) console.log(rejectedLine(r));
  }
}

try {
  const status = await readIngestStatus(dynamoIngestStatusRepository(table), {
    ...(values.owner ? { owner: values.owner } : {}),
    ...(range ? { range } : {}),
    sync: () => readSyncStates(table),
  });
  console.log(
    `Ingest status of ${table.description}${values.owner ? `, owner ${values.owner}` : ''}${range ? `, ${range.from}..${range.to}` : ''}\n`,
  );
  print(status);
  const owners = new Set(status.reports.map((r) => r.owner)).size;
  const days = status.reports.reduce((n, r) => n + r.days, 0);
  const missing = status.reports.reduce((n, r) => n + r.missing.count, 0);
  const rejected = status.reports.reduce((n, r) => n + r.rejected.length, 0) + status.unattributed.length;
  const pending = status.reports.reduce((n, r) => n + r.pending.length, 0);
  console.log(
    `\n${owners} owners, ${status.reports.length} report types: ${days} days loaded, ${missing} missing, ${rejected} rejected files, ${pending} loads pending`,
  );
  await table.close();
} catch (err) {
  console.error(`ingest-status: ${(err as Error).message}`);
  await table.close();
  process.exit(1);
}
