/**
 * An identity provider for a team that has none (`-c userPool=true`): a Cognito user pool whose access tokens the
 * authorizer accepts. Its resource server's identifier is `${SCOPE_BASE}/auth` and its scopes are exactly the six
 * scope names, so Cognito's scope strings (`<identifier>/<name>`) equal the service's scope URIs. Two app clients:
 * people sign in on the hosted UI (authorization code; a public client, so PKCE), services use client credentials
 * (a client with a secret).
 */
import { Aws, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  AccountRecovery,
  FeaturePlan,
  Mfa,
  OAuthScope,
  ResourceServerScope,
  UserPool,
  type UserPoolClient,
  type UserPoolDomain,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { SCOPE_NAMES, scopeUri } from '../../functions/core/scopes';
import type { UserPoolConfig } from '../config';
import { acknowledge } from '../nag';

export interface AnalyticsUserPoolProps extends UserPoolConfig {
  readonly scopeBase: string;
}

const SCOPE_DESCRIPTIONS: Record<(typeof SCOPE_NAMES)[number], string> = {
  'video-analytics.readonly': 'View YouTube Analytics reports',
  'video-analytics-monetary.readonly': 'View YouTube Analytics monetary reports',
  'video-platform': 'Manage groups of videos and playlists',
  'video-platform-partner': 'Manage groups as a content owner',
  'analytics.readonly': 'View Analytics Admin properties',
  'analytics.edit': 'Edit Analytics Admin properties',
};

export class AnalyticsUserPool extends Construct {
  readonly userPool: UserPool;
  readonly peopleClient: UserPoolClient;
  readonly serviceClient: UserPoolClient;
  readonly domain: UserPoolDomain;
  /** The `iss` of the pool's tokens. */
  readonly issuer: string;
  /** Base URL of the hosted UI and the OAuth endpoints. */
  readonly hostedUiUrl: string;
  readonly tokenUrl: string;
  /** The people client's callback (and logout) URLs: the configured ones, plus any allowCallback() adds. */
  private readonly callbackUrls: string[];

  constructor(scope: Construct, id: string, props: AnalyticsUserPoolProps) {
    super(scope, id);

    this.userPool = new UserPool(this, 'Pool', {
      // Operators add people (console or `aws cognito-idp admin-create-user`); nobody signs themselves up.
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      passwordPolicy: {
        minLength: 12,
        requireDigits: true,
        requireLowercase: true,
        requireUppercase: true,
        requireSymbols: true,
      },
      // MFA: optional, authenticator apps only (SMS costs money and needs an SNS role); a team may make it REQUIRED.
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      // Essentials (Cognito's default for new pools): no threat protection, which needs the paid Plus plan; a team
      // that wants adaptive authentication switches this to PLUS.
      featurePlan: FeaturePlan.ESSENTIALS,
      // The people are the team's: a stack deletion must not take them along.
      removalPolicy: RemovalPolicy.RETAIN,
      deletionProtection: true,
    });
    acknowledge(
      this.userPool,
      'COG8',
      'Essentials plan on purpose: Plus (threat protection) is a paid plan per monthly active user; a team switches featurePlan',
    );
    acknowledge(
      this.userPool,
      'COG2',
      'MFA is optional (authenticator apps): required MFA would lock out a team before it enrolls; a team may make it REQUIRED',
    );

    const base = scopeUri(props.scopeBase, SCOPE_NAMES[0]).replace(/\/[^/]+$/, '');
    const scopes = SCOPE_NAMES.map(
      (name) => new ResourceServerScope({ scopeName: name, scopeDescription: SCOPE_DESCRIPTIONS[name] }),
    );
    const server = this.userPool.addResourceServer('Scopes', {
      identifier: base,
      userPoolResourceServerName: 'analytics-api',
      scopes,
    });
    const apiScopes = scopes.map((s) => OAuthScope.resourceServer(server, s));

    this.callbackUrls = [...props.callbackUrls];
    const tokenValidity = {
      accessTokenValidity: Duration.hours(1),
      idTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(30),
    };
    this.peopleClient = this.userPool.addClient('PeopleClient', {
      userPoolClientName: 'analytics-api-people',
      // A public client (no secret): the hosted UI's authorization code flow, protected by PKCE.
      generateSecret: false,
      authFlows: {},
      oAuth: {
        flows: { authorizationCodeGrant: true, implicitCodeGrant: false, clientCredentials: false },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL, ...apiScopes],
        callbackUrls: this.callbackUrls,
        logoutUrls: this.callbackUrls,
      },
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
      ...tokenValidity,
    });
    this.serviceClient = this.userPool.addClient('ServiceClient', {
      userPoolClientName: 'analytics-api-service',
      generateSecret: true,
      authFlows: {},
      oAuth: {
        flows: { authorizationCodeGrant: false, implicitCodeGrant: false, clientCredentials: true },
        scopes: apiScopes,
      },
      enableTokenRevocation: true,
      ...tokenValidity,
    });

    this.domain = this.userPool.addDomain('HostedUi', {
      cognitoDomain: { domainPrefix: props.domainPrefix ?? `analytics-api-${Aws.ACCOUNT_ID}` },
    });
    const region = Stack.of(this).region;
    this.issuer = `https://cognito-idp.${region}.amazonaws.com/${this.userPool.userPoolId}`;
    this.hostedUiUrl = this.domain.baseUrl();
    this.tokenUrl = `${this.hostedUiUrl}/oauth2/token`;
  }

  /**
   * Lets the people client send people back to `url` too (the Query Explorer page). The client renders its URL list
   * at synth, so a URL added after the client was created is still in it.
   */
  allowCallback(url: string): void {
    this.callbackUrls.push(url);
  }
}
