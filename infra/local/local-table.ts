/**
 * The local table `npm start`, `npm run invoke` and `npm run import` share: DynamoDB Local persisted under
 * .data/, started on demand (or reused when already running, or DYNAMODB_ENDPOINT when set).
 */
import { rmSync } from 'node:fs';
import { createDocumentClient } from '../../functions/core/db/document-client';
import type { TableContext } from '../../functions/core/directory/directory-repository';
import { ensureDemoWorld } from './demo-world';
import { ensureTable, isUp, startDynamoLocal } from './dynamo-local';
import { localSettings } from './settings';

export interface LocalTable extends TableContext {
  readonly endpoint: string;
  /** Whether this process started DynamoDB Local (and so must stop it). */
  readonly started: boolean;
  close(): Promise<void>;
}

export async function openLocalTable(options: { reset?: boolean; quiet?: boolean } = {}): Promise<LocalTable> {
  const log = options.quiet ? () => {} : (m: string) => console.error(m);
  let endpoint = localSettings.dynamodbEndpoint;
  let stop = async () => {};
  let started = false;
  if (!endpoint) {
    const candidate = `http://127.0.0.1:${localSettings.dynamodbPort}`;
    if (await isUp(candidate)) {
      if (options.reset) throw new Error(`--reset: stop the DynamoDB Local already running at ${candidate} first`);
      endpoint = candidate;
      log(`Using the DynamoDB Local already running at ${endpoint}`);
    } else {
      if (options.reset) rmSync(localSettings.dataDir, { recursive: true, force: true });
      log(`Starting DynamoDB Local (data in ${localSettings.dataDir}) ...`);
      const ddb = await startDynamoLocal({ port: localSettings.dynamodbPort, dbPath: localSettings.dataDir });
      endpoint = ddb.endpoint;
      stop = ddb.stop;
      started = true;
    }
  }
  await ensureTable(endpoint, localSettings.tableName);
  const db = createDocumentClient(endpoint);
  const ctx = { db, tableName: localSettings.tableName };
  const loading = () =>
    log('Loading the demo world and its generated analytics exports (first start only, about 3 minutes) ...');
  if (await ensureDemoWorld(ctx, { onLoad: loading })) log('Loaded the demo world.');
  return {
    ...ctx,
    endpoint,
    started,
    close: async () => {
      db.destroy();
      await stop();
    },
  };
}
