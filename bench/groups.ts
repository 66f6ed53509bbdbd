/**
 * Latency of the seven group operations through the local server (authorizer + handler + DynamoDB Local), next
 * to the latency of the bare DynamoDB calls each operation makes, replicated with the document client. The ratio
 * p50(HTTP) / p50(bare) is the service's own overhead; the target is at most 1.25x. Two references are printed beside,
 * not judged: the same bare calls behind a minimal `node:http` host (minimal-host.ts: what one HTTP hop costs, whoever
 * serves it), and with `sdkTable` through the SDK's own document client (what a team calling DynamoDB itself would use).
 *
 * Sequential requests only (one in flight), interleaved HTTP / bare so both see the same machine state. Requests go
 * through loopback-client.ts (one keep-alive socket, as the SDK's calls on the bare side; no compression: API
 * Gateway's work in the cloud, not the functions'); performance.now() times them; everything stays on loopback.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import * as keys from '../functions/core/db/keys';
import type { TableContext } from '../functions/core/directory/directory-repository';
import { groupItemId, newEtag, newGroupId } from '../functions/core/groups/group';
import { dynamoGroupRepository } from '../functions/core/groups/group-repository';
import { loopbackClient } from './loopback-client';
import { startMinimalHost } from './minimal-host';
import { formatTable } from './table';

export interface GroupsBenchContext {
  /** The local server, e.g. http://127.0.0.1:PORT (loopback only). */
  readonly baseUrl: string;
  /** Mints an access token for `sub` with short scope names. */
  readonly token: (sub: string, scopes: string[]) => Promise<string>;
  /** The table the server uses (for seeding and for the bare calls). */
  readonly table: TableContext;
  /** The same table through the SDK's own document client (sdkDocumentClient): a reference column, not judged. */
  readonly sdkTable?: TableContext;
}

/**
 * The SDK's own document client with its defaults (no wire client, the whole middleware stack): DynamoDB as a team
 * calling it from its own code would, and as the service did before core/db/wire-client.ts.
 */
export function sdkDocumentClient(endpoint: string): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint,
      region: process.env.AWS_REGION ?? 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 3,
    }),
  );
}

export interface GroupsBenchOptions {
  /** Measured requests per operation. */
  readonly n?: number;
  /** Unmeasured requests per operation before measuring. */
  readonly warmup?: number;
  /** p50(HTTP) / p50(bare) must not exceed this. */
  readonly target?: number;
  readonly log?: (line: string) => void;
}

/** A reference pass (shown, not judged): p50 of the reference way and of the bare calls interleaved with it. */
export interface ReferenceFigures {
  readonly p50: number;
  readonly bareP50: number;
  /** p50 / bareP50. */
  readonly ratio: number;
}

export interface BenchRow {
  readonly operation: string;
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly bareP50: number;
  readonly ratio: number;
  /** The bare calls behind a minimal node:http host, against the bare calls of the same pass: the HTTP hop's floor. */
  readonly host?: ReferenceFigures;
  /** The bare calls through the SDK's own document client, against the bare calls of the same pass. */
  readonly sdk?: ReferenceFigures;
  readonly target: number;
  readonly pass: boolean;
}

/** p50 through the server may be at most this multiple of the bare calls' p50. */
export const GROUPS_TARGET = 1.25;

const SUB = 'alice';
const ACTOR = 'channel:UCdemo-alice';

