/**
 * Logs and metrics as CloudWatch receives them: the EMF records and log lines the functions write to stdout/stderr,
 * captured and parsed. Metrics are published outside Lambda only when POWERTOOLS_METRICS_DISABLED is set, and the
 * logger reads its level when it is built, so both are set before the modules are imported.
 */
import type { APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Decide } from '../../functions/authorizer/decide';
import { DomainError } from '../../functions/core/errors';
import { proxyEvent } from '../support/proxy-event';

vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'INFO');
const { logger, MetricUnit, publishIngestMetrics, withRequestContext } = await import(
  '../../functions/_shared/observability'
);
const { httpHandler } = await import('../../functions/_shared/http-handler');
const { jsonResult } = await import('../../functions/_shared/http-result');
const { makeLambdaAuthorizer } = await import('../../functions/authorizer/authorize');
const { METRIC } = await import('../../functions/_shared/metric-names');
const { LIST_GROUPS_FIELDS, QUERY_RESPONSE_FIELDS } = await import('../../functions/schemas');

type Json = Record<string, any>;

let written: string[] = [];
beforeEach(() => {
  written = [];
  const keep = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(keep);
  vi.spyOn(process.stderr, 'write').mockImplementation(keep);
});
afterEach(() => {
  vi.restoreAllMocks();
});

const records = (): Json[] =>
  written
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Json);
const emfRecords = () => records().filter((r) => r._aws !== undefined);
const logLines = () => records().filter((r) => r._aws === undefined);

/** The one EMF record written, checked for the house rules: one namespace, `operation` the only dimension. */
function onlyEmf(): Json {
  const emf = emfRecords();
  expect(emf, written.join('')).toHaveLength(1);
  const record = emf[0] as Json;
  expect(record._aws.CloudWatchMetrics).toHaveLength(1);
  expect(record._aws.CloudWatchMetrics[0].Namespace).toBe('analytics-api');
  expect(record._aws.CloudWatchMetrics[0].Dimensions).toEqual([['operation']]);
  expect(record.service).toBeUndefined();
  return record;
}

const units = (record: Json): Record<string, string> =>
  Object.fromEntries(record._aws.CloudWatchMetrics[0].Metrics.map((m: Json) => [m.Name, m.Unit]));

const lambdaContext = (awsRequestId: string): Context =>
  ({
    awsRequestId,
    functionName: 'fn',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:111111111111:function:fn',
    memoryLimitInMB: '512',
  }) as Context;

const request = (requestId: string) => proxyEvent({}, undefined, requestId);

describe('publishIngestMetrics', () => {
  it('writes one EMF record of the ingest operation with files, rows, seconds, rejected and lag', () => {
    publishIngestMetrics({ files: 3, rows: 12_345, seconds: 4.5, rejected: 1, lagSeconds: 97 });

    const record = onlyEmf();
    expect(record.operation).toBe('ingest');
    expect(units(record)).toEqual({
      [METRIC.filesLoaded]: 'Count',
      [METRIC.rowsLoaded]: 'Count',
      [METRIC.ingestSeconds]: 'Seconds',
      [METRIC.filesRejected]: 'Count',
      [METRIC.ingestLag]: 'Seconds',
    });
    expect(record[METRIC.filesLoaded]).toBe(3);
    expect(record[METRIC.rowsLoaded]).toBe(12_345);
    expect(record[METRIC.ingestSeconds]).toBe(4.5);
    expect(record[METRIC.filesRejected]).toBe(1);
    expect(record[METRIC.ingestLag]).toBe(97);
  });

  it('leaves the lag out when no file was loaded', () => {
    publishIngestMetrics({ files: 0, rows: 0, seconds: 0.2, rejected: 1 });

    const record = onlyEmf();
    expect(Object.keys(units(record))).not.toContain(METRIC.ingestLag);
    expect(record[METRIC.filesRejected]).toBe(1);
  });

  it('publishes nothing outside Lambda unless POWERTOOLS_METRICS_DISABLED is set', () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', undefined);
    try {
      publishIngestMetrics({ files: 1, rows: 1, seconds: 1, rejected: 0 });
    } finally {
      vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    }

    expect(emfRecords()).toEqual([]);
  });
});

