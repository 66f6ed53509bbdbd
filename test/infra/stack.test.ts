/**
 * CDK assertions on the synthesised stack (bundling and built-in validation off, toolchain.md §4.6). The route
 * table, the table definition and the error envelope are the expectations: nothing here restates the contract.
 */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayErrors, WWW_AUTHENTICATE } from '../../functions/_shared/error-envelope';
import {
  CORS_ALLOW_HEADERS,
  CORS_EXPOSE_HEADERS,
  CORS_MAX_AGE_SECONDS,
  MIN_COMPRESSION_BYTES,
} from '../../functions/_shared/transport';
import { tableDefinition } from '../../functions/core/db/table-definition';
import { DEFAULT_SCOPE_BASE, SCOPE_NAMES, scopeUri } from '../../functions/core/scopes';
import { deployedRoutes, type RouteDef, routeKey } from '../../functions/routes';
import { loadConfig, PLACEHOLDER_JWT } from '../../infra/config';
import {
  actionsOf,
  cleanUpSyntheses,
  ofType,
  ownFunctions,
  props,
  type Resource,
  refId,
  type Statement,
  statementsOfFunction as statementsOf,
  synth,
} from '../support/stack-template';

const WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'];

afterAll(cleanUpSyntheses);

/** The routes the default stack deploys (the Query Explorer is an option). */
const routes = deployedRoutes({ explorer: false });
const EXPOSE = `'${CORS_EXPOSE_HEADERS.join(', ')}'`;

