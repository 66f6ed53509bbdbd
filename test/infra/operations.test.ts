/**
 * The operable stack: the cloud ingest behind a queue with a dead-letter queue, alarms and their topic, the
 * dashboard, and cdk-nag (AwsSolutions) with every finding fixed or acknowledged in code.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC, METRICS_NAMESPACE } from '../../functions/_shared/metric-names';
import { deployedRoutes } from '../../functions/routes';
import { EXPORT_SUFFIXES, INGEST_TIMEOUT, MAX_RECEIVE_COUNT } from '../../infra/constructs/export-ingest';
import { API_5XX_RATE_THRESHOLD } from '../../infra/constructs/monitoring';
import { AnalyticsApiStack } from '../../infra/stacks/analytics-api-stack';
import {
  actionsOf,
  cleanUpSyntheses,
  configWith,
  ofType,
  ownFunctions,
  props,
  type Resource,
  refId,
  statementsOfFunction,
  synth,
  testApp,
} from '../support/stack-template';

afterAll(cleanUpSyntheses);

const INGEST_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:BatchGetItem',
  'dynamodb:ConditionCheckItem',
];

/** The ingest queue (of the ExportIngest construct, with a redrive policy) and the one it names (its dead-letter queue). */
function queues(t: Template): { queueId: string; queue: Resource; dlqId: string; dlq: Resource } {
  const all = ofType(t, 'AWS::SQS::Queue');
  const [queueId, queue] = all.find(([id, q]) => id.startsWith('ExportIngest') && props(q).RedrivePolicy) as [
    string,
    Resource,
  ];
  const dlqId = refId(props(queue).RedrivePolicy.deadLetterTargetArn) as string;
  return { queueId, queue, dlqId, dlq: t.toJSON().Resources[dlqId] as Resource };
}

/** The ingest queue's event source mapping (the sync worker has one too). */
const ingestMapping = (t: Template): [string, Resource] =>
  ofType(t, 'AWS::Lambda::EventSourceMapping').find(
    ([, m]) => refId(props(m).EventSourceArn) === queues(t).queueId,
  ) as [string, Resource];

const ingestFunctionId = (t: Template): string => refId(props(ingestMapping(t)[1]).FunctionName) as string;

