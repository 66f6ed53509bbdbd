/**
 * The one stack: table, authorizer, the routed REST API, the cloud ingest and (optionally) a user pool, plus the URLs
 * and names operators need.
 * Each part is a construct of infra/constructs/; this file only wires them together.
 */
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { PLACEHOLDER_JWT, type StackConfig } from '../config';
import { ApiFunction } from '../constructs/api-function';
import { AppTable } from '../constructs/app-table';
import { ExportIngest } from '../constructs/export-ingest';
import { RoutedRestApi } from '../constructs/routed-rest-api';
import { AnalyticsUserPool } from '../constructs/user-pool';

export type AnalyticsApiStackProps = StackProps & StackConfig;

export class AnalyticsApiStack extends Stack {
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

    const api = new RoutedRestApi(this, 'RoutedRestApi', { ...props, table, authorizerFn });

    const ingest = new ExportIngest(this, 'ExportIngest', { table });

    new CfnOutput(this, 'ApiUrl', { value: api.api.url, description: 'Invoke URL of the REST API stage' });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'ExportsBucketName', {
      value: ingest.bucket.bucketName,
      description: 'Drop Reporting API exports here',
    });
    new CfnOutput(this, 'ReportingBaseUrl', { value: api.reportingBaseUrl, description: '{base_url} (/v2)' });
    new CfnOutput(this, 'AdminBaseUrl', { value: api.adminBaseUrl, description: '{admin_url} (/v1alpha)' });
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
}
