/**
 * Builds the aws-jwt-verify verifiers: any OIDC issuer (issuer, audience, JWKS URI) and, when the stack has a user
 * pool, Cognito access tokens (no `aud`: `client_id` and `token_use: access` instead). Only the JWKS source differs
 * between the cloud (fetched) and the local server and tests (public keys preloaded; nothing is ever fetched).
 */
import { CognitoJwtVerifier, JwtVerifier } from 'aws-jwt-verify';
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

export interface CognitoVerifierSettings {
  userPoolId: string;
  /** The app clients whose access tokens are accepted (their `client_id`). */
  clientIds: readonly string[];
  /** Preloaded keys: when given, the verifier never goes to the network. */
  jwks?: Jwks;
}

export type HydratableVerifier = TokenVerifier & { hydrate(): Promise<void> };

class MissingClaimError extends JwtInvalidClaimError {}

/** aws-jwt-verify accepts tokens without exp (they would never expire) and does not require a sub. */
const requireExpAndSub = ({ payload }: { payload: { exp?: unknown; sub?: unknown } }) => {
  if (typeof payload.exp !== 'number') throw new MissingClaimError('Missing exp claim', payload.exp, undefined);
  if (typeof payload.sub !== 'string' || payload.sub === '') {
    throw new MissingClaimError('Missing sub claim', payload.sub, undefined);
  }
};

/** A JWKS cache that never fetches: for verifiers given their keys. */
const offlineCache = () =>
  new SimpleJwksCache({
    fetcher: {
      fetch: async () => {
        throw new Error('JWKS fetching is disabled for this verifier');
      },
    },
  });

export function createVerifier(settings: VerifierSettings): HydratableVerifier {
  const verifier = JwtVerifier.create(
    {
      issuer: settings.issuer,
      audience: settings.audience,
      jwksUri: settings.jwksUri,
      customJwtCheck: requireExpAndSub,
    },
    settings.jwks ? { jwksCache: offlineCache() } : undefined,
  );
  if (settings.jwks) verifier.cacheJwks(settings.jwks);
  return verifier as unknown as HydratableVerifier;
}

/** Cognito access tokens of the pool's own app clients; ID tokens (`token_use: id`) are refused. */
export function createCognitoVerifier(settings: CognitoVerifierSettings): HydratableVerifier {
  const verifier = CognitoJwtVerifier.create(
    {
      userPoolId: settings.userPoolId,
      tokenUse: 'access',
      clientId: [...settings.clientIds],
      customJwtCheck: requireExpAndSub,
    },
    settings.jwks ? { jwksCache: offlineCache() } : undefined,
  );
  if (settings.jwks) verifier.cacheJwks(settings.jwks);
  return verifier as unknown as HydratableVerifier;
}

/**
 * Several issuers at once (the team's own and the user pool): the first verifier that accepts the token decides.
 * Each refuses a token of another issuer before any key lookup, so trying them in turn costs nothing and never
 * fetches a JWKS for a foreign token.
 */
export function anyOfVerifiers(verifiers: readonly HydratableVerifier[]): HydratableVerifier {
  if (verifiers.length === 1) return verifiers[0] as HydratableVerifier;
  return {
    async verify(token) {
      let last: unknown = new Error('no verifier');
      for (const v of verifiers) {
        try {
          return await v.verify(token);
        } catch (err) {
          last = err;
        }
      }
      throw last;
    },
    async hydrate() {
      await Promise.all(verifiers.map((v) => v.hydrate()));
    },
  };
}
