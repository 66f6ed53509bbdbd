/** Environment settings, read once per container. Only adapters read these; domain code gets values injected. */
import { DEFAULT_SCOPE_BASE } from '../core/scopes';
import { DEFAULT_OAUTH_TOKEN_URL, DEFAULT_REPORTING_API_ROOT } from '../core/sync/defaults';
import { type CorsOrigins, parseCorsOrigins } from './transport';

const read = (name: string): string | undefined => {
  const v = process.env[name];
  return v === undefined || v === '' ? undefined : v;
};

let corsCache: { raw: string | undefined; origins: CorsOrigins } | undefined;

// One function per setting, imported as a namespace (`import * as env`): a bundle carries the settings it reads.
/** DynamoDB table holding everything (single-table design). */
export function tableName(): string {
  return read('TABLE_NAME') ?? 'analytics-api';
}
/** Set only for local runs and tests (DynamoDB Local). */
export function dynamodbEndpoint(): string | undefined {
  return read('DYNAMODB_ENDPOINT');
}
export function scopeBase(): string {
  return read('SCOPE_BASE') ?? DEFAULT_SCOPE_BASE;
}
export function jwtIssuer(): string | undefined {
  return read('JWT_ISSUER');
}
export function jwtAudience(): string | undefined {
  return read('JWT_AUDIENCE');
}
export function jwksUri(): string | undefined {
  return read('JWKS_URI');
}
/** Origins browsers may call from: `*` (default) or the list in CORS_ALLOWED_ORIGINS (see transport.ts). */
export function corsOrigins(): CorsOrigins {
  const raw = read('CORS_ALLOWED_ORIGINS');
  if (corsCache?.raw !== raw) corsCache = { raw, origins: parseCorsOrigins(raw) };
  return corsCache?.origins ?? '*';
}
/** The API's public root (`https://api.example.com/`) when it is not the request's own host and stage. */
export function publicRootUrl(): string | undefined {
  return read('PUBLIC_ROOT_URL');
}
/** The YouTube Reporting API the sync reads (tests point it at a local stand-in). */
export function reportingApiRoot(): string {
  const root = read('REPORTING_API_ROOT') ?? DEFAULT_REPORTING_API_ROOT;
  return root.endsWith('/') ? root : `${root}/`;
}
/** Google's OAuth token endpoint, where the sync trades refresh tokens for access tokens. */
export function oauthTokenUrl(): string {
  return read('OAUTH_TOKEN_URL') ?? DEFAULT_OAUTH_TOKEN_URL;
}
/** First retry delay of the sync's calls after a 429 or 5xx (doubling, with jitter). */
export function syncRetryBaseMs(): number | undefined {
  const v = Number(read('SYNC_RETRY_BASE_MS'));
  return Number.isFinite(v) && v >= 0 ? v : undefined;
}
/** The exports bucket the cloud sync writes reports to. */
export function exportsBucket(): string | undefined {
  return read('EXPORTS_BUCKET');
}
/** The queue the sync dispatcher sends one message per connected owner to. */
export function syncQueueUrl(): string | undefined {
  return read('SYNC_QUEUE_URL');
}
/** The stack's user pool (`-c userPool=true`), whose access tokens the authorizer accepts. */
export function cognitoUserPoolId(): string | undefined {
  return read('COGNITO_USER_POOL_ID');
}
/** The pool's app clients (comma-separated) whose access tokens are accepted. */
export function cognitoClientIds(): string[] {
  return (read('COGNITO_CLIENT_IDS') ?? '').split(',').filter(Boolean);
}
/** Secret that signs page tokens (tamper-proof pagination). */
export function pageTokenSecret(): string {
  return read('PAGE_TOKEN_SECRET') ?? 'local-development-page-token-secret';
}
