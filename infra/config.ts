/**
 * Stack settings. Each comes from CDK context (`-c key=value` or cdk.json) first, then from an environment
 * variable, then from a default. Pure: tests call loadConfig() with their own context and env.
 */
import { parseCorsOrigins } from '../functions/_shared/transport';
import { DEFAULT_SCOPE_BASE } from '../functions/core/scopes';
import { DEFAULT_OAUTH_TOKEN_URL, DEFAULT_REPORTING_API_ROOT } from '../functions/core/sync/defaults';

export interface CustomDomain {
  readonly domainName: string;
  readonly certificateArn: string;
}

export interface StackConfig {
  readonly jwtIssuer: string;
  readonly jwtAudience: string;
  readonly jwksUri: string;
  readonly scopeBase: string;
  readonly stageName: string;
  /** 0 disables the authorizer cache; API Gateway allows at most 3600. */
  readonly authorizerCacheTtlSeconds: number;
  readonly throttlingRateLimit: number;
  readonly throttlingBurstLimit: number;
  /** Serves {base_url} (the /v2 reporting API). */
  readonly reportingDomain?: CustomDomain;
  /** Serves {admin_url} (the /v1alpha admin API). */
  readonly adminDomain?: CustomDomain;
  /** Creates API Gateway's account-wide CloudWatch role (needed for access and execution logs); off when the account already has one. */
  readonly apiCloudWatchRole: boolean;
  /** Memory of the ingest function (CPU scales with it). */
  readonly ingestMemoryMb: number;
  /** /tmp of the ingest function (the ingest may spill sorted runs there). */
  readonly ingestEphemeralStorageMb: number;
  /** Files loaded at once at most (the queue's event source mapping): bounds the write load on the table. */
  readonly ingestMaxConcurrency: number;
  /** Queue messages (files) per ingest invocation. */
  readonly ingestBatchSize: number;
  /** The ingest-lag alarm fires when a file waits longer than this from landing to loaded. */
  readonly ingestLagAlarmMinutes: number;
  /** Every alarm notifies this address through an SNS topic (a subscription the address must confirm). */
  readonly alarmEmail?: string;
  /** Origins browsers may call from: `*` (any, the default) or a comma-separated list (functions/_shared/transport.ts). */
  readonly corsAllowedOrigins: string;
  /** The API's public root when clients reach it through something else (a CDN); else each request's own. */
  readonly publicRootUrl?: string;
  /** Deploys the Query Explorer page at the API's root. */
  readonly explorer: boolean;
  /** The explorer's sign-in with an authorization-code + PKCE flow (a user pool's hosted UI, or any OIDC provider). */
  readonly explorerOAuth?: { readonly authorizeUrl: string; readonly tokenUrl: string; readonly clientId: string };
  /** The YouTube Reporting API the connected-owner sync reads (https). */
  readonly reportingApiRoot: string;
  /** Google's OAuth token endpoint the sync refreshes access tokens at (https). */
  readonly oauthTokenUrl: string;
  /** When the sync runs: an EventBridge `rate(…)` or `cron(…)` expression. */
  readonly syncSchedule: string;
  /** How many owners are synced at once (the worker's SQS maximum concurrency, 2–1000). */
  readonly syncConcurrency: number;
  /** A Cognito user pool as an issuer of the stack's own (infra/constructs/user-pool.ts); off unless `userPool=true`. */
  readonly userPool?: UserPoolConfig;
}

export interface UserPoolConfig {
  /** Prefix of the hosted UI domain (`<prefix>.auth.<region>.amazoncognito.com`); default `analytics-api-<account>`. */
  readonly domainPrefix?: string;
  /** Where the hosted UI may send people back with a code (the people client's callback URLs). */
  readonly callbackUrls: readonly string[];
}

/** Where the people client sends a code by default: a loopback port, as installed apps and the Google clients do. */
export const DEFAULT_CALLBACK_URL = 'http://localhost:8085/callback';

/** How long API Gateway reuses an authorizer decision (the local server does the same). */
export const DEFAULT_AUTHORIZER_CACHE_TTL_SECONDS = 60;

/**
 * Used when no identity provider is configured, so `cdk synth` works with no settings. `.invalid` never resolves
 * (RFC 2606), so an authorizer deployed with these rejects every token: the secure default.
 */
export const PLACEHOLDER_JWT = {
  issuer: 'https://issuer.invalid/',
  audience: 'analytics-api',
  jwksUri: 'https://issuer.invalid/.well-known/jwks.json',
} as const;

