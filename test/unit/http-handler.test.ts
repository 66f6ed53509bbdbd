/**
 * The handler wrapper: principal re-check, query and body parsing, and the single error → response mapping.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { WWW_AUTHENTICATE } from '../../functions/_shared/error-envelope';
import { type HandlerOptions, type HttpRequest, httpHandler } from '../../functions/_shared/http-handler';
import { jsonResult } from '../../functions/_shared/http-result';
import { DomainError, type ErrorKind } from '../../functions/core/errors';
import { DEFAULT_SCOPE_BASE, scopeUri } from '../../functions/core/scopes';
import { LIST_GROUPS_FIELDS } from '../../functions/schemas';
import { proxyEvent } from '../support/proxy-event';

const JSON_TYPE = 'application/json; charset=UTF-8';
const inAnHour = () => String(Math.floor(Date.now() / 1000) + 3600);

/** A handler whose run() records the request it got and answers 200 {ok:true}. */
function recording(options: HandlerOptions = { body: 'none' }) {
  const seen: HttpRequest[] = [];
  const handler = httpHandler('groups.list', { ...options, response: LIST_GROUPS_FIELDS }, async (req) => {
    seen.push(req);
    return jsonResult(200, { ok: true });
  });
  return { handler, seen };
}

const throwing = (err: unknown) =>
  httpHandler('groups.list', { body: 'ignore', response: LIST_GROUPS_FIELDS }, async () => {
    throw err;
  });

interface ErrorBody {
  error: { code: number; message: string; errors: Record<string, unknown>[]; status: string };
}

/** Asserts the exact Google error shape and returns the parsed body. */
function errorBody(res: APIGatewayProxyResult, code: number, status: string, reason: string): ErrorBody {
  expect(res.statusCode).toBe(code);
  expect(res.headers?.['Content-Type']).toBe(JSON_TYPE);
  const body = JSON.parse(res.body) as ErrorBody;
  expect(Object.keys(body)).toStrictEqual(['error']);
  expect(Object.keys(body.error).sort()).toStrictEqual(['code', 'errors', 'message', 'status']);
  expect(body.error.code).toBe(code);
  expect(body.error.status).toBe(status);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(body.error.errors).toHaveLength(1);
  const item = body.error.errors[0] as Record<string, unknown>;
  for (const k of Object.keys(item)) expect(['message', 'domain', 'reason', 'location', 'locationType']).toContain(k);
  expect(item.message).toBe(body.error.message);
  expect(typeof item.domain).toBe('string');
  expect(item.reason).toBe(reason);
  return body;
}

describe('httpHandler: the principal', () => {
  it('passes the principal, query, path parameters and request id to run()', async () => {
    const { handler, seen } = recording();
    const exp = inAnHour();
    const res = await handler(
      proxyEvent(
        {
          queryStringParameters: { mine: 'true' },
          multiValueQueryStringParameters: { mine: ['true'] },
          pathParameters: { propertyId: '1000' },
        },
        {
          sub: 'alice',
          scope: `${scopeUri(DEFAULT_SCOPE_BASE, 'video-platform')} https://evil.example/auth/analytics.edit`,
          exp,
        },
      ),
    );

    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toStrictEqual({ ok: true });
    expect(seen).toHaveLength(1);
    const req = seen[0] as HttpRequest;
    expect(req.principal.sub).toBe('alice');
    expect(req.principal.exp).toBe(Number(exp));
    expect([...req.principal.scopes]).toStrictEqual(['video-platform']);
    expect(req.query).toStrictEqual({ mine: 'true' });
    expect(req.pathParameters).toStrictEqual({ propertyId: '1000' });
    expect(req.requestId).toBe('req-123');
    expect(req.body).toBeUndefined();
  });

  it('missing authorizer context → 401 UNAUTHENTICATED with WWW-Authenticate, run() not called', async () => {
    const { handler, seen } = recording();
    const res = await handler(proxyEvent({}, null));

    const body = errorBody(res, 401, 'UNAUTHENTICATED', 'authError');
    expect(res.headers?.['WWW-Authenticate']).toBe(WWW_AUTHENTICATE);
    expect(body.error.errors[0]).toMatchObject({ location: 'Authorization', locationType: 'header' });
    expect(seen).toHaveLength(0);
  });

  it('authorizer context without sub → 401', async () => {
    const { handler, seen } = recording();
    const res = await handler(proxyEvent({}, { scope: 'x', exp: inAnHour() }));

    errorBody(res, 401, 'UNAUTHENTICATED', 'authError');
    expect(seen).toHaveLength(0);
  });

  it('authorizer context with a non-numeric exp → 401', async () => {
    const { handler, seen } = recording();
    const res = await handler(proxyEvent({}, { sub: 'alice', scope: 'x', exp: 'soon' }));

    errorBody(res, 401, 'UNAUTHENTICATED', 'authError');
    expect(seen).toHaveLength(0);
  });

  it('expired exp in the context (cached authorizer decision outliving the token) → 401', async () => {
    const { handler, seen } = recording();
    const res = await handler(
      proxyEvent({}, { sub: 'alice', scope: 'x', exp: String(Math.floor(Date.now() / 1000) - 1) }),
    );

    errorBody(res, 401, 'UNAUTHENTICATED', 'authError');
    expect(res.headers?.['WWW-Authenticate']).toBe(WWW_AUTHENTICATE);
    expect(seen).toHaveLength(0);
  });
});

describe('httpHandler: query parameters', () => {
  it('a repeated single-valued query parameter → 400 invalidParameter', async () => {
    const { handler, seen } = recording();
    const res = await handler(
      proxyEvent({ queryStringParameters: { id: 'b' }, multiValueQueryStringParameters: { id: ['a', 'b'] } }),
    );

    const body = errorBody(res, 400, 'INVALID_ARGUMENT', 'invalidParameter');
    expect(body.error.errors[0]).toMatchObject({ location: 'id', locationType: 'parameter' });
    expect(seen).toHaveLength(0);
  });
});

