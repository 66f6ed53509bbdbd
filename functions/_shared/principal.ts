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
  return { sub, scopes: grantedScopeNames(scopeBase, String(ctx?.scope ?? '')), exp };
}