describe('cloud ingest: bucket → queue → function, dead-letter queue', () => {
  let t: Template;
  beforeAll(() => {
    t = synth(configWith());
  });

  it('keeps exports in a private, encrypted, versioned bucket retained on stack deletion, with access logs', () => {
    const [, bucket] = ofType(t, 'AWS::S3::Bucket').find(([, b]) => props(b).VersioningConfiguration) as [
      string,
      Resource,
    ];

    expect(bucket.DeletionPolicy).toBe('Retain');
    expect(props(bucket).PublicAccessBlockConfiguration).toMatchObject({
      BlockPublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(props(bucket).BucketEncryption).toBeDefined();
    const logsBucketId = refId(props(bucket).LoggingConfiguration.DestinationBucketName) as string;
    t.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: logsBucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Allow', Principal: { Service: 'logging.s3.amazonaws.com' } }),
        ]),
      },
    });
  });

  it('announces every .csv and .csv.gz object created to the ingest queue, never to the function directly', () => {
    const { queueId } = queues(t);
    const [, notifications] = ofType(t, 'Custom::S3BucketNotifications')[0] as [string, Resource];
    const config = props(notifications).NotificationConfiguration;

    expect(config.LambdaFunctionConfigurations).toBeUndefined();
    expect(config.QueueConfigurations.map((c: any) => c.Filter.Key.FilterRules[0].Value).sort()).toEqual(
      [...EXPORT_SUFFIXES].sort(),
    );
    for (const c of config.QueueConfigurations) {
      expect(c.Events).toEqual(['s3:ObjectCreated:*']);
      expect(refId(c.QueueArn)).toBe(queueId);
    }
  });

  it('consumes the queue one file at a time with batch item failures and a bounded maximum concurrency', () => {
    const { queueId } = queues(t);
    const [, mapping] = ingestMapping(t);

    expect(refId(props(mapping).EventSourceArn)).toBe(queueId);
    expect(props(mapping).BatchSize).toBe(1);
    expect(props(mapping).FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(props(mapping).ScalingConfig).toEqual({ MaximumConcurrency: 10 });
  });

  it('reserves no concurrency for any function (no queue of one for the whole deployment)', () => {
    for (const [id, fn] of ownFunctions(t)) expect(props(fn).ReservedConcurrentExecutions, id).toBeUndefined();
  });

  it('gives the ingest function 15 minutes, 3008 MB and 2048 MB of /tmp by default', () => {
    const fn = t.toJSON().Resources[ingestFunctionId(t)] as Resource;

    expect(props(fn).Timeout).toBe(900);
    expect(props(fn).MemorySize).toBe(3008);
    expect(props(fn).EphemeralStorage).toEqual({ Size: 2048 });
  });

  it(`moves a file to the dead-letter queue after ${MAX_RECEIVE_COUNT} receives; keeps it there 14 days`, () => {
    const { queue, dlq } = queues(t);

    expect(props(queue).RedrivePolicy.maxReceiveCount).toBe(MAX_RECEIVE_COUNT);
    expect(props(dlq).MessageRetentionPeriod).toBe(14 * 24 * 3600);
    expect(props(dlq).MessageRetentionPeriod).toBeGreaterThan(props(queue).MessageRetentionPeriod);
    expect(props(dlq).RedrivePolicy).toBeUndefined();
  });

  it('hides a message being loaded for six times the function timeout (AWS guidance for SQS event sources)', () => {
    const { queue } = queues(t);
    const fn = t.toJSON().Resources[ingestFunctionId(t)] as Resource;

    expect(props(queue).VisibilityTimeout).toBe(6 * props(fn).Timeout);
    expect(props(fn).Timeout).toBe(INGEST_TIMEOUT.toSeconds());
  });

  it('encrypts both queues and refuses any access without TLS', () => {
    const { queueId, queue, dlqId, dlq } = queues(t);
    for (const [id, q] of [
      [queueId, queue],
      [dlqId, dlq],
    ] as const) {
      expect(props(q).SqsManagedSseEnabled, id).toBe(true);
      t.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  it('lets the ingest function use the table with explicit actions (never Scan) and read export objects', () => {
    const statements = statementsOfFunction(t, ingestFunctionId(t));
    const dynamo = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
    const s3 = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('s3:')));

    expect(dynamo).toHaveLength(1);
    expect(actionsOf(dynamo[0] as never).sort()).toEqual([...INGEST_ACTIONS].sort());
    expect(refId(dynamo[0]?.Resource)).toMatch(/^AppTable/);
    expect(s3.flatMap(actionsOf)).toEqual(['s3:GetObject']);
  });

  it('takes memory, /tmp, batch size and maximum concurrency from the settings', () => {
    const custom = synth(
      configWith({
        ingestMemoryMb: '6144',
        ingestEphemeralStorageMb: '8192',
        ingestBatchSize: '5',
        ingestMaxConcurrency: '40',
      }),
    );
    const fn = custom.toJSON().Resources[ingestFunctionId(custom)] as Resource;
    const [, mapping] = ingestMapping(custom);

    expect(props(fn).MemorySize).toBe(6144);
    expect(props(fn).EphemeralStorage).toEqual({ Size: 8192 });
    expect(props(mapping).BatchSize).toBe(5);
    expect(props(mapping).ScalingConfig).toEqual({ MaximumConcurrency: 40 });
  });

  it('outputs the names and ARNs of both queues', () => {
    const { queueId, dlqId } = queues(t);
    const outputs = t.toJSON().Outputs;

    expect(refId(outputs.IngestQueueName.Value)).toBe(queueId);
    expect(refId(outputs.IngestQueueArn.Value)).toBe(queueId);
    expect(refId(outputs.IngestDeadLetterQueueName.Value)).toBe(dlqId);
    expect(refId(outputs.IngestDeadLetterQueueArn.Value)).toBe(dlqId);
  });
});

