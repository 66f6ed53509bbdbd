/**
 * The custom metrics the functions publish (EMF, functions/_shared/observability.ts) and the stack's alarms and
 * dashboard read (infra/constructs/monitoring.ts). Pure data, so infra/ can import it without the functions' code.
 */

/** One namespace for the whole service. */
export const METRICS_NAMESPACE = 'analytics-api';

/**
 * The only dimension: the operation (a route id such as `reports.query`, or `authorizer`, `ingest`). Never an owner
 * or user: each distinct dimension value is a metric of its own, billed monthly.
 */
export const OPERATION_DIMENSION = 'operation';

/** Operations that are not routes. */
export const AUTHORIZER_OPERATION = 'authorizer';
export const INGEST_OPERATION = 'ingest';

export const METRIC = {
  /** reports.query: milliseconds from the handler receiving the request to its answer. */
  latency: 'Latency',
  /** reports.query: DynamoDB items and bytes read for one answer. */
  itemsRead: 'ItemsRead',
  bytesRead: 'BytesRead',
  /** Authorizer: 1 when it answered 401 (which Lambda counts as a function error). */
  unauthenticated: 'Unauthenticated',
  /** Ingest, per invocation: files loaded, their rows, the seconds it took, files rejected as malformed. */
  filesLoaded: 'FilesLoaded',
  rowsLoaded: 'RowsLoaded',
  ingestSeconds: 'IngestSeconds',
  filesRejected: 'FilesRejected',
  /** Ingest: seconds from a file landing in the bucket to its facts being stored (the largest of the invocation). */
  ingestLag: 'IngestLagSeconds',
} as const;

export type MetricName = (typeof METRIC)[keyof typeof METRIC];

/** The CloudWatch units the metrics above use. */
export const MetricUnit = {
  Count: 'Count',
  Bytes: 'Bytes',
  Milliseconds: 'Milliseconds',
  Seconds: 'Seconds',
} as const;

/** EMF property (not a dimension) naming the report families a reports.query answer came from, comma-separated. */
export const FAMILY_PROPERTY = 'family';
