/**
 * Powertools Metrics as the publisher of the functions that have custom metrics (reports.query, the authorizer, the
 * ingest): importing this module installs it (observability.ts publishWith). One EMF record per invocation, the
 * `operation` its only dimension, the figures' properties as metadata.
 */
import { Metrics, type MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE, OPERATION_DIMENSION } from './metric-names';
import { publishWith } from './observability';

const metrics = new Metrics({ namespace: METRICS_NAMESPACE });
// Powertools adds a `service` dimension by default; `operation` is the only one here.
metrics.clearDefaultDimensions();

publishWith((operation, figures) => {
  metrics.addDimension(OPERATION_DIMENSION, operation);
  for (const m of figures.metrics)
    metrics.addMetric(m.name, m.unit as (typeof MetricUnit)[keyof typeof MetricUnit], m.value);
  for (const [key, value] of Object.entries(figures.properties)) metrics.addMetadata(key, value);
  metrics.publishStoredMetrics();
});
