/** Settings of the local host (`npm start`, `npm run token`, `npm run invoke`), from the environment. */
import path from 'node:path';
import { DEFAULT_SCOPE_BASE } from '../../functions/core/scopes';
import { DEFAULT_AUDIENCE } from './local-issuer';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');

export const localSettings = {
  port: Number(process.env.PORT ?? 8080),
  dynamodbPort: Number(process.env.DYNAMODB_PORT ?? 8000),
  /** Set to use an already running DynamoDB (Local) instead of starting one. */
  dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT,
  tableName: process.env.TABLE_NAME ?? 'analytics-api-local',
  dataDir: path.join(ROOT, '.data', 'dynamodb'),
  keyFile: path.join(ROOT, '.local', 'issuer-key.json'),
  audience: process.env.JWT_AUDIENCE ?? DEFAULT_AUDIENCE,
  scopeBase: process.env.SCOPE_BASE ?? DEFAULT_SCOPE_BASE,
  /** `*` (default) or a comma-separated list of origins browsers may call from. */
  corsAllowedOrigins: process.env.CORS_ALLOWED_ORIGINS ?? '*',
};
