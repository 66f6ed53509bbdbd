/**
 * Stack settings. Each comes from CDK context (`-c key=value` or cdk.json) first, then from an environment
 * variable, then from a default. Pure: tests call loadConfig() with their own context and env.
 */
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
  /** The YouTube Reporting API the connected-owner sync reads (https). */
  readonly reportingApiRoot: string;
  /** Google's OAuth token endpoint the sync refreshes access tokens at (https). */
  readonly oauthTokenUrl: string;
  /** When the sync runs: an EventBridge `rate(…)` or `cron(…)` expression. */
  readonly syncSchedule: string;
  /** How many owners are synced at once (the worker's SQS maximum concurrency, 2–1000). */
  readonly syncConcurrency: number;
}

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
  reportingApiRoot: 'REPORTING_API_ROOT',
  oauthTokenUrl: 'OAUTH_TOKEN_URL',
  syncSchedule: 'SYNC_SCHEDULE',
  syncConcurrency: 'SYNC_CONCURRENCY',
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

  const config: StackConfig = {
    jwtIssuer: get('jwtIssuer') ?? PLACEHOLDER_JWT.issuer,
    jwtAudience: get('jwtAudience') ?? PLACEHOLDER_JWT.audience,
    jwksUri: get('jwksUri') ?? PLACEHOLDER_JWT.jwksUri,
    scopeBase: get('scopeBase') ?? DEFAULT_SCOPE_BASE,
    stageName: get('stageName') ?? 'v',
    authorizerCacheTtlSeconds: int('authorizerCacheTtlSeconds', 60, 3600),
    throttlingRateLimit: int('throttlingRateLimit', 100, 10_000),
    throttlingBurstLimit: int('throttlingBurstLimit', 200, 5_000),
    reportingDomain: domain('reportingDomainName', 'reportingCertificateArn'),
    adminDomain: domain('adminDomainName', 'adminCertificateArn'),
    reportingApiRoot: httpsUrl('reportingApiRoot', DEFAULT_REPORTING_API_ROOT),
    oauthTokenUrl: httpsUrl('oauthTokenUrl', DEFAULT_OAUTH_TOKEN_URL),
    syncSchedule: get('syncSchedule') ?? 'rate(6 hours)',
    syncConcurrency: int('syncConcurrency', 4, 1000, 2),
  };
  if (!/^(rate|cron)\(.+\)$/.test(config.syncSchedule)) {
    throw new Error('syncSchedule must be an EventBridge rate(...) or cron(...) expression');
  }

  // aws-jwt-verify refuses non-https JWKS URIs; fail at synth rather than on the first request.
  if (!config.jwksUri.startsWith('https://')) throw new Error('jwksUri must be an https:// URL');
  if (!/^[A-Za-z0-9_]+$/.test(config.stageName)) throw new Error('stageName may hold only letters, digits and _');
  return config;
}
