/**
 * A content owner's links and grants as content-owner reports read them (access pattern D4), against DynamoDB
 * Local: the CHANNELS list the loader keeps beside the link items, read by key in the same request as the report's
 * facts; the Query of the link items when the list is missing (a directory an earlier release loaded) or too long.
 * The client's `send` is wrapped only to record the commands that reach DynamoDB.
 */
import { randomBytes } from 'node:crypto';
import {
  BatchGetCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import { keys } from '../../functions/core/db/keys';
import { type DirectoryWorld, loadDirectory, MAX_LISTED_LINKS } from '../../functions/core/directory/directory-loader';
import { dynamoDirectoryRepository, type TableContext } from '../../functions/core/directory/directory-repository';
import { dynamoGroupRepository } from '../../functions/core/groups/group-repository';
import { parseReportRequest } from '../../functions/core/reports/query/report-request';
import { queryReport, type ReportDeps } from '../../functions/core/reports/query/report-service';
import { dynamoFactRepository, newReadStats } from '../../functions/core/reports/storage/fact-repository';
import { dynamoRateRepository } from '../../functions/core/reports/storage/rate-repository';
import { useOwnTable } from '../support/own-table';

useOwnTable('directory-links');

let table: TableContext;
const sent: unknown[] = [];

beforeAll(() => {
  const db: DynamoDBDocumentClient = createDocumentClient(process.env.DYNAMODB_ENDPOINT);
  const send = db.send.bind(db) as (command: unknown) => Promise<unknown>;
  (db as { send: unknown }).send = (command: unknown) => {
    sent.push(command);
    return send(command);
  };
  table = { db, tableName: process.env.TABLE_NAME as string };
});

afterAll(() => table.db.destroy());

const fresh = () => randomBytes(4).toString('hex');

const world = (
  co: string,
  managers: string[],
  links: { channelId: string; linkedSince: string }[],
): DirectoryWorld => ({
  users: managers.map((sub) => ({ sub, contentOwners: [co] })),
  channels: [],
  contentOwners: [{ id: co, displayName: `Links ${co}`, linkedChannels: links }],
  accounts: [],
  properties: [],
});

const link = (channelId: string, linkedSince: string) => ({ channelId, linkedSince });

describe('contentOwnerAccess', () => {
  it('reads the grant and the CHANNELS list by key: one BatchGetItem, links in channel order', async () => {
    const t = fresh();
    const [co, sub] = [`co-${t}`, `m-${t}`];
    await loadDirectory(table, world(co, [sub], [link('UCb', '2024-05-01'), link('UCa', '2023-01-15')]));
    sent.length = 0;
    const access = await dynamoDirectoryRepository(table).contentOwnerAccess(co, sub);
    expect(access).toEqual({ manages: true, links: [link('UCa', '2023-01-15'), link('UCb', '2024-05-01')] });
    expect(sent.map((c) => (c as object).constructor.name)).toEqual(['BatchGetCommand']);
    expect((sent[0] as BatchGetCommand).input.RequestItems?.[table.tableName]?.ConsistentRead).toBe(true);
    // Someone else: the same links, no grant.
    expect(await dynamoDirectoryRepository(table).contentOwnerAccess(co, `other-${t}`)).toEqual({
      manages: false,
      links: access.links,
    });
  });

  it('keeps the links of earlier loads; a reload changes nothing; a later load moves a link date', async () => {
    const t = fresh();
    const [co, sub] = [`co-${t}`, `m-${t}`];
    await loadDirectory(table, world(co, [sub], [link('UC1', '2020-01-01')]));
    await loadDirectory(table, world(co, [], [link('UC2', '2021-02-02'), link('UC3', '2022-03-03')]));
    await loadDirectory(table, world(co, [], [link('UC2', '2021-02-02'), link('UC3', '2022-03-03')]));
    const repo = dynamoDirectoryRepository(table);
    expect((await repo.contentOwnerAccess(co, sub)).links).toEqual([
      link('UC1', '2020-01-01'),
      link('UC2', '2021-02-02'),
      link('UC3', '2022-03-03'),
    ]);
    await loadDirectory(table, world(co, [], [link('UC1', '2020-06-30')]));
    expect((await repo.contentOwnerAccess(co, sub)).links[0]).toEqual(link('UC1', '2020-06-30'));
  });

  it('without the list (loaded by an earlier release) reads the same from one Query of the link items', async () => {
    const t = fresh();
    const [co, sub] = [`co-${t}`, `m-${t}`];
    await loadDirectory(table, world(co, [sub], [link('UCy', '2025-01-01'), link('UCx', '2024-01-01')]));
    const repo = dynamoDirectoryRepository(table);
    const withList = await repo.contentOwnerAccess(co, sub);
    await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: keys.contentOwnerChannels(co) }));
    sent.length = 0;
    expect(await repo.contentOwnerAccess(co, sub)).toEqual(withList);
    expect(sent.map((c) => (c as object).constructor.name)).toEqual(['BatchGetCommand', 'QueryCommand']);
    expect(await repo.contentOwnerAccess(co, `other-${t}`)).toEqual({ manages: false, links: withList.links });
  });

  it(`marks a list that would pass ${MAX_LISTED_LINKS} links as overflowing; the Query then answers`, async () => {
    const t = fresh();
    const [co, sub] = [`co-${t}`, `m-${t}`];
    // A list already near the cap (written directly: loading thousands of links one by one is slow here).
    const near = Object.fromEntries(
      Array.from({ length: MAX_LISTED_LINKS - 10 }, (_, i) => [`UCfill${i}`, '2019-01-01']),
    );
    await table.db.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...keys.contentOwnerChannels(co), entity: 'ChannelLinks', links: near },
      }),
    );
    const added = Array.from({ length: 20 }, (_, i) => link(`UCnew${String(i).padStart(2, '0')}`, '2026-01-01'));
    await loadDirectory(table, world(co, [sub], added));
    const stored = await table.db.send(
      new GetCommand({
        TableName: table.tableName,
        Key: keys.contentOwnerChannels(co),
        ProjectionExpression: 'overflow',
      }),
    );
    expect(stored.Item).toEqual({ overflow: true });
    sent.length = 0;
    // The filler entries have no link items: the Query of the link items decides, and sees just the 20 loaded.
    expect(await dynamoDirectoryRepository(table).contentOwnerAccess(co, sub)).toEqual({ manages: true, links: added });
    expect(sent.some((c) => c instanceof QueryCommand)).toBe(true);
  });

  it('never overwrites another kind of item at the list key', async () => {
    const t = fresh();
    const co = `co-${t}`;
    await table.db.send(
      new PutCommand({ TableName: table.tableName, Item: { ...keys.contentOwnerChannels(co), entity: 'Something' } }),
    );
    await expect(loadDirectory(table, world(co, [], [link('UCz', '2026-01-01')]))).rejects.toThrow();
  });
});

