/**
 * The structured logger (functions/_shared/logger.ts) and the EMF record (observability.ts), as CloudWatch receives
 * them: the lines written to stdout and stderr, captured and parsed.
 */
import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Logger } from '../../functions/_shared/logger';
import { METRIC, MetricUnit } from '../../functions/_shared/metric-names';
import { emfRecord, InvocationFigures, publishFigures } from '../../functions/_shared/observability';

type Json = Record<string, any>;

let out: string[] = [];
let err: string[] = [];
beforeEach(() => {
  out = [];
  err = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => out.push(String(chunk)) > 0);
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => err.push(String(chunk)) > 0);
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

const parsed = (lines: string[]): Json[] => lines.map((l) => JSON.parse(l) as Json);

const context = (awsRequestId: string): Context =>
  ({
    awsRequestId,
    functionName: 'fn',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:111111111111:function:fn',
    memoryLimitInMB: '512',
  }) as Context;

describe('Logger', () => {
  it('writes one JSON line per call in the Powertools format: info on stdout, warnings and errors on stderr', () => {
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'DEBUG');
    vi.stubEnv('_X_AMZN_TRACE_ID', 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1');
    const logger = new Logger('svc');

    logger.debug('d', { n: 1 });
    logger.info('i');
    logger.warn('w');
    logger.error('e');

    expect(out.every((l) => l.endsWith('\n'))).toBe(true);
    const [d, i] = parsed(out);
    expect(d).toMatchObject({ level: 'DEBUG', message: 'd', service: 'svc', n: 1 });
    expect(d?.xray_trace_id).toBe('1-5759e988-bd862e3fe1be46a994272793');
    expect(new Date(d?.timestamp).toISOString()).toBe(d?.timestamp);
    expect(i).toMatchObject({ level: 'INFO', message: 'i' });
    expect(parsed(err).map((l) => l.level)).toEqual(['WARN', 'ERROR']);
  });

  it('keeps below the level of POWERTOOLS_LOG_LEVEL, or of AWS_LAMBDA_LOG_LEVEL when that is stricter', () => {
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'warn');
    const warnOnly = new Logger('svc');
    warnOnly.info('hidden');
    warnOnly.warn('shown');
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'DEBUG');
    vi.stubEnv('AWS_LAMBDA_LOG_LEVEL', 'ERROR');
    const lambdaStricter = new Logger('svc');
    lambdaStricter.warn('hidden too');
    lambdaStricter.error('shown too');
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'SILENT');
    vi.stubEnv('AWS_LAMBDA_LOG_LEVEL', '');
    new Logger('svc').error('never');

    expect(out).toEqual([]);
    expect(parsed(err).map((l) => l.message)).toEqual(['shown', 'shown too']);
  });

  it('adds the Lambda context (cold start on the first invocation only) and the appended keys until removed', () => {
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'INFO');
    const logger = new Logger('svc');

    logger.addContext(context('r-1'));
    logger.appendKeys({ operation: 'groups.list', correlation_id: 'c-1' });
    logger.info('first', { correlation_id: 'call wins' });
    logger.addContext(context('r-2'));
    logger.removeKeys(['operation', 'correlation_id']);
    logger.info('second');

    const [first, second] = parsed(out);
    expect(first).toMatchObject({
      cold_start: true,
      function_request_id: 'r-1',
      function_name: 'fn',
      function_memory_size: '512',
      function_arn: 'arn:aws:lambda:eu-west-1:111111111111:function:fn',
      operation: 'groups.list',
      correlation_id: 'call wins',
    });
    expect(second).toMatchObject({ cold_start: false, function_request_id: 'r-2' });
    expect(second?.operation).toBeUndefined();
  });

  it('spells out errors (name, message, location, stack, cause), bigints and cycles instead of throwing', () => {
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'INFO');
    const logger = new Logger('svc');
    const cause = new TypeError('inner');
    const error = Object.assign(new Error('outer', { cause }), { code: 'E_OUTER' });
    const cyclic: Json = { name: 'loop' };
    cyclic.self = cyclic;

    logger.error('failed', { error, big: 12n, cyclic });

    const [line] = parsed(err);
    expect(line?.error).toMatchObject({ name: 'Error', message: 'outer', code: 'E_OUTER' });
    expect(line?.error.location).toMatch(/^\S+\.[cm]?[jt]s:\d+$/);
    expect(line?.error.stack).toContain('outer');
    expect(line?.error.cause).toMatchObject({ name: 'TypeError', message: 'inner' });
    expect(line?.big).toBe('12');
    expect(line?.cyclic).toEqual({ name: 'loop', self: '[Circular]' });
  });
});

describe('the EMF publisher', () => {
  it('one EMF record under the operation dimension; a repeated metric as an array, a NaN left out, properties kept', async () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    const figures = new InvocationFigures()
      .add(METRIC.itemsRead, MetricUnit.Count, 3)
      .add(METRIC.itemsRead, MetricUnit.Count, 4)
      .add(METRIC.bytesRead, MetricUnit.Bytes, 100)
      .add(METRIC.latency, MetricUnit.Milliseconds, Number.NaN)
      .property('family', 'channel_basic');

    publishFigures('reports.query', figures);

    const records = parsed(
      out
        .join('')
        .split('\n')
        .filter((l) => l.startsWith('{')),
    );
    expect(records).toHaveLength(1);
    const { _aws, ...rest } = records[0] as Json;
    expect(typeof _aws.Timestamp).toBe('number');
    expect(_aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'analytics-api',
        Dimensions: [['operation']],
        Metrics: [
          { Name: 'ItemsRead', Unit: 'Count' },
          { Name: 'BytesRead', Unit: 'Bytes' },
        ],
      },
    ]);
    expect(rest).toEqual({ family: 'channel_basic', operation: 'reports.query', ItemsRead: [3, 4], BytesRead: 100 });
  });

  it('a property never takes the place of the dimension or of a metric', () => {
    const record = JSON.parse(
      emfRecord(
        'ingest',
        new InvocationFigures()
          .add(METRIC.rowsLoaded, MetricUnit.Count, 5)
          .property('operation', 'x')
          .property(METRIC.rowsLoaded, 'y'),
        1_700_000_000_000,
      ),
    ) as Json;
    expect(record.operation).toBe('ingest');
    expect(record[METRIC.rowsLoaded]).toBe(5);
    expect(record._aws.Timestamp).toBe(1_700_000_000_000);
  });
});
