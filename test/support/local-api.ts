/**
 * A real local API for a test file: the dev server (same authorizer and handlers as the cloud) on a free
 * loopback port, against the run's DynamoDB Local, with a fresh in-memory issuer key, plus a token minter.
 */
import type { AddressInfo } from 'node:net';
import { DEFAULT_SCOPE_BASE } from '../../functions/core/scopes';
import { createDevServer } from '../../infra/local/dev-server';
import {
  createIssuerKey,
  DEFAULT_AUDIENCE,
  type IssuerKey,
  mintToken,
  type TokenRequest,
} from '../../infra/local/local-issuer';

export interface LocalApi {
  readonly baseUrl: string;
  readonly issuerKey: IssuerKey;
  token(sub: string, scopes: string[], extra?: Partial<TokenRequest>): Promise<string>;
  /** fetch against the server with a bearer token (omit `token` for none). */
  call(path: string, init?: RequestInit & { token?: string }): Promise<{ status: number; headers: Headers; body: any }>;
  close(): Promise<void>;
}

export async function startLocalApi(options: { corsAllowedOrigins?: string } = {}): Promise<LocalApi> {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  const tableName = process.env.TABLE_NAME;
  if (!endpoint || !tableName) throw new Error('DynamoDB Local is not running: use the integration project');
  const issuerKey = await createIssuerKey();
  const server = createDevServer({
    tableName,
    dynamodbEndpoint: endpoint,
    issuerKey,
    audience: DEFAULT_AUDIENCE,
    scopeBase: DEFAULT_SCOPE_BASE,
    ...options,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    issuerKey,
    token: (sub, scopes, extra = {}) => mintToken(issuerKey, { sub, scopes, scopeBase: DEFAULT_SCOPE_BASE, ...extra }),
    async call(path, init = {}) {
      const { token, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (token !== undefined) headers.set('Authorization', `Bearer ${token}`);
      if (rest.body !== undefined && !headers.has('Content-Type')) headers.set('Content-Type', 'application/json');
      const res = await fetch(`${baseUrl}${path}`, { ...rest, headers });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // leave non-JSON bodies as text so the assertion shows them
      }
      return { status: res.status, headers: res.headers, body };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