/** An alarm's metrics, whether it watches one metric or a math expression over several. */
function alarmMetrics(alarm: Resource): { MetricName: string; Namespace: string; Dimensions?: any[]; Stat: string }[] {
  const p = props(alarm);
  if (p.MetricName) return [{ ...p, Stat: p.Statistic } as never];
  return (p.Metrics as any[])
    .filter((m) => m.MetricStat)
    .map((m) => ({ ...m.MetricStat.Metric, Stat: m.MetricStat.Stat }));
}

/** The alarm whose only metric is `metricName` (and matches `where`). */
function alarmOn(
  alarms: [string, Resource][],
  metricName: string,
  where: (dimensions: string) => boolean = () => true,
) {
  const found = alarms.filter(([, a]) => {
    const metrics = alarmMetrics(a);
    return (
      metrics.length === 1 && metrics[0]?.MetricName === metricName && where(JSON.stringify(metrics[0]?.Dimensions))
    );
  });
  expect(found, metricName).toHaveLength(1);
  const [, alarm] = found[0] as [string, Resource];
  return { alarm: props(alarm), metric: alarmMetrics(alarm)[0] as ReturnType<typeof alarmMetrics>[number] };
}

const watchesFunction = (alarm: Resource, metricName: string, fnId: string): boolean =>
  alarmMetrics(alarm).some(
    (m) =>
      m.MetricName === metricName &&
      m.Namespace === 'AWS/Lambda' &&
      m.Dimensions?.some((d) => d.Name === 'FunctionName' && refId(d.Value) === fnId),
  );

const watchesEmf = (alarm: Resource, metricName: string, operation: string): boolean =>
  alarmMetrics(alarm).some(
    (m) =>
      m.MetricName === metricName &&
      m.Namespace === METRICS_NAMESPACE &&
      JSON.stringify(m.Dimensions) === JSON.stringify([{ Name: 'operation', Value: operation }]),
  );