const SETTINGS = {
  jwtIssuer: 'JWT_ISSUER',
  jwtAudience: 'JWT_AUDIENCE',
  jwksUri: 'JWKS_URI',
  scopeBase: 'SCOPE_BASE',
  stageName: 'STAGE_NAME',
  authorizerCacheTtlSeconds: 'AUTHORIZER_CACHE_TTL_SECONDS',
  throttlingRateLimit: 'THROTTLING_RATE_LIMIT',
  throttlingBurstLimit: 'THROTTLING_BURST_LIMIT',
  reportingDomainName: 'REPORTING_DOMAIN_NAME',
  reportingCertificateArn: 'REPORTING_CERTIFICATE_ARN',
  adminDomainName: 'ADMIN_DOMAIN_NAME',
  adminCertificateArn: 'ADMIN_CERTIFICATE_ARN',
  apiCloudWatchRole: 'API_CLOUDWATCH_ROLE',
  ingestMemoryMb: 'INGEST_MEMORY_MB',
  ingestEphemeralStorageMb: 'INGEST_EPHEMERAL_STORAGE_MB',
  ingestMaxConcurrency: 'INGEST_MAX_CONCURRENCY',
  ingestBatchSize: 'INGEST_BATCH_SIZE',
  ingestLagAlarmMinutes: 'INGEST_LAG_ALARM_MINUTES',
  alarmEmail: 'ALARM_EMAIL',
  corsAllowedOrigins: 'CORS_ALLOWED_ORIGINS',
  publicRootUrl: 'PUBLIC_ROOT_URL',
  explorer: 'EXPLORER',
  explorerAuthorizeUrl: 'EXPLORER_AUTHORIZE_URL',
  explorerTokenUrl: 'EXPLORER_TOKEN_URL',
  explorerClientId: 'EXPLORER_CLIENT_ID',
  reportingApiRoot: 'REPORTING_API_ROOT',
  oauthTokenUrl: 'OAUTH_TOKEN_URL',
  syncSchedule: 'SYNC_SCHEDULE',
  syncConcurrency: 'SYNC_CONCURRENCY',
  userPool: 'USER_POOL',
  userPoolDomainPrefix: 'USER_POOL_DOMAIN_PREFIX',
  userPoolCallbackUrls: 'USER_POOL_CALLBACK_URLS',
} as const;

type SettingKey = keyof typeof SETTINGS;

