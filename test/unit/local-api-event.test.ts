/**
 * The local server's API Gateway events (infra/local/api-event.ts): query parameters decoded exactly as
 * URLSearchParams decodes them (the plain-text shortcut included), and each event built from its own request even
 * when another request's events are built in between.
 */
import { describe, expect, it } from 'vitest';
import { type RouteDef, routesById } from '../../functions/routes';
import { type LocalRequest, toAuthorizerEvent, toProxyEvent } from '../../infra/local/api-event';

const route = routesById.get('groups.list') as RouteDef;
const request = (search: string, authorization = 'Bearer a'): LocalRequest => ({
  method: 'GET',
  url: new URL(`http://127.0.0.1:3000/v2/groups${search}`),
  headers: { host: '127.0.0.1:3000', authorization },
  body: '',
});

/** What API Gateway's maps hold for `url`, worked out with URLSearchParams. */
function expected(url: URL) {
  const single: Record<string, string> = Object.create(null);
  const multi: Record<string, string[]> = Object.create(null);
  let any = false;
  for (const [name, value] of url.searchParams) {
    any = true;
    single[name] = value;
    multi[name] = [...(multi[name] ?? []), value];
  }
  return any ? { single, multi } : { single: null, multi: null };
}

describe('query parameters of the local events', () => {
  // biome-ignore format: one case a line reads best
  const searches = [
    '', '?', '?&', '?mine=true', '?id=a,b&mine=false', '?a', '?a=', '?=x', '?&&a=1&&', '?a=1&a=2&a=3', '?a==b',
    '?a=b=c&d', '?x=%20y', '?x=a+b', '?x=%2B', '?q=é', '?q=%ZZ', '?q=%E2%82', '?k;=v', '?__proto__=1&constructor=2',
    '?fields=items(id,snippet/title)&prettyPrint=false',
  ];
  it.each(searches)('%s: as URLSearchParams decodes it, in both events', (search) => {
    const req = request(search);
    const { single, multi } = expected(req.url);
    const authorizer = toAuthorizerEvent(req, route, {}, 'r1');
    const proxy = toProxyEvent(req, route, {}, {}, 'r1');
    // Compared as entries: a parameter may be named `__proto__`, which object equality does not see as a field.
    const entries = (map: object | null) => (map === null ? null : [Object.getPrototypeOf(map), Object.entries(map)]);
    for (const event of [authorizer, proxy]) {
      expect(entries(event.queryStringParameters)).toStrictEqual(entries(single));
      expect(entries(event.multiValueQueryStringParameters)).toStrictEqual(entries(multi));
    }
  });
});

describe('events of overlapping requests', () => {
  it('each proxy event carries its own request, whatever was built in between', () => {
    const first = request('?mine=true', 'Bearer first');
    const second = request('?id=x', 'Bearer second');
    toAuthorizerEvent(first, route, {}, 'r1');
    toAuthorizerEvent(second, route, {}, 'r2');
    const proxyFirst = toProxyEvent(first, route, {}, { sub: 'a' }, 'r1');
    const proxySecond = toProxyEvent(second, route, {}, { sub: 'b' }, 'r2');
    expect(proxyFirst.queryStringParameters).toStrictEqual(Object.assign(Object.create(null), { mine: 'true' }));
    expect(proxyFirst.headers.authorization).toBe('Bearer first');
    expect(proxyFirst.requestContext.requestId).toBe('r1');
    expect(proxySecond.queryStringParameters).toStrictEqual(Object.assign(Object.create(null), { id: 'x' }));
    expect(proxySecond.headers.authorization).toBe('Bearer second');
    expect(proxySecond.requestContext.requestId).toBe('r2');
  });
});
