/**
 * What the REST API needs for browsers and Google's dynamic clients, from the policy in functions/_shared/transport.ts:
 * a CORS preflight (mock OPTIONS method, no authorizer) on every route path, CORS headers on the gateway's own
 * responses, and what the Query Explorer function needs to be built and configured.
 */

import { Duration } from 'aws-cdk-lib';
import { Cors, type IResource } from 'aws-cdk-lib/aws-apigateway';
import {
  CORS_ALLOW_HEADERS,
  CORS_EXPOSE_HEADERS,
  CORS_MAX_AGE_SECONDS,
  type CorsOrigins,
  parseCorsOrigins,
} from '../../functions/_shared/transport';
import type { RouteDef } from '../../functions/routes';
import type { StackConfig } from '../config';

export const corsOrigins = (config: Pick<StackConfig, 'corsAllowedOrigins'>): CorsOrigins =>
  parseCorsOrigins(config.corsAllowedOrigins);

/** One preflight per route path, allowing exactly the methods the path serves. */
export function addPreflights(root: IResource, routes: readonly RouteDef[], origins: CorsOrigins): void {
  const methods = new Map<string, string[]>();
  for (const r of routes) methods.set(r.path, [...(methods.get(r.path) ?? []), r.method]);
  for (const [path, verbs] of methods) {
    root.resourceForPath(path).addCorsPreflight({
      allowOrigins: origins === '*' ? Cors.ALL_ORIGINS : [...origins],
      allowMethods: [...verbs, 'OPTIONS'],
      allowHeaders: [...CORS_ALLOW_HEADERS],
      maxAge: Duration.seconds(CORS_MAX_AGE_SECONDS),
    });
  }
}

/**
 * Response parameters (`gatewayresponse.header.*` values) of the gateway's own answers. A gateway response cannot
 * choose from a list, so with a list it echoes the request's Origin: these bodies are fixed errors without data.
 */
export function gatewayResponseCorsHeaders(origins: CorsOrigins): Record<string, string> {
  const expose = { 'Access-Control-Expose-Headers': `'${CORS_EXPOSE_HEADERS.join(', ')}'` };
  if (origins === '*') return { 'Access-Control-Allow-Origin': "'*'", ...expose };
  return { 'Access-Control-Allow-Origin': 'method.request.header.Origin', ...expose, Vary: "'Origin'" };
}

/** Environment of every API function: the CORS list and, when set, the public root. */
export const browserEnvironment = (config: Pick<StackConfig, 'corsAllowedOrigins' | 'publicRootUrl'>) => ({
  CORS_ALLOWED_ORIGINS: config.corsAllowedOrigins,
  ...(config.publicRootUrl ? { PUBLIC_ROOT_URL: config.publicRootUrl } : {}),
});

/** The explorer function: its page is built next to its bundle, its sign-in settings come from the config. */
export const explorerFunctionParts = (config: Pick<StackConfig, 'explorerOAuth'>) => ({
  environment: (config.explorerOAuth
    ? {
        EXPLORER_AUTHORIZE_URL: config.explorerOAuth.authorizeUrl,
        EXPLORER_TOKEN_URL: config.explorerOAuth.tokenUrl,
        EXPLORER_CLIENT_ID: config.explorerOAuth.clientId,
      }
    : {}) as Record<string, string>,
  afterBundling: (outputDir: string) => [
    `node --import tsx infra/tools/build-explorer.ts "${outputDir}/explorer.html"`,
  ],
});
