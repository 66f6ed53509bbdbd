/**
 * The REST API, driven by the route table: per route one function, its resource + method, the JWT authorizer (none
 * on public routes) and a least-privilege table grant; CORS preflights, CORS headers and gzip as browser-access.ts
 * says. Adding an operation means a new line in functions/routes.ts, nothing here.
 */
import { Duration, Size, Stack } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  BasePathMapping,
  DomainName,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RequestAuthorizer,
  ResponseType,
  RestApi,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { gatewayErrors, WWW_AUTHENTICATE } from '../../functions/_shared/error-envelope';
import { MIN_COMPRESSION_BYTES } from '../../functions/_shared/transport';
import { deployedRoutes, pascalId } from '../../functions/routes';
import type { CustomDomain, StackConfig } from '../config';
import { acknowledge } from '../nag';
import { ApiFunction } from './api-function';
import {
  addPreflights,
  browserEnvironment,
  corsOrigins,
  explorerFunctionParts,
  gatewayResponseCorsHeaders,
} from './browser-access';
import { grantTable } from './table-access';

export type RoutedRestApiProps = Pick<
  StackConfig,
  | 'scopeBase'
  | 'stageName'
  | 'authorizerCacheTtlSeconds'
  | 'throttlingRateLimit'
  | 'throttlingBurstLimit'
  | 'reportingDomain'
  | 'adminDomain'
  | 'apiCloudWatchRole'
  | 'corsAllowedOrigins'
  | 'publicRootUrl'
  | 'explorer'
  | 'explorerOAuth'
> & {
  readonly table: ITable;
  readonly authorizerFn: IFunction;
};

/** API Gateway wants static header values wrapped in single quotes. */
const headerValue = (value: string): string => {
  if (value.includes("'")) throw new Error(`header value cannot contain a single quote: ${value}`);
  return `'${value}'`;
};

/** `MISSING_AUTHENTICATION_TOKEN` → `MissingAuthenticationToken`. */
const pascalType = (type: string): string =>
  type
    .toLowerCase()
    .split('_')
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');

export class RoutedRestApi extends Construct {
  readonly api: RestApi;
  /** {base_url}: where clients of the reporting API (/v2) point. */
  readonly reportingBaseUrl: string;
  /** {admin_url}: where clients of the admin API (/v1alpha) point. */
  readonly adminBaseUrl: string;
  readonly functions: ReadonlyMap<string, ApiFunction>;
  /** Custom domains by label ('Reporting', 'Admin'); their DNS records point at `domainNameAliasDomainName`. */
  readonly domains = new Map<string, DomainName>();