describe('AnalyticsApiStack (default settings)', () => {
  let t: Template;
  let resources: Record<string, Resource>;

  beforeAll(() => {
    t = synth(loadConfig(() => undefined, {}));
    resources = t.toJSON().Resources as Record<string, Resource>;
  });

  /** Walks Resource.ParentId up to the root: `/v1alpha/properties/{propertiesId}`. */
  const resourcePath = (resourceId: unknown): string => {
    const parts: string[] = [];
    let id = refId(resourceId);
    while (id && resources[id]?.Type === 'AWS::ApiGateway::Resource') {
      const p = props(resources[id] as Resource);
      parts.unshift(p.PathPart as string);
      id = refId(p.ParentId);
    }
    return `/${parts.join('/')}`;
  };

  const methods = () => ofType(t, 'AWS::ApiGateway::Method').filter(([, m]) => props(m).HttpMethod !== 'OPTIONS');

  /** Lambda logical id by the OPERATION_ID its environment carries (undefined for the authorizer). */
  const functionsByOperation = () =>
    new Map(ofType(t, 'AWS::Lambda::Function').map(([id, fn]) => [props(fn).Environment?.Variables?.OPERATION_ID, id]));

  const statementsOfFunction = (fnId: string): Statement[] => statementsOf(t, fnId);

  it('creates exactly one method per route, with the route table’s method and path', () => {
    const synthesised = methods()
      .map(([, m]) =>
        routeKey({ method: props(m).HttpMethod, path: resourcePath(props(m).ResourceId) as `/${string}` }),
      )
      .sort();

    expect(synthesised).toEqual(routes.map((r) => routeKey(r)).sort());
  });

  const routeOf = (m: Resource) =>
    routes.find(
      (r) =>
        routeKey(r) ===
        routeKey({ method: props(m).HttpMethod, path: resourcePath(props(m).ResourceId) as `/${string}` }),
    );

  it('puts the one REQUEST authorizer on every method but the public ones', () => {
    const authorizers = ofType(t, 'AWS::ApiGateway::Authorizer');
    expect(authorizers).toHaveLength(1);
    const [authorizerId, authorizer] = authorizers[0] as [string, Resource];

    expect(props(authorizer).Type).toBe('REQUEST');
    const open = methods().filter(([, m]) => routeOf(m)?.public);
    expect(open.map(([, m]) => routeOf(m)?.id)).toEqual(['discovery.rest']);
    for (const [id, m] of methods()) {
      if (routeOf(m)?.public) {
        expect(props(m).AuthorizationType, id).toBe('NONE');
        expect(props(m).AuthorizerId, id).toBeUndefined();
        continue;
      }
      expect(props(m).AuthorizationType, id).toBe('CUSTOM');
      expect(refId(props(m).AuthorizerId), id).toBe(authorizerId);
    }
  });

  it('answers a CORS preflight on every route path without a token, allowing the path’s methods', () => {
    const preflights = ofType(t, 'AWS::ApiGateway::Method').filter(([, m]) => props(m).HttpMethod === 'OPTIONS');
    const paths = [...new Set(routes.map((r) => r.path))].sort();

    expect(preflights.map(([, m]) => resourcePath(props(m).ResourceId)).sort()).toEqual(paths);
    for (const [id, m] of preflights) {
      const path = resourcePath(props(m).ResourceId);
      const verbs = routes.filter((r) => r.path === path).map((r) => r.method);
      const headers = props(m).Integration.IntegrationResponses[0].ResponseParameters;

      expect(props(m).AuthorizationType, id).toBe('NONE');
      expect(props(m).Integration.Type, id).toBe('MOCK');
      expect(headers['method.response.header.Access-Control-Allow-Origin']).toBe("'*'");
      expect(headers['method.response.header.Access-Control-Allow-Methods']).toBe(
        `'${[...verbs, 'OPTIONS'].join(',')}'`,
      );
      expect(headers['method.response.header.Access-Control-Allow-Headers']).toBe(`'${CORS_ALLOW_HEADERS.join(',')}'`);
      expect(headers['method.response.header.Access-Control-Allow-Headers']).toMatch(/Authorization.*Content-Type/);
      expect(headers['method.response.header.Access-Control-Max-Age']).toBe(`'${CORS_MAX_AGE_SECONDS}'`);
    }
  });

  it('compresses answers of at least MIN_COMPRESSION_BYTES for clients that accept gzip', () => {
    t.hasResourceProperties('AWS::ApiGateway::RestApi', { MinimumCompressionSize: MIN_COMPRESSION_BYTES });
  });

  it('gives every function the CORS setting (any origin by default)', () => {
    for (const [id, fn] of ofType(t, 'AWS::Lambda::Function')) {
      const vars = props(fn).Environment?.Variables ?? {};
      if (!vars.OPERATION_ID) continue;
      expect(vars.CORS_ALLOWED_ORIGINS, id).toBe('*');
    }
  });

  it('keys the authorizer cache on the token and the route', () => {
    const [, authorizer] = ofType(t, 'AWS::ApiGateway::Authorizer')[0] as [string, Resource];
    const sources = String(props(authorizer).IdentitySource).split(',');

    expect(sources).toEqual(
      expect.arrayContaining(['method.request.header.Authorization', 'context.httpMethod', 'context.resourcePath']),
    );
    expect(props(authorizer).AuthorizerResultTtlInSeconds).toBe(60);
  });

  it('deploys one nodejs22.x arm64 function per route plus the authorizer, the ingest and the two sync functions', () => {
    const fns = ownFunctions(t);

    expect(fns).toHaveLength(routes.length + 4);
    for (const [id, fn] of fns) {
      expect(props(fn).Runtime, id).toBe('nodejs22.x');
      expect(props(fn).Architectures, id).toEqual(['arm64']);
    }
    expect([...functionsByOperation().keys()].filter(Boolean).sort()).toEqual(routes.map((r) => r.id).sort());
  });

  it('gives the authorizer the JWT settings and a 5 s timeout', () => {
    t.hasResourceProperties('AWS::Lambda::Function', {
      Timeout: 5,
      Environment: {
        Variables: {
          JWT_ISSUER: PLACEHOLDER_JWT.issuer,
          JWT_AUDIENCE: PLACEHOLDER_JWT.audience,
          JWKS_URI: PLACEHOLDER_JWT.jwksUri,
          SCOPE_BASE: 'https://www.googleapis.com',
        },
      },
    });
  });

  it('routes each method to the function of its operation', () => {
    const fnByOperation = functionsByOperation();
    for (const [, m] of methods()) {
      const key = routeKey({ method: props(m).HttpMethod, path: resourcePath(props(m).ResourceId) as `/${string}` });
      const route = routes.find((r) => routeKey(r) === key) as RouteDef;
      const uri = JSON.stringify(props(m).Integration.Uri);

      expect(props(m).Integration.Type).toBe('AWS_PROXY');
      expect(uri, key).toContain(`"${fnByOperation.get(route.id)}"`);
    }
  });

  it.each(Object.entries(gatewayErrors))('answers gateway response %s with the Google error body', (type, body) => {
    const headers: Record<string, string> = {
      'gatewayresponse.header.Content-Type': "'application/json; charset=UTF-8'",
      'gatewayresponse.header.Access-Control-Allow-Origin': "'*'",
      'gatewayresponse.header.Access-Control-Expose-Headers': EXPOSE,
    };
    if (type === 'UNAUTHORIZED') headers['gatewayresponse.header.WWW-Authenticate'] = `'${WWW_AUTHENTICATE}'`;

    t.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: type,
      StatusCode: String(body.error.code),
      ResponseTemplates: { 'application/json': JSON.stringify(body) },
      ResponseParameters: Match.objectEquals(headers),
    });
  });

  it('creates no gateway responses beyond the error envelope’s', () => {
    const types = ofType(t, 'AWS::ApiGateway::GatewayResponse').map(([, r]) => props(r).ResponseType);

    expect(types.sort()).toEqual(Object.keys(gatewayErrors).sort());
  });

  it('keeps the table: on-demand, PITR, retained, deletion-protected, keys from the table definition', () => {
    const tables = ofType(t, 'AWS::DynamoDB::Table');
    expect(tables).toHaveLength(1);
    const [id, table] = tables[0] as [string, Resource];
    const p = props(table);

    expect(id).toMatch(/^AppTable[0-9A-F]{8}$/);
    expect(p.TableName).toBeUndefined();
    expect(p.BillingMode).toBe('PAY_PER_REQUEST');
    expect(p.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(p.DeletionProtectionEnabled).toBe(true);
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.UpdateReplacePolicy).toBe('Retain');
    expect(p.TimeToLiveSpecification).toEqual({ AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true });
    expect(p.KeySchema).toEqual([
      { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
      { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
    ]);
    expect(p.GlobalSecondaryIndexes).toEqual(
      tableDefinition.globalIndexes.map((gsi) => ({
        IndexName: gsi.name,
        KeySchema: [
          { AttributeName: gsi.partitionKey, KeyType: 'HASH' },
          { AttributeName: gsi.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    );
    expect(p.GlobalSecondaryIndexes.map((g: { IndexName: string }) => g.IndexName)).toContain('gsi1');
  });

  it('grants no Scan and no wildcard actions anywhere', () => {
    const statements = ofType(t, 'AWS::IAM::Policy').flatMap(
      ([, p]) => props(p).PolicyDocument.Statement as Statement[],
    );
    const actions = statements.flatMap(actionsOf);

    expect(actions.length).toBeGreaterThan(0);
    expect(actions).not.toContain('dynamodb:Scan');
    expect(actions.filter((a) => a.includes('*'))).toEqual([]);
  });

  it('grants read routes only reads and readWrite routes reads and writes', () => {
    const fnByOperation = functionsByOperation();
    for (const route of routes as readonly RouteDef[]) {
      const actions = statementsOfFunction(fnByOperation.get(route.id) as string).flatMap(actionsOf);

      expect(actions, route.id).toEqual(expect.arrayContaining(READ_ACTIONS));
      if (route.table === 'read')
        expect(
          actions.filter((a) => WRITE_ACTIONS.includes(a)),
          route.id,
        ).toEqual([]);
      else expect(actions, route.id).toEqual(expect.arrayContaining(WRITE_ACTIONS));
    }
  });

  it('gives the authorizer no table access', () => {
    const [authorizerFnId] = ofType(t, 'AWS::Lambda::Function').find(
      ([, fn]) => props(fn).Environment?.Variables?.JWT_ISSUER !== undefined,
    ) as [string, Resource];

    expect(
      statementsOfFunction(authorizerFnId)
        .flatMap(actionsOf)
        .filter((a) => a.startsWith('dynamodb:')),
    ).toEqual([]);
  });

  it('passes the page-token secret only to the operations that hand out page tokens', () => {
    for (const [, fn] of ofType(t, 'AWS::Lambda::Function')) {
      const vars = props(fn).Environment?.Variables ?? {};
      const operation = vars.OPERATION_ID as string | undefined;
      const route = (routes as readonly RouteDef[]).find((r) => r.id === operation);
      expect(JSON.stringify(vars.PAGE_TOKEN_SECRET ?? null).includes('resolve:secretsmanager'), operation).toBe(
        route?.pageTokens === true,
      );
    }
  });

  it('outputs the URLs and names operators need', () => {
    const outputs = Object.keys(t.findOutputs('*'));

    expect(outputs.sort()).toEqual([
      'AdminBaseUrl',
      'ApiUrl',
      'DashboardName',
      'DashboardUrl',
      'ExportsBucketName',
      'IngestDeadLetterQueueArn',
      'IngestDeadLetterQueueName',
      'IngestQueueArn',
      'IngestQueueName',
      'ReportingBaseUrl',
      'SyncDeadLetterQueueUrl',
      'TableName',
    ]);
    t.resourceCountIs('AWS::ApiGateway::DomainName', 0);
  });

  it('deploys no Query Explorer unless asked', () => {
    expect([...functionsByOperation().keys()]).not.toContain('explorer.page');
  });

  it('names the API after the stack, so its metrics never mix with another deployment’s', () => {
    t.hasResourceProperties('AWS::ApiGateway::RestApi', { Name: 'Test' });
  });

  it('writes JSON access logs and error-level execution logs (no request data) to log groups with a retention', () => {
    const [, stage] = ofType(t, 'AWS::ApiGateway::Stage')[0] as [string, Resource];
    const logGroups = t.findResources('AWS::Logs::LogGroup');
    const format = JSON.parse(props(stage).AccessLogSetting.Format);

    expect(logGroups[refId(props(stage).AccessLogSetting.DestinationArn) as string]?.Properties?.RetentionInDays).toBe(
      30,
    );
    expect(format).toMatchObject({ requestId: '$context.requestId', status: '$context.status' });
    expect(props(stage).MethodSettings).toEqual([
      expect.objectContaining({ HttpMethod: '*', ResourcePath: '/*', LoggingLevel: 'ERROR', DataTraceEnabled: false }),
    ]);
    t.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: Match.objectLike({
        'Fn::Join': Match.arrayWith([Match.arrayWith(['API-Gateway-Execution-Logs_'])]),
      }),
      RetentionInDays: 30,
    });
    t.resourceCountIs('AWS::ApiGateway::Account', 1);
  });

  it('gives every function a role of its own that writes to its own log group only', () => {
    for (const [id, fn] of ownFunctions(t)) {
      const role = resources[refId(props(fn).Role) as string] as Resource;
      const logStatements = statementsOfFunction(id).filter((s) => actionsOf(s).some((a) => a.startsWith('logs:')));

      expect(props(role).ManagedPolicyArns, id).toBeUndefined();
      expect(logStatements, id).toHaveLength(1);
      expect(refId(logStatements[0]?.Resource), id).toBe(refId(props(fn).LoggingConfig.LogGroup));
      expect(actionsOf(logStatements[0] as Statement).sort(), id).toEqual([
        'logs:CreateLogStream',
        'logs:PutLogEvents',
      ]);
    }
  });
});

describe('AnalyticsApiStack with custom domains', () => {
  it('maps the whole API at the root of both domains and outputs their URLs', () => {
    const config = loadConfig(
      (k) =>
        ({
          reportingDomainName: 'youtubeanalytics.example.com',
          reportingCertificateArn: 'arn:aws:acm:eu-west-1:111111111111:certificate/reporting',
          adminDomainName: 'analyticsadmin.example.com',
          adminCertificateArn: 'arn:aws:acm:eu-west-1:111111111111:certificate/admin',
        })[k],
      {},
    );

    const t = synth(config);

    t.resourceCountIs('AWS::ApiGateway::DomainName', 2);
    t.resourceCountIs('AWS::ApiGateway::BasePathMapping', 2);
    t.hasResourceProperties('AWS::ApiGateway::DomainName', {
      DomainName: 'youtubeanalytics.example.com',
      RegionalCertificateArn: 'arn:aws:acm:eu-west-1:111111111111:certificate/reporting',
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
    for (const [, mapping] of ofType(t, 'AWS::ApiGateway::BasePathMapping')) {
      expect(props(mapping).BasePath).toBeUndefined();
    }
    t.hasOutput('ReportingBaseUrl', { Value: 'https://youtubeanalytics.example.com/' });
    t.hasOutput('AdminBaseUrl', { Value: 'https://analyticsadmin.example.com/' });
    expect(Object.keys(t.findOutputs('*')).filter((k) => k.endsWith('DomainTarget'))).toEqual([
      'ReportingDomainTarget',
      'AdminDomainTarget',
    ]);
  });
});

describe('AnalyticsApiStack with an origin list and the Query Explorer', () => {
  const ORIGINS = 'https://app.example.com,http://127.0.0.1:5173';
  let t: Template;
  beforeAll(() => {
    const context: Record<string, string> = {
      corsAllowedOrigins: ORIGINS,
      explorer: 'true',
      explorerAuthorizeUrl: 'https://auth.example.com/oauth2/authorize',
      explorerTokenUrl: 'https://auth.example.com/oauth2/token',
      explorerClientId: 'client-123',
    };
    t = synth(loadConfig((k) => context[k], {}));
  });

  it('echoes an allowed origin in preflights (the first statically, the others by template) with Vary: Origin', () => {
    const preflight = ofType(t, 'AWS::ApiGateway::Method').find(([, m]) => props(m).HttpMethod === 'OPTIONS');
    const response = props(preflight?.[1] as Resource).Integration.IntegrationResponses[0];

    expect(response.ResponseParameters['method.response.header.Access-Control-Allow-Origin']).toBe(
      "'https://app.example.com'",
    );
    expect(response.ResponseParameters['method.response.header.Vary']).toBe("'Origin'");
    expect(response.ResponseTemplates['application/json']).toContain('$origin == "http://127.0.0.1:5173"');
  });

  it('echoes the request origin on the gateway’s own answers', () => {
    for (const [, r] of ofType(t, 'AWS::ApiGateway::GatewayResponse')) {
      expect(props(r).ResponseParameters).toMatchObject({
        'gatewayresponse.header.Access-Control-Allow-Origin': 'method.request.header.Origin',
        'gatewayresponse.header.Vary': "'Origin'",
        'gatewayresponse.header.Access-Control-Expose-Headers': EXPOSE,
      });
    }
  });

  it('passes the list to every function and serves the explorer at the root, public, with its sign-in settings', () => {
    const fns = ofType(t, 'AWS::Lambda::Function').map(([, fn]) => props(fn).Environment?.Variables ?? {});
    for (const vars of fns.filter((v) => v.OPERATION_ID)) expect(vars.CORS_ALLOWED_ORIGINS).toBe(ORIGINS);
    expect(fns.find((v) => v.OPERATION_ID === 'explorer.page')).toMatchObject({
      EXPLORER_AUTHORIZE_URL: 'https://auth.example.com/oauth2/authorize',
      EXPLORER_TOKEN_URL: 'https://auth.example.com/oauth2/token',
      EXPLORER_CLIENT_ID: 'client-123',
    });
    const root = ofType(t, 'AWS::ApiGateway::Method').filter(
      ([, m]) =>
        props(m).HttpMethod === 'GET' &&
        refId(props(m).ResourceId) !== undefined &&
        'Fn::GetAtt' in props(m).ResourceId,
    );
    expect(root).toHaveLength(1);
    expect(props((root[0] as [string, Resource])[1]).AuthorizationType).toBe('NONE');
    t.hasOutput('ExplorerUrl', {});
  });
});

describe('AnalyticsApiStack with a user pool (-c userPool=true)', () => {
  let t: Template;
  let resources: Record<string, Resource>;
  beforeAll(() => {
    t = synth(loadConfig((k) => ({ userPool: 'true', userPoolDomainPrefix: 'team-analytics' })[k], {}));
    resources = t.toJSON().Resources as Record<string, Resource>;
  });

  const clients = () => ofType(t, 'AWS::Cognito::UserPoolClient').map(([id, c]) => [id, props(c)] as const);
  const serverId = () => ofType(t, 'AWS::Cognito::UserPoolResourceServer')[0]?.[0] as string;

  it('creates the pool: no self sign-up, optional TOTP MFA, retained, deletion-protected', () => {
    t.resourceCountIs('AWS::Cognito::UserPool', 1);
    t.hasResource('AWS::Cognito::UserPool', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
        MfaConfiguration: 'OPTIONAL',
        EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
        DeletionProtection: 'ACTIVE',
      }),
    });
  });

  it('has a resource server ${SCOPE_BASE}/auth whose scopes are exactly the six scope names', () => {
    const [, server] = ofType(t, 'AWS::Cognito::UserPoolResourceServer')[0] as [string, Resource];
    expect(props(server).Identifier).toBe('https://www.googleapis.com/auth');
    expect(
      props(server)
        .Scopes.map((s: { ScopeName: string }) => s.ScopeName)
        .sort(),
    ).toEqual([...SCOPE_NAMES].sort());
    // Cognito's scope string is <identifier>/<name>: exactly the service's scope URI.
    for (const name of SCOPE_NAMES)
      expect(`${props(server).Identifier}/${name}`).toBe(scopeUri(DEFAULT_SCOPE_BASE, name));
  });

  it('has a public people client (authorization code, hosted UI) and a service client with a secret (client credentials)', () => {
    const byFlow = new Map(clients().map(([, c]) => [String(c.AllowedOAuthFlows), c]));
    const people = byFlow.get('code');
    const service = byFlow.get('client_credentials');
    expect(people?.GenerateSecret).toBe(false);
    expect(people?.AllowedOAuthFlowsUserPoolClient).toBe(true);
    expect(people?.CallbackURLs).toEqual(['http://localhost:8085/callback']);
    expect(people?.SupportedIdentityProviders).toEqual(['COGNITO']);
    expect(service?.GenerateSecret).toBe(true);
    for (const client of [people, service]) {
      const scopes = JSON.stringify(client?.AllowedOAuthScopes);
      // Scopes of the resource server: `<identifier>/<name>` joined from its Ref, one per scope name.
      for (const name of SCOPE_NAMES) expect(scopes).toContain(`/${name}`);
      expect(scopes).toContain(serverId());
    }
  });

  it('serves the hosted UI on the configured prefix domain', () => {
    t.hasResourceProperties('AWS::Cognito::UserPoolDomain', { Domain: 'team-analytics' });
  });

  it('gives the authorizer the pool and both client ids, and no placeholder issuer', () => {
    const [, authorizer] = ofType(t, 'AWS::Lambda::Function').find(
      ([, f]) => props(f).Environment?.Variables?.COGNITO_USER_POOL_ID,
    ) as [string, Resource];
    const vars = props(authorizer).Environment.Variables;
    const [poolId] = ofType(t, 'AWS::Cognito::UserPool')[0] as [string, Resource];
    expect(refId(vars.COGNITO_USER_POOL_ID)).toBe(poolId);
    const clientRefs = JSON.stringify(vars.COGNITO_CLIENT_IDS);
    for (const [id] of clients()) expect(clientRefs).toContain(id);
    expect(vars.JWT_ISSUER).toBeUndefined();
    expect(vars.SCOPE_BASE).toBe(DEFAULT_SCOPE_BASE);
    expect(resources[poolId]?.Type).toBe('AWS::Cognito::UserPool');
  });

  it('keeps the team issuer too when one is configured', () => {
    const both = synth(
      loadConfig(
        (k) => ({ userPool: 'true', jwtIssuer: 'https://idp.example/', jwksUri: 'https://idp.example/jwks' })[k],
        {},
      ),
    );
    both.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({ JWT_ISSUER: 'https://idp.example/', COGNITO_USER_POOL_ID: Match.anyValue() }),
      },
    });
  });

  it('outputs the issuer, hosted UI URL, token URL and both client ids', () => {
    const outputs = t.findOutputs('*');
    for (const name of [
      'UserPoolId',
      'UserPoolIssuer',
      'HostedUiUrl',
      'TokenUrl',
      'PeopleClientId',
      'ServiceClientId',
    ]) {
      expect(outputs[name], name).toBeDefined();
    }
    expect(JSON.stringify(outputs.UserPoolIssuer?.Value)).toContain('https://cognito-idp.');
    expect(JSON.stringify(outputs.TokenUrl?.Value)).toContain('/oauth2/token');
    const [domainId] = ofType(t, 'AWS::Cognito::UserPoolDomain')[0] as [string, Resource];
    expect(JSON.stringify(outputs.HostedUiUrl?.Value)).toContain(domainId);
    expect(JSON.stringify(outputs.HostedUiUrl?.Value)).toContain('.amazoncognito.com');
  });

  it('signs the Query Explorer in through the hosted UI, the page being a callback URL of the people client', () => {
    const both = synth(loadConfig((k) => ({ userPool: 'true', explorer: 'true' })[k], {}));
    const people = ofType(both, 'AWS::Cognito::UserPoolClient')
      .map(([, c]) => props(c))
      .find((c) => String(c.AllowedOAuthFlows) === 'code');
    const [apiId] = ofType(both, 'AWS::ApiGateway::RestApi')[0] as [string, Resource];
    const explorer = ofType(both, 'AWS::Lambda::Function')
      .map(([, f]) => props(f).Environment?.Variables ?? {})
      .find((v) => v.OPERATION_ID === 'explorer.page');

    expect(people?.CallbackURLs).toHaveLength(2);
    expect(JSON.stringify(people?.CallbackURLs[1])).toContain(apiId);
    expect(JSON.stringify(explorer?.EXPLORER_TOKEN_URL)).toContain('/oauth2/token');
    expect(JSON.stringify(explorer?.EXPLORER_AUTHORIZE_URL)).toContain('/oauth2/authorize');
    expect(refId(explorer?.EXPLORER_CLIENT_ID)).toBeDefined();
  });

  it('without the option: no user pool, and the authorizer has no Cognito settings', () => {
    const plain = synth(loadConfig(() => undefined, {}));
    plain.resourceCountIs('AWS::Cognito::UserPool', 0);
    for (const [, fn] of ofType(plain, 'AWS::Lambda::Function')) {
      expect(props(fn).Environment?.Variables?.COGNITO_USER_POOL_ID).toBeUndefined();
    }
  });
});

