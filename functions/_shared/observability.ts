/**
 * Logs and metrics of every function (house-style §10). Each invocation logs with its request id, and publishes what
 * it measured in one synchronous step at its end: invocations that overlap in one process (the local host) never
 * mix their figures, and nothing is left buffered in a frozen container.
 */
import type { Context } from 'aws-lambda';
import { logger } from './logger';
import {
  INGEST_OPERATION,
  METRIC,
  METRICS_NAMESPACE,
  type MetricName,
  MetricUnit,
  OPERATION_DIMENSION,
} from './metric-names';

export { logger, MetricUnit };

type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];

// EMF lines reach CloudWatch through a function's stdout; on the local host and in tests they would only be noise.
// So outside Lambda nothing is published unless POWERTOOLS_METRICS_DISABLED is set (false shows them; true, as for
// Powertools, whose switch this is, turns metrics off everywhere).
const publishing = (): boolean => {
  const disabled = process.env.POWERTOOLS_METRICS_DISABLED;
  return disabled !== 'true' && (process.env.AWS_LAMBDA_FUNCTION_NAME !== undefined || disabled !== undefined);
};

/** What one invocation measured: metrics, plus properties that are searchable in the logs but not dimensions. */
export class InvocationFigures {
  readonly metrics: { readonly name: MetricName; readonly unit: Unit; readonly value: number }[] = [];
  readonly properties: Record<string, string> = {};

  add(name: MetricName, unit: Unit, value: number): this {
    // CloudWatch rejects a record with a NaN; a metric must never fail the request it measures.
    if (Number.isFinite(value)) this.metrics.push({ name, unit, value });
    return this;
  }

  property(key: string, value: string): this {
    this.properties[key] = value;
    return this;
  }
}

/**
 * One invocation's figures as a CloudWatch Embedded Metric Format record, as Powertools Metrics writes it: one
 * namespace, `operation` the only dimension, a metric added twice as an array of its values, the properties as
 * plain keys (searchable in the logs, not dimensions). Written here rather than taken from Powertools Metrics, which
 * put 13 KB and about 8 ms of set-up into the cold start of the three functions that measure (bench/cold-start.ts).
 */
export function emfRecord(operation: string, figures: InvocationFigures, timestamp = Date.now()): string {
  const values: Record<string, number | number[]> = {};
  const definitions: { Name: string; Unit: Unit }[] = [];
  for (const { name, unit, value } of figures.metrics) {
    const seen = values[name];
    if (seen === undefined) {
      values[name] = value;
      definitions.push({ Name: name, Unit: unit });
    } else values[name] = Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  const aws = {
    Timestamp: timestamp,
    CloudWatchMetrics: [{ Namespace: METRICS_NAMESPACE, Dimensions: [[OPERATION_DIMENSION]], Metrics: definitions }],
  };
  return JSON.stringify({ _aws: aws, ...figures.properties, [OPERATION_DIMENSION]: operation, ...values });
}

/**
 * Writes one invocation's EMF record to stdout (as a whole line, not through console.log, whose Lambda prefix would
 * hide the JSON from CloudWatch). Synchronous: nothing else can add to it meanwhile.
 */
export function publishFigures(operation: string, figures: InvocationFigures): void {
  if (figures.metrics.length === 0 || !publishing()) return;
  try {
    process.stdout.write(`${emfRecord(operation, figures)}\n`);
  } catch (error) {
    // A metric must never fail the request it measures.
    logger.warn('metrics not published', { error: String(error) });
  }
}

/**
 * Runs `run` with fresh figures and publishes them when it ends (also when it throws); with `latency`, its duration
 * too. Lambda's own Duration metric already times every function, so only operations whose latency belongs beside
 * their other figures (reports: latency, items, bytes and family in one record) publish it.
 */
export async function measured<R>(
  operation: string,
  run: (figures: InvocationFigures) => Promise<R>,
  options: { latency?: boolean } = {},
): Promise<R> {
  const figures = new InvocationFigures();
  const started = performance.now();
  try {
    return await run(figures);
  } finally {
    if (options.latency) figures.add(METRIC.latency, MetricUnit.Milliseconds, performance.now() - started);
    publishFigures(operation, figures);
  }
}

/**
 * A Lambda handler whose log lines all carry its request: the Lambda context (`function_request_id`, `cold_start`,
 * ...), `operation`, and `correlation_id`, the id a caller can quote (API Gateway's request id; Lambda's otherwise).
 */
export function withRequestContext<E, R>(
  operation: string,
  handler: (event: E, context?: Context) => Promise<R>,
  correlationIdOf: (event: E) => string | undefined = () => undefined,
): (event: E, context?: Context) => Promise<R> {
  return async (event, context) => {
    if (context) logger.addContext(context);
    logger.appendKeys({ operation, correlation_id: correlationIdOf(event) ?? context?.awsRequestId ?? 'local' });
    try {
      return await handler(event, context);
    } finally {
      logger.removeKeys(['operation', 'correlation_id']);
    }
  };
}

/** What one ingest invocation did; the ingest handler publishes it once per invocation. */
export interface IngestFigures {
  /** Files loaded. */
  readonly files: number;
  /** Rows of the files loaded. */
  readonly rows: number;
  /** Seconds the invocation spent loading. */
  readonly seconds: number;
  /** Files rejected as malformed (recorded for ingest-status, not retried). */
  readonly rejected: number;
  /** Seconds from a file landing in the bucket (its S3 event time) to loaded: the largest of the invocation. */
  readonly lagSeconds?: number;
}

export function publishIngestMetrics(ingest: IngestFigures): void {
  const figures = new InvocationFigures()
    .add(METRIC.filesLoaded, MetricUnit.Count, ingest.files)
    .add(METRIC.rowsLoaded, MetricUnit.Count, ingest.rows)
    .add(METRIC.ingestSeconds, MetricUnit.Seconds, ingest.seconds)
    .add(METRIC.filesRejected, MetricUnit.Count, ingest.rejected);
  if (ingest.lagSeconds !== undefined) figures.add(METRIC.ingestLag, MetricUnit.Seconds, ingest.lagSeconds);
  publishFigures(INGEST_OPERATION, figures);
}
