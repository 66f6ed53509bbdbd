/**
 * The table an operator command works on: the local table `npm start` uses (started on demand) by default, or a
 * deployed stack's table with `--table NAME --region REGION` (the standard AWS credential chain). Every operator
 * command (import, directory, connect, sync, ingest-status) opens its table here, so they all take the same flags.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { documentClientOf } from '../../functions/core/db/document-client';
import type { TableContext } from '../../functions/core/directory/directory-repository';
import { openLocalTable } from '../local/local-table';

export interface TargetTable extends TableContext {
  /** 'local table analytics-api-local' or 'table NAME in REGION', for messages. */
  readonly description: string;
  /** Whether this is the local table (DynamoDB Local) rather than a deployed one. */
  readonly local: boolean;
  /** The deployed table's region (undefined for the local table). */
  readonly region?: string;
  close(): Promise<void>;
}

/** parseArgs options every operator command accepts. */
export const TARGET_OPTIONS = {
  table: { type: 'string' },
  region: { type: 'string' },
} as const;

export const TARGET_USAGE = '[--table NAME --region REGION]  (default: the local table of `npm start`)';

export class UsageError extends Error {}

export async function openTargetTable(values: { table?: string; region?: string }): Promise<TargetTable> {
  if (!values.table) {
    if (values.region) throw new UsageError('--region needs --table (the deployed table to work on)');
    const local = await openLocalTable();
    return { ...local, description: `local table ${local.tableName}`, local: true, close: local.close };
  }
  const region = values.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (!region) throw new UsageError('--table needs --region (or AWS_REGION)');
  // DYNAMODB_ENDPOINT points a "deployed" table at DynamoDB Local: how the tests exercise --table.
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  const client = new DynamoDBClient({ region, maxAttempts: 5, ...(endpoint ? { endpoint } : {}) });
  const db = documentClientOf(client);
  return {
    db,
    tableName: values.table,
    description: `table ${values.table} in ${region}`,
    local: false,
    region,
    close: async () => db.destroy(),
  };
}
