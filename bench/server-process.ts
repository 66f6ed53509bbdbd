/**
 * The local server in a process of its own, as the API runs in the cloud: a function's process serves requests and
 * does nothing else. The bench's own work (generating exports, ingesting, DuckDB, the HTTP client) then shares
 * neither its heap nor its event loop. Settings come from the environment (BENCH_ISSUER_KEY: the issuer key as
 * JSON); the port it listens on is the first line it prints.
 */
import type { AddressInfo } from 'node:net';
import { DEFAULT_SCOPE_BASE } from '../functions/core/scopes';
import { createDevServer } from '../infra/local/dev-server';
import { DEFAULT_AUDIENCE, type IssuerKey } from '../infra/local/local-issuer';

const { TABLE_NAME, DYNAMODB_ENDPOINT, BENCH_ISSUER_KEY } = process.env;
if (!TABLE_NAME || !DYNAMODB_ENDPOINT || !BENCH_ISSUER_KEY) {
  console.error('server-process: TABLE_NAME, DYNAMODB_ENDPOINT and BENCH_ISSUER_KEY must be set');
  process.exit(2);
}
const server = createDevServer({
  tableName: TABLE_NAME,
  dynamodbEndpoint: DYNAMODB_ENDPOINT,
  issuerKey: JSON.parse(BENCH_ISSUER_KEY) as IssuerKey,
  audience: DEFAULT_AUDIENCE,
  scopeBase: DEFAULT_SCOPE_BASE,
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The parent's end is this process's end too.
process.stdin.on('end', stop).resume();
