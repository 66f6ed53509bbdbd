/**
 * `npm start`: DynamoDB Local (data kept in .data/; `npm start -- --reset` starts afresh), the table, the demo
 * world, and both base paths served on http://127.0.0.1:8080 (PORT overrides).
 */
import { parseArgs } from 'node:util';
import { parseCorsOrigins } from '../../functions/_shared/transport';
import { createDevServer } from './dev-server';
import { loadIssuerKey } from './local-issuer';
import { openLocalTable } from './local-table';
import { localSettings } from './settings';

const { values } = parseArgs({ options: { reset: { type: 'boolean', default: false } } });

try {
  parseCorsOrigins(localSettings.corsAllowedOrigins);
} catch (err) {
  console.error(`CORS_ALLOWED_ORIGINS: ${(err as Error).message}`);
  process.exit(2);
}

const table = await openLocalTable({ reset: values.reset });
const server = createDevServer({
  tableName: table.tableName,
  dynamodbEndpoint: table.endpoint,
  issuerKey: await loadIssuerKey(localSettings.keyFile),
  audience: localSettings.audience,
  scopeBase: localSettings.scopeBase,
  corsAllowedOrigins: localSettings.corsAllowedOrigins,
  onRequest: ({ method, path, status, ms }) => console.log(`${method} ${path} -> ${status} (${ms} ms)`),
});

server.on('error', async (err) => {
  console.error(`Cannot serve on port ${localSettings.port}: ${err.message}`);
  await table.close();
  process.exit(1);
});

server.listen(localSettings.port, '127.0.0.1', () => {
  const base = `http://127.0.0.1:${localSettings.port}`;
  console.log(`
Analytics API (local) is up.
  Query Explorer:           ${base}/   (sign in as a demo user, build a report, see table and chart)
  YouTube Analytics v2:     ${base}/v2/   (reports, groups, groupItems)
  Analytics Admin v1alpha:  ${base}/v1alpha/   (properties.get)
  Discovery documents:      ${base}/$discovery/rest?version=v2   (and ?version=v1alpha)
  DynamoDB Local:           ${table.endpoint}  table ${table.tableName}

Demo users (tokens: npm run --silent token -- --sub <user> --scope <scopes>):
  alice    owns channel UCdemo-alice (videos alice-v0001..alice-v0600, playlists alice-p01..alice-p10);
           reads analytics account accounts/100 (properties/1000, properties/1001)
  bob      manages content owner demo-co (assets co-a0001..co-a0050, linked channel UCdemo-carol);
           reads properties/2000 only
  carol    owns channel UCdemo-carol (videos carol-v0001..carol-v0100, playlists carol-p01..carol-p05)
  dave     owns channel UCdemo-dave (videos dave-v001..dave-v100), no analytics data yet
  mallory  owns nothing

Try:
  curl -s -H "Authorization: Bearer $(npm run --silent token -- --sub alice --scope analytics.readonly)" \\
    ${base}/v1alpha/properties/1000

Ctrl-C stops the server and DynamoDB Local.`);
});

const shutdown = async () => {
  server.close();
  server.closeAllConnections();
  await table.close();
  process.exit(0);
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
