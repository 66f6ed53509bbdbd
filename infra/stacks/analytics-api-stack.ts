/**
 * The one stack: table, authorizer, the routed REST API, the cloud ingest and its monitoring, the connected-owner
 * sync and (optionally) a user pool, plus the URLs and names operators need. Each part is a construct of
 * infra/constructs/; this file only wires them together.
 */
import { Aws, CfnOutput, Duration, Fn, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { PLACEHOLDER_JWT, type StackConfig } from '../config';
import { ApiFunction } from '../constructs/api-function';
import { AppTable } from '../constructs/app-table';
import { ConnectedSync } from '../constructs/connected-sync';
import { ExportIngest } from '../constructs/export-ingest';
import { Monitoring } from '../constructs/monitoring';
import { RoutedRestApi } from '../constructs/routed-rest-api';
import { AnalyticsUserPool } from '../constructs/user-pool';
import { acknowledge } from '../nag';

export type AnalyticsApiStackProps = StackProps & StackConfig;

export class AnalyticsApiStack extends Stack {
  readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, props: AnalyticsApiStackProps) {
    super(scope, id, props);

    const table = new AppTable(this);

    const pool = props.userPool
      ? new AnalyticsUserPool(this, 'UserPool', { ...props.userPool, scopeBase: props.scopeBase })
      : undefined;
    // With a user pool and no issuer of the team's own, the authorizer trusts the pool alone.
    const ownIssuer = !pool || props.jwtIssuer !== PLACEHOLDER_JWT.issuer;

    const authorizerFn = new ApiFunction(this, 'AuthorizerFn', {
      entry: 'functions/authorizer/handler.ts',
      // It sits in front of every request; a slow JWKS fetch should fail fast (500) rather than hold the caller.
      timeout: Duration.seconds(5),
      environment: {
        ...(ownIssuer ? { JWT_ISSUER: props.jwtIssuer, JWT_AUDIENCE: props.jwtAudience, JWKS_URI: props.jwksUri } : {}),
        ...(pool
          ? {
              COGNITO_USER_POOL_ID: pool.userPool.userPoolId,
              COGNITO_CLIENT_IDS: `${pool.peopleClient.userPoolClientId},${pool.serviceClient.userPoolClientId}`,
            }
          : {}),
        SCOPE_BASE: props.scopeBase,
      },
    });

    // The Query Explorer signs people in through the pool's hosted UI unless told another provider.
    const explorerOAuth =
      props.explorerOAuth ??
      (pool && props.explorer
        ? {
            authorizeUrl: `${pool.hostedUiUrl}/oauth2/authorize`,
            tokenUrl: pool.tokenUrl,
            clientId: pool.peopleClient.userPoolClientId,
          }
        : undefined);
    const api = new RoutedRestApi(this, 'RoutedRestApi', { ...props, explorerOAuth, table, authorizerFn });
    if (pool && props.explorer && !props.explorerOAuth) {
      // The explorer page (at the API's root) is where the hosted UI sends people back with their code. Built from
      // the RestApi's id, not its `url` (which names the stage, and so depends on every method: a cycle).
      pool.allowCallback(
        props.reportingDomain
          ? `https://${props.reportingDomain.domainName}/`
          : `https://${api.api.restApiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}/${props.stageName}/`,
      );
    }

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
    if (pool) {
      new CfnOutput(this, 'UserPoolId', { value: pool.userPool.userPoolId });
      new CfnOutput(this, 'UserPoolIssuer', { value: pool.issuer, description: 'The iss of the pool tokens' });
      new CfnOutput(this, 'HostedUiUrl', { value: pool.hostedUiUrl, description: 'Where people sign in' });
      new CfnOutput(this, 'TokenUrl', {
        value: pool.tokenUrl,
        description: 'OAuth token endpoint (code and client credentials)',
      });
      new CfnOutput(this, 'PeopleClientId', {
        value: pool.peopleClient.userPoolClientId,
        description: 'App client for people (authorization code with PKCE, hosted UI)',
      });
      new CfnOutput(this, 'ServiceClientId', {
        value: pool.serviceClient.userPoolClientId,
        description: 'App client for services (client credentials; secret: aws cognito-idp describe-user-pool-client)',
      });
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
