/**
 * The authorization decision, free of AWS types: route + Authorization header → allow | deny. The Lambda
 * authorizer (authorize.ts) and the local server both run exactly this.
 */
import { expandScope } from '../core/scopes';
import { type RouteDef, routesByKey } from '../routes';

export interface VerifiedClaims {
  sub?: unknown;
  scope?: unknown;
  exp?: unknown;
}

export interface TokenVerifier {
  verify(token: string): Promise<VerifiedClaims>;
}

export type Decision =
  | { effect: 'allow'; route: RouteDef; principal: { sub: string; scope: string; exp: number } }
  | { effect: 'deny'; reason: 'unauthenticated' | 'insufficient_scope' | 'unknown_route' };

/** RFC 6750 §2.1: `Bearer` (any case), one or more spaces, a b64token. Nothing else is a credential here. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export const bearerToken = (authorization: string | undefined): string | undefined =>
  authorization ? BEARER.exec(authorization)?.[1] : undefined;

export const makeDecide =
  (verifier: TokenVerifier, scopeBase: string) =>
  async (routeKey: string, authorization: string | undefined): Promise<Decision> => {
    const route = routesByKey.get(routeKey);
    if (!route) return { effect: 'deny', reason: 'unknown_route' };
    const token = bearerToken(authorization);
    if (!token) return { effect: 'deny', reason: 'unauthenticated' };
    let claims: VerifiedClaims;
    try {
      claims = await verifier.verify(token); // signature, kid, alg, iss, aud, exp (required), nbf
    } catch {
      // Any failure, including JWKS fetch errors that are not JwtBaseErrors, is a 401: never a 500.
      return { effect: 'deny', reason: 'unauthenticated' };
    }
    const scope = typeof claims.scope === 'string' ? claims.scope : '';
    const granted = new Set(scope.split(' '));
    if (!route.anyOfScopes.some((name) => granted.has(expandScope(scopeBase, name)))) {
      return { effect: 'deny', reason: 'insufficient_scope' };
    }
    return { effect: 'allow', route, principal: { sub: String(claims.sub), scope, exp: Number(claims.exp) } };
  };

export type Decide = ReturnType<typeof makeDecide>;
