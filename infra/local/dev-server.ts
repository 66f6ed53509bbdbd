/**
 * The local host of the API: a node:http server driven by the route table. Each request goes through the same
 * authorizer code (with the local issuer's keys) and the same handler modules as in the cloud, as API Gateway
 * REST proxy events; the gateway's own answers (unknown route, 401, 403, 5xx, CORS preflights, compression) behave
 * as the stack's API Gateway does, with the same Google error bodies and the same CORS policy (transport.ts).
 * Local-only: the Query Explorer's demo sign-in under /local/ (local-sign-in.ts).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { type GatewayErrorType, gatewayErrors, WWW_AUTHENTICATE } from '../../functions/_shared/error-envelope';
import type { ProxyHandler } from '../../functions/_shared/http-handler';
import {
  type CorsOrigins,
  gatewayCorsHeaders,
  parseCorsOrigins,
  preflightHeaders,
} from '../../functions/_shared/transport';
import { makeAuthorizer } from '../../functions/authorizer/authorize';
import { makeDecide } from '../../functions/authorizer/decide';
import { createVerifier } from '../../functions/authorizer/verifier';
import { matchRoute, type RouteDef, routes } from '../../functions/routes';
import { DEFAULT_AUTHORIZER_CACHE_TTL_SECONDS } from '../config';
import { localExplorerPageFile } from '../tools/build-explorer';
import { type LocalRequest, toAuthorizerEvent, toProxyEvent } from './api-event';
import { cachingAuthorizer, policyAllows } from './authorizer-cache';
import { sendBody } from './http-send';
import { type IssuerKey, LOCAL_ISSUER, LOCAL_JWKS_URI, localJwks } from './local-issuer';
import { LOCAL_PREFIX, serveLocalSignIn } from './local-sign-in';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const MAX_BODY_BYTES = 1024 * 1024;

export interface DevServerOptions {
  tableName: string;
  dynamodbEndpoint: string;
  issuerKey: IssuerKey;
  audience: string;
  scopeBase: string;
  /** CORS_ALLOWED_ORIGINS: `*` (default) or a comma-separated list of origins. */
  corsAllowedOrigins?: string;
  /** How long an authorizer decision is reused, as the stack's API Gateway does (default: the stack's default). */
  authorizerCacheTtlSeconds?: number;
  /** Called once per request, after the response is sent. */
  onRequest?: (line: { method: string; path: string; status: number; ms: number }) => void;
}

/** The methods each route path serves, for preflight answers. */
const methodsByPath = new Map<string, string[]>();
for (const r of routes as readonly RouteDef[])
  methodsByPath.set(r.path, [...(methodsByPath.get(r.path) ?? []), r.method]);

