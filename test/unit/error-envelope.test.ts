/** The Google error body builder and the static gateway-response bodies. */
import { describe, expect, it } from 'vitest';
import {
  type GatewayErrorType,
  type GoogleErrorBody,
  gatewayErrors,
  googleError,
  WWW_AUTHENTICATE,
} from '../../functions/_shared/error-envelope';

/** What each API Gateway gateway-response type must answer: [code, status, reason, domain]. */
const expected: Record<GatewayErrorType, [number, string, string, string]> = {
  UNAUTHORIZED: [401, 'UNAUTHENTICATED', 'authError', 'global'],
  ACCESS_DENIED: [403, 'PERMISSION_DENIED', 'insufficientPermissions', 'global'],
  MISSING_AUTHENTICATION_TOKEN: [404, 'NOT_FOUND', 'notFound', 'global'],
  RESOURCE_NOT_FOUND: [404, 'NOT_FOUND', 'notFound', 'global'],
  THROTTLED: [429, 'RESOURCE_EXHAUSTED', 'rateLimitExceeded', 'usageLimits'],
  QUOTA_EXCEEDED: [429, 'RESOURCE_EXHAUSTED', 'quotaExceeded', 'usageLimits'],
  REQUEST_TOO_LARGE: [413, 'INVALID_ARGUMENT', 'requestTooLarge', 'global'],
  UNSUPPORTED_MEDIA_TYPE: [415, 'INVALID_ARGUMENT', 'unsupportedMediaType', 'global'],
  DEFAULT_4XX: [400, 'INVALID_ARGUMENT', 'badRequest', 'global'],
  INTEGRATION_TIMEOUT: [504, 'DEADLINE_EXCEEDED', 'deadlineExceeded', 'global'],
  DEFAULT_5XX: [500, 'INTERNAL', 'backendError', 'global'],
};

const ITEM_KEYS = ['message', 'domain', 'reason', 'location', 'locationType'];

function expectGoogleShape(body: GoogleErrorBody) {
  expect(Object.keys(body)).toStrictEqual(['error']);
  expect(Object.keys(body.error).sort()).toStrictEqual(['code', 'errors', 'message', 'status']);
  expect(Number.isInteger(body.error.code)).toBe(true);
  expect(body.error.message).toMatch(/\S/);
  expect(body.error.status).toMatch(/^[A-Z_]+$/);
  expect(body.error.errors).toHaveLength(1);
  const item = body.error.errors[0];
  for (const k of Object.keys(item ?? {})) expect(ITEM_KEYS).toContain(k);
  expect(item?.message).toBe(body.error.message);
  expect(item?.reason).toMatch(/^[a-z][A-Za-z]+$/);
}

describe('gatewayErrors', () => {
  it('has exactly the expected gateway-response types', () => {
    expect(Object.keys(gatewayErrors).sort()).toStrictEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected) as [GatewayErrorType, [number, string, string, string]][])(
    '%s → %j',
    (type, [code, status, reason, domain]) => {
      const body = gatewayErrors[type];

      expectGoogleShape(body);
      expect(body.error.code).toBe(code);
      expect(body.error.status).toBe(status);
      expect(body.error.errors[0]?.reason).toBe(reason);
      expect(body.error.errors[0]?.domain).toBe(domain);
    },
  );

  it('UNAUTHORIZED points at the Authorization header and speaks of authentication credentials', () => {
    const item = gatewayErrors.UNAUTHORIZED.error.errors[0];

    expect(item).toMatchObject({ location: 'Authorization', locationType: 'header' });
    expect(gatewayErrors.UNAUTHORIZED.error.message).toMatch(/^Request had invalid authentication credentials\./);
  });

  it('ACCESS_DENIED speaks of insufficient scopes and carries no location', () => {
    expect(gatewayErrors.ACCESS_DENIED.error.message).toBe('Request had insufficient authentication scopes.');
    expect(gatewayErrors.ACCESS_DENIED.error.errors[0]).toStrictEqual({
      message: 'Request had insufficient authentication scopes.',
      domain: 'global',
      reason: 'insufficientPermissions',
    });
  });

  it('the two 404 bodies are identical (an unknown path and an unknown resource look the same)', () => {
    expect(gatewayErrors.MISSING_AUTHENTICATION_TOKEN).toStrictEqual(gatewayErrors.RESOURCE_NOT_FOUND);
  });

  it('no gateway body other than UNAUTHORIZED carries a location', () => {
    const located = Object.entries(gatewayErrors)
      .filter(([, b]) => b.error.errors.some((e) => 'location' in e || 'locationType' in e))
      .map(([k]) => k);

    expect(located).toStrictEqual(['UNAUTHORIZED']);
  });

  it('every body survives a JSON round trip unchanged (usable as a static template)', () => {
    for (const body of Object.values(gatewayErrors)) expect(JSON.parse(JSON.stringify(body))).toStrictEqual(body);
  });
});

describe('googleError', () => {
  it('builds the Google shape with domain global by default and no location', () => {
    expect(googleError(400, 'INVALID_ARGUMENT', 'badRequest', 'Bad.')).toStrictEqual({
      error: {
        code: 400,
        message: 'Bad.',
        errors: [{ message: 'Bad.', domain: 'global', reason: 'badRequest' }],
        status: 'INVALID_ARGUMENT',
      },
    });
  });

  it('adds location, locationType and a custom domain when given', () => {
    expect(
      googleError(429, 'RESOURCE_EXHAUSTED', 'rateLimitExceeded', 'Slow down.', {
        location: 'q',
        locationType: 'parameter',
        domain: 'usageLimits',
      }),
    ).toStrictEqual({
      error: {
        code: 429,
        message: 'Slow down.',
        errors: [
          {
            message: 'Slow down.',
            domain: 'usageLimits',
            reason: 'rateLimitExceeded',
            location: 'q',
            locationType: 'parameter',
          },
        ],
        status: 'RESOURCE_EXHAUSTED',
      },
    });
  });
});

describe('WWW_AUTHENTICATE', () => {
  it('is an RFC 6750 Bearer challenge with error="invalid_token"', () => {
    expect(WWW_AUTHENTICATE).toMatch(/^Bearer realm="[^"]+", error="invalid_token"$/);
  });
});
