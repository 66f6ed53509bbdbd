/**
 * CDK assertions on the synthesised stack (bundling and built-in validation off, toolchain.md §4.6). The route
 * table, the table definition and the error envelope are the expectations: nothing here restates the contract.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayErrors, WWW_AUTHENTICATE } from '../../functions/_shared/error-envelope';
import { tableDefinition } from '../../functions/core/db/table-definition';
import { DEFAULT_SCOPE_BASE, SCOPE_NAMES, scopeUri } from '../../functions/core/scopes';
import { type RouteDef, routeKey, routes } from '../../functions/routes';
import { loadConfig, PLACEHOLDER_JWT, type StackConfig } from '../../infra/config';
import { AnalyticsApiStack } from '../../infra/stacks/analytics-api-stack';

type Resource = { Type: string; Properties?: Record<string, unknown>; DeletionPolicy?: string } & Record<
  string,
  unknown
>;
type Statement = { Action: string | string[]; Effect: string; Resource?: unknown };

const WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'];

const outRoot = mkdtempSync(path.join(tmpdir(), 'analytics-api-cdk-'));
let outCount = 0;

function synth(config: StackConfig): Template {
  const app = new App({
    context: { 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: false,
    outdir: path.join(outRoot, String(outCount++)),
  });
  return Template.fromStack(new AnalyticsApiStack(app, 'Test', config));
}

const ofType = (t: Template, type: string): [string, Resource][] =>
  Object.entries(t.findResources(type) as Record<string, Resource>);

const props = (r: Resource): Record<string, any> => r.Properties ?? {};

/** `{ Ref: X }` or `{ 'Fn::GetAtt': [X, ...] }` → X. */
const refId = (v: unknown): string | undefined => {
  const o = v as { Ref?: string; 'Fn::GetAtt'?: [string, string] } | undefined;
  return o?.Ref ?? o?.['Fn::GetAtt']?.[0];
};

const actionsOf = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);

afterAll(() => rmSync(outRoot, { recursive: true, force: true }));

describe('AnalyticsApiStack (default settings)', () => {
  let t: Template;
  let resources: Record<string, Resource>;

  beforeAll(() => {
    t = synth(loadConfig(() => undefined, {}));
    resources = t.toJSON().Resources as Record<string, Resource>;
  });

  /** Walks Resource.ParentId up to the root: `/v1alpha/properties/{propertyId}`. */
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

  /** All statements of the inline policies attached to a function's role. */
  const statementsOfFunction = (fnId: string): Statement[] => {
    const roleId = refId(props(resources[fnId] as Resource).Role);
    return ofType(t, 'AWS::IAM::Policy')
      .filter(([, p]) => (props(p).Roles as unknown[]).some((r) => refId(r) === roleId))
      .flatMap(([, p]) => props(p).PolicyDocument.Statement as Statement[]);
  };

  it('creates exactly one method per route, with the route table’s method and path', () => {
    const synthesised = methods()
      .map(([, m]) =>
        routeKey({ method: props(m).HttpMethod, path: resourcePath(props(m).ResourceId) as `/${string}` }),
      )
      .sort();

    expect(synthesised).toEqual(routes.map((r) => routeKey(r)).sort());
  });

  it('puts the one REQUEST authorizer on every method', () => {
    const authorizers = ofType(t, 'AWS::ApiGateway::Authorizer');
    expect(authorizers).toHaveLength(1);
    const [authorizerId, authorizer] = authorizers[0] as [string, Resource];

    expect(props(authorizer).Type).toBe('REQUEST');
    for (const [id, m] of methods()) {
      expect(props(m).AuthorizationType, id).toBe('CUSTOM');
      expect(refId(props(m).AuthorizerId), id).toBe(authorizerId);
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

  it('deploys one nodejs22.x arm64 function per route plus the authorizer and the ingest function', () => {
    // CDK's own bucket-notification helper is a Lambda too; it is not ours.
    const fns = ofType(t, 'AWS::Lambda::Function').filter(([id]) => !id.startsWith('BucketNotificationsHandler'));

    expect(fns).toHaveLength(routes.length + 2);
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
    expect(actions.filter((a) => a === '*' || a.endsWith(':*'))).toEqual([]);
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
    const authorizerFnId = functionsByOperation().get(undefined) as string;

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

  it('outputs the API URL, the table name and both base URLs', () => {
    const outputs = Object.keys(t.findOutputs('*'));

    expect(outputs.sort()).toEqual(['AdminBaseUrl', 'ApiUrl', 'ExportsBucketName', 'ReportingBaseUrl', 'TableName']);
    t.resourceCountIs('AWS::ApiGateway::DomainName', 0);
  });
});

describe('AnalyticsApiStack ingest of analytics exports', () => {
  let t: Template;
  beforeAll(() => {
    t = Template.fromStack(
      new AnalyticsApiStack(
        new App({
          context: { 'aws:cdk:bundling-stacks': [] },
          builtinCloudFormationValidation: false,
          outdir: mkdtempSync(path.join(tmpdir(), 'cdk-ingest-')),
        }),
        'Ingest',
        loadConfig(() => undefined, {}),
      ),
    );
  });

  it('keeps exports in a private, encrypted, versioned bucket retained on stack deletion', () => {
    t.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        VersioningConfiguration: { Status: 'Enabled' },
        PublicAccessBlockConfiguration: Match.objectLike({ BlockPublicAcls: true, RestrictPublicBuckets: true }),
        BucketEncryption: Match.anyValue(),
      }),
    });
  });

  it('runs the ingest function, one at a time, for every .csv and .csv.gz object created', () => {
    t.hasResourceProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: 1, Timeout: 300 });
    const notifications = Object.values(t.findResources('Custom::S3BucketNotifications'));
    const configs =
      (notifications[0]?.Properties as any)?.NotificationConfiguration?.LambdaFunctionConfigurations ?? [];
    const suffixes = configs.map((c: any) => c.Filter.Key.FilterRules[0].Value).sort();
    expect(suffixes).toEqual(['.csv', '.csv.gz']);
    for (const c of configs) expect(c.Events).toEqual(['s3:ObjectCreated:*']);
  });

  it('lets the ingest function read and write facts but never scan', () => {
    const statements = Object.values(t.findResources('AWS::IAM::Policy')).flatMap(
      (p: any) => p.Properties.PolicyDocument.Statement,
    );
    const ingest = statements.find(
      (s: any) =>
        [s.Action].flat().includes('dynamodb:BatchWriteItem') && ![s.Action].flat().includes('dynamodb:DeleteItem'),
    );
    expect([ingest?.Action].flat().sort()).toEqual([
      'dynamodb:BatchWriteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
    ]);
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
