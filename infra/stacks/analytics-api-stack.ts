/** The one stack: table, authorizer and the routed REST API, plus the URLs and names operators need. */
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, EventType } from 'aws-cdk-lib/aws-s3';
import { LambdaDestination } from 'aws-cdk-lib/aws-s3-notifications';
import type { Construct } from 'constructs';
import type { StackConfig } from '../config';
import { ApiFunction } from '../constructs/api-function';
import { AppTable } from '../constructs/app-table';
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

    // Analytics exports land here (any prefix; the key's UC… segment and YYYYMMDD name a header-only file's
    // channel and day) and are loaded by the same ingest service `npm run import` runs locally.
    const exportsBucket = new Bucket(this, 'ExportsBucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      versioned: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const ingestFn = new ApiFunction(this, 'IngestFn', {
      entry: 'functions/ingest/s3-ingest.ts',
      memorySize: 1536,
      timeout: Duration.minutes(5),
      // One at a time: a file's month is recomputed from all its days, so loads of one month must not interleave.
      reservedConcurrentExecutions: 1,
      environment: { TABLE_NAME: table.tableName },
    });
    exportsBucket.grantRead(ingestFn);
    ingestFn.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:BatchWriteItem'],
        resources: [table.tableArn],
      }),
    );
    for (const suffix of ['.csv', '.csv.gz']) {
      exportsBucket.addEventNotification(EventType.OBJECT_CREATED, new LambdaDestination(ingestFn), { suffix });
    }

    new CfnOutput(this, 'ApiUrl', { value: api.api.url, description: 'Invoke URL of the REST API stage' });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'ExportsBucketName', {
      value: exportsBucket.bucketName,
      description: 'Drop Reporting API exports here',
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
