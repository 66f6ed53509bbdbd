/**
 * A content owner's links and grants as content-owner reports read them (access pattern D4), against DynamoDB
 * Local: the CHANNELS list an apply keeps beside the link items, read by key in the same request as the report's
 * facts; the Query of the link items when the list is missing (a directory an earlier release loaded) or marked
 * overflowing (by an earlier release).
 * The client's `send` is wrapped only to record the commands that reach DynamoDB.
 */
import { randomBytes } from 'node:crypto';
import {
  BatchGetCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import * as keys from '../../functions/core/db/keys';
import { type DirectoryWorld, loadDirectory } from '../../functions/core/directory/directory-loader';
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
  // A content owner links channels the directory defines.
  channels: links.map((l) => ({ id: l.channelId, title: l.channelId })),
  contentOwners: [{ id: co, displayName: `Links ${co}`, linkedChannels: links }],
  accounts: [],
  properties: [],
});

const link = (channelId: string, linkedSince: string) => ({ channelId, linkedSince });

describe('contentOwnerAccess', () => {
  it('reads the grant and the CHANNELS list by key: one BatchGetItem, links in channel order', async () => {
    const t = fresh();
    const [co, sub] = [`co-${t}`, `m-${t}`];
    const [a, b] = [`UCa${t}`, `UCb${t}`];
    await loadDirectory(table, world(co, [sub], [link(b, '2024-05-01'), link(a, '2023-01-15')]));
    sent.length = 0;
    const access = await dynamoDirectoryRepository(table).contentOwnerAccess(co, sub);
    expect(access).toEqual({ manages: true, links: [link(a, '2023-01-15'), link(b, '2024-05-01')] });
    expect(sent.map((c) => (c as object).constructor.name)).toEqual(['BatchGetCommand']);
    expect((sent[0] as BatchGetCommand).input.RequestItems?.[table.tableName]?.ConsistentRead).toBe(true);
    // Someone else: the same links, no grant.
    expect(await dynamoDirectoryRepository(table).contentOwnerAccess(co, `other-${t}`)).toEqual({
      manages: false,
      links: access.links,
    });
  });

  it('an apply sets the links the file states; a reapply changes nothing; a later one moves a link date', async () => {
    const t = fresh();
    const [co, sub] = [`co-${t}`, `m-${t}`];
    const [c1, c2, c3] = [`UC1${t}`, `UC2${t}`, `UC3${t}`];
    await loadDirectory(table, world(co, [sub], [link(c1, '2020-01-01')]));
    await loadDirectory(
      table,
      world(co, [sub], [link(c1, '2020-01-01'), link(c2, '2021-02-02'), link(c3, '2022-03-03')]),
    );
    expect(
      await loadDirectory(
        table,
        world(co, [sub], [link(c1, '2020-01-01'), link(c2, '2021-02-02'), link(c3, '2022-03-03')]),
      ),
    ).toBe(0);
    const repo = dynamoDirectoryRepository(table);
    expect((await repo.contentOwnerAccess(co, sub)).links).toEqual([
      link(c1, '2020-01-01'),
      link(c2, '2021-02-02'),
      link(c3, '2022-03-03'),
    ]);
    await loadDirectory(table, world(co, [sub], [link(c1, '2020-06-30')]));
    expect((await repo.contentOwnerAccess(co, sub)).links).toEqual([link(c1, '2020-06-30')]);
  });

  it('without the list (loaded by an earlier release) reads the same from one Query of the link items', async () => {
    const t = fresh();
    const [co, sub] = [`co-${t}`, `m-${t}`];
    await loadDirectory(table, world(co, [sub], [link(`UCy${t}`, '2025-01-01'), link(`UCx${t}`, '2024-01-01')]));
    const repo = dynamoDirectoryRepository(table);
    const withList = await repo.contentOwnerAccess(co, sub);
    await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: keys.contentOwnerChannels(co) }));
    sent.length = 0;
    expect(await repo.contentOwnerAccess(co, sub)).toEqual(withList);
    expect(sent.map((c) => (c as object).constructor.name)).toEqual(['BatchGetCommand', 'QueryCommand']);
    expect(await repo.contentOwnerAccess(co, `other-${t}`)).toEqual({ manages: false, links: withList.links });
  });

  it('a list an earlier release marked as overflowing is not used: the Query of the link items answers', async () => {
    const t = fresh();
    const [co, sub] = [`co-${t}`, `m-${t}`];
    const added = Array.from({ length: 20 }, (_, i) => link(`UCnew${t}${String(i).padStart(2, '0')}`, '2026-01-01'));
    await loadDirectory(table, world(co, [sub], added));
    await table.db.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...keys.contentOwnerChannels(co), entity: 'ChannelLinks', links: {}, overflow: true },
      }),
    );
    sent.length = 0;
    expect(await dynamoDirectoryRepository(table).contentOwnerAccess(co, sub)).toEqual({ manages: true, links: added });
    expect(sent.some((c) => c instanceof QueryCommand)).toBe(true);
  });

  it('never overwrites another kind of item at the list key', async () => {
    const t = fresh();
    const co = `co-${t}`;
    await table.db.send(
      new PutCommand({ TableName: table.tableName, Item: { ...keys.contentOwnerChannels(co), entity: 'Something' } }),
    );
    await expect(loadDirectory(table, world(co, [], [link(`UCz${t}`, '2026-01-01')]))).rejects.toThrow(
      /is not a directory item/,
    );
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