/** Nearest-rank percentile of `samples` (ms). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] as number;
}

const video = (i: number) => `alice-v${String(i).padStart(4, '0')}`;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export async function benchGroups(ctx: GroupsBenchContext, options: GroupsBenchOptions = {}): Promise<BenchRow[]> {
  const n = options.n ?? 300;
  const warmup = options.warmup ?? 30;
  const target = options.target ?? GROUPS_TARGET;
  const log = options.log ?? (() => {});
  const total = n + warmup;
  if (total > 500) throw new Error('n + warmup must stay within one group (500 items)');
  if (warmup < 3) throw new Error('warmup must be at least 3 (the first groups serve the other steps)');
  const { tableName } = ctx.table;
  const repo = dynamoGroupRepository(ctx.table);
  const token = await ctx.token(SUB, ['video-platform']);

  // ---- HTTP side: one keep-alive socket, no compression (loopback-client.ts) -----------------------------------
  const client = loopbackClient(ctx.baseUrl);
  /** The answer's body, as text: what the server sent is measured, not how the client reads it. */
  async function http(method: string, path: string, body?: unknown): Promise<string> {
    const answer = await client.send(method, path, { token, body });
    if (answer.status >= 300) throw new Error(`${method} ${path} → ${answer.status}: ${answer.text.slice(0, 300)}`);
    return answer.text;
  }

  // ---- bare side: the calls each operation makes, replicated (through the service's client, and the SDK's) ------
  const bareCalls = (db: DynamoDBDocumentClient) => {
    const profile = () =>
      db.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.userPartition(SUB) },
          ProjectionExpression: 'sk',
          ConsistentRead: true,
        }),
      );
    const getGroup = (id: string) =>
      db.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND sk = :sk',
          ExpressionAttributeValues: { ':pk': keys.group(ACTOR, id).pk, ':sk': keys.group(ACTOR, id).sk },
          ConsistentRead: true,
        }),
      );
    const queryItems = (groupId: string, projection?: string) =>
      db.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': keys.ownerPartition(ACTOR), ':prefix': keys.groupItemSkPrefix(groupId) },
          ...(projection ? { ProjectionExpression: projection } : {}),
          ConsistentRead: true,
        }),
      );
    return {
      async insertGroup(): Promise<string> {
        await profile();
        const id = newGroupId();
        await db.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...keys.group(ACTOR, id),
              entity: 'Group',
              id,
              actor: ACTOR,
              title: 'bare',
              itemCount: 0,
              status: 'active',
              etag: newEtag(),
              publishedAt: new Date().toISOString(),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return id;
      },
      async updateGroup(id: string, title: string) {
        await profile();
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.group(ACTOR, id),
            UpdateExpression: 'SET title = :title, etag = :newEtag',
            ConditionExpression: 'attribute_exists(pk) AND #status = :active',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':title': title, ':newEtag': newEtag(), ':active': 'active' },
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
      },
      async listGroups() {
        await profile();
        await db.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            ExpressionAttributeValues: { ':pk': keys.ownerPartition(ACTOR), ':prefix': keys.groupSkPrefix },
            ConsistentRead: true,
            Limit: 26,
          }),
        );
      },
      async insertItem(groupId: string, resourceId: string) {
        await profile();
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: tableName,
                  Item: {
                    ...keys.groupItem(ACTOR, groupId, 'VIDEO', resourceId),
                    entity: 'GroupItem',
                    id: groupItemId(groupId, 'youtube#video', resourceId),
                    groupId,
                    kind: 'youtube#video',
                    resourceId,
                    etag: newEtag(),
                  },
                  ConditionExpression: 'attribute_not_exists(pk)',
                  ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
                },
              },
              {
                Update: {
                  TableName: tableName,
                  Key: keys.group(ACTOR, groupId),
                  UpdateExpression: 'SET itemCount = itemCount + :one, itemType = :kind, etag = :newEtag',
                  ConditionExpression:
                    'attribute_exists(pk) AND #status = :active AND itemCount < :max AND ' +
                    '(attribute_not_exists(itemType) OR itemType = :kind OR (itemCount = :zero AND attribute_not_exists(declaredItemType)))',
                  ExpressionAttributeNames: { '#status': 'status' },
                  ExpressionAttributeValues: {
                    ':one': 1,
                    ':zero': 0,
                    ':kind': 'youtube#video',
                    ':newEtag': newEtag(),
                    ':active': 'active',
                    ':max': 500,
                  },
                  ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
                },
              },
              {
                ConditionCheck: {
                  TableName: tableName,
                  Key: keys.directoryEntry('VIDEO', resourceId),
                  ConditionExpression: 'contains(#owners, :actor)',
                  ExpressionAttributeNames: { '#owners': 'owners' },
                  ExpressionAttributeValues: { ':actor': ACTOR },
                },
              },
            ],
          }),
        );
      },
      async listItems(groupId: string) {
        await profile();
        await getGroup(groupId);
        await queryItems(groupId);
      },
      async deleteItem(groupId: string, resourceId: string) {
        await profile();
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Delete: {
                  TableName: tableName,
                  Key: keys.groupItem(ACTOR, groupId, 'VIDEO', resourceId),
                  ConditionExpression: 'attribute_exists(pk)',
                },
              },
              {
                Update: {
                  TableName: tableName,
                  Key: keys.group(ACTOR, groupId),
                  UpdateExpression: 'SET itemCount = itemCount - :one, etag = :newEtag',
                  ConditionExpression: 'attribute_exists(pk) AND #status = :active',
                  ExpressionAttributeNames: { '#status': 'status' },
                  ExpressionAttributeValues: { ':one': 1, ':newEtag': newEtag(), ':active': 'active' },
                },
              },
            ],
          }),
        );
      },
      async deleteGroup(id: string) {
        await profile();
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.group(ACTOR, id),
            UpdateExpression: 'SET #status = :deleting, etag = :newEtag',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':deleting': 'deleting', ':newEtag': newEtag() },
          }),
        );
        const items = (await queryItems(id, 'pk, sk')).Items ?? [];
        for (let i = 0; i < items.length; i += 25) {
          await db.send(
            new BatchWriteCommand({
              RequestItems: { [tableName]: items.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } })) },
            }),
          );
        }
        await db.send(
          new DeleteCommand({
            TableName: tableName,
            Key: keys.group(ACTOR, id),
            ConditionExpression: '#status = :deleting',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':deleting': 'deleting' },
          }),
        );
      },
    };
  };
  const bare = bareCalls(ctx.table.db);
  type BareCalls = ReturnType<typeof bareCalls>;
  const host = await startMinimalHost();
  try {
    const behindHost = (calls: BareCalls) =>
      Object.fromEntries(
        Object.entries(calls).map(([name, call]) => [
          name,
          host.behind(call as (...args: unknown[]) => Promise<unknown>),
        ]),
      ) as BareCalls;
    /** Some bare calls and the groups they work on. */
    interface Side {
      readonly calls: BareCalls;
      readonly groups: string[];
    }
    /**
     * The reference passes: the bare calls another way, interleaved with the bare calls again (each side on groups of
     * its own), after the judged rounds. A reference is compared with the bare calls of its own pass only: passes run
     * apart differ by more than a hop (the bare calls alone ran up to 20% faster than interleaved with HTTP).
     */
    const references: { readonly name: 'host' | 'sdk'; readonly side: Side; readonly bare: Side }[] = [
      { name: 'host', side: { calls: behindHost(bare), groups: [] }, bare: { calls: bare, groups: [] } },
      ...(ctx.sdkTable
        ? [
            {
              name: 'sdk' as const,
              side: { calls: bareCalls(ctx.sdkTable.db), groups: [] },
              bare: { calls: bare, groups: [] },
            },
          ]
        : []),
    ];
    const referenceSides = references.flatMap((ref) => [ref.side, ref.bare]);

    const rows: BenchRow[] = [];
    /**
     * `total` rounds of two ways, interleaved (either goes first every other round, so neither always inherits the
     * other's leftover work); the last `n` of each.
     */
    async function interleaved(a: (i: number) => Promise<unknown>, b: (i: number) => Promise<unknown>) {
      const aMs: number[] = [];
      const bMs: number[] = [];
      for (let i = 0; i < total; i++) {
        const aFirst = i % 2 === 0;
        const first = await timed(() => (aFirst ? a(i) : b(i)));
        const second = await timed(() => (aFirst ? b(i) : a(i)));
        if (i >= warmup) {
          aMs.push(aFirst ? first : second);
          bMs.push(aFirst ? second : first);
        }
      }
      return [aMs, bMs] as const;
    }

    /** One operation: the judged rounds (HTTP against bare), then each reference's pass (it against bare again). */
    async function measure(
      operation: string,
      viaHttp: (i: number) => Promise<unknown>,
      viaBare: (i: number) => Promise<unknown>,
      viaSide: (side: Side, i: number) => Promise<unknown>,
    ) {
      const [httpMs, bareMs] = await interleaved(viaHttp, viaBare);
      const figures: Partial<Record<(typeof references)[number]['name'], ReferenceFigures>> = {};
      for (const ref of references) {
        const [refMs, refBareMs] = await interleaved(
          (i) => viaSide(ref.side, i),
          (i) => viaSide(ref.bare, i),
        );
        const [p50, bareP50] = [percentile(refMs, 0.5), percentile(refBareMs, 0.5)];
        figures[ref.name] = { p50, bareP50, ratio: p50 / bareP50 };
      }
      const p50 = percentile(httpMs, 0.5);
      const bareP50 = percentile(bareMs, 0.5);
      const ratio = p50 / bareP50;
      rows.push({
        operation,
        n,
        p50,
        p99: percentile(httpMs, 0.99),
        bareP50,
        ratio,
        ...figures,
        target,
        pass: ratio <= target,
      });
      // The spread shows how much of the p50 is the machine's load (stalls fall on both sides, more on the longer one).
      const spread = (xs: number[]) => [0.1, 0.25, 0.5, 0.75, 0.9].map((p) => percentile(xs, p).toFixed(2)).join('/');
      const reference = (label: string, f: ReferenceFigures | undefined) =>
        f ? `; ${label} against its bare p50 ${referenceCell(f)}` : '';
      const viaHostText = reference('behind a minimal host', figures.host);
      const viaSdkText = reference("through the SDK's client", figures.sdk);
      log(
        `${operation}: p50 ${p50.toFixed(2)} ms, bare ${bareP50.toFixed(2)} ms, ratio ${ratio.toFixed(2)}${viaHostText}${viaSdkText}`,
      );
      log(`  p10/p25/p50/p75/p90 ms: server ${spread(httpMs)}, bare ${spread(bareMs)}`);
    }

    // groups.insert: the groups created here are deleted by the groups.delete step at the end.
    const httpGroups: string[] = [];
    const bareGroups: string[] = [];
    await measure(
      'groups.insert',
      async (i) =>
        httpGroups.push(JSON.parse(await http('POST', '/v2/groups', { snippet: { title: `bench ${i}` } })).id),
      async () => bareGroups.push(await bare.insertGroup()),
      async (side) => side.groups.push(await side.calls.insertGroup()),
    );

    const [httpTarget, bareTarget] = [httpGroups[0] as string, bareGroups[0] as string];
    await measure(
      'groups.update',
      (i) => http('PUT', '/v2/groups', { id: httpTarget, snippet: { title: `renamed ${i}` } }),
      (i) => bare.updateGroup(bareTarget, `renamed ${i}`),
      (side, i) => side.calls.updateGroup(side.groups[0] as string, `renamed ${i}`),
    );

    await measure(
      'groups.list',
      () => http('GET', '/v2/groups?mine=true'),
      () => bare.listGroups(),
      (side) => side.calls.listGroups(),
    );

    // groupItems.insert: `total` distinct videos into one group per side.
    const [httpItems, bareItems] = [httpGroups[1] as string, bareGroups[1] as string];
    await measure(
      'groupItems.insert',
      (i) =>
        http('POST', '/v2/groupItems', { groupId: httpItems, resource: { kind: 'youtube#video', id: video(i + 1) } }),
      (i) => bare.insertItem(bareItems, video(i + 1)),
      (side, i) => side.calls.insertItem(side.groups[1] as string, video(i + 1)),
    );

    // groupItems.list: a group of 50 items per side.
    const [httpList, bareList] = [httpGroups[2] as string, bareGroups[2] as string];
    log('seeding two groups of 50 items for groupItems.list');
    await Promise.all(
      [httpList, bareList, ...referenceSides.map((side) => side.groups[2] as string)].flatMap((g) =>
        Array.from({ length: 50 }, (_, i) => repo.insertItem(ACTOR, g, 'youtube#video', video(i + 1))),
      ),
    );
    await measure(
      'groupItems.list',
      () => http('GET', `/v2/groupItems?groupId=${httpList}`),
      () => bare.listItems(bareList),
      (side) => side.calls.listItems(side.groups[2] as string),
    );

    await measure(
      'groupItems.delete',
      (i) => http('DELETE', `/v2/groupItems?id=${groupItemId(httpItems, 'youtube#video', video(i + 1))}`),
      (i) => bare.deleteItem(bareItems, video(i + 1)),
      (side, i) => side.calls.deleteItem(side.groups[1] as string, video(i + 1)),
    );

    // groups.delete: every group from the insert step (the first three, used above, fall in the warm-up), each
    // of the others seeded with 2 items so the drain does real work.
    const seedTargets = [
      ...httpGroups.slice(3),
      ...bareGroups.slice(3),
      ...referenceSides.flatMap((side) => side.groups.slice(3)),
    ];
    log(`seeding 2 items into each of ${seedTargets.length} groups for groups.delete`);
    for (let i = 0; i < seedTargets.length; i += 40) {
      await Promise.all(
        seedTargets
          .slice(i, i + 40)
          .flatMap((g) => [1, 2].map((v) => repo.insertItem(ACTOR, g, 'youtube#video', video(v)))),
      );
    }
    await measure(
      'groups.delete',
      (i) => http('DELETE', `/v2/groups?id=${httpGroups[i]}`),
      (i) => bare.deleteGroup(bareGroups[i] as string),
      (side, i) => side.calls.deleteGroup(side.groups[i] as string),
    );
    return rows;
  } finally {
    client.close();
    host.close();
  }
}