describe('alarms and dashboard', () => {
  let t: Template;
  let alarms: [string, Resource][];
  beforeAll(() => {
    t = synth(configWith());
    alarms = ofType(t, 'AWS::CloudWatch::Alarm');
  });

  it.each(['Errors', 'Throttles'])('alarms on each function’s %s', (metricName) => {
    const fns = ownFunctions(t);

    // The routes' functions, the authorizer, the ingest and the two sync functions.
    expect(fns).toHaveLength(deployedRoutes({ explorer: false }).length + 4);
    for (const [fnId] of fns) {
      const watching = alarms.filter(([, a]) => watchesFunction(a, metricName, fnId));
      expect(watching, fnId).toHaveLength(1);
      expect(props((watching[0] as [string, Resource])[1]).Threshold, fnId).toBe(1);
    }
  });

  it('does not count the authorizer’s 401s (thrown "Unauthorized") as its errors', () => {
    const authorizerErrors = alarms.filter(([, a]) => watchesEmf(a, METRIC.unauthenticated, 'authorizer'));

    expect(authorizerErrors).toHaveLength(1);
    const [, alarm] = authorizerErrors[0] as [string, Resource];
    const expression = (props(alarm).Metrics as any[]).find((m) => m.Expression);
    expect(expression.Expression).toBe('errors - FILL(expected, 0)');
    expect(expression.ReturnData).not.toBe(false);
  });

  it('alarms on the API’s 5xx rate', () => {
    const { alarm, metric } = alarmOn(alarms, '5XXError');

    expect(metric).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      Stat: 'Average',
      Dimensions: [{ Name: 'ApiName', Value: 'Test' }],
    });
    expect(alarm).toMatchObject({ Threshold: API_5XX_RATE_THRESHOLD, ComparisonOperator: 'GreaterThanThreshold' });
  });

  it('alarms when the dead-letter queue holds a message', () => {
    const { dlqId } = queues(t);
    const { alarm, metric } = alarmOn(alarms, 'ApproximateNumberOfMessagesVisible', (d) => d.includes(dlqId));

    expect(metric.Stat).toBe('Maximum');
    expect(alarm).toMatchObject({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
  });

  it('alarms on the ingest lag (EMF) and on the age of the oldest queued file, at ingestLagAlarmMinutes', () => {
    const lag = alarmOn(alarms, METRIC.ingestLag);
    const backlog = alarmOn(alarms, 'ApproximateAgeOfOldestMessage', (d) => d.includes(queues(t).queueId));

    expect(lag.metric).toMatchObject({ Namespace: METRICS_NAMESPACE, Stat: 'Maximum' });
    expect(lag.metric.Dimensions).toEqual([{ Name: 'operation', Value: 'ingest' }]);
    expect(lag.alarm.Threshold).toBe(3600);
    expect(backlog.alarm.Threshold).toBe(3600);
    expect(
      alarmOn(ofType(synth(configWith({ ingestLagAlarmMinutes: '15' })), 'AWS::CloudWatch::Alarm'), METRIC.ingestLag)
        .alarm.Threshold,
    ).toBe(900);
  });

  it('has no topic and no alarm actions without alarmEmail', () => {
    t.resourceCountIs('AWS::SNS::Topic', 0);
    for (const [id, alarm] of alarms) expect(props(alarm).AlarmActions, id).toBeUndefined();
  });

  it('with alarmEmail, mails every alarm and its return to OK through an SSL-only topic', () => {
    const mailed = synth(configWith({ alarmEmail: 'ops@example.com' }));
    const [topicId] = ofType(mailed, 'AWS::SNS::Topic')[0] as [string, Resource];

    mailed.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: topicId },
    });
    mailed.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({ Effect: 'Allow', Principal: { Service: 'cloudwatch.amazonaws.com' } }),
        ]),
      },
    });
    const mailedAlarms = ofType(mailed, 'AWS::CloudWatch::Alarm');
    expect(mailedAlarms).toHaveLength(alarms.length);
    for (const [id, alarm] of mailedAlarms) {
      expect(props(alarm).AlarmActions, id).toEqual([{ Ref: topicId }]);
      expect(props(alarm).OKActions, id).toEqual([{ Ref: topicId }]);
    }
    expect(refId(mailed.toJSON().Outputs.AlarmTopicArn.Value)).toBe(topicId);
  });

  describe('the dashboard', () => {
    let body: { widgets: { type: string; properties: Record<string, any> }[] };
    beforeAll(() => {
      const [, dashboard] = ofType(t, 'AWS::CloudWatch::Dashboard')[0] as [string, Resource];
      // The body is a Fn::Join of text and references (region, names): references become plain markers.
      const parts = props(dashboard).DashboardBody['Fn::Join'][1] as unknown[];
      body = JSON.parse(parts.map((p) => (typeof p === 'string' ? p : 'REF')).join(''));
    });

    const titles = () => body.widgets.map((w) => w.properties.title).filter(Boolean);
    const graphed = (title: string): string => JSON.stringify(body.widgets.find((w) => w.properties.title === title));

    it('shows the API: requests, 4xx and 5xx, latency', () => {
      expect(titles()).toEqual(expect.arrayContaining(['Requests', '4xx and 5xx', 'Latency (ms)']));
      expect(graphed('4xx and 5xx')).toContain('"4XXError"');
      expect(graphed('4xx and 5xx')).toContain('"5XXError"');
    });

    it('shows reports: latency, items and bytes read, and the answers by report family', () => {
      expect(graphed('Items read per answer')).toContain(`"${METRIC.itemsRead}","operation","reports.query"`);
      expect(graphed('Bytes read per answer')).toContain(`"${METRIC.bytesRead}"`);
      expect(graphed('Latency in the function (ms)')).toContain(`"${METRIC.latency}"`);
      const families = body.widgets.find((w) => w.type === 'log');
      expect(families?.properties.query).toContain('stats count(*) as answers by family');
    });

    it('shows the ingest: files, rows, rejected, lag, queue and dead-letter depth', () => {
      expect(graphed('Files')).toContain(`"${METRIC.filesLoaded}"`);
      expect(graphed('Files')).toContain(`"${METRIC.filesRejected}"`);
      expect(graphed('Rows loaded')).toContain(`"${METRIC.rowsLoaded}"`);
      expect(graphed('Lag, landing to loaded (s)')).toContain(`"${METRIC.ingestLag}"`);
      expect(graphed('Queue')).toContain('ApproximateNumberOfMessagesVisible');
      expect(graphed('Queue')).toContain('"DLQ"');
    });

    it('shows every alarm', () => {
      const alarmWidget = body.widgets.find((w) => w.type === 'alarm');
      expect(alarmWidget?.properties.alarms).toHaveLength(alarms.length);
    });

    it('is in the outputs, by name and console URL', () => {
      const [dashboardId] = ofType(t, 'AWS::CloudWatch::Dashboard')[0] as [string, Resource];
      const outputs = t.toJSON().Outputs;

      expect(refId(outputs.DashboardName.Value)).toBe(dashboardId);
      expect(JSON.stringify(outputs.DashboardUrl.Value)).toContain('#dashboards:name=');
    });
  });
});

