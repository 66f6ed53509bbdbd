/**
 * Lambda entry of the authorizer: the verifiers for the stack's issuer (issuer, audience and JWKS URI) and, with the
 * user pool option, the pool's access tokens; both at once when both are configured.
 */
import * as env from '../_shared/env';
import { logger } from '../_shared/logger';
import { makeLambdaAuthorizer } from './authorize';
import { makeDecide } from './decide';
import { anyOfVerifiers, createCognitoVerifier, createVerifier, type HydratableVerifier } from './verifier';

const [issuer, audience, jwksUri] = [env.jwtIssuer(), env.jwtAudience(), env.jwksUri()];
const [cognitoUserPoolId, cognitoClientIds] = [env.cognitoUserPoolId(), env.cognitoClientIds()];
const verifiers: HydratableVerifier[] = [];
if (issuer || audience || jwksUri) {
  if (!issuer || !audience || !jwksUri) throw new Error('JWT_ISSUER, JWT_AUDIENCE and JWKS_URI go together');
  verifiers.push(createVerifier({ issuer, audience, jwksUri }));
}
if (cognitoUserPoolId) {
  if (cognitoClientIds.length === 0) throw new Error('COGNITO_CLIENT_IDS must name the app clients');
  verifiers.push(createCognitoVerifier({ userPoolId: cognitoUserPoolId, clientIds: cognitoClientIds }));
}
if (verifiers.length === 0) throw new Error('set JWT_ISSUER, JWT_AUDIENCE and JWKS_URI, or COGNITO_USER_POOL_ID');

const verifier = anyOfVerifiers(verifiers);
// Fetch the JWKS during INIT; if that fails the first verify fetches lazily (README of aws-jwt-verify).
await verifier.hydrate().catch((error: unknown) => logger.warn('JWKS hydrate failed', { error: String(error) }));

export const handler = makeLambdaAuthorizer(makeDecide(verifier, env.scopeBase()));
