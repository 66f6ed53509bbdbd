/**
 * What a report or a day's load would be billed on DynamoDB on demand, counted from the calls the service makes.
 * DynamoDB Local's own ConsumedCapacity is not trusted (the directory bench found it wrong), so a counting client
 * sizes every item by DynamoDB's rules and applies its billing:
 *
 * - reads are eventually consistent unless asked otherwise: a Query page costs 0.5 RRU per 4 KB of the whole items
 *   it reads (summed, rounded up; at least 0.5), a GetItem or a BatchGetItem item 0.5 RRU per 4 KB of its item
 *   (rounded up each; a key without an item 0.5), doubled for consistent reads. A projection does not lower the bill, so the counting client
 *   drops projections to see whole items (the answer it then gets is not used: only the reads count);
 * - a write costs 1 WRU per KB (rounded up) of the larger of the item before and after it, twice in a transaction; a
 *   ConditionCheck 2 RRU per 4 KB. The item before and after are read through the plain client, uncounted.
 */
import { type DynamoDBDocumentClient, GetCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from '../functions/core/directory/directory-repository';
import { dynamoDirectoryRepository } from '../functions/core/directory/directory-repository';
import { dynamoGroupReader } from '../functions/core/groups/group-reader';
import { parseReportRequest } from '../functions/core/reports/query/report-request';
import { queryReport } from '../functions/core/reports/query/report-service';
import { dynamoFactRepository, newReadStats } from '../functions/core/reports/storage/fact-repository';
import { dynamoRateRepository } from '../functions/core/reports/storage/rate-repository';
import type { ScopeName } from '../functions/core/scopes';

export interface Capacity {
  calls: number;
  itemsRead: number;
  bytesRead: number;
  rru: number;
  itemsWritten: number;
  bytesWritten: number;
  wru: number;
}

export const newCapacity = (): Capacity => ({
  calls: 0,
  itemsRead: 0,
  bytesRead: 0,
  rru: 0,
  itemsWritten: 0,
  bytesWritten: 0,
  wru: 0,
});

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

/** A number's size: a byte per two significant digits (leading and trailing zeros trimmed), plus one. */
const numberSize = (n: number | bigint) =>
  Math.ceil(
    String(n)
      .replace(/^-|[.]|e.*$/g, '')
      .replace(/^0+|0+$/g, '').length / 2,
  ) + 1;

/** An attribute value's size by DynamoDB's rules (lists and maps: 3 bytes, plus 1 per element). */
function valueSize(v: unknown): number {
  if (v === null || v === undefined || typeof v === 'boolean') return 1;
  if (typeof v === 'string') return utf8(v);
  if (typeof v === 'number' || typeof v === 'bigint') return numberSize(v);
  if (v instanceof Uint8Array) return v.byteLength;
  if (v instanceof Set) return [...v].reduce((n: number, x) => n + valueSize(x), 0);
  if (Array.isArray(v)) return 3 + v.reduce((n: number, x) => n + 1 + valueSize(x), 0);
  return 3 + Object.entries(v as object).reduce((n, [k, x]) => n + 1 + utf8(k) + valueSize(x), 0);
}

/** An item's size: its attributes' names and values. */
export function itemSize(item: Readonly<Record<string, unknown>> | undefined): number {
  if (!item) return 0;
  let n = 0;
  for (const [k, v] of Object.entries(item)) n += utf8(k) + valueSize(v);
  return n;
}

const units = (bytes: number, per: number) => Math.max(1, Math.ceil(bytes / per));

type Input = Record<string, unknown>;

/** Drops a projection (and its names, unless a key condition or filter uses them) so whole items are read. */
function unproject(input: Input): void {
  if (!input.ProjectionExpression) return;
  delete input.ProjectionExpression;
  const expressions = `${input.KeyConditionExpression ?? ''} ${input.FilterExpression ?? ''}`;
  if (!expressions.includes('#')) delete input.ExpressionAttributeNames;
}

/**
 * A document client that counts what `db` would be billed (into the returned capacity). Everything else about the
 * calls is unchanged: it reads and writes the same table.
 */
export function countingClient(db: DynamoDBDocumentClient): { db: DynamoDBDocumentClient; capacity: Capacity } {
  const capacity = newCapacity();
  const read = (items: readonly (Record<string, unknown> | undefined)[], consistent: boolean, summed: boolean) => {
    const sizes = items.map(itemSize);
    capacity.itemsRead += items.filter(Boolean).length;
    const bytes = sizes.reduce((a, b) => a + b, 0);
    capacity.bytesRead += bytes;
    const perItem = summed ? units(bytes, 4096) : sizes.reduce((n, s) => n + units(s, 4096), 0);
    capacity.rru += (consistent ? 1 : 0.5) * Math.max(1, perItem);
  };
  const sizeOf = async (tableName: string, key: Record<string, unknown>) =>
    itemSize((await db.send(new GetCommand({ TableName: tableName, Key: key }))).Item);
  /** A write of `key` (in `tableName`): bills the larger of its item before and after `write`. */
  const written = async <T>(
    tableName: string,
    key: Record<string, unknown>,
    factor: number,
    write: () => Promise<T>,
  ) => {
    const before = await sizeOf(tableName, key);
    const result = await write();
    const after = await sizeOf(tableName, key);
    capacity.itemsWritten++;
    capacity.bytesWritten += after;
    capacity.wru += factor * units(Math.max(before, after), 1024);
    return result;
  };
  const keyOf = (item: Record<string, unknown>) => ({ pk: item.pk, sk: item.sk });
  const send = async (command: { constructor: { name: string }; input: Input }): Promise<unknown> => {
    const input = command.input;
    capacity.calls++;
    switch (command.constructor.name) {
      case 'QueryCommand': {
        unproject(input);
        const out = (await db.send(command as never)) as { Items?: Record<string, unknown>[] };
        read(out.Items ?? [], input.ConsistentRead === true, true);
        return out;
      }
      case 'GetCommand': {
        unproject(input);
        const out = (await db.send(command as never)) as { Item?: Record<string, unknown> };
        read([out.Item], input.ConsistentRead === true, false);
        return out;
      }
      case 'BatchGetCommand': {
        const requests = input.RequestItems as Record<string, Input>;
        for (const r of Object.values(requests)) unproject(r);
        const out = (await db.send(command as never)) as {
          Responses?: Record<string, Record<string, unknown>[]>;
          UnprocessedKeys?: Record<string, { Keys?: unknown[] }>;
        };
        for (const [t, request] of Object.entries(requests)) {
          const items = out.Responses?.[t] ?? [];
          // A key with no item is billed the least read, as a GetItem of it is.
          const asked = (request.Keys as unknown[]).length - (out.UnprocessedKeys?.[t]?.Keys?.length ?? 0);
          const missing = Array.from({ length: Math.max(0, asked - items.length) }, () => undefined);
          read([...items, ...missing], request.ConsistentRead === true, false);
        }
        return out;
      }
      case 'PutCommand':
      case 'UpdateCommand':
      case 'DeleteCommand': {
        const key = (input.Key as Record<string, unknown>) ?? keyOf(input.Item as Record<string, unknown>);
        return written(input.TableName as string, key, 1, () => db.send(command as never));
      }
      case 'BatchWriteCommand': {
        const requests = input.RequestItems as Record<
          string,
          { PutRequest?: { Item: Input }; DeleteRequest?: { Key: Input } }[]
        >;
        const befores = await Promise.all(
          Object.entries(requests).flatMap(([t, list]) =>
            list.map(async (r) => {
              const key = r.DeleteRequest?.Key ?? keyOf(r.PutRequest?.Item as Input);
              return { t, key, before: await sizeOf(t, key) };
            }),
          ),
        );
        const out = await db.send(command as never);
        for (const { t, key, before } of befores) {
          const after = await sizeOf(t, key);
          capacity.itemsWritten++;
          capacity.bytesWritten += after;
          capacity.wru += units(Math.max(before, after), 1024);
        }
        return out;
      }
      case 'TransactWriteCommand': {
        const items = (input as TransactWriteCommandInput).TransactItems ?? [];
        const targets = items.map((i) => {
          if (i.ConditionCheck)
            return { check: true, t: i.ConditionCheck.TableName as string, key: i.ConditionCheck.Key as Input };
          const w = (i.Put ?? i.Update ?? i.Delete) as { TableName: string; Key?: Input; Item?: Input };
          return { check: false, t: w.TableName, key: w.Key ?? keyOf(w.Item as Input) };
        });
        const befores = await Promise.all(targets.map((x) => sizeOf(x.t, x.key)));
        const out = await db.send(command as never);
        for (const [i, x] of targets.entries()) {
          const before = befores[i] as number;
          if (x.check) {
            capacity.rru += 2 * units(before, 4096);
            continue;
          }
          const after = await sizeOf(x.t, x.key);
          capacity.itemsWritten++;
          capacity.bytesWritten += after;
          capacity.wru += 2 * units(Math.max(before, after), 1024);
        }
        return out;
      }
      default:
        throw new Error(`countingClient: ${command.constructor.name} is not counted`);
    }
  };
  const counted = Object.create(db) as DynamoDBDocumentClient;
  Object.defineProperty(counted, 'send', { value: send });
  return { db: counted, capacity };
}

/**
 * A report answered in this process with `db` in place of the table's client (every repository the report service
 * reads through); a failure is swallowed: the callers look at the calls, not the answer.
 */
export async function answerThrough(
  table: TableContext,
  db: DynamoDBDocumentClient,
  caller: { sub: string; scopes: readonly string[] },
  query: Record<string, string>,
): Promise<void> {
  const through = { db, tableName: table.tableName };
  const deps = {
    directory: dynamoDirectoryRepository(through),
    groups: dynamoGroupReader(through),
    facts: dynamoFactRepository(through),
    rates: dynamoRateRepository(through),
  };
  const principal = { sub: caller.sub, scopes: new Set(caller.scopes as ScopeName[]) };
  try {
    await queryReport(deps, principal, parseReportRequest(query), newReadStats());
  } catch {
    // Whole items where the service asked for some attributes may not decode as it expects: only the reads count.
  }
}

/** A report answered in this process through a counting client: what its DynamoDB calls would be billed. */
export async function reportCapacity(
  table: TableContext,
  caller: { sub: string; scopes: readonly string[] },
  query: Record<string, string>,
): Promise<Capacity> {
  const { db, capacity } = countingClient(table.db);
  await answerThrough(table, db, caller, query);
  return capacity;
}
