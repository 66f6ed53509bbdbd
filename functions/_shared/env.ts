/** Environment settings, read once per container. Only adapters read these; domain code gets values injected. */
import { DEFAULT_SCOPE_BASE } from '../core/scopes';
import { DEFAULT_OAUTH_TOKEN_URL, DEFAULT_REPORTING_API_ROOT } from '../core/sync/defaults';

const read = (name: string): string | undefined => {
  const v = process.env[name];
  return v === undefined || v === '' ? undefined : v;
};

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
  /** Secret that signs page tokens (tamper-proof pagination). */
  get pageTokenSecret(): string {
    return read('PAGE_TOKEN_SECRET') ?? 'local-development-page-token-secret';
  },
};
