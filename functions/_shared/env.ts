/** Environment settings, read once per container. Only adapters read these; domain code gets values injected. */
import { DEFAULT_SCOPE_BASE } from '../core/scopes';
import { DEFAULT_OAUTH_TOKEN_URL, DEFAULT_REPORTING_API_ROOT } from '../core/sync/defaults';
import { type CorsOrigins, parseCorsOrigins } from './transport';

const read = (name: string): string | undefined => {
  const v = process.env[name];
  return v === undefined || v === '' ? undefined : v;
};

let corsCache: { raw: string | undefined; origins: CorsOrigins } | undefined;

export const env = {
  /** DynamoDB table holding everything (single-table design). */
  get tableName(): string {
    return read('TABLE_NAME') ?? 'analytics-api';
  },
  /** Set only for local runs and tests (DynamoDB Local). */
  get dynamodbEndpoint(): string | undefined {
    return read('DYNAMODB_ENDPOINT');
  },
  get scopeBase(): string {
    return read('SCOPE_BASE') ?? DEFAULT_SCOPE_BASE;
  },
  get jwtIssuer(): string | undefined {
    return read('JWT_ISSUER');
  },
  get jwtAudience(): string | undefined {
    return read('JWT_AUDIENCE');
  },
  get jwksUri(): string | undefined {
    return read('JWKS_URI');
  },
  /** Origins browsers may call from: `*` (default) or the list in CORS_ALLOWED_ORIGINS (see transport.ts). */
  get corsOrigins(): CorsOrigins {
    const raw = read('CORS_ALLOWED_ORIGINS');
    if (corsCache?.raw !== raw) corsCache = { raw, origins: parseCorsOrigins(raw) };
    return corsCache?.origins ?? '*';
  },
  /** The API's public root (`https://api.example.com/`) when it is not the request's own host and stage. */
  get publicRootUrl(): string | undefined {
    return read('PUBLIC_ROOT_URL');
  },
  /** The YouTube Reporting API the sync reads (tests point it at a local stand-in). */
  get reportingApiRoot(): string {
    const root = read('REPORTING_API_ROOT') ?? DEFAULT_REPORTING_API_ROOT;
    return root.endsWith('/') ? root : `${root}/`;
  },
  /** Google's OAuth token endpoint, where the sync trades refresh tokens for access tokens. */
  get oauthTokenUrl(): string {
    return read('OAUTH_TOKEN_URL') ?? DEFAULT_OAUTH_TOKEN_URL;
  },
  /** First retry delay of the sync's calls after a 429 or 5xx (doubling, with jitter). */
  get syncRetryBaseMs(): number | undefined {
    const v = Number(read('SYNC_RETRY_BASE_MS'));
    return Number.isFinite(v) && v >= 0 ? v : undefined;
  },
  /** The exports bucket the cloud sync writes reports to. */
  get exportsBucket(): string | undefined {
    return read('EXPORTS_BUCKET');
  },
  /** The queue the sync dispatcher sends one message per connected owner to. */
  get syncQueueUrl(): string | undefined {
    return read('SYNC_QUEUE_URL');
  },
  /** The stack's user pool (`-c userPool=true`), whose access tokens the authorizer accepts. */
  get cognitoUserPoolId(): string | undefined {
    return read('COGNITO_USER_POOL_ID');
  },
  /** The pool's app clients (comma-separated) whose access tokens are accepted. */
  get cognitoClientIds(): string[] {
    return (read('COGNITO_CLIENT_IDS') ?? '').split(',').filter(Boolean);
  },
  /** Secret that signs page tokens (tamper-proof pagination). */
  get pageTokenSecret(): string {
    return read('PAGE_TOKEN_SECRET') ?? 'local-development-page-token-secret';
  },
};
