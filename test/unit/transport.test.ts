/** The CORS policy (transport.ts) and where a request reached the API (request-url.ts), cloud cases included. */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { requestRootUrl } from '../../functions/_shared/request-url';
import { corsHeaders, gatewayCorsHeaders, parseCorsOrigins, preflightHeaders } from '../../functions/_shared/transport';

describe('parseCorsOrigins', () => {
  it('reads unset, empty and * as any origin', () => {
    expect(parseCorsOrigins(undefined)).toBe('*');
    expect(parseCorsOrigins(' ')).toBe('*');
    expect(parseCorsOrigins('*')).toBe('*');
  });

  it('normalizes a list (case, trailing slash, duplicates)', () => {
    expect(parseCorsOrigins('https://App.Example.com/, http://127.0.0.1:5173,https://app.example.com')).toEqual([
      'https://app.example.com',
      'http://127.0.0.1:5173',
    ]);
  });

  it.each(['app.example.com', 'https://app.example.com/path', 'ftp://x.example', '*,https://a.example', 'null'])(
    'refuses %j',
    (text) => {
      expect(() => parseCorsOrigins(text)).toThrow(/not an origin/);
    },
  );
});

describe('CORS headers', () => {
  const list = parseCorsOrigins('https://app.example.com');

  it('any origin: * and the exposed cost headers, no Vary', () => {
    expect(corsHeaders('*', 'https://x.example')).toStrictEqual({
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Expose-Headers': 'X-Items-Read, X-Bytes-Read, WWW-Authenticate',
    });
  });

  it('a list: echoes a listed origin with Vary: Origin, gives others nothing but Vary', () => {
    expect(corsHeaders(list, 'https://APP.example.com')).toMatchObject({
      'Access-Control-Allow-Origin': 'https://APP.example.com',
      Vary: 'Origin',
    });
    expect(corsHeaders(list, 'https://evil.example')).toStrictEqual({ Vary: 'Origin' });
    expect(corsHeaders(list, undefined)).toStrictEqual({ Vary: 'Origin' });
    expect(preflightHeaders(list, 'https://evil.example', ['GET'])).toStrictEqual({ Vary: 'Origin' });
  });

  it('preflights allow the path’s methods plus OPTIONS', () => {
    expect(preflightHeaders('*', undefined, ['GET', 'POST'])['Access-Control-Allow-Methods']).toBe('GET,POST,OPTIONS');
  });

  it('gateway answers echo any origin with a list (static templates cannot choose)', () => {
    expect(gatewayCorsHeaders(list, 'https://evil.example')['Access-Control-Allow-Origin']).toBe(
      'https://evil.example',
    );
    expect(gatewayCorsHeaders('*', 'https://evil.example')['Access-Control-Allow-Origin']).toBe('*');
  });
});

describe('requestRootUrl', () => {
  const event = (path: string, calledPath: string, headers: Record<string, string>, domainName = 'x') =>
    ({ path, headers, requestContext: { path: calledPath, domainName } }) as unknown as APIGatewayProxyEvent;

  it.each([
    [
      'an execute-api host: the stage',
      event('/$discovery/rest', '/v/$discovery/rest', {
        Host: 'abc.execute-api.eu-west-1.amazonaws.com',
        'X-Forwarded-Proto': 'https',
      }),
      'https://abc.execute-api.eu-west-1.amazonaws.com/v/',
    ],
    [
      'a custom domain mapped at the root',
      event('/$discovery/rest', '/$discovery/rest', { host: 'api.example.com', 'x-forwarded-proto': 'https' }),
      'https://api.example.com/',
    ],
    [
      'a custom domain with a base path',
      event('/v2/reports', '/analytics/v2/reports', { Host: 'api.example.com', 'X-Forwarded-Proto': 'https' }),
      'https://api.example.com/analytics/',
    ],
    [
      'the root resource without its slash',
      event('/', '/v', { Host: 'abc.execute-api.eu-west-1.amazonaws.com', 'X-Forwarded-Proto': 'https' }),
      'https://abc.execute-api.eu-west-1.amazonaws.com/v/',
    ],
    ['the local server', event('/', '/', { host: '127.0.0.1:8080' }), 'http://127.0.0.1:8080/'],
    [
      'a Host that is no host name falls back to the domain name',
      event('/', '/', { host: 'evil.example/<script>', 'x-forwarded-proto': 'https' }, 'api.example.com'),
      'https://api.example.com/',
    ],
  ])('%s', (_name, e, root) => {
    expect(requestRootUrl(e)).toBe(root);
  });

  it('a configured public root wins', () => {
    expect(requestRootUrl(event('/', '/', { host: 'x' }), 'https://cdn.example.com')).toBe('https://cdn.example.com/');
  });
});
