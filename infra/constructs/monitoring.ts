/**
 * Alarms and the dashboard: the API (requests, 4xx, 5xx, latency), reports (latency, items and bytes read, which
 * report families answered), the ingest (files, rows, rejected, lag, queue and dead-letter depth) and every function's
 * errors and throttles. With `alarmEmail` set, every alarm (and its return to OK) is mailed through an SNS topic.
 * Functions other constructs add join through watchFunction().
 */
import { Aws, Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  LogQueryVisualizationType,
  LogQueryWidget,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  AUTHORIZER_OPERATION,
  FAMILY_PROPERTY,
  INGEST_OPERATION,
  METRIC,
  METRICS_NAMESPACE,
  type MetricName,
  OPERATION_DIMENSION,
} from '../../functions/_shared/metric-names';
import { pascalId } from '../../functions/routes';
import type { StackConfig } from '../config';
import { acknowledge } from '../nag';
import type { ExportIngest } from './export-ingest';

export type MonitoringProps = Pick<StackConfig, 'alarmEmail' | 'ingestLagAlarmMinutes'> & {
  readonly api: RestApi;
  readonly authorizerFn: IFunction;
  /** The route functions by operation id. */
  readonly routeFunctions: ReadonlyMap<string, LambdaFunction>;
  readonly ingest: ExportIngest;
};

const PERIOD = Duration.minutes(5);
/** Share of API requests answered 5xx (in two of three periods) that raises the alarm. */
export const API_5XX_RATE_THRESHOLD = 0.05;
const REPORTS_OPERATION = 'reports.query';

/** A custom metric (EMF, functions/_shared/observability.ts) of one operation. */
const emf = (operation: string, name: MetricName, statistic: string, label?: string): Metric =>
  new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { [OPERATION_DIMENSION]: operation },
    statistic,
    period: PERIOD,
    ...(label ? { label } : {}),
  });

const graph = (title: string, left: IMetric[], right: IMetric[] = [], width = 6): GraphWidget =>
  new GraphWidget({ title, left, right, width, height: 6 });