  constructor(scope: Construct, id: string, props: RoutedRestApiProps) {
    super(scope, id);

    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH });
    this.api = new RestApi(this, 'Api', {
      // The name is the ApiName dimension of the API's metrics: unique per stack, so two deployments in one account
      // never share alarms and dashboards.
      restApiName: Stack.of(this).stackName,
      description: 'YouTube Analytics API v2 and Google Analytics Admin API v1alpha (wire-compatible)',
      endpointTypes: [EndpointType.REGIONAL],
      // Accept-Encoding: gzip gets a compressed body from this size on, as Google's APIs do.
      minCompressionSize: Size.bytes(MIN_COMPRESSION_BYTES),
      // API Gateway writes access and execution logs only with an account-wide (per region) CloudWatch role. The
      // stack sets one up, retained when the stack is deleted, unless told the account already has one.
      cloudWatchRole: props.apiCloudWatchRole,
      deployOptions: {
        stageName: props.stageName,
        throttlingRateLimit: props.throttlingRateLimit,
        throttlingBurstLimit: props.throttlingBurstLimit,
        tracingEnabled: false,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: accessLogFormat(),
        // Execution logs for errors only, without request or response data (it would hold tokens).
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
      },
    });
    // The stack outputs the URL as 'ApiUrl'; drop RestApi's own hash-named duplicate.
    this.api.node.tryRemoveChild('Endpoint');
    // API Gateway would create the execution log group on its first error, kept forever; made here with a retention,
    // before the stage can write to it.
    const executionLogs = new LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${props.stageName}`,
      retention: RetentionDays.ONE_MONTH,
    });
    this.api.deploymentStage.node.addDependency(executionLogs);
    if (props.apiCloudWatchRole) {
      acknowledge(
        this.api,
        'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        'The managed policy AWS documents for API Gateway’s account-wide logging role; it can only write logs',
      );
    }
    acknowledge(
      this.api,
      'APIG2',
      'Every handler validates its parameters and body itself, to answer in the Google error shape; a gateway validator would answer in its own',
    );
    acknowledge(
      this.api,
      'APIG3',
      'No WAF by default (a web ACL costs a monthly fee); the stage throttles every client, and an operator can associate a web ACL with the stage',
    );

    const authorizer = new RequestAuthorizer(this, 'JwtAuthorizer', {
      handler: props.authorizerFn,
      // The route is part of the cache key, so a cached Allow/Deny for one route never answers for another.
      identitySources: [
        IdentitySource.header('Authorization'),
        IdentitySource.context('httpMethod'),
        IdentitySource.context('resourcePath'),
      ],
      resultsCacheTtl: Duration.seconds(props.authorizerCacheTtlSeconds),
    });

    const origins = corsOrigins(props);
    this.addGatewayResponses(gatewayResponseCorsHeaders(origins));

    // Trade-off: the dynamic reference is resolved by CloudFormation into the functions' environment, so anyone
    // allowed lambda:GetFunctionConfiguration can read it and a rotation needs a redeploy. In exchange there is no
    // Secrets Manager call at cold start and no secret-read permission on the functions. It only signs page tokens.
    const pageTokenSecret = new Secret(this, 'PageTokenSecret', {
      description: 'Signs the page tokens of list operations',
      generateSecretString: { excludePunctuation: true, passwordLength: 48 },
    });
    acknowledge(
      pageTokenSecret,
      'SMG4',
      'Rotating the page-token key would void every page token handed out; it signs tokens, it guards no data',
    );

    const routes = deployedRoutes(props);
    const functions = new Map<string, ApiFunction>();
    for (const route of routes) {
      const explorer = route.id === 'explorer.page' ? explorerFunctionParts(props) : undefined;
      const fn = new ApiFunction(this, `${pascalId(route.id)}Fn`, {
        entry: route.entry,
        memorySize: route.memoryMb,
        environment: {
          TABLE_NAME: props.table.tableName,
          SCOPE_BASE: props.scopeBase,
          OPERATION_ID: route.id,
          ...browserEnvironment(props),
          ...explorer?.environment,
          ...(route.pageTokens ? { PAGE_TOKEN_SECRET: pageTokenSecret.secretValue.unsafeUnwrap() } : {}),
        },
        ...(explorer ? { afterBundling: explorer.afterBundling } : {}),
      });
      grantTable(props.table, fn, route.table, { indexes: true });
      const method = this.api.root
        .resourceForPath(route.path)
        .addMethod(route.method, new LambdaIntegration(fn), route.public ? {} : { authorizer });
      if (route.public) {
        acknowledge(
          method,
          'APIG4',
          'A public route by design: Google serves its discovery documents without a token; the explorer page holds no data',
        );
      }
      acknowledge(
        method,
        'COG4',
        route.public
          ? 'A public route by design (Google serves its discovery documents without a token; the explorer page holds no data)'
          : 'The JWT REQUEST authorizer verifies tokens of any OAuth issuer (Cognito included) and checks Google’s scopes per route',
      );
      functions.set(route.id, fn);
    }
    this.functions = functions;
    addPreflights(this.api.root, routes, origins);

    this.reportingBaseUrl = this.mapDomain('Reporting', props.reportingDomain);
    this.adminBaseUrl = this.mapDomain('Admin', props.adminDomain);
  }

  /** Google-shaped bodies for everything the gateway answers by itself (401, 403, unknown route, throttling...). */
  private addGatewayResponses(cors: Record<string, string>): void {
    for (const [type, body] of Object.entries(gatewayErrors)) {
      const template = JSON.stringify(body);
      // Templates are VTL: a `$` or `#` in a message would be interpreted, not sent.
      if (/[$#]/.test(template)) throw new Error(`gateway response ${type} must not contain $ or #`);
      this.api.addGatewayResponse(`${pascalType(type)}Response`, {
        type: ResponseType.of(type),
        statusCode: String(body.error.code),
        templates: { 'application/json': template },
        responseHeaders: {
          'Content-Type': headerValue('application/json; charset=UTF-8'),
          ...(type === 'UNAUTHORIZED' ? { 'WWW-Authenticate': headerValue(WWW_AUTHENTICATE) } : {}),
          ...cors,
        },
      });
    }
  }

  /** Maps the whole API (both /v2 and /v1alpha) at the root of an optional custom domain; returns its base URL. */
  private mapDomain(label: string, domain: CustomDomain | undefined): string {
    if (!domain) return this.api.url;
    const domainName = new DomainName(this, `${label}Domain`, {
      domainName: domain.domainName,
      certificate: Certificate.fromCertificateArn(this, `${label}Certificate`, domain.certificateArn),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    new BasePathMapping(this, `${label}Mapping`, { domainName, restApi: this.api });
    this.domains.set(label, domainName);
    return `https://${domain.domainName}/`;
  }
}

/** One JSON line per request: who asked what, the answer, and where the time went. No query string, no headers. */
function accessLogFormat(): AccessLogFormat {
  return AccessLogFormat.custom(
    JSON.stringify({
      requestId: AccessLogField.contextRequestId(),
      extendedRequestId: AccessLogField.contextExtendedRequestId(),
      requestTime: AccessLogField.contextRequestTime(),
      ip: AccessLogField.contextIdentitySourceIp(),
      userAgent: AccessLogField.contextIdentityUserAgent(),
      principalId: AccessLogField.contextAuthorizerPrincipalId(),
      httpMethod: AccessLogField.contextHttpMethod(),
      resourcePath: AccessLogField.contextResourcePath(),
      status: AccessLogField.contextStatus(),
      responseLength: AccessLogField.contextResponseLength(),
      responseLatency: AccessLogField.contextResponseLatency(),
      integrationLatency: AccessLogField.contextIntegrationLatency(),
      authorizerLatency: AccessLogField.contextAuthorizerLatency(),
      errorType: AccessLogField.contextErrorResponseType(),
      error: AccessLogField.contextErrorMessage(),
    }),
  );
}