describe('a content-owner report', () => {
  it('reads the grant, the links and the fact blocks of a year of top videos in one BatchGetItem', async () => {
    const t = fresh();
    const [co, sub] = [`co-${t}`, `m-${t}`];
    await loadDirectory(table, world(co, [sub], [link(`UC${t}`, '2020-01-01')]));
    const deps: ReportDeps = {
      directory: dynamoDirectoryRepository(table),
      groups: dynamoGroupRepository(table),
      facts: dynamoFactRepository(table),
      rates: dynamoRateRepository(table),
    };
    const req = parseReportRequest({
      ids: `contentOwner==${co}`,
      startDate: '2025-11-01',
      endDate: '2026-10-31',
      metrics: 'estimatedRevenue',
      dimensions: 'video',
      filters: 'claimedStatus==claimed',
      sort: '-estimatedRevenue',
      maxResults: '10',
    });
    sent.length = 0;
    const caller = { sub, scopes: new Set(['video-analytics.readonly', 'video-analytics-monetary.readonly'] as const) };
    const answer = await queryReport(deps, caller, req, newReadStats());
    expect(answer.rows).toBeUndefined(); // no facts loaded for this owner
    const first = sent[0] as BatchGetCommand;
    expect(first).toBeInstanceOf(BatchGetCommand);
    const firstKeys = (first.input.RequestItems?.[table.tableName]?.Keys ?? []).map((k) => String(k.pk));
    expect(firstKeys).toContain(keys.contentOwnerChannels(co).pk);
    expect(firstKeys.some((pk) => pk.startsWith('FACT#'))).toBe(true);
    // No Query of the directory: only the facts' (blocks not stored here are read as their months).
    const queries = sent.filter((c): c is QueryCommand => c instanceof QueryCommand);
    expect(queries.every((q) => String(q.input.ExpressionAttributeValues?.[':pk']).startsWith('FACT#'))).toBe(true);
  });
});
