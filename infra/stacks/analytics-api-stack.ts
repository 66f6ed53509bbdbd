/**
 * The one stack: table, authorizer, the routed REST API, the cloud ingest and the connected-owner sync, plus the URLs
 * and names operators need.
 * Each part is a construct of infra/constructs/; this file only wires them together.
 */
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { StackConfig } from '../config';
import { ApiFunction } from '../constructs/api-function';
import { AppTable } from '../constructs/app-table';
import { ConnectedSync } from '../constructs/connected-sync';
import { ExportIngest } from '../constructs/export-ingest';
import { RoutedRestApi } from '../constructs/routed-rest-api';

export type AnalyticsApiStackProps = StackProps & StackConfig;

export class AnalyticsApiStack extends Stack {
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

    const ingest = new ExportIngest(this, 'ExportIngest', { table });

    const sync = new ConnectedSync(this, 'ConnectedSync', {
      table,
      bucket: ingest.bucket,
      reportingApiRoot: props.reportingApiRoot,
      oauthTokenUrl: props.oauthTokenUrl,
      syncSchedule: props.syncSchedule,
      syncConcurrency: props.syncConcurrency,
    });

    new CfnOutput(this, 'ApiUrl', { value: api.api.url, description: 'Invoke URL of the REST API stage' });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'ExportsBucketName', {
      value: ingest.bucket.bucketName,
      description: 'Drop Reporting API exports here',
    });
    new CfnOutput(this, 'SyncDeadLetterQueueUrl', {
      value: sync.deadLetterQueue.queueUrl,
      description: 'Sync messages whose worker crashed three times',
    });
    new CfnOutput(this, 'ReportingBaseUrl', { value: api.reportingBaseUrl, description: '{base_url} (/v2)' });
    new CfnOutput(this, 'AdminBaseUrl', { value: api.adminBaseUrl, description: '{admin_url} (/v1alpha)' });
    for (const [label, domain] of api.domains) {
      new CfnOutput(this, `${label}DomainTarget`, {
        value: domain.domainNameAliasDomainName,
        description: `DNS target (CNAME or alias record) of the ${label.toLowerCase()} custom domain`,
      });
    }
  }
}
