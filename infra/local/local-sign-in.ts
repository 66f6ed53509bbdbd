/**
 * Local-only endpoints of the local server, for the Query Explorer's sign-in (never in the route table, so never in
 * the stack): `GET /local/config` lists the demo users, `POST /local/token` mints a token for one of them through
 * the local issuer, as `npm run token` does. They answer only same-origin requests: no CORS headers, a JSON body
 * (so a cross-site form or script cannot post one without a preflight, which is refused) and an Origin, when sent,
 * that is this server's own.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SCOPE_NAMES } from '../../functions/core/scopes';
import { demoDirectoryDocument } from './demo-world';
import { type IssuerKey, mintToken } from './local-issuer';

export const LOCAL_PREFIX = '/local/';
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The demo users, from the demo directory file (read once, on first use). */
let users: { sub: string; channels: string[]; contentOwners: string[] }[] | undefined;
const demoUsers = () =>
  (users ??= (demoDirectoryDocument().users ?? []).map((u) => ({
    sub: u.sub,
    channels: u.channels ?? [],
    contentOwners: u.contentOwners ?? [],
  })));

export interface LocalSignInContext {
  readonly issuerKey: IssuerKey;
  readonly audience: string;
  readonly scopeBase: string;
}

const send = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=UTF-8', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(body));
  return status;
};

const refuse = (res: ServerResponse, status: number, message: string) =>
  send(res, status, { error: { code: status, message, status: status === 404 ? 'NOT_FOUND' : 'PERMISSION_DENIED' } });

/** Answers a `/local/…` request; the caller has checked the prefix. Returns the status sent. */
export async function serveLocalSignIn(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  body: string,
  ctx: LocalSignInContext,
): Promise<number> {
  const origin = req.headers.origin;
  // A loopback Host (no DNS rebinding) and, from a browser, this very origin.
  if (!LOOPBACK.has(url.hostname) || (origin !== undefined && origin !== url.origin)) {
    return refuse(res, 403, 'Local sign-in is same-origin only, on a loopback address.');
  }
  if (req.method === 'GET' && url.pathname === '/local/config') {
    return send(res, 200, { mode: 'local', users: demoUsers(), scopes: SCOPE_NAMES });
  }
  if (req.method === 'POST' && url.pathname === '/local/token') {
    if (!/^application\/json\b/i.test(String(req.headers['content-type'] ?? ''))) {
      return refuse(res, 403, 'Send the sign-in request as application/json.');
    }
    let request: { sub?: unknown; scopes?: unknown };
    try {
      request = JSON.parse(body) as typeof request;
    } catch {
      return send(res, 400, { error: { code: 400, message: 'The body is not JSON.', status: 'INVALID_ARGUMENT' } });
    }
    const user = demoUsers().find((u) => u.sub === request.sub);
    const scopes = Array.isArray(request.scopes) ? request.scopes : [...SCOPE_NAMES];
    if (!user || scopes.some((s) => !(SCOPE_NAMES as readonly unknown[]).includes(s))) {
      return send(res, 400, {
        error: { code: 400, message: 'Unknown demo user or scope.', status: 'INVALID_ARGUMENT' },
      });
    }
    const expiresIn = 3600;
    const token = await mintToken(ctx.issuerKey, {
      sub: user.sub,
      scopes: scopes as string[],
      audience: ctx.audience,
      scopeBase: ctx.scopeBase,
      expiresInSeconds: expiresIn,
    });
    return send(res, 200, { access_token: token, token_type: 'Bearer', expires_in: expiresIn });
  }
  return refuse(res, 404, 'The requested URL was not found on this server.');
}
