/**
 * Stack settings. Each comes from CDK context (`-c key=value` or cdk.json) first, then from an environment
 * variable, then from a default. Pure: tests call loadConfig() with their own context and env.
 */
import { DEFAULT_SCOPE_BASE } from '../functions/core/scopes';

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

  const int = (key: SettingKey, fallback: number, max: number): number => {
    const value = get(key);
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0 || n > max) throw new Error(`${key} must be an integer from 0 to ${max}`);
    return n;
  };

  const domain = (nameKey: SettingKey, certKey: SettingKey): CustomDomain | undefined => {
    const domainName = get(nameKey);
    const certificateArn = get(certKey);
    if (!domainName && !certificateArn) return undefined;
    if (!domainName || !certificateArn) throw new Error(`${nameKey} and ${certKey} must be set together`);
    return { domainName, certificateArn };
  };

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
    authorizerCacheTtlSeconds: int('authorizerCacheTtlSeconds', 60, 3600),
    throttlingRateLimit: int('throttlingRateLimit', 100, 10_000),
    throttlingBurstLimit: int('throttlingBurstLimit', 200, 5_000),
    reportingDomain: domain('reportingDomainName', 'reportingCertificateArn'),
    adminDomain: domain('adminDomainName', 'adminCertificateArn'),
    userPool: userPool(),
  };

  // aws-jwt-verify refuses non-https JWKS URIs; fail at synth rather than on the first request.
  if (!config.jwksUri.startsWith('https://')) throw new Error('jwksUri must be an https:// URL');
  if (!/^[A-Za-z0-9_]+$/.test(config.stageName)) throw new Error('stageName may hold only letters, digits and _');
  return config;
}
