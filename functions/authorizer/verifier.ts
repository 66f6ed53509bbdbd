/**
 * Builds the aws-jwt-verify verifier. Only the JWKS source differs between the cloud (fetched from the stack's
 * JWKS URI) and the local server (the local issuer's public keys, preloaded; nothing is ever fetched).
 */
import { JwtVerifier } from 'aws-jwt-verify';
import { JwtInvalidClaimError } from 'aws-jwt-verify/error';
import { type Jwks, SimpleJwksCache } from 'aws-jwt-verify/jwk';
import type { TokenVerifier } from './decide';

export interface VerifierSettings {
  issuer: string;
  audience: string;
  jwksUri: string;
  /** Preloaded keys: when given, the verifier never goes to the network. */
  jwks?: Jwks;
}

class MissingClaimError extends JwtInvalidClaimError {}

export function createVerifier(settings: VerifierSettings): TokenVerifier & { hydrate(): Promise<void> } {
  const offline = settings.jwks
    ? new SimpleJwksCache({
        fetcher: {
          fetch: async () => {
            throw new Error('JWKS fetching is disabled for this verifier');
          },
        },
      })
    : undefined;
  const verifier = JwtVerifier.create(
    {
      issuer: settings.issuer,
      audience: settings.audience,
      jwksUri: settings.jwksUri,
      customJwtCheck: ({ payload }) => {
        // aws-jwt-verify accepts tokens without exp; such a token would never expire.
        if (typeof payload.exp !== 'number') throw new MissingClaimError('Missing exp claim', payload.exp, undefined);
        if (typeof payload.sub !== 'string' || payload.sub === '') {
          throw new MissingClaimError('Missing sub claim', payload.sub, undefined);
        }
      },
    },
    offline ? { jwksCache: offline } : undefined,
  );
  if (settings.jwks) verifier.cacheJwks(settings.jwks);
  return verifier as unknown as TokenVerifier & { hydrate(): Promise<void> };
}