describe('loadConfig', () => {
  it('uses secure placeholders and the house defaults when nothing is set', () => {
    const config = loadConfig(() => undefined, {});

    expect(config).toEqual({
      jwtIssuer: 'https://issuer.invalid/',
      jwtAudience: 'analytics-api',
      jwksUri: 'https://issuer.invalid/.well-known/jwks.json',
      scopeBase: 'https://www.googleapis.com',
      stageName: 'v',
      authorizerCacheTtlSeconds: 60,
      throttlingRateLimit: 100,
      throttlingBurstLimit: 200,
      reportingDomain: undefined,
      adminDomain: undefined,
      apiCloudWatchRole: true,
      ingestMemoryMb: 3008,
      ingestEphemeralStorageMb: 2048,
      ingestMaxConcurrency: 10,
      ingestBatchSize: 1,
      ingestLagAlarmMinutes: 60,
      alarmEmail: undefined,
      corsAllowedOrigins: '*',
      publicRootUrl: undefined,
      explorer: false,
      explorerOAuth: undefined,
      reportingApiRoot: 'https://youtubereporting.googleapis.com/',
      oauthTokenUrl: 'https://oauth2.googleapis.com/token',
      syncSchedule: 'rate(6 hours)',
      syncConcurrency: 4,
    });
  });

  it('prefers context over the environment, and the environment over defaults', () => {
    const context: Record<string, unknown> = { jwtIssuer: 'https://ctx.example/', authorizerCacheTtlSeconds: '0' };
    const env = {
      JWT_ISSUER: 'https://env.example/',
      JWT_AUDIENCE: 'env-audience',
      JWKS_URI: 'https://env.example/jwks.json',
      SCOPE_BASE: 'https://scopes.example',
    };

    const config = loadConfig((k) => context[k], env);

    expect(config.jwtIssuer).toBe('https://ctx.example/');
    expect(config.jwtAudience).toBe('env-audience');
    expect(config.jwksUri).toBe('https://env.example/jwks.json');
    expect(config.scopeBase).toBe('https://scopes.example');
    expect(config.authorizerCacheTtlSeconds).toBe(0);
  });

  it('treats empty values as unset', () => {
    expect(loadConfig((k) => (k === 'jwtIssuer' ? '' : undefined), {}).jwtIssuer).toBe(PLACEHOLDER_JWT.issuer);
  });

  it('rejects a half-configured domain, a bad TTL and a non-https JWKS URI', () => {
    expect(() => loadConfig((k) => (k === 'adminDomainName' ? 'a.example.com' : undefined), {})).toThrow(
      /adminCertificateArn/,
    );
    expect(() => loadConfig((k) => (k === 'authorizerCacheTtlSeconds' ? '3601' : undefined), {})).toThrow(/3600/);
    expect(() => loadConfig(() => undefined, { JWKS_URI: 'http://localhost/jwks.json' })).toThrow(/https/);
  });

  it('reads the operations settings from context or the environment', () => {
    const context: Record<string, unknown> = { ingestMemoryMb: '4096', alarmEmail: 'ops@example.com' };
    const env = {
      INGEST_EPHEMERAL_STORAGE_MB: '4096',
      INGEST_MAX_CONCURRENCY: '25',
      INGEST_BATCH_SIZE: '5',
      INGEST_LAG_ALARM_MINUTES: '30',
      API_CLOUDWATCH_ROLE: 'FALSE',
    };

    const config = loadConfig((k) => context[k], env);

    expect(config).toMatchObject({
      ingestMemoryMb: 4096,
      ingestEphemeralStorageMb: 4096,
      ingestMaxConcurrency: 25,
      ingestBatchSize: 5,
      ingestLagAlarmMinutes: 30,
      apiCloudWatchRole: false,
      alarmEmail: 'ops@example.com',
    });
  });

  it.each([
    ['ingestMemoryMb', '64', /128 to 10240/],
    ['ingestEphemeralStorageMb', '20000', /512 to 10240/],
    ['ingestMaxConcurrency', '1', /2 to 1000/],
    ['ingestBatchSize', '11', /1 to 10/],
    ['ingestBatchSize', '2.5', /1 to 10/],
    ['ingestLagAlarmMinutes', '0', /1 to 1440/],
    ['apiCloudWatchRole', 'yes', /true or false/],
    ['alarmEmail', 'ops-at-example.com', /e-mail/],
  ])('rejects %s=%s', (key, value, message) => {
    expect(() => loadConfig((k) => (k === key ? value : undefined), {})).toThrow(message);
  });

  it('rejects a malformed origin list, a half-configured explorer sign-in and a non-boolean explorer', () => {
    expect(() => loadConfig(() => undefined, { CORS_ALLOWED_ORIGINS: 'https://a.example.com/path' })).toThrow(
      /not an origin/,
    );
    expect(() => loadConfig(() => undefined, { CORS_ALLOWED_ORIGINS: '*,https://a.example.com' })).toThrow(
      /not an origin/,
    );
    expect(() => loadConfig((k) => (k === 'explorerClientId' ? 'c' : undefined), {})).toThrow(/together/);
    expect(() => loadConfig(() => undefined, { EXPLORER: 'yes' })).toThrow(/true or false/);
  });

  it('reads the user pool option and checks its domain prefix and callback URLs', () => {
    expect(loadConfig(() => undefined, {}).userPool).toBeUndefined();
    expect(loadConfig(() => undefined, { USER_POOL: 'false' }).userPool).toBeUndefined();
    expect(loadConfig(() => undefined, { USER_POOL: 'true' }).userPool).toEqual({
      callbackUrls: ['http://localhost:8085/callback'],
    });
    expect(
      loadConfig(
        (k) => ({ userPool: 'true', userPoolCallbackUrls: 'https://a.example/cb, http://localhost:3000/cb' })[k],
        {},
      ).userPool?.callbackUrls,
    ).toEqual(['https://a.example/cb', 'http://localhost:3000/cb']);
    expect(() => loadConfig(() => undefined, { USER_POOL: 'yes please' })).toThrow(/true or false/);
    expect(() => loadConfig(() => undefined, { USER_POOL: 'true', USER_POOL_DOMAIN_PREFIX: 'My_Team' })).toThrow(
      /lowercase/,
    );
    expect(() => loadConfig(() => undefined, { USER_POOL: 'true', USER_POOL_DOMAIN_PREFIX: 'team-cognito' })).toThrow(
      /reserves/,
    );
    expect(() =>
      loadConfig(() => undefined, { USER_POOL: 'true', USER_POOL_CALLBACK_URLS: 'http://team.example/cb' }),
    ).toThrow(/https/);
  });
});