describe('cdk-nag (AwsSolutions)', () => {
  interface Violation {
    ruleName: string;
    severity: string;
    violatingConstructs: { constructPath: string }[];
  }

  /** Synthesises with the AwsSolutions checks; the violations (errors and warnings) of the validation report. */
  function nagViolations(build: (app: ReturnType<typeof testApp>) => void): string[] {
    const app = testApp({ nag: true });
    build(app);
    let failure: unknown;
    try {
      app.synth();
    } catch (error) {
      failure = error;
    }
    const report = JSON.parse(readFileSync(path.join(app.outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: { pluginName: string; violations: Violation[] }[];
    };
    const violations = report.pluginReports.flatMap((p) =>
      p.violations.flatMap((v) => v.violatingConstructs.map((c) => `${v.severity} ${v.ruleName} ${c.constructPath}`)),
    );
    if (failure && violations.length === 0) throw failure;
    return violations;
  }

  it.each([
    ['the defaults', {}],
    [
      'alarm e-mail, an account that has its API Gateway role, custom domains',
      {
        alarmEmail: 'ops@example.com',
        apiCloudWatchRole: 'false',
        reportingDomainName: 'youtubeanalytics.example.com',
        reportingCertificateArn: 'arn:aws:acm:eu-west-1:111111111111:certificate/reporting',
        adminDomainName: 'analyticsadmin.example.com',
        adminCertificateArn: 'arn:aws:acm:eu-west-1:111111111111:certificate/admin',
      },
    ],
    ['the user pool and the Query Explorer', { userPool: 'true', explorer: 'true' }],
  ])('finds nothing unacknowledged, errors or warnings, with %s', (_, context: Record<string, string>) => {
    expect(nagViolations((app) => new AnalyticsApiStack(app, 'Nag', configWith(context)))).toEqual([]);
  });

  it('reports a resource added without its fixes (the check is live)', () => {
    const violations = nagViolations((app) => {
      const stack = new AnalyticsApiStack(app, 'Nag', configWith());
      new Queue(stack, 'Careless', { enforceSSL: false });
    });

    expect(violations).toEqual(
      expect.arrayContaining([
        'error AwsSolutions-SQS3 Nag/Careless/Resource',
        'error AwsSolutions-SQS4 Nag/Careless/Resource',
      ]),
    );
  });
});
