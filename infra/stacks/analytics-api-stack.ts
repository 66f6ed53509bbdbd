/**
 * The one stack: table, authorizer, the routed REST API, the cloud ingest and its monitoring, the connected-owner
 * sync, plus the URLs and names operators need. Each part is a construct of infra/constructs/; this file only wires
 * them together.
 */
import { Aws, CfnOutput, Duration, Fn, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { StackConfig } from '../config';
import { ApiFunction } from '../constructs/api-function';
import { AppTable } from '../constructs/app-table';
import { ConnectedSync } from '../constructs/connected-sync';
import { ExportIngest } from '../constructs/export-ingest';
import { Monitoring } from '../constructs/monitoring';
import { RoutedRestApi } from '../constructs/routed-rest-api';
import { acknowledge } from '../nag';

export type AnalyticsApiStackProps = StackProps & StackConfig;

export class AnalyticsApiStack extends Stack {
  readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, props: AnalyticsApiStackProps) {
    super(scope, id, props);

    const table = new AppTable(this);

    const authorizerFn = new ApiFunction(this, 'AuthorizerFn', {
      entry: 'functions/authorizer/handler.ts',
      // It sits in front of every request; a slow JWKS fetch should fail fast (500) rather than hold the caller.
      timeout: Duration.seconds(5),
      environment: {
        JWT_ISSUER: props.jwtIssuer,
        JWT_AUDIENCE: props.jwtAudience,
        JWKS_URI: props.jwksUri,
        SCOPE_BASE: props.scopeBase,
      },
    });

    const api = new RoutedRestApi(this, 'RoutedRestApi', { ...props, table, authorizerFn });

    const ingest = new ExportIngest(this, 'ExportIngest', { ...props, table });

    this.monitoring = new Monitoring(this, 'Monitoring', {
      ...props,
      api: api.api,
      authorizerFn,
      routeFunctions: api.functions,
      ingest,
    });

    const sync = new ConnectedSync(this, 'ConnectedSync', {
      table,
      bucket: ingest.bucket,
      reportingApiRoot: props.reportingApiRoot,
      oauthTokenUrl: props.oauthTokenUrl,
      syncSchedule: props.syncSchedule,
      syncConcurrency: props.syncConcurrency,
    });
    this.monitoring.watchFunction('sync.dispatch', sync.dispatchFn);
    this.monitoring.watchFunction('sync.worker', sync.workerFn);
    this.monitoring.watchDeadLetterQueue(
      'Sync',
      sync.deadLetterQueue,
      'An owner’s sync crashed on every retry and waits in the sync dead-letter queue (README: connected channels)',
    );

    this.acknowledgeCdkInternals();

    new CfnOutput(this, 'ApiUrl', { value: api.api.url, description: 'Invoke URL of the REST API stage' });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'ExportsBucketName', {
      value: ingest.bucket.bucketName,
      description: 'Drop Reporting API exports here',
    });
    new CfnOutput(this, 'IngestQueueName', { value: ingest.queue.queueName });
    new CfnOutput(this, 'IngestQueueArn', { value: ingest.queue.queueArn });
    new CfnOutput(this, 'IngestDeadLetterQueueName', {
      value: ingest.deadLetterQueue.queueName,
      description: 'Export files that failed to load after every retry (README: redrive)',
    });
    new CfnOutput(this, 'IngestDeadLetterQueueArn', { value: ingest.deadLetterQueue.queueArn });
    const dashboardName = this.monitoring.dashboard.dashboardName;
    new CfnOutput(this, 'DashboardName', { value: dashboardName });
    new CfnOutput(this, 'DashboardUrl', {
      value: Fn.join('', [
        `https://console.aws.amazon.com/cloudwatch/home?region=${Aws.REGION}#dashboards:name=`,
        dashboardName,
      ]),
    });
    if (this.monitoring.topic) {
      new CfnOutput(this, 'AlarmTopicArn', {
        value: this.monitoring.topic.topicArn,
        description: 'Every alarm notifies this topic (confirm the e-mail subscription first)',
      });
    }
    new CfnOutput(this, 'SyncDeadLetterQueueUrl', {
      value: sync.deadLetterQueue.queueUrl,
      description: 'Sync messages whose worker crashed three times',
    });
    new CfnOutput(this, 'ReportingBaseUrl', { value: api.reportingBaseUrl, description: '{base_url} (/v2)' });
    new CfnOutput(this, 'AdminBaseUrl', { value: api.adminBaseUrl, description: '{admin_url} (/v1alpha)' });
    if (props.explorer) {
      new CfnOutput(this, 'ExplorerUrl', { value: api.reportingBaseUrl, description: 'The Query Explorer page' });
    }
    for (const [label, domain] of api.domains) {
      new CfnOutput(this, `${label}DomainTarget`, {
        value: domain.domainNameAliasDomainName,
        description: `DNS target (CNAME or alias record) of the ${label.toLowerCase()} custom domain`,
      });
    }
  }

  /** Findings on resources CDK adds by itself at the stack's root (found by id: CDK names them). */
  private acknowledgeCdkInternals(): void {
    for (const child of this.node.children) {
      if (child.node.id.startsWith('BucketNotificationsHandler')) {
        acknowledge(
          child,
          'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
          'CDK’s own handler that sets the bucket notifications at deploy time; its role is CDK’s',
        );
      }
    }
  }
}