const referenceCell = (f: ReferenceFigures | undefined) =>
  f ? `${f.p50.toFixed(2)} / ${f.bareP50.toFixed(2)} = ${f.ratio.toFixed(2)}x` : '';

/** Plain-text table of the results (with the reference columns when measured). */
export function formatBenchTable(rows: readonly BenchRow[]): string {
  const withHost = rows.some((r) => r.host);
  const withSdk = rows.some((r) => r.sdk);
  const header = [
    'operation',
    'p50 ms',
    'p99 ms',
    'bare DynamoDB p50 ms',
    'ratio (p50/bare)',
    'target',
    'result',
    ...(withHost ? ['minimal host / its bare p50 ms (shown)'] : []),
    ...(withSdk ? ["SDK's client / its bare p50 ms (shown)", "ratio ÷ the SDK's (shown)"] : []),
  ];
  const body = rows.map((r) => [
    r.operation,
    r.p50.toFixed(2),
    r.p99.toFixed(2),
    r.bareP50.toFixed(2),
    `${r.ratio.toFixed(2)}x`,
    `≤${r.target}x`,
    r.pass ? 'PASS' : 'FAIL',
    ...(withHost ? [referenceCell(r.host)] : []),
    ...(withSdk ? [referenceCell(r.sdk), r.sdk ? `${(r.ratio / r.sdk.ratio).toFixed(2)}x` : ''] : []),
  ]);
  return formatTable(header, body);
}
