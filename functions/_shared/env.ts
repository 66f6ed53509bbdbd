/** Environment settings, read once per container. Only adapters read these; domain code gets values injected. */
import { DEFAULT_SCOPE_BASE } from '../core/scopes';

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
