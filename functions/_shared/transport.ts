/**
 * How responses travel to browsers and clients, as Google's APIs do it: CORS for any origin by default (access is by
 * bearer token, never by cookie, so no origin gains anything a script could not do with the token), an allow-list
 * when configured, and gzip above a size threshold. The stack (API Gateway), the handler wrapper and the local server
 * all take their values from here.
 */

/** Request headers a preflight allows: the credential, JSON bodies, and the headers Google's clients send. */
// biome-ignore format: word lists read best packed
export const CORS_ALLOW_HEADERS = [
  'Authorization', 'Content-Type', 'X-Goog-Api-Client', 'X-Goog-Api-Key', 'X-Goog-AuthUser',
  'X-Goog-Encode-Response-If-Executable', 'X-Goog-FieldMask', 'X-Goog-Request-Params', 'X-Goog-User-Project',
  'X-Goog-Visitor-Id', 'X-ClientDetails', 'X-JavaScript-User-Agent', 'X-Origin', 'X-Referer', 'X-Requested-With',
] as const;

/** Response headers a page may read besides the safelisted ones: the read cost and the 401 challenge. */
export const CORS_EXPOSE_HEADERS = ['X-Items-Read', 'X-Bytes-Read', 'WWW-Authenticate'] as const;

/** How long a browser may cache a preflight answer (Chromium caps it at two hours). */
export const CORS_MAX_AGE_SECONDS = 3600;

/** Bodies at least this large travel gzip-encoded when the client accepts it (API Gateway minCompressionSize). */
export const MIN_COMPRESSION_BYTES = 1024;

/** `*` (any origin) or the exact origins allowed. */
export type CorsOrigins = '*' | readonly string[];

const ORIGIN = /^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$|^https?:\/\/\[[0-9a-f:.]+\](:\d{1,5})?$/;

/**
 * Parses the CORS_ALLOWED_ORIGINS setting: unset or `*` for any origin, else a comma-separated list of origins
 * (`https://app.example.com`, `http://127.0.0.1:5173`: scheme, host, optional port, nothing else).
 */
export function parseCorsOrigins(text: string | undefined): CorsOrigins {
  const value = (text ?? '').trim();
  if (value === '' || value === '*') return '*';
  const origins = value.split(',').map((o) => o.trim().toLowerCase().replace(/\/$/, ''));
  const bad = origins.find((o) => !ORIGIN.test(o));
  if (bad !== undefined) {
    throw new Error(`corsAllowedOrigins: "${bad}" is not an origin (scheme://host[:port]), nor is the list "*"`);
  }
  return [...new Set(origins)];
}

const originAllowed = (origins: CorsOrigins, origin: string | undefined): origin is string =>
  origins === '*' || (origin !== undefined && origins.includes(origin.toLowerCase()));

const EXPOSE = { 'Access-Control-Expose-Headers': CORS_EXPOSE_HEADERS.join(', ') };
/** Any origin: the same headers on every answer, built once. */
const ANY_ORIGIN: Readonly<Record<string, string>> = Object.freeze({ 'Access-Control-Allow-Origin': '*', ...EXPOSE });

/** Headers for an actual (non-preflight) response to a request from `origin`. */
export function corsHeaders(origins: CorsOrigins, origin: string | undefined): Readonly<Record<string, string>> {
  if (origins === '*') return ANY_ORIGIN;
  // A cache must not hand one origin's answer to another: the header depends on the request's Origin.
  return originAllowed(origins, origin)
    ? { 'Access-Control-Allow-Origin': origin, ...EXPOSE, Vary: 'Origin' }
    : { Vary: 'Origin' };
}

/** Headers of a preflight answer (204) for a path served with `methods`. */
export function preflightHeaders(
  origins: CorsOrigins,
  origin: string | undefined,
  methods: readonly string[],
): Record<string, string> {
  const common = {
    'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(','),
    'Access-Control-Allow-Headers': CORS_ALLOW_HEADERS.join(','),
    'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
  };
  if (origins === '*') return { 'Access-Control-Allow-Origin': '*', ...common };
  return originAllowed(origins, origin)
    ? { 'Access-Control-Allow-Origin': origin, ...common, Vary: 'Origin' }
    : { Vary: 'Origin' };
}

/**
 * Headers of the gateway's own error answers (401, 403, 404, 429, 5xx). API Gateway gateway responses are static
 * templates and cannot pick from a list, so with a list they echo the request's Origin: these bodies are fixed
 * Google errors that carry no data. The local server does the same.
 */
export function gatewayCorsHeaders(origins: CorsOrigins, origin: string | undefined): Record<string, string> {
  if (origins === '*') return { ...ANY_ORIGIN };
  return { ...(origin ? { 'Access-Control-Allow-Origin': origin } : {}), ...EXPOSE, Vary: 'Origin' };
}