export function createDevServer(options: DevServerOptions): Server {
  const origins: CorsOrigins = parseCorsOrigins(options.corsAllowedOrigins);
  // Handlers read these when their module loads (or per request), exactly as a Lambda reads its environment.
  Object.assign(process.env, {
    TABLE_NAME: options.tableName,
    DYNAMODB_ENDPOINT: options.dynamodbEndpoint,
    SCOPE_BASE: options.scopeBase,
    CORS_ALLOWED_ORIGINS: options.corsAllowedOrigins ?? '*',
  });
  const verifier = createVerifier({
    issuer: LOCAL_ISSUER,
    audience: options.audience,
    jwksUri: LOCAL_JWKS_URI,
    jwks: localJwks(options.issuerKey) as never,
  });
  const authorize = cachingAuthorizer(
    makeAuthorizer(makeDecide(verifier, options.scopeBase)),
    options.authorizerCacheTtlSeconds ?? DEFAULT_AUTHORIZER_CACHE_TTL_SECONDS,
  );
  const handlers = new Map<string, Promise<ProxyHandler>>();
  /** The handlers already loaded, called without waiting on their import again. */
  const loaded = new Map<string, ProxyHandler>();
  const handlerFor = (route: RouteDef) => {
    let h = handlers.get(route.id);
    if (!h) {
      h = import(pathToFileURL(path.join(ROOT, route.entry)).href).then((m: { handler: ProxyHandler }) => {
        loaded.set(route.id, m.handler);
        return m.handler;
      });
      handlers.set(route.id, h);
    }
    return h;
  };

  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<number> => {
    const origin = req.headers.origin;
    const gatewayError = (type: GatewayErrorType) =>
      sendGatewayError(req, res, type, gatewayCorsHeaders(origins, origin));
    const body = announcesBody(req) ? await readBody(req) : '';
    if (body === undefined) return gatewayError('REQUEST_TOO_LARGE');
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
    if (url.pathname.startsWith(LOCAL_PREFIX)) return serveLocalSignIn(req, res, url, body, options);
    const match = matchRoute(req.method ?? 'GET', url.pathname);
    // A CORS preflight of a route's path: answered without a token (API Gateway: a mock OPTIONS method per path).
    if (req.method === 'OPTIONS' && !match.route && match.pathMatched) {
      const template = matchedTemplate(url.pathname);
      res.writeHead(204, preflightHeaders(origins, origin, methodsByPath.get(template ?? '') ?? []));
      res.end();
      return 204;
    }
    // API Gateway answers an unknown path or method with MISSING_AUTHENTICATION_TOKEN, remapped here to 404.
    if (!match.route) return gatewayError('MISSING_AUTHENTICATION_TOKEN');
    const local: LocalRequest = {
      method: match.route.method,
      url,
      headers: req.headers,
      body,
      sourceIp: req.socket.remoteAddress,
    };
    const requestId = randomUUID();

    let context: Record<string, string> = {};
    if (!match.route.public) {
      try {
        const event = toAuthorizerEvent(local, match.route, match.pathParameters, requestId);
        const result = await authorize(event);
        if (!policyAllows(result, event.methodArn)) return gatewayError('ACCESS_DENIED');
        context = { principalId: result.principalId, ...(result.context as Record<string, string>) };
      } catch (err) {
        return gatewayError((err as Error).message === 'Unauthorized' ? 'UNAUTHORIZED' : 'DEFAULT_5XX');
      }
    }

    let result: APIGatewayProxyResult;
    try {
      // The stack builds the page next to the function's bundle; locally it is built on first use.
      if (match.route.id === 'explorer.page') process.env.EXPLORER_PAGE_FILE = await localExplorerPageFile();
      const handler = loaded.get(match.route.id) ?? (await handlerFor(match.route));
      result = await handler(toProxyEvent(local, match.route, match.pathParameters, context, requestId));
    } catch {
      // A handler that throws is a Lambda error: API Gateway answers 5xx with the gateway body.
      return gatewayError('DEFAULT_5XX');
    }
    const headers = { ...(result.headers as Record<string, string>), 'x-request-id': requestId };
    sendBody(req, res, result.statusCode, headers, result.body);
    return result.statusCode;
  };

  return createServer((req, res) => {
    const started = performance.now();
    void serve(req, res)
      .catch(() => sendGatewayError(req, res, 'DEFAULT_5XX', gatewayCorsHeaders(origins, req.headers.origin)))
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

/** The route template a concrete path belongs to (for a preflight, whose method matches no route). */
function matchedTemplate(pathname: string): string | undefined {
  for (const method of ['GET', 'POST', 'PUT', 'DELETE'] as const) {
    const m = matchRoute(method, pathname);
    if (m.route) return m.route.path;
  }
  return undefined;
}

function sendGatewayError(
  req: IncomingMessage,
  res: ServerResponse,
  type: GatewayErrorType,
  cors: Record<string, string>,
): number {
  const body = gatewayErrors[type];
  const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=UTF-8', ...cors };
  if (type === 'UNAUTHORIZED') headers['WWW-Authenticate'] = WWW_AUTHENTICATE;
  sendBody(req, res, body.error.code, headers, JSON.stringify(body));
  return body.error.code;
}

/**
 * Whether a request carries a body: one with neither Content-Length nor Transfer-Encoding has none (RFC 9112 §6.3),
 * so there is nothing to wait for (Node discards the empty stream once the answer is sent).
 */
const announcesBody = (req: IncomingMessage): boolean =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

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