describe('httpHandler: the request body', () => {
  it("mode 'json' with invalid JSON → 400 parseError", async () => {
    const { handler, seen } = recording({ body: 'json' });
    const res = await handler(proxyEvent({ httpMethod: 'POST', body: '{"snippet": {"title": ' }));

    const body = errorBody(res, 400, 'INVALID_ARGUMENT', 'parseError');
    expect(body.error.errors[0]).toMatchObject({ locationType: 'body' });
    expect(seen).toHaveLength(0);
  });

  it("mode 'json' with an empty body → 400 required", async () => {
    const { handler, seen } = recording({ body: 'json' });
    const res = await handler(proxyEvent({ httpMethod: 'POST', body: null }));

    errorBody(res, 400, 'INVALID_ARGUMENT', 'required');
    expect(seen).toHaveLength(0);
  });

  it("mode 'json' with a whitespace-only body → 400 required", async () => {
    const { handler } = recording({ body: 'json' });
    const res = await handler(proxyEvent({ httpMethod: 'POST', body: ' \n ' }));

    errorBody(res, 400, 'INVALID_ARGUMENT', 'required');
  });

  it("mode 'json' parses a valid body, also when base64-encoded", async () => {
    const { handler, seen } = recording({ body: 'json' });
    const doc = { snippet: { title: 'Best of 2026' } };
    const plain = await handler(proxyEvent({ httpMethod: 'POST', body: JSON.stringify(doc) }));
    const b64 = await handler(
      proxyEvent({
        httpMethod: 'POST',
        body: Buffer.from(JSON.stringify(doc)).toString('base64'),
        isBase64Encoded: true,
      }),
    );

    expect(plain.statusCode).toBe(200);
    expect(b64.statusCode).toBe(200);
    expect(seen.map((r) => r.body)).toStrictEqual([doc, doc]);
  });

  it("mode 'none' with a body → 400 badRequest", async () => {
    const { handler, seen } = recording({ body: 'none' });
    const res = await handler(proxyEvent({ body: '{}' }));

    const body = errorBody(res, 400, 'INVALID_ARGUMENT', 'badRequest');
    expect(body.error.errors[0]).toMatchObject({ locationType: 'body' });
    expect(seen).toHaveLength(0);
  });

  it("mode 'ignore' does not read the body", async () => {
    const { handler, seen } = recording({ body: 'ignore' });
    const res = await handler(proxyEvent({ body: 'not json at all' }));

    expect(res.statusCode).toBe(200);
    expect(seen[0]?.body).toBeUndefined();
  });
});

describe('httpHandler: errors thrown by run()', () => {
  it('a plain Error → 500 INTERNAL backendError without the message or a stack', async () => {
    const err = new Error('secret detail');
    const res = await throwing(err)(proxyEvent());

    const body = errorBody(res, 500, 'INTERNAL', 'backendError');
    expect(res.body).not.toContain('secret detail');
    expect(res.body).not.toMatch(/\bat .*:\d+:\d+/);
    expect(res.body).not.toContain('.ts:');
    expect(res.body).not.toContain('stack');
    expect(res.body).not.toContain(String(err.stack).split('\n')[1]?.trim());
    expect(body.error.message).toContain('req-123');
  });

  it('a thrown non-Error value → 500 without echoing it', async () => {
    const res = await throwing({ password: 'hunter2' })(proxyEvent());

    errorBody(res, 500, 'INTERNAL', 'backendError');
    expect(res.body).not.toContain('hunter2');
  });

  const kinds: [ErrorKind, number, string][] = [
    ['invalid_argument', 400, 'INVALID_ARGUMENT'],
    ['failed_precondition', 400, 'FAILED_PRECONDITION'],
    ['precondition_failed', 412, 'FAILED_PRECONDITION'],
    ['unauthenticated', 401, 'UNAUTHENTICATED'],
    ['permission_denied', 403, 'PERMISSION_DENIED'],
    ['not_found', 404, 'NOT_FOUND'],
    ['already_exists', 409, 'ALREADY_EXISTS'],
    ['aborted', 409, 'ABORTED'],
    ['resource_exhausted', 429, 'RESOURCE_EXHAUSTED'],
    ['unimplemented', 501, 'UNIMPLEMENTED'],
    ['unavailable', 503, 'UNAVAILABLE'],
  ];

  it.each(kinds)('DomainError %s → %i %s', async (kind, code, status) => {
    const reason = `reason_${kind}`;
    const res = await throwing(new DomainError(kind, reason, `Message for ${kind}.`))(proxyEvent());

    const body = errorBody(res, code, status, reason);
    expect(body).toStrictEqual({
      error: {
        code,
        message: `Message for ${kind}.`,
        errors: [{ message: `Message for ${kind}.`, domain: 'global', reason }],
        status,
      },
    });
    if (code === 401) expect(res.headers?.['WWW-Authenticate']).toBe(WWW_AUTHENTICATE);
    else expect(res.headers?.['WWW-Authenticate']).toBeUndefined();
  });

  it('a DomainError location ends up in errors[0]', async () => {
    const res = await throwing(
      new DomainError('invalid_argument', 'badRequest', 'Bad name.', { location: 'name', locationType: 'parameter' }),
    )(proxyEvent());

    expect(JSON.parse(res.body).error.errors).toStrictEqual([
      { message: 'Bad name.', domain: 'global', reason: 'badRequest', location: 'name', locationType: 'parameter' },
    ]);
  });
});
