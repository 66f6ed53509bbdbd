/**
 * Fault injection for the group repository's DynamoDB calls: transaction conflicts, throttling, validation errors.
 *
 * aws-sdk-client-mock is used here ONLY because DynamoDB Local cannot produce these faults: it serialises
 * transactions (never a TransactionConflict) and ignores throughput (never a throttle); see
 * /work/shared/reference/toolchain.md §5.5–5.6. Everything Local can do is tested against Local in
 * test/integration/groups-*.test.ts.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import { DomainError } from '../../functions/core/errors';
import { newGroupId } from '../../functions/core/groups/group';
import { dynamoGroupRepository } from '../../functions/core/groups/group-repository';
import type { GroupDeps } from '../../functions/core/groups/group-service';
import { hmacPageTokens } from '../../functions/core/groups/page-token';
import { makeHandler as makeInsertItemHandler } from '../../functions/youtube-analytics/group-items-insert';
import { makeHandler as makeUpdateHandler } from '../../functions/youtube-analytics/groups-update';
import { proxyEvent } from '../support/proxy-event';

const ATTEMPTS = 4;
const ACTOR = 'channel:UCdemo-alice';
const GROUP = '00mwriziz50Id5RQWjL00TGg';

// Port 1 on loopback: if a call ever escaped the mock it would fail fast instead of reaching anything real.
const db = createDocumentClient('http://127.0.0.1:1');
const ddb = mockClient(db);
const repo = dynamoGroupRepository({ db, tableName: 't' }, { attempts: ATTEMPTS, baseDelayMs: 1 });

afterAll(() => {
  ddb.restore();
  db.destroy();
});

beforeEach(() => {
  ddb.reset();
});

type Code =
  | 'None'
  | 'ConditionalCheckFailed'
  | 'TransactionConflict'
  | 'ThrottlingError'
  | 'ValidationError'
  | 'ProvisionedThroughputExceeded';

const canceled = (codes: Code[], items: (Record<string, unknown> | undefined)[] = []) =>
  new TransactionCanceledException({
    $metadata: { httpStatusCode: 400 },
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
    CancellationReasons: codes.map((Code, i) => {
      const item = items[i];
      return item ? { Code, Item: marshall(item) } : { Code };
    }),
  });

const sdkError = (name: string) =>
  Object.assign(new Error(`${name} (injected)`), { name, $fault: 'client', $metadata: { httpStatusCode: 400 } });

const insert = () => repo.insertItem(ACTOR, GROUP, 'youtube#video', 'alice-v0001');

const transactInputs = () => ddb.commandCalls(TransactWriteCommand).map((c) => c.args[0].input);

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('groupItems.insert transaction under faults', () => {
  it('retries a TransactionConflict once and succeeds: exactly two calls', async () => {
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(canceled(['None', 'TransactionConflict', 'None']))
      .resolves({});

    const out = await insert();

    expect(out.created).toBe(true);
    expect(out.item).toMatchObject({ groupId: GROUP, kind: 'youtube#video', resourceId: 'alice-v0001' });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(2);
  });

  it('gives up after exactly 4 attempts of constant conflict: DomainError aborted (409)', async () => {
    ddb.on(TransactWriteCommand).rejects(canceled(['None', 'TransactionConflict', 'None']));

    const err = await rejection(insert());

    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ kind: 'aborted' });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(ATTEMPTS);
  });

  it('constant throttling inside the transaction → after 4 attempts DomainError unavailable (503)', async () => {
    ddb.on(TransactWriteCommand).rejects(canceled(['None', 'ThrottlingError', 'None']));

    const err = await rejection(insert());

    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ kind: 'unavailable' });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(ATTEMPTS);
  });

  it('ProvisionedThroughputExceeded is transient too', async () => {
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(canceled(['ProvisionedThroughputExceeded', 'None', 'None']))
      .resolves({});

    await expect(insert()).resolves.toMatchObject({ created: true });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(2);
  });

  it('retries a condition failure next to a conflict ([ConditionalCheckFailed, TransactionConflict])', async () => {
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(canceled(['ConditionalCheckFailed', 'TransactionConflict', 'None']))
      .resolves({});

    await expect(insert()).resolves.toMatchObject({ created: true });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(2);
  });

  it('a condition failure next to a constant conflict ends as aborted, not as a condition answer', async () => {
    ddb.on(TransactWriteCommand).rejects(canceled(['ConditionalCheckFailed', 'TransactionConflict', 'None']));

    await expect(insert()).rejects.toMatchObject({ kind: 'aborted' });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(ATTEMPTS);
  });

  it('a ValidationError cancellation is not retried and not turned into a 4xx domain error', async () => {
    const injected = canceled(['None', 'ValidationError', 'None']);
    ddb.on(TransactWriteCommand).rejectsOnce(injected).resolves({});

    const err = await rejection(insert());

    expect(err).not.toBeInstanceOf(DomainError);
    expect(err).toBe(injected);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('a plain condition failure is not retried: one call, classified from the returned images', async () => {
    const full = {
      ...{ pk: `OWNER#${ACTOR}`, sk: `GROUP#${GROUP}` },
      id: GROUP,
      actor: ACTOR,
      title: 't',
      itemCount: 500,
      itemType: 'youtube#video',
      status: 'active',
      etag: '"e"',
      publishedAt: '2026-01-01T00:00:00.000Z',
    };
    ddb.on(TransactWriteCommand).rejects(canceled(['None', 'ConditionalCheckFailed', 'None'], [undefined, full]));
    await expect(insert()).rejects.toMatchObject({ kind: 'failed_precondition', reason: 'itemLimitReached' });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);

    ddb.reset();
    ddb
      .on(TransactWriteCommand)
      .rejects(canceled(['None', 'ConditionalCheckFailed', 'None'], [undefined, { ...full, status: 'deleting' }]));
    await expect(insert()).rejects.toMatchObject({ kind: 'not_found', reason: 'groupNotFound' });

    ddb.reset();
    ddb
      .on(TransactWriteCommand)
      .rejects(
        canceled(
          ['None', 'ConditionalCheckFailed', 'None'],
          [undefined, { ...full, itemCount: 3, itemType: 'youtube#playlist' }],
        ),
      );
    await expect(insert()).rejects.toMatchObject({ kind: 'failed_precondition', reason: 'itemTypeMismatch' });

    ddb.reset();
    ddb.on(TransactWriteCommand).rejects(canceled(['None', 'None', 'ConditionalCheckFailed']));
    await expect(insert()).rejects.toMatchObject({ kind: 'not_found', reason: 'resourceNotFound' });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('never a double count: every attempt sends the same TransactItems and nothing else is written', async () => {
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(canceled(['None', 'TransactionConflict', 'None']))
      .rejectsOnce(canceled(['TransactionConflict', 'None', 'None']))
      .resolves({});

    await insert();

    const inputs = transactInputs();
    expect(inputs).toHaveLength(3);
    for (const input of inputs) expect(input).toEqual(inputs[0]);
    const actions = inputs[0]?.TransactItems ?? [];
    expect(actions).toHaveLength(3);
    const [put, update, check] = actions;
    // The membership item is the idempotency marker: its key is fixed, and it must not exist yet.
    expect(put?.Put?.Item).toMatchObject({ pk: `OWNER#${ACTOR}`, sk: `ITEM#${GROUP}#VIDEO#alice-v0001` });
    expect(put?.Put?.ConditionExpression).toBe('attribute_not_exists(pk)');
    // The count moves by exactly one, in the same transaction, and only while under the limit.
    expect(update?.Update?.Key).toEqual({ pk: `OWNER#${ACTOR}`, sk: `GROUP#${GROUP}` });
    expect(update?.Update?.UpdateExpression).toMatch(/itemCount = itemCount \+ :one/);
    expect(update?.Update?.ExpressionAttributeValues?.[':one']).toBe(1);
    expect(update?.Update?.ConditionExpression).toMatch(/itemCount < :max/);
    expect(update?.Update?.ExpressionAttributeValues?.[':max']).toBe(500);
    expect(check?.ConditionCheck?.Key).toEqual({ pk: 'VIDEO#alice-v0001', sk: 'DIR' });
    // No write outside the transaction (no separate counter update, no second put).
    expect(ddb.calls()).toHaveLength(3);
  });
});

describe('groupItems.delete transaction under faults', () => {
  it('retries a conflict with the same input, then succeeds', async () => {
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(canceled(['None', 'TransactionConflict']))
      .resolves({});

    await repo.deleteItem(ACTOR, GROUP, 'youtube#video', 'alice-v0001', 'item-id');

    const inputs = transactInputs();
    expect(inputs).toHaveLength(2);
    expect(inputs[1]).toEqual(inputs[0]);
    expect(inputs[0]?.TransactItems?.[1]?.Update?.UpdateExpression).toMatch(/itemCount = itemCount - :one/);
  });

  it('a missing membership → groupItemNotFound after one call', async () => {
    ddb.on(TransactWriteCommand).rejects(canceled(['ConditionalCheckFailed', 'None']));

    await expect(repo.deleteItem(ACTOR, GROUP, 'youtube#video', 'v', 'item-id')).rejects.toMatchObject({
      kind: 'not_found',
      reason: 'groupItemNotFound',
    });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });
});

describe('single-item calls under faults', () => {
  it('updateTitle: ThrottlingException → DomainError unavailable', async () => {
    ddb.on(UpdateCommand).rejects(sdkError('ThrottlingException'));

    const err = await rejection(repo.updateTitle(ACTOR, GROUP, 'New'));

    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ kind: 'unavailable' });
  });

  it('updateTitle: ProvisionedThroughputExceededException → unavailable; TransactionConflictException → aborted', async () => {
    ddb.on(UpdateCommand).rejects(sdkError('ProvisionedThroughputExceededException'));
    await expect(repo.updateTitle(ACTOR, GROUP, 'New')).rejects.toMatchObject({ kind: 'unavailable' });

    ddb.reset();
    ddb.on(UpdateCommand).rejects(sdkError('TransactionConflictException'));
    await expect(repo.updateTitle(ACTOR, GROUP, 'New')).rejects.toMatchObject({ kind: 'aborted' });
  });

  it('an unknown SDK error passes through untranslated (a 500, never a 4xx)', async () => {
    const injected = sdkError('InternalServerError');
    ddb.on(UpdateCommand).rejects(injected);

    await expect(repo.updateTitle(ACTOR, GROUP, 'New')).rejects.toBe(injected);
  });

  it('reads: a throttled Query → unavailable', async () => {
    ddb.on(QueryCommand).rejects(sdkError('ThrottlingException'));

    await expect(repo.get(ACTOR, GROUP)).rejects.toMatchObject({ kind: 'unavailable' });
    await expect(repo.listItems(ACTOR, GROUP)).rejects.toMatchObject({ kind: 'unavailable' });
  });
});

describe('through the handlers: Google error bodies', () => {
  const deps: GroupDeps = {
    groups: repo,
    directory: {
      profile: async (sub) => ({ sub, channels: ['UCdemo-alice'], contentOwners: [], reads: new Set<string>() }),
    },
    pageTokens: hmacPageTokens('x'),
    now: () => new Date(),
    newId: newGroupId,
  };

  const event = (httpMethod: string, resource: string, body: unknown): APIGatewayProxyEvent =>
    proxyEvent({ resource, path: resource, httpMethod, body: JSON.stringify(body) }, undefined, 'req-faults');

  const insertEvent = () =>
    event('POST', '/v2/groupItems', { groupId: GROUP, resource: { kind: 'youtube#video', id: 'alice-v0001' } });

  it('groupItems.insert under constant conflict → 409 ABORTED', async () => {
    ddb.on(TransactWriteCommand).rejects(canceled(['None', 'TransactionConflict', 'None']));

    const res = await makeInsertItemHandler(deps)(insertEvent());

    expect(res.statusCode).toBe(409);
    const body = JSON.parse(res.body);
    expect(body.error).toMatchObject({ code: 409, status: 'ABORTED' });
    expect(body.error.errors[0]).toMatchObject({ reason: 'aborted', domain: 'global' });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(ATTEMPTS);
  });

  it('groupItems.insert under constant throttling → 503 UNAVAILABLE', async () => {
    ddb.on(TransactWriteCommand).rejects(canceled(['None', 'ThrottlingError', 'None']));

    const res = await makeInsertItemHandler(deps)(insertEvent());

    expect(res.statusCode).toBe(503);
    const body = JSON.parse(res.body);
    expect(body.error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
    expect(body.error.errors[0].reason).toBe('backendError');
  });

  it('groupItems.insert with a ValidationError cancellation → 500 INTERNAL without internals', async () => {
    ddb.on(TransactWriteCommand).rejects(canceled(['ValidationError', 'None', 'None']));

    const res = await makeInsertItemHandler(deps)(insertEvent());

    expect(res.statusCode).toBe(500);
    expect(JSON.parse(res.body).error).toMatchObject({ code: 500, status: 'INTERNAL' });
    expect(res.body).not.toMatch(/ValidationError|Transaction|cancel/i);
  });

  it('groupItems.insert after one conflict → 200 with the item', async () => {
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(canceled(['None', 'TransactionConflict', 'None']))
      .resolves({});

    const res = await makeInsertItemHandler(deps)(insertEvent());

    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({
      kind: 'youtube#groupItem',
      groupId: GROUP,
      resource: { kind: 'youtube#video', id: 'alice-v0001' },
    });
  });

  it('groups.update throttled → 503 UNAVAILABLE', async () => {
    ddb.on(UpdateCommand).rejects(sdkError('ThrottlingException'));

    const res = await makeUpdateHandler(deps)(event('PUT', '/v2/groups', { id: GROUP, snippet: { title: 'x' } }));

    expect(res.statusCode).toBe(503);
    expect(JSON.parse(res.body).error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
  });
});