export function loadConfig(getContext: (key: string) => unknown, env: NodeJS.ProcessEnv): StackConfig {
  // Empty values count as unset: CI passes `-c jwtIssuer=` when a repository variable is missing.
  const get = (key: SettingKey): string | undefined => {
    const raw = getContext(key) ?? env[SETTINGS[key]];
    const value = raw === undefined || raw === null ? '' : String(raw).trim();
    return value === '' ? undefined : value;
  };

  const int = (key: SettingKey, fallback: number, max: number, min = 0): number => {
    const value = get(key);
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${key} must be an integer from ${min} to ${max}`);
    return n;
  };

  const bool = (key: SettingKey, fallback: boolean): boolean => {
    const value = get(key)?.toLowerCase();
    if (value === undefined) return fallback;
    if (value !== 'true' && value !== 'false') throw new Error(`${key} must be true or false`);
    return value === 'true';
  };

  /** An https URL (tokens and refresh tokens travel to it). */
  const httpsUrl = (key: SettingKey, fallback: string): string => {
    const value = get(key) ?? fallback;
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (url?.protocol !== 'https:') throw new Error(`${key} must be an https:// URL`);
    return value;
  };

  const domain = (nameKey: SettingKey, certKey: SettingKey): CustomDomain | undefined => {
    const domainName = get(nameKey);
    const certificateArn = get(certKey);
    if (!domainName && !certificateArn) return undefined;
    if (!domainName || !certificateArn) throw new Error(`${nameKey} and ${certKey} must be set together`);
    return { domainName, certificateArn };
  };

  const https = (key: SettingKey): string | undefined => {
    const value = get(key);
    if (value !== undefined && !/^https:\/\/[^\s]+$/.test(value)) throw new Error(`${key} must be an https:// URL`);
    return value;
  };

  const explorerOAuth = (): StackConfig['explorerOAuth'] => {
    const authorizeUrl = https('explorerAuthorizeUrl');
    const tokenUrl = https('explorerTokenUrl');
    const clientId = get('explorerClientId');
    if (!authorizeUrl && !tokenUrl && !clientId) return undefined;
    if (!authorizeUrl || !tokenUrl || !clientId) {
      throw new Error('explorerAuthorizeUrl, explorerTokenUrl and explorerClientId must be set together');
    }
    return { authorizeUrl, tokenUrl, clientId };
  };

  const corsAllowedOrigins = get('corsAllowedOrigins') ?? '*';
  parseCorsOrigins(corsAllowedOrigins); // throws on a malformed list: fail at synth, not in every response

  const flag = (key: SettingKey): boolean => {
    const value = get(key)?.toLowerCase();
    if (value === undefined || value === 'false' || value === '0') return false;
    if (value === 'true' || value === '1') return true;
    throw new Error(`${key} must be true or false`);
  };

  const userPool = (): UserPoolConfig | undefined => {
    if (!flag('userPool')) return undefined;
    const domainPrefix = get('userPoolDomainPrefix');
    // Cognito's rule for prefix domains: lowercase letters, digits and hyphens, not starting or ending with one.
    if (domainPrefix !== undefined && !/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(domainPrefix)) {
      throw new Error('userPoolDomainPrefix may hold lowercase letters, digits and inner hyphens (at most 63)');
    }
    if (domainPrefix !== undefined && /aws|amazon|cognito/.test(domainPrefix)) {
      throw new Error('userPoolDomainPrefix may not contain aws, amazon or cognito (Cognito reserves them)');
    }
    const callbackUrls = (get('userPoolCallbackUrls') ?? DEFAULT_CALLBACK_URL).split(',').map((u) => u.trim());
    for (const url of callbackUrls) {
      // Cognito accepts http only for localhost.
      if (!/^https:\/\/\S+$/.test(url) && !/^http:\/\/localhost(:\d+)?(\/\S*)?$/.test(url)) {
        throw new Error(`userPoolCallbackUrls: ${url} must be https:// (or http://localhost)`);
      }
    }
    return { ...(domainPrefix ? { domainPrefix } : {}), callbackUrls };
  };

  const config: StackConfig = {
    jwtIssuer: get('jwtIssuer') ?? PLACEHOLDER_JWT.issuer,
    jwtAudience: get('jwtAudience') ?? PLACEHOLDER_JWT.audience,
    jwksUri: get('jwksUri') ?? PLACEHOLDER_JWT.jwksUri,
    scopeBase: get('scopeBase') ?? DEFAULT_SCOPE_BASE,
    stageName: get('stageName') ?? 'v',
    authorizerCacheTtlSeconds: int('authorizerCacheTtlSeconds', DEFAULT_AUTHORIZER_CACHE_TTL_SECONDS, 3600),
    throttlingRateLimit: int('throttlingRateLimit', 100, 10_000),
    throttlingBurstLimit: int('throttlingBurstLimit', 200, 5_000),
    reportingDomain: domain('reportingDomainName', 'reportingCertificateArn'),
    adminDomain: domain('adminDomainName', 'adminCertificateArn'),
    apiCloudWatchRole: bool('apiCloudWatchRole', true),
    // Lambda's limits: memory 128-10240 MB, /tmp 512-10240 MB; an SQS event source's maximum concurrency 2-1000.
    ingestMemoryMb: int('ingestMemoryMb', 3008, 10_240, 128),
    ingestEphemeralStorageMb: int('ingestEphemeralStorageMb', 2048, 10_240, 512),
    ingestMaxConcurrency: int('ingestMaxConcurrency', 10, 1000, 2),
    ingestBatchSize: int('ingestBatchSize', 1, 10, 1),
    ingestLagAlarmMinutes: int('ingestLagAlarmMinutes', 60, 24 * 60, 1),
    alarmEmail: get('alarmEmail'),
    corsAllowedOrigins,
    publicRootUrl: https('publicRootUrl'),
    explorer: bool('explorer', false),
    explorerOAuth: explorerOAuth(),
    reportingApiRoot: httpsUrl('reportingApiRoot', DEFAULT_REPORTING_API_ROOT),
    oauthTokenUrl: httpsUrl('oauthTokenUrl', DEFAULT_OAUTH_TOKEN_URL),
    syncSchedule: get('syncSchedule') ?? 'rate(6 hours)',
    syncConcurrency: int('syncConcurrency', 4, 1000, 2),
    userPool: userPool(),
  };
  if (!/^(rate|cron)\(.+\)$/.test(config.syncSchedule)) {
    throw new Error('syncSchedule must be an EventBridge rate(...) or cron(...) expression');
  }

  // aws-jwt-verify refuses non-https JWKS URIs; fail at synth rather than on the first request.
  if (!config.jwksUri.startsWith('https://')) throw new Error('jwksUri must be an https:// URL');
  if (!/^[A-Za-z0-9_]+$/.test(config.stageName)) throw new Error('stageName may hold only letters, digits and _');
  if (config.alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(config.alarmEmail)) {
    throw new Error('alarmEmail must be an e-mail address');
  }
  return config;
}
