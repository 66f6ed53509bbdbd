/** Where the caller reached this API, for answers that name it (discovery `rootUrl`, the Query Explorer's API root). */
import type { APIGatewayProxyEvent } from 'aws-lambda';

/** Case-insensitive header lookup (API Gateway keeps the client's casing; Node lower-cases). */
export function headerOf(event: Pick<APIGatewayProxyEvent, 'headers'>, name: string): string | undefined {
  const headers = event.headers ?? {};
  const wanted = name.toLowerCase();
  // Node and HTTP/2 clients send lower-case names: the exact key first; only names of the same length are folded.
  const exact = headers[wanted];
  if (exact != null) return exact;
  for (const k in headers) {
    if (k.length === wanted.length && k.toLowerCase() === wanted) return headers[k] ?? undefined;
  }
  return undefined;
}

const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The API's root URL with a trailing slash: `configured` when set, else the request's scheme and host plus what
 * precedes the resource path in the URL the client called (the stage on an execute-api host, the base path of a
 * custom domain, nothing locally).
 */
export function requestRootUrl(event: APIGatewayProxyEvent, configured?: string): string {
  if (configured) return configured.endsWith('/') ? configured : `${configured}/`;
  const ctx = event.requestContext as Partial<APIGatewayProxyEvent['requestContext']> | undefined;
  const hostHeader = headerOf(event, 'host');
  const host = hostHeader && HOST.test(hostHeader) ? hostHeader : (ctx?.domainName ?? 'localhost');
  const proto = headerOf(event, 'x-forwarded-proto') === 'https' ? 'https' : hostHeader ? 'http' : 'https';
  const calledPath = ctx?.path ?? event.path;
  // The root resource may be called without its slash (`/v` for `/v/`).
  const resource = event.path === '/' ? '' : event.path;
  const prefix = calledPath.endsWith(resource) ? calledPath.slice(0, calledPath.length - resource.length) : '';
  return `${proto}://${host}${prefix.replace(/\/$/, '')}/`;
}
