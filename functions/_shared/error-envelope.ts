/**
 * The Google JSON error body, built in one place and used by the handler wrapper, the API Gateway gateway
 * responses (static templates) and the local server, so every path answers with the same shape.
 */
export interface GoogleErrorItem {
  message: string;
  domain: string;
  reason: string;
  location?: string;
  locationType?: string;
}

export interface GoogleErrorBody {
  error: { code: number; message: string; errors: GoogleErrorItem[]; status: string };
}

export function googleError(
  code: number,
  status: string,
  reason: string,
  message: string,
  where: { location?: string; locationType?: string; domain?: string } = {},
): GoogleErrorBody {
  const item: GoogleErrorItem = { message, domain: where.domain ?? 'global', reason };
  if (where.location) item.location = where.location;
  if (where.locationType) item.locationType = where.locationType;
  return { error: { code, message, errors: [item], status } };
}

/**
 * Bodies for answers the gateway gives without running a handler. Keys are API Gateway gateway-response types;
 * the local server uses the same entries for the same situations. The calls are marked pure so that the functions'
 * bundles, which never use these, leave them out.
 */
export const gatewayErrors = {
  UNAUTHORIZED: /* @__PURE__ */ googleError(
    401,
    'UNAUTHENTICATED',
    'authError',
    'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
    { location: 'Authorization', locationType: 'header' },
  ),
  ACCESS_DENIED: /* @__PURE__ */ googleError(
    403,
    'PERMISSION_DENIED',
    'insufficientPermissions',
    'Request had insufficient authentication scopes.',
  ),
  MISSING_AUTHENTICATION_TOKEN: /* @__PURE__ */ googleError(
    404,
    'NOT_FOUND',
    'notFound',
    'The requested URL was not found on this server.',
  ),
  RESOURCE_NOT_FOUND: /* @__PURE__ */ googleError(
    404,
    'NOT_FOUND',
    'notFound',
    'The requested URL was not found on this server.',
  ),
  THROTTLED: /* @__PURE__ */ googleError(
    429,
    'RESOURCE_EXHAUSTED',
    'rateLimitExceeded',
    'Too many requests. Retry with exponential backoff.',
    { domain: 'usageLimits' },
  ),
  QUOTA_EXCEEDED: /* @__PURE__ */ googleError(429, 'RESOURCE_EXHAUSTED', 'quotaExceeded', 'Quota exceeded.', {
    domain: 'usageLimits',
  }),
  REQUEST_TOO_LARGE: /* @__PURE__ */ googleError(
    413,
    'INVALID_ARGUMENT',
    'requestTooLarge',
    'The request body is too large.',
  ),
  UNSUPPORTED_MEDIA_TYPE: /* @__PURE__ */ googleError(
    415,
    'INVALID_ARGUMENT',
    'unsupportedMediaType',
    'The request media type is not supported.',
  ),
  DEFAULT_4XX: /* @__PURE__ */ googleError(400, 'INVALID_ARGUMENT', 'badRequest', 'Bad request.'),
  INTEGRATION_TIMEOUT: /* @__PURE__ */ googleError(
    504,
    'DEADLINE_EXCEEDED',
    'deadlineExceeded',
    'The request timed out.',
  ),
  DEFAULT_5XX: /* @__PURE__ */ googleError(500, 'INTERNAL', 'backendError', 'Backend Error'),
} as const satisfies Record<string, GoogleErrorBody>;

export type GatewayErrorType = keyof typeof gatewayErrors;

/** The WWW-Authenticate challenge sent with every 401 (RFC 6750 §3). */
export const WWW_AUTHENTICATE = 'Bearer realm="analytics-api", error="invalid_token"';
