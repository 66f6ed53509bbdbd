/**
 * `npm run connect -- --owner <UC… | content owner id> --client-id ID --client-secret SECRET --refresh-token TOKEN
 *   [--no-verify] [--table NAME --region REGION]` stores the OAuth credentials of a Google account that can read the
 * owner's Reporting API reports (locally in the local table; for a deployed table in one Secrets Manager secret per
 * owner) and the connection in the table. The credentials are tried first (a token refresh and reportTypes.list)
 * unless --no-verify. The three secrets may come from GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET and GOOGLE_REFRESH_TOKEN
 * instead, to keep them out of the shell history.
 * `npm run connect -- --list` shows the connected owners and their sync state; `--disconnect --owner X` removes one.
 * Secrets are never printed.
 */
import { parseArgs } from 'node:util';
import { reportingApiFromEnv } from '../../functions/_shared/sync-deps';
import { DomainError } from '../../functions/core/errors';
import { connectOwner, disconnectOwner } from '../../functions/core/sync/connect-service';
import type { SyncState } from '../../functions/core/sync/connection';
import { parseOwner } from '../../functions/core/sync/owner';
import { ReportingError } from '../../functions/core/sync/reporting-api';
import { dynamoSyncRepository } from '../../functions/core/sync/sync-repository';
import { readSyncStates } from '../../functions/core/sync/sync-state';
import { credentialStoreOf, shortTime } from './sync-target';
import { openTargetTable, TARGET_OPTIONS, TARGET_USAGE, UsageError } from './target-table';

const USAGE = `usage: npm run connect -- --owner <UC… channel id | content owner id> --client-id ID --client-secret SECRET --refresh-token TOKEN [--no-verify] ${TARGET_USAGE}
       npm run connect -- --list ${TARGET_USAGE}
       npm run connect -- --disconnect --owner <id> ${TARGET_USAGE}
(the three secrets may also come from GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET, GOOGLE_REFRESH_TOKEN)`;

function usage(message: string): never {
  console.error(`connect: ${message}\n${USAGE}`);
  process.exit(2);
}

let values: ReturnType<typeof parse>['values'];
function parse() {
  return parseArgs({
    options: {
      owner: { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      'refresh-token': { type: 'string' },
      'no-verify': { type: 'boolean', default: false },
      list: { type: 'boolean', default: false },
      disconnect: { type: 'boolean', default: false },
      ...TARGET_OPTIONS,
    },
  });
}
try {
  ({ values } = parse());
} catch (err) {
  usage((err as Error).message);
}

const modes = [values.list, values.disconnect].filter(Boolean).length;
if (modes > 1) usage('--list and --disconnect do not go together');
if (!values.list && !values.owner) usage('--owner is required');

const table = await openTargetTable(values).catch((err: unknown) => {
  if (err instanceof UsageError) usage(err.message);
  throw err;
});
const credentials = credentialStoreOf(table);
const deps = { repo: dynamoSyncRepository(table), credentials: credentials.store, tableName: table.tableName };
let code = 0;
try {
  if (values.list) {
    printStates(await readSyncStates(table));
  } else {
    const owner = parseOwner(values.owner as string);
    if (values.disconnect) {
      const removed = await disconnectOwner(deps, owner);
      console.log(
        removed
          ? `Disconnected ${owner.id} (${table.description}); its credentials are deleted, its loaded data stays.`
          : `${owner.id} was not connected (${table.description}).`,
      );
    } else {
      const clientId = values['client-id'] ?? process.env.GOOGLE_CLIENT_ID;
      const clientSecret = values['client-secret'] ?? process.env.GOOGLE_CLIENT_SECRET;
      const refreshToken = values['refresh-token'] ?? process.env.GOOGLE_REFRESH_TOKEN;
      if (!clientId || !clientSecret || !refreshToken) {
        usage('--client-id, --client-secret and --refresh-token are required');
      }
      const verify = values['no-verify'] ? undefined : reportingApiFromEnv;
      const conn = await connectOwner(deps, owner, { clientId, clientSecret, refreshToken }, verify);
      const where = table.local ? 'the local table' : `Secrets Manager (${conn.secretName})`;
      console.log(
        `Connected ${owner.type === 'channel' ? 'channel' : 'content owner'} ${owner.id}: credentials in ${where}` +
          `${verify ? ', checked against the Reporting API' : ''}; checkpoint ${shortTime(conn.checkpoint)}.`,
      );
    }
  }
} catch (err) {
  code = 1;
  if (err instanceof ReportingError) {
    const hint = err.kind === 'reconsent' ? ' Get a new refresh token (the account must consent again).' : '';
    console.error(`connect: the credentials did not work: ${err.message}.${hint} Nothing was stored.`);
  } else if (err instanceof DomainError) console.error(`connect: ${err.message}`);
  else console.error(`connect: ${(err as Error).message}`);
} finally {
  credentials.close();
  await table.close();
}
process.exit(code);

function printStates(states: readonly SyncState[]): void {
  if (states.length === 0) {
    console.log(`No connected owners (${table.description}). Connect one with npm run connect -- --owner …`);
    return;
  }
  const rows = states.map((s) => [
    s.owner.id,
    s.owner.type === 'channel' ? 'channel' : 'content owner',
    shortTime(s.connectedAt),
    shortTime(s.lastSuccess),
    shortTime(s.checkpoint),
    s.lastRun
      ? `${s.lastRun.found} found, ${s.lastRun.loaded} loaded, ${s.lastRun.skipped} skipped, ${s.lastRun.failed} failed`
      : 'never run',
    s.needsReconsent ? 'NEEDS RE-CONSENT' : s.lastError ? 'error' : 'ok',
  ]);
  const head = ['owner', 'type', 'connected', 'last success', 'checkpoint', 'last run', 'status'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] as number))
      .join('  ')
      .trimEnd();
  console.log(line(head));
  for (const r of rows) console.log(line(r));
  for (const s of states) {
    if (s.lastError) console.log(`${s.owner.id}: last error (${shortTime(s.lastError.at)}): ${s.lastError.message}`);
  }
}
