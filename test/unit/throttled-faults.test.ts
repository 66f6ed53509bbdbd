/**
 * DynamoDB throttling that outlasts the client's own retries, on the operations that only read: reports.query and
 * properties.get answer 503 UNAVAILABLE in Google's error shape (retry later), never a 500.
 *
 * aws-sdk-client-mock is used here ONLY because DynamoDB Local never throttles (it ignores throughput; see
 * /work/shared/reference/toolchain.md §5.6). The wire client's own retries of a throttle are tested against a
 * loopback server in wire-client.test.ts; the groups' in groups-faults.test.ts.
 */
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { makeHandler as makePropertiesHandler } from '../../functions/analytics-admin/properties-get';
import { createDocumentClient } from '../../functions/core/db/document-client';
import { dynamoDirectoryRepository } from '../../functions/core/directory/directory-repository';
import { dynamoGroupReader } from '../../functions/core/groups/group-reader';
import { dynamoPropertyRepository } from '../../functions/core/properties/property-repository';
import { dynamoFactRepository } from '../../functions/core/reports/storage/fact-repository';
import { dynamoRateRepository } from '../../functions/core/reports/storage/rate-repository';
import { DEFAULT_SCOPE_BASE, scopeUri } from '../../functions/core/scopes';
import { makeHandler as makeReportsHandler } from '../../functions/youtube-analytics/reports-query';
import { proxyEvent } from '../support/proxy-event';

// Port 1 on loopback: if a call ever escaped the mock it would fail fast instead of reaching anything real.
const db = createDocumentClient('http://127.0.0.1:1');
const ddb = mockClient(db);
const table = { db, tableName: 't' };

afterAll(() => {
  ddb.restore();
  db.destroy();
});

beforeEach(() => {
  ddb.reset();
});

const throttle = () =>
  new ProvisionedThroughputExceededException({
    $metadata: { httpStatusCode: 400, attempts: 3 },
    message: 'The level of configured provisioned throughput for the table was exceeded.',
  });

const caller = (scope: 'video-analytics.readonly' | 'analytics.readonly') => ({
  sub: 'alice',
  scope: scopeUri(DEFAULT_SCOPE_BASE, scope),
  exp: String(Math.floor(Date.now() / 1000) + 3600),
});

function expectUnavailable(res: { statusCode: number; body: string }) {
  expect(res.statusCode).toBe(503);
  const body = JSON.parse(res.body) as { error: Record<string, unknown> };
  expect(body.error).toMatchObject({
    code: 503,
    status: 'UNAVAILABLE',
    errors: [expect.objectContaining({ reason: 'backendError' })],
  });
  expect(String(body.error.message)).toMatch(/retry/);
  expect(res.body).not.toMatch(/ProvisionedThroughput|at .*\.ts/);
}

/** properties.get of property 1000 as alice, through the handler over the mocked client. */
const getProperty = () =>
  makePropertiesHandler({ properties: dynamoPropertyRepository(table), directory: dynamoDirectoryRepository(table) })(
    proxyEvent(
      {
        resource: '/v1alpha/properties/{propertiesId}',
        path: '/v1alpha/properties/1000',
        pathParameters: { propertiesId: '1000' },
      },
      caller('analytics.readonly'),
    ),
  );

describe('throttled beyond the client retries', () => {
  it('reports.query → 503 UNAVAILABLE backendError', async () => {
    ddb.on(QueryCommand).rejects(throttle());
    ddb.on(BatchGetCommand).rejects(throttle());
    const handler = makeReportsHandler({
      directory: dynamoDirectoryRepository(table),
      groups: dynamoGroupReader(table),
      facts: dynamoFactRepository(table),
      rates: dynamoRateRepository(table),
    });
    const res = await handler(
      proxyEvent(
        {
          resource: '/v2/reports',
          path: '/v2/reports',
          queryStringParameters: {
            ids: 'channel==MINE',
            startDate: '2025-01-01',
            endDate: '2025-12-31',
            metrics: 'views',
          },
        },
        caller('video-analytics.readonly'),
      ),
    );
    expectUnavailable(res);
  });

  it('properties.get → 503 UNAVAILABLE backendError', async () => {
    ddb.on(GetCommand).rejects(throttle());
    ddb.on(QueryCommand).rejects(throttle());
    ddb.on(BatchGetCommand).rejects(throttle());
    const res = await getProperty();
    expectUnavailable(res);
  });

  it('a failure that is not a throttle stays a 500 backendError without its message', async () => {
    ddb.on(GetCommand).rejects(new Error('socket hang up at /var/task/index.mjs'));
    ddb.on(QueryCommand).rejects(new Error('socket hang up at /var/task/index.mjs'));
    ddb.on(BatchGetCommand).rejects(new Error('socket hang up at /var/task/index.mjs'));
    const res = await getProperty();
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toMatch(/socket hang up/);
  });
});