export class Monitoring extends Construct {
  readonly dashboard: Dashboard;
  /** Set when `alarmEmail` is: every alarm notifies it. */
  readonly topic?: Topic;
  readonly alarms: Alarm[] = [];
  private readonly errorsWidget = graph('Function errors', [], [], 8);
  private readonly throttlesWidget = graph('Function throttles', [], [], 8);
  private readonly durationWidget = graph('Function duration p99 (ms)', [], [], 8);

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);

    if (props.alarmEmail) {
      this.topic = new Topic(this, 'AlarmTopic', { displayName: 'analytics-api alarms', enforceSSL: true });
      // The topic has a policy of its own (SSL only), so CloudWatch's right to publish to it is stated explicitly.
      this.topic.addToResourcePolicy(
        new PolicyStatement({
          actions: ['sns:Publish'],
          principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
          resources: [this.topic.topicArn],
          conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
        }),
      );
      this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
      acknowledge(
        this.topic,
        'SNS2',
        'Alarm notifications carry no data; CloudWatch cannot publish to a topic under the AWS-managed SNS key, and a customer key costs a monthly fee',
      );
    }

    this.dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(6) });
    this.addApi(props.api);
    this.addReports(props.routeFunctions.get(REPORTS_OPERATION));
    this.addIngest(props.ingest, props.ingestLagAlarmMinutes);

    this.dashboard.addWidgets(new TextWidget({ markdown: '## Functions', width: 24, height: 1 }));
    this.dashboard.addWidgets(this.errorsWidget, this.throttlesWidget, this.durationWidget);
    // The authorizer answers 401 by throwing "Unauthorized", which Lambda counts as an error: those are subtracted.
    this.watchFunction(AUTHORIZER_OPERATION, props.authorizerFn, {
      expectedErrors: emf(AUTHORIZER_OPERATION, METRIC.unauthenticated, 'Sum'),
    });
    for (const [operation, fn] of props.routeFunctions) this.watchFunction(operation, fn);
    this.watchFunction(INGEST_OPERATION, props.ingest.ingestFn);

    // Reads the alarm list when the dashboard is rendered (at synth), so alarms added later show too.
    this.dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24, height: 6 }));
  }

  /**
   * Alarms on a function's errors and throttles, and its lines on the dashboard. `expectedErrors` are errors that
   * are answers, not failures (the authorizer's 401s).
   */
  watchFunction(operation: string, fn: IFunction, options: { expectedErrors?: IMetric } = {}): void {
    const name = pascalId(operation);
    const errors = fn.metricErrors({ period: PERIOD, statistic: 'Sum', label: operation });
    const failures = options.expectedErrors
      ? new MathExpression({
          expression: 'errors - FILL(expected, 0)',
          usingMetrics: { errors, expected: options.expectedErrors },
          period: PERIOD,
          label: operation,
        })
      : errors;
    this.alarm(`${name}Errors`, failures, {
      description: `${operation}: the function failed (an exception or a timeout)`,
      threshold: 1,
      // The 401 count comes through the logs and may trail the error count by a minute: one period alone could
      // see the errors without them.
      ...(options.expectedErrors ? { evaluationPeriods: 2, datapointsToAlarm: 2 } : {}),
    });
    const throttles = fn.metricThrottles({ period: PERIOD, statistic: 'Sum', label: operation });
    this.alarm(`${name}Throttles`, throttles, {
      description: `${operation}: invocations were throttled (the account's or the function's concurrency ran out)`,
      threshold: 1,
    });
    this.errorsWidget.addLeftMetric(failures);
    this.throttlesWidget.addLeftMetric(throttles);
    this.durationWidget.addLeftMetric(fn.metricDuration({ period: PERIOD, statistic: 'p99', label: operation }));
  }

  private addApi(api: RestApi): void {
    const rate5xx = api.metricServerError({ period: PERIOD, statistic: 'Average', label: '5xx rate' });
    this.alarm('Api5xxRate', rate5xx, {
      description: `The API answered more than ${API_5XX_RATE_THRESHOLD * 100}% of requests with a 5xx`,
      threshold: API_5XX_RATE_THRESHOLD,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
    });
    const sum = { period: PERIOD, statistic: 'Sum' };
    this.dashboard.addWidgets(new TextWidget({ markdown: '## API', width: 24, height: 1 }));
    this.dashboard.addWidgets(
      graph('Requests', [api.metricCount({ ...sum, label: 'requests' })]),
      graph('4xx and 5xx', [
        api.metricClientError({ ...sum, label: '4xx' }),
        api.metricServerError({ ...sum, label: '5xx' }),
      ]),
      graph(
        'Latency (ms)',
        ['p50', 'p90', 'p99'].map((statistic) => api.metricLatency({ period: PERIOD, statistic, label: statistic })),
      ),
      graph('Integration latency (ms)', [
        api.metricIntegrationLatency({ period: PERIOD, statistic: 'p99', label: 'p99' }),
      ]),
    );
  }

  private addReports(reportsFn: LambdaFunction | undefined): void {
    const op = REPORTS_OPERATION;
    this.dashboard.addWidgets(new TextWidget({ markdown: '## Reports (reports.query)', width: 24, height: 1 }));
    this.dashboard.addWidgets(
      graph(
        'Latency in the function (ms)',
        ['p50', 'p90', 'p99'].map((s) => emf(op, METRIC.latency, s, s)),
      ),
      graph('Items read per answer', [
        emf(op, METRIC.itemsRead, 'Average', 'average'),
        emf(op, METRIC.itemsRead, 'p99', 'p99'),
      ]),
      graph('Bytes read per answer', [
        emf(op, METRIC.bytesRead, 'Average', 'average'),
        emf(op, METRIC.bytesRead, 'p99', 'p99'),
      ]),
      ...(reportsFn
        ? [
            // The family is an EMF property, not a dimension (dimensions are for the operation only).
            new LogQueryWidget({
              title: 'Answers by report family',
              logGroupNames: [reportsFn.logGroup.logGroupName],
              view: LogQueryVisualizationType.TABLE,
              queryLines: [
                `fields ${FAMILY_PROPERTY}`,
                `filter ispresent(${FAMILY_PROPERTY}) and ${FAMILY_PROPERTY} != ''`,
                `stats count(*) as answers by ${FAMILY_PROPERTY}`,
                'sort answers desc',
              ],
              width: 6,
              height: 6,
            }),
          ]
        : []),
    );
  }

  /** An alarm when a dead-letter queue holds a message: work that failed after every retry and waits for a person. */
  watchDeadLetterQueue(name: string, queue: IQueue, description: string): void {
    const depth = queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum', label: name });
    this.alarm(`${name}DeadLetters`, depth, {
      description,
      threshold: 0,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
  }

  private addIngest(ingest: ExportIngest, lagAlarmMinutes: number): void {
    const op = INGEST_OPERATION;
    const lagSeconds = lagAlarmMinutes * 60;
    const maximum = { period: PERIOD, statistic: 'Maximum' };
    const dlqDepth = ingest.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ ...maximum, label: 'DLQ' });
    this.alarm('IngestDeadLetters', dlqDepth, {
      description: 'Export files failed to load after every retry and wait in the dead-letter queue (README: redrive)',
      threshold: 0,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
    const lag = emf(op, METRIC.ingestLag, 'Maximum', 'lag max');
    this.alarm('IngestLag', lag, {
      description: `An export file took more than ${lagAlarmMinutes} min from landing in the bucket to loaded`,
      threshold: lagSeconds,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
    // A stalled ingest loads nothing, so it publishes no lag: the age of the queue's oldest file says it instead.
    const oldest = ingest.queue.metricApproximateAgeOfOldestMessage({ ...maximum, label: 'oldest file (s)' });
    this.alarm('IngestBacklog', oldest, {
      description: `An export file has waited more than ${lagAlarmMinutes} min in the ingest queue`,
      threshold: lagSeconds,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });

    this.dashboard.addWidgets(new TextWidget({ markdown: '## Ingest', width: 24, height: 1 }));
    this.dashboard.addWidgets(
      graph('Files', [emf(op, METRIC.filesLoaded, 'Sum', 'loaded'), emf(op, METRIC.filesRejected, 'Sum', 'rejected')]),
      graph('Rows loaded', [emf(op, METRIC.rowsLoaded, 'Sum', 'rows')]),
      graph('Lag, landing to loaded (s)', [lag, emf(op, METRIC.ingestLag, 'Average', 'lag average')], [], 4),
      graph(
        'Seconds per invocation',
        [emf(op, METRIC.ingestSeconds, 'p50', 'p50'), emf(op, METRIC.ingestSeconds, 'Maximum', 'max')],
        [],
        4,
      ),
      graph(
        'Queue',
        [
          ingest.queue.metricApproximateNumberOfMessagesVisible({ ...maximum, label: 'waiting' }),
          ingest.queue.metricApproximateNumberOfMessagesNotVisible({ ...maximum, label: 'loading or retrying' }),
          dlqDepth,
        ],
        [oldest],
        4,
      ),
    );
  }

  private alarm(
    id: string,
    metric: IMetric,
    o: {
      description: string;
      threshold: number;
      comparison?: ComparisonOperator;
      evaluationPeriods?: number;
      datapointsToAlarm?: number;
    },
  ): Alarm {
    const alarm = new Alarm(this, id, {
      metric,
      alarmDescription: o.description,
      threshold: o.threshold,
      comparisonOperator: o.comparison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: o.evaluationPeriods ?? 1,
      datapointsToAlarm: o.datapointsToAlarm ?? 1,
      // No traffic, no files: nothing is wrong.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    if (this.topic) {
      alarm.addAlarmAction(new SnsAction(this.topic));
      alarm.addOkAction(new SnsAction(this.topic));
    }
    this.alarms.push(alarm);
    return alarm;
  }
}
