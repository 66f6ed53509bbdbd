/**
 * A table of its own for one test file, in the run's DynamoDB Local, with the demo directory (no facts). A file that
 * Scans its table (an independent check of what was stored) must not read the facts other files load into the
 * shared table: those Scans grow with every report test and once timed out.
 */
import { beforeAll } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import { ensureDemoWorld } from '../../infra/local/demo-world';
import { ensureTable } from '../../infra/local/dynamo-local';

/** Call at the top of a test file, before anything reads TABLE_NAME; the table is created before the file's hooks. */
export function useOwnTable(name: string): void {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  const shared = process.env.TABLE_NAME;
  if (!endpoint || !shared) throw new Error('DynamoDB Local is not running: use the integration project');
  const tableName = `${shared}-${name}`;
  process.env.TABLE_NAME = tableName; // this file's worker only: the local API and the helpers use this table
  beforeAll(async () => {
    await ensureTable(endpoint, tableName);
    const db = createDocumentClient(endpoint);
    try {
      await ensureDemoWorld({ db, tableName }, { facts: false });
    } finally {
      db.destroy();
    }
  });
}
