/**
 * The local OAuth issuer: an RSA key pair kept in the git-ignored .local/ folder, used by `npm run token` to sign
 * access tokens and by the local server to verify them. Its issuer string is local-only, so a deployed stack
 * (configured with a real issuer and JWKS URI) never trusts these tokens.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import { expandScope } from '../../functions/core/scopes';

export const LOCAL_ISSUER = 'https://local-issuer.analytics-api.invalid';
export const LOCAL_JWKS_URI = `${LOCAL_ISSUER}/.well-known/jwks.json`;
export const DEFAULT_AUDIENCE = 'analytics-api';

export interface IssuerKey {
  readonly privateJwk: JWK;
  readonly publicJwk: JWK;
}

export const defaultKeyFile = (root = process.cwd()) => path.join(root, '.local', 'issuer-key.json');

export async function createIssuerKey(): Promise<IssuerKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomUUID();
  return {
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' },
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' },
  };
}

/** Loads the key pair from `file`, creating it on first use. */
export async function loadIssuerKey(file = defaultKeyFile()): Promise<IssuerKey> {
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as IssuerKey;
  const key = await createIssuerKey();
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(key), { mode: 0o600 });
  return key;
}

export const localJwks = (key: IssuerKey) => ({ keys: [key.publicJwk] });

export interface TokenRequest {
  sub: string;
  /** Short names (expanded with the scope base) or full scope URIs. */
  scopes: string[];
  expiresInSeconds?: number;
  audience?: string;
  issuer?: string;
  scopeBase: string;
}

export async function mintToken(key: IssuerKey, req: TokenRequest): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const signingKey = await importJWK(key.privateJwk, 'RS256');
  return new SignJWT({ scope: req.scopes.map((s) => expandScope(req.scopeBase, s)).join(' ') })
    .setProtectedHeader({ alg: 'RS256', kid: key.privateJwk.kid, typ: 'at+jwt' })
    .setIssuer(req.issuer ?? LOCAL_ISSUER)
    .setAudience(req.audience ?? DEFAULT_AUDIENCE)
    .setSubject(req.sub)
    .setIssuedAt(now)
    .setExpirationTime(now + (req.expiresInSeconds ?? 3600))
    .setJti(randomUUID())
    .sign(signingKey);
}
