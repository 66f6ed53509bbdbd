/**
 * The caller, as the authorizer established it. Identity reaches handlers only through the authorizer context
 * (requestContext.authorizer), never from headers, query or body.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { unauthenticated } from '../core/errors';
import { grantedScopeNames, type ScopeName } from '../core/scopes';

export interface Principal {
  readonly sub: string;
  readonly scopes: ReadonlySet<ScopeName>;
  /** Token expiry, epoch seconds. */
  readonly exp: number;
}

/** The context the authorizer returns (REST authorizer context values must be strings, numbers or booleans). */
export interface AuthorizerContext {
  sub: string;
  scope: string;
  exp: string;
}

export function principalFrom(event: APIGatewayProxyEvent, scopeBase: string, nowSeconds: number): Principal {
  const ctx = event.requestContext?.authorizer as Partial<AuthorizerContext> | null | undefined;
  const sub = typeof ctx?.sub === 'string' ? ctx.sub : '';
  const exp = Number(ctx?.exp);
  if (!sub || !Number.isFinite(exp)) throw unauthenticated();
  // The authorizer's cached decision can outlive the token; re-check expiry here.
  if (exp <= nowSeconds) throw unauthenticated();
  return { sub, scopes: scopesOf(scopeBase, String(ctx?.scope ?? '')), exp };
}

/** A caller's token (and so its scope claim) repeats request after request: its scope set is worked out once. */
const grantedByClaim = new Map<string, ReadonlySet<ScopeName>>();
const MAX_CLAIMS = 1000;

function scopesOf(scopeBase: string, claim: string): ReadonlySet<ScopeName> {
  const key = `${scopeBase}\n${claim}`;
  let scopes = grantedByClaim.get(key);
  if (!scopes) {
    scopes = grantedScopeNames(scopeBase, claim);
    if (grantedByClaim.size >= MAX_CLAIMS) grantedByClaim.clear();
    grantedByClaim.set(key, scopes);
  }
  return scopes;
}
