/** Lambda entry of the authorizer: the verifier for the stack's issuer, audience and JWKS URI. */
import { env } from '../_shared/env';
import { logger } from '../_shared/logger';
import { makeLambdaAuthorizer } from './authorize';
import { makeDecide } from './decide';
import { createVerifier } from './verifier';

const issuer = env.jwtIssuer;
const audience = env.jwtAudience;
const jwksUri = env.jwksUri;
if (!issuer || !audience || !jwksUri) throw new Error('JWT_ISSUER, JWT_AUDIENCE and JWKS_URI must be set');

const verifier = createVerifier({ issuer, audience, jwksUri });
// Fetch the JWKS during INIT; if that fails the first verify fetches lazily (README of aws-jwt-verify).
await verifier.hydrate().catch((error: unknown) => logger.warn('JWKS hydrate failed', { error: String(error) }));

export const handler = makeLambdaAuthorizer(makeDecide(verifier, env.scopeBase));
