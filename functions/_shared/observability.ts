/**
 * Logs and metrics of every function (house-style §10). Each invocation logs with its request id, and publishes what
 * it measured in one synchronous step at its end: invocations that overlap in one process (the local host) never
 * mix their figures, and nothing is left buffered in a frozen container.
 */
import type { Context } from 'aws-lambda';
import { logger } from './logger';
import { INGEST_OPERATION, METRIC, type MetricName, MetricUnit } from './metric-names';

export { logger, MetricUnit };

type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];

// EMF lines reach CloudWatch through a function's stdout; on the local host and in tests they would only be noise.
// So outside Lambda nothing is published unless POWERTOOLS_METRICS_DISABLED is set (false shows them; true, as for
// Powertools, turns metrics off everywhere).
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
 * Publishes one invocation's figures as an EMF record with the `operation` dimension. The functions that have custom
 * metrics (reports.query, the authorizer, the ingest) install Powertools Metrics here by importing
 * `powertools-metrics.ts`; the others measure nothing, so they need not carry it (cold start, bench/cold-start.ts).
 */
export type FiguresPublisher = (operation: string, figures: InvocationFigures) => void;

let publisher: FiguresPublisher | undefined;

export function publishWith(next: FiguresPublisher): void {
  publisher = next;
}

/** Writes one EMF record with the `operation` dimension. Synchronous: nothing else can add to it meanwhile. */
export function publishFigures(operation: string, figures: InvocationFigures): void {
  if (figures.metrics.length === 0 || !publishing() || !publisher) return;
  try {
    publisher(operation, figures);
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
