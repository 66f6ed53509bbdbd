/**
 * The local host of the API: a node:http server driven by the route table. Each request goes through the same
 * authorizer code (with the local issuer's keys) and the same handler modules as in the cloud, as API Gateway
 * REST proxy events; the gateway's own answers (unknown route, 401, 403, 5xx) use the same Google error bodies.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { type GatewayErrorType, gatewayErrors, WWW_AUTHENTICATE } from '../../functions/_shared/error-envelope';
import type { ProxyHandler } from '../../functions/_shared/http-handler';
import { makeAuthorizer } from '../../functions/authorizer/authorize';
import { makeDecide } from '../../functions/authorizer/decide';
import { createVerifier } from '../../functions/authorizer/verifier';
import { matchRoute, type RouteDef } from '../../functions/routes';
import { type LocalRequest, toAuthorizerEvent, toProxyEvent } from './api-event';
import { type IssuerKey, LOCAL_ISSUER, LOCAL_JWKS_URI, localJwks } from './local-issuer';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const MAX_BODY_BYTES = 1024 * 1024;

export interface DevServerOptions {
  tableName: string;
  dynamodbEndpoint: string;
  issuerKey: IssuerKey;
  audience: string;
  scopeBase: string;
  /** Called once per request, after the response is sent. */
  onRequest?: (line: { method: string; path: string; status: number; ms: number }) => void;
}

export function createDevServer(options: DevServerOptions): Server {
  // Handlers read these when their module loads, exactly as a Lambda reads its environment.
  Object.assign(process.env, {
    TABLE_NAME: options.tableName,
    DYNAMODB_ENDPOINT: options.dynamodbEndpoint,
    SCOPE_BASE: options.scopeBase,
  });
  const verifier = createVerifier({
    issuer: LOCAL_ISSUER,
    audience: options.audience,
    jwksUri: LOCAL_JWKS_URI,
    jwks: localJwks(options.issuerKey) as never,
  });
  const authorize = makeAuthorizer(makeDecide(verifier, options.scopeBase));
  const handlers = new Map<string, Promise<ProxyHandler>>();
  const handlerFor = (route: RouteDef) => {
    let h = handlers.get(route.id);
    if (!h) {
      h = import(pathToFileURL(path.join(ROOT, route.entry)).href).then((m: { handler: ProxyHandler }) => m.handler);
      handlers.set(route.id, h);
    }
    return h;
  };

  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<number> => {
    const body = await readBody(req);
    if (body === undefined) return sendGatewayError(res, 'REQUEST_TOO_LARGE');
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
    const match = matchRoute(req.method ?? 'GET', url.pathname);
    // API Gateway answers an unknown path or method with MISSING_AUTHENTICATION_TOKEN, remapped here to 404.
    if (!match.route) return sendGatewayError(res, 'MISSING_AUTHENTICATION_TOKEN');
    const local: LocalRequest = {
      method: match.route.method,
      url,
      headers: req.headers,
      body,
      sourceIp: req.socket.remoteAddress,
    };
    const requestId = randomUUID();

    let context: Record<string, string>;
    try {
      const result = await authorize(toAuthorizerEvent(local, match.route, match.pathParameters, requestId));
      if (result.policyDocument.Statement.some((s) => s.Effect !== 'Allow'))
        return sendGatewayError(res, 'ACCESS_DENIED');
      context = { principalId: result.principalId, ...(result.context as Record<string, string>) };
    } catch (err) {
      return sendGatewayError(res, (err as Error).message === 'Unauthorized' ? 'UNAUTHORIZED' : 'DEFAULT_5XX');
    }

    let result: APIGatewayProxyResult;
    try {
      const handler = await handlerFor(match.route);
      result = await handler(toProxyEvent(local, match.route, match.pathParameters, context, requestId));
    } catch {
      // A handler that throws is a Lambda error: API Gateway answers 5xx with the gateway body.
      return sendGatewayError(res, 'DEFAULT_5XX');
    }
    res.writeHead(result.statusCode, { ...(result.headers as Record<string, string>), 'x-request-id': requestId });
    res.end(result.body);
    return result.statusCode;
  };

  return createServer((req, res) => {
    const started = performance.now();
    void serve(req, res)
      .catch(() => sendGatewayError(res, 'DEFAULT_5XX'))
      .then((status) =>
        options.onRequest?.({
          method: req.method ?? '',
          path: req.url ?? '',
          status,
          ms: Math.round(performance.now() - started),
        }),
      );
  });
}

function sendGatewayError(res: ServerResponse, type: GatewayErrorType): number {
  const body = gatewayErrors[type];
  const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=UTF-8' };
  if (type === 'UNAUTHORIZED') headers['WWW-Authenticate'] = WWW_AUTHENTICATE;
  if (!res.headersSent) res.writeHead(body.error.code, headers);
  res.end(JSON.stringify(body));
  return body.error.code;
}

/** The request body as text, or undefined when it is larger than the gateway would pass on. */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
