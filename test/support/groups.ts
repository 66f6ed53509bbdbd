/**
 * Shared helpers for the groups / groupItems tests: a thin wire client over LocalApi, direct table access (for
 * setup and for checking what is really stored), and assertions on Google error bodies.
 */
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import * as keys from '../../functions/core/db/keys';
import type { ResourceKind } from '../../functions/core/directory/directory';
import type { TableContext } from '../../functions/core/directory/directory-repository';
import { dynamoGroupRepository, type GroupRepository } from '../../functions/core/groups/group-repository';
import type { LocalApi } from './local-api';

export type WireResponse = Awaited<ReturnType<LocalApi['call']>>;

/** Acting-owner keys of the demo world (see functions/core/directory/directory.ts). */
export const ACTORS = {
  alice: 'channel:UCdemo-alice',
  carol: 'channel:UCdemo-carol',
  dave: 'channel:UCdemo-dave',
  demoCo: 'contentOwner:demo-co',
  mallory: 'user:mallory',
  bob: 'user:bob',
} as const;

export const range = (prefix: string, from: number, to: number, width: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${String(from + i).padStart(width, '0')}`);

/** Runs `fn` over `items`, `size` at a time in parallel. */
export async function inBatches<T, R>(items: readonly T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
  return out;
}

/** The run's DynamoDB Local table (set by the integration project's global setup). */
export function testTable(): TableContext {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  const tableName = process.env.TABLE_NAME;
  if (!endpoint || !tableName) throw new Error('DynamoDB Local is not running: use the integration project');
  return { db: createDocumentClient(endpoint), tableName };
}

export const testRepository = (table: TableContext): GroupRepository =>
  dynamoGroupRepository(table, { attempts: 8, baseDelayMs: 5 });

/** Every stored item of a group, read two independent ways: a consistent Query on the owner partition and a Scan. */
export async function storedItems(table: TableContext, actor: string, groupId: string, options = { scan: true }) {
  const viaQuery: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out: { Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> } = await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.ownerPartition(actor), ':prefix': keys.groupItemSkPrefix(groupId) },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    viaQuery.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  const viaScan: Record<string, unknown>[] = [];
  // The scan reads the whole shared test table: callers that look at one partition only can skip it.
  if (options.scan)
    do {
      const out: { Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> } =
        await table.db.send(
          new ScanCommand({
            TableName: table.tableName,
            FilterExpression: 'groupId = :g OR (id = :g AND entity = :group)',
            ExpressionAttributeValues: { ':g': groupId, ':group': 'Group' },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        );
      viaScan.push(...(out.Items ?? []));
      start = out.LastEvaluatedKey;
    } while (start);
  return { viaQuery, viaScan };
}

/** A wire client for the six group operations plus groups.insert, acting with one token. */
export function groupsClient(api: LocalApi, token: string, onBehalfOfContentOwner?: string) {
  const q = (params: Record<string, string | undefined> = {}) => {
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined) search.set(k, v);
    if (onBehalfOfContentOwner !== undefined) search.set('onBehalfOfContentOwner', onBehalfOfContentOwner);
    const s = search.toString();
    return s ? `?${s}` : '';
  };
  const json = (method: string, path: string, body: unknown) =>
    api.call(path, { token, method, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const client = {
    insertGroup: (body: unknown) => json('POST', `/v2/groups${q()}`, body),
    /** groups.insert that must succeed; returns the group resource. */
    async createGroup(title: string, itemType?: ResourceKind) {
      const res = await client.insertGroup({
        snippet: { title },
        ...(itemType ? { contentDetails: { itemType } } : {}),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as GroupWire;
    },
    updateGroup: (body: unknown) => json('PUT', `/v2/groups${q()}`, body),
    listGroups: (params: Record<string, string | undefined>) =>
      api.call(`/v2/groups${q(params)}`, { token, method: 'GET' }),
    /** groups.list by id, expecting 200; the group or undefined. */
    async getGroup(id: string): Promise<GroupWire | undefined> {
      const res = await client.listGroups({ id });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (res.body.items as GroupWire[]).find((g) => g.id === id);
    },
    /** Walks every page of groups.list mine=true. */
    async listAllMine(): Promise<GroupWire[]> {
      const all: GroupWire[] = [];
      let pageToken: string | undefined;
      do {
        const res = await client.listGroups({ mine: 'true', pageToken });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        all.push(...(res.body.items as GroupWire[]));
        pageToken = res.body.nextPageToken;
      } while (pageToken);
      return all;
    },
    deleteGroup: (id: string) => api.call(`/v2/groups${q({ id })}`, { token, method: 'DELETE' }),
    insertItem: (groupId: string, kind: string, id: string) =>
      json('POST', `/v2/groupItems${q()}`, { groupId, resource: { kind, id } }),
    /** groupItems.insert with a raw (possibly malformed) body. */
    insertGroupItemRaw: (body: string) => json('POST', `/v2/groupItems${q()}`, body),
    listItems: (groupId: string) => api.call(`/v2/groupItems${q({ groupId })}`, { token, method: 'GET' }),
    deleteItem: (id: string) => api.call(`/v2/groupItems${q({ id })}`, { token, method: 'DELETE' }),
  };
  return client;
}

export type GroupsClient = ReturnType<typeof groupsClient>;

export interface GroupWire {
  kind: string;
  etag: string;
  id: string;
  snippet: { publishedAt: string; title: string };
  contentDetails: { itemCount: string; itemType?: string };
}

export interface GroupItemWire {
  kind: string;
  etag: string;
  id: string;
  groupId: string;
  resource: { kind: string; id: string };
}

/** Asserts a Google error body: HTTP status, error.code, error.status and errors[0].reason. */
export function expectGoogleError(res: WireResponse, code: number, status: string, reason: string): void {
  const shown = JSON.stringify(res.body);
  expect(res.status, shown).toBe(code);
  expect(res.body?.error?.code, shown).toBe(code);
  expect(res.body?.error?.status, shown).toBe(status);
  expect(res.body?.error?.errors?.[0]?.reason, shown).toBe(reason);
  expect(res.headers.get('content-type'), shown).toMatch(/^application\/json/);
}

/** A response with every occurrence of the given ids replaced by a placeholder (to compare bodies "modulo the id"). */
export function redacted(res: WireResponse, ...ids: string[]): { status: number; body: string } {
  let body = JSON.stringify(res.body);
  for (const id of ids) body = body.split(id).join('<ID>');
  return { status: res.status, body };
}

export const RFC3339_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
