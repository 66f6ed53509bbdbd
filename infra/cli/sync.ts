/**
 * `npm run sync -- [--owner <UC… | content owner id>] [--table NAME --region REGION]` syncs connected owners from
 * the YouTube Reporting API (REPORTING_API_ROOT, OAUTH_TOKEN_URL): creates the missing jobs, lists the reports created
 * since each owner's checkpoint, downloads them and loads them through the same ingest as `npm run import` (into the
 * local table, or the deployed one). The stack runs the same code on a schedule, one owner per worker.
 * Prints one line per owner (reports found, loaded, skipped, failed); exits 1 when an owner failed.
 */
import { parseArgs } from 'node:util';
import { reportingApiFromEnv } from '../../functions/_shared/sync-deps';
import { dynamoResourceSink } from '../../functions/core/directory/resource-sink';
import { dynamoIngestStores } from '../../functions/core/reports/ingest/ingest-service';
import { dynamoRateRepository } from '../../functions/core/reports/storage/rate-repository';
import type { ConnectedOwner } from '../../functions/core/sync/owner';
import { parseOwner } from '../../functions/core/sync/owner';
import { ingestSink } from '../../functions/core/sync/report-sink';
import { dynamoSyncRepository } from '../../functions/core/sync/sync-repository';
import { type OwnerSyncResult, syncOwner } from '../../functions/core/sync/sync-service';
import { credentialStoreOf } from './sync-target';
import { openTargetTable, TARGET_OPTIONS, TARGET_USAGE, UsageError } from './target-table';

const USAGE = `usage: npm run sync -- [--owner <UC… channel id | content owner id>] ${TARGET_USAGE}`;

/** On a terminal, one line rewritten in place; in a log, a line every 25 downloads. */
let progressCount = 0;
function progress(owner: ConnectedOwner, message: string): void {
  if (process.stderr.isTTY) process.stderr.write(`\r${owner.id}: ${message}   `);
  else if (++progressCount % 25 === 0) process.stderr.write(`${owner.id}: ${message}\n`);
}

function usage(message: string): never {
  console.error(`sync: ${message}\n${USAGE}`);
  process.exit(2);
}

let values: { owner?: string; table?: string; region?: string };
try {
  ({ values } = parseArgs({ options: { owner: { type: 'string' }, ...TARGET_OPTIONS } }));
} catch (err) {
  usage((err as Error).message);
}
let only: ConnectedOwner | undefined;
try {
  only = values.owner === undefined ? undefined : parseOwner(values.owner);
} catch (err) {
  usage((err as Error).message);
}

const table = await openTargetTable(values).catch((err: unknown) => {
  if (err instanceof UsageError) usage(err.message);
  throw err;
});
const credentials = credentialStoreOf(table);
const repo = dynamoSyncRepository(table);
let failed = false;
try {
  const owners = only ? [only] : (await repo.list()).map((c) => c.owner);
  if (owners.length === 0)
    console.log(`No connected owners (${table.description}): npm run connect -- --owner … first.`);
  const deps = {
    repo,
    credentials: credentials.store,
    api: reportingApiFromEnv,
    sink: ingestSink(dynamoIngestStores(table), dynamoRateRepository(table), dynamoResourceSink(table)),
    progress,
  };
  for (const owner of owners) {
    const result = await syncOwner(deps, owner);
    if (process.stderr.isTTY) process.stderr.write('\r\u001b[K');
    console.log(resultLine(result));
    if (result.status !== 'ok' && result.status !== 'busy') failed = true;
  }
} catch (err) {
  failed = true;
  console.error(`sync: ${(err as Error).message}`);
} finally {
  credentials.close();
  await table.close();
}
process.exit(failed ? 1 : 0);

function resultLine(r: OwnerSyncResult): string {
  const s = r.summary;
  const counts = `${s.found} reports found, ${s.loaded} loaded, ${s.skipped} skipped, ${s.failed} failed`;
  const jobs = s.jobsCreated > 0 ? `; ${s.jobsCreated} jobs created` : '';
  const later = r.deferred > 0 ? `; ${r.deferred} left for the next run` : '';
  const status =
    r.status === 'ok'
      ? ''
      : r.status === 'needs-reconsent'
        ? ` — NEEDS RE-CONSENT (run npm run connect again with a new refresh token): ${r.error}`
        : ` — ${r.status === 'busy' ? 'skipped' : 'FAILED'}: ${r.error}`;
  return `${r.owner.id}: ${counts}${jobs}${later}${status}`;
}