describe('httpHandler metrics and logs', () => {
  it('publishes the figures the operation added, once per request, under its operation', async () => {
    const handler = httpHandler('groups.list', { body: 'none', response: LIST_GROUPS_FIELDS }, async ({ figures }) => {
      figures.add(METRIC.itemsRead, MetricUnit.Count, 7).property('family', 'channel_basic');
      return jsonResult(200, {});
    });

    await handler(request('req-1'));

    const record = onlyEmf();
    expect(record.operation).toBe('groups.list');
    expect(units(record)).toEqual({ [METRIC.itemsRead]: 'Count' });
    expect(record[METRIC.itemsRead]).toBe(7);
    expect(record.family).toBe('channel_basic');
  });

  it('adds the latency when the operation asks for it, also of a request that fails', async () => {
    const handler = httpHandler(
      'reports.query',
      { body: 'none', latencyMetric: true, response: QUERY_RESPONSE_FIELDS },
      async ({ figures }) => {
        figures.add(METRIC.itemsRead, MetricUnit.Count, Number.NaN);
        throw new DomainError('not_found', 'notFound', 'No such group.');
      },
    );

    const result = await handler(request('req-2'));

    expect(result.statusCode).toBe(404);
    const record = onlyEmf();
    expect(units(record)).toEqual({ [METRIC.latency]: 'Milliseconds' });
    expect(record[METRIC.latency]).toBeGreaterThanOrEqual(0);
  });

  it('publishes nothing for a request that measured nothing', async () => {
    const handler = httpHandler('groups.list', { body: 'none', response: LIST_GROUPS_FIELDS }, async () =>
      jsonResult(200, {}),
    );

    await handler(request('req-3'));

    expect(emfRecords()).toEqual([]);
  });

  it('logs with the API request id, the operation and the Lambda context, and only during the request', async () => {
    const handler = httpHandler('groups.list', { body: 'none', response: LIST_GROUPS_FIELDS }, async () => {
      logger.info('inside');
      return jsonResult(200, {});
    });

    await handler(request('api-req-9'), lambdaContext('lambda-req-9'));
    logger.info('after');

    const [inside, after] = logLines();
    expect(inside).toMatchObject({
      message: 'inside',
      operation: 'groups.list',
      correlation_id: 'api-req-9',
      function_request_id: 'lambda-req-9',
    });
    expect(after?.message).toBe('after');
    expect(after?.correlation_id).toBeUndefined();
    expect(after?.operation).toBeUndefined();
  });

  it('logs the 500 of an unexpected error with the request id the caller sees', async () => {
    const handler = httpHandler('groups.list', { body: 'none', response: LIST_GROUPS_FIELDS }, async () => {
      throw new Error('boom');
    });

    const result = await handler(request('api-req-500'), lambdaContext('lambda-req-500'));

    expect(JSON.parse(result.body).error.message).toContain('api-req-500');
    expect(logLines().find((l) => l.message === 'unhandled error')).toMatchObject({
      correlation_id: 'api-req-500',
      function_request_id: 'lambda-req-500',
    });
  });
});

describe('withRequestContext', () => {
  it('takes the Lambda request id as correlation id when the event has none (the ingest)', async () => {
    const handler = withRequestContext('ingest', async () => {
      logger.info('loading');
    });

    await handler({ Records: [] }, lambdaContext('lambda-ingest-1'));

    expect(logLines()[0]).toMatchObject({
      operation: 'ingest',
      correlation_id: 'lambda-ingest-1',
      function_request_id: 'lambda-ingest-1',
    });
  });
});

describe('makeLambdaAuthorizer', () => {
  const authorizerEvent = (requestId: string) =>
    ({
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:eu-west-1:111111111111:abc/v/GET/v2/groups',
      resource: '/v2/groups',
      httpMethod: 'GET',
      headers: {},
      requestContext: { requestId },
    }) as unknown as APIGatewayRequestAuthorizerEvent;
  const decideAs =
    (decision: Awaited<ReturnType<Decide>>): Decide =>
    async () =>
      decision;

  it('counts a 401 (the thrown "Unauthorized") as Unauthenticated', async () => {
    const handler = makeLambdaAuthorizer(decideAs({ effect: 'deny', reason: 'unauthenticated' }));

    await expect(handler(authorizerEvent('auth-1'))).rejects.toThrow('Unauthorized');

    const record = onlyEmf();
    expect(record.operation).toBe('authorizer');
    expect(units(record)).toEqual({ [METRIC.unauthenticated]: 'Count' });
    expect(record[METRIC.unauthenticated]).toBe(1);
  });

  it('publishes nothing for a 403 or an allow (Lambda’s own metrics count those invocations)', async () => {
    const deny = makeLambdaAuthorizer(decideAs({ effect: 'deny', reason: 'insufficient_scope' }));

    const result = await deny(authorizerEvent('auth-2'));

    expect(result.policyDocument.Statement[0]).toMatchObject({ Effect: 'Deny' });
    expect(emfRecords()).toEqual([]);
  });

  it('logs with the API request id', async () => {
    const failing = makeLambdaAuthorizer(async () => {
      logger.warn('verifier trouble');
      return { effect: 'deny', reason: 'unauthenticated' };
    });

    await expect(failing(authorizerEvent('auth-3'), lambdaContext('lambda-auth-3'))).rejects.toThrow();

    expect(logLines()[0]).toMatchObject({ operation: 'authorizer', correlation_id: 'auth-3' });
  });
});
