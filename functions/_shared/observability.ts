/**
 * Logs and metrics of every function (house-style §10). Each invocation logs with its request id, and publishes what
 * it measured in one synchronous step at its end: invocations that overlap in one process (the local host) never
 * mix their figures, and nothing is left buffered in a frozen container.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { logger } from './logger';
import { INGEST_OPERATION, METRIC, METRICS_NAMESPACE, type MetricName, OPERATION_DIMENSION } from './metric-names';

export { logger, MetricUnit };

type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];

// EMF lines reach CloudWatch through a function's stdout; on the local host and in tests they would only be noise.
// So outside Lambda nothing is published unless POWERTOOLS_METRICS_DISABLED is set (false shows them).
const publishing = (): boolean =>
  process.env.AWS_LAMBDA_FUNCTION_NAME !== undefined || process.env.POWERTOOLS_METRICS_DISABLED !== undefined;

const metrics = new Metrics({ namespace: METRICS_NAMESPACE });
// Powertools adds a `service` dimension by default; `operation` is the only one here.
metrics.clearDefaultDimensions();

/** What one invocation measured: metrics, plus properties that are searchable in the logs but not dimensions. */
export class InvocationFigures {
  readonly metrics: { readonly name: MetricName; readonly unit: Unit; readonly value: number }[] = [];
  readonly properties: Record<string, string> = {};

  add(name: MetricName, unit: Unit, value: number): this {
    // A NaN would make Powertools throw; a metric must never fail the request it measures.
    if (Number.isFinite(value)) this.metrics.push({ name, unit, value });
    return this;
  }

  property(key: string, value: string): this {
    this.properties[key] = value;
    return this;
  }
}

/** Writes one EMF record with the `operation` dimension. Synchronous: nothing else can add to it meanwhile. */
export function publishFigures(operation: string, figures: InvocationFigures): void {
  if (!publishing() || figures.metrics.length === 0) return;
  try {
    metrics.addDimension(OPERATION_DIMENSION, operation);
    for (const m of figures.metrics) metrics.addMetric(m.name, m.unit, m.value);
    for (const [key, value] of Object.entries(figures.properties)) metrics.addMetadata(key, value);
    metrics.publishStoredMetrics();
  } catch (error) {
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
