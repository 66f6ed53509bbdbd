/**
 * `npm run invoke -- <operation-id | authorizer> [event-file]` runs one handler on this machine against the
 * local table and prints its response. The default event is events/<family>/<kebab-id>.json
 * (events/authorizer/allow.json for the authorizer). Uses the running `npm start` DynamoDB Local if there is one.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import type { ProxyHandler } from '../../functions/_shared/http-handler';
import { makeAuthorizer } from '../../functions/authorizer/authorize';
import { makeDecide } from '../../functions/authorizer/decide';
import { createVerifier } from '../../functions/authorizer/verifier';
import { kebabId, routesById } from '../../functions/routes';
import { localExplorerPageFile } from '../tools/build-explorer';
import { loadEvent } from './event-template';
import { LOCAL_ISSUER, LOCAL_JWKS_URI, loadIssuerKey, localJwks } from './local-issuer';
import { openLocalTable } from './local-table';
import { localSettings, ROOT } from './settings';

const [operation, eventArg] = process.argv.slice(2);
const route = operation ? routesById.get(operation) : undefined;
if (!operation || (!route && operation !== 'authorizer')) {
  console.error(`usage: npm run invoke -- <${[...routesById.keys(), 'authorizer'].join(' | ')}> [event-file]`);
  process.exit(2);
}

const issuerKey = await loadIssuerKey(localSettings.keyFile);
const templateContext = { issuerKey, audience: localSettings.audience, scopeBase: localSettings.scopeBase };
const eventFile = eventArg
  ? path.resolve(eventArg)
  : path.join(ROOT, 'events', route ? `${route.family}/${kebabId(route.id)}.json` : 'authorizer/allow.json');

let output: unknown;
if (!route) {
  const verifier = createVerifier({
    issuer: LOCAL_ISSUER,
    audience: localSettings.audience,
    jwksUri: LOCAL_JWKS_URI,
    jwks: localJwks(issuerKey) as never,
  });
  const authorize = makeAuthorizer(makeDecide(verifier, localSettings.scopeBase));
  output = await authorize(await loadEvent<APIGatewayRequestAuthorizerEvent>(eventFile, templateContext)).catch(
    (err: Error) => ({ thrown: err.message }),
  );
} else {
  const table = await openLocalTable({ quiet: true });
  Object.assign(process.env, {
    TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: table.endpoint,
    SCOPE_BASE: localSettings.scopeBase,
  });
  if (route.id === 'explorer.page') process.env.EXPLORER_PAGE_FILE = await localExplorerPageFile();
  const { handler } = (await import(pathToFileURL(path.join(ROOT, route.entry)).href)) as { handler: ProxyHandler };
  const result = await handler(await loadEvent<APIGatewayProxyEvent>(eventFile, templateContext));
  const json = /^application\/json/.test(String(result.headers?.['Content-Type'] ?? ''));
  output = { ...result, body: json && result.body ? JSON.parse(result.body) : result.body };
  await table.close();
}
console.log(JSON.stringify(output, null, 2));
