/** OAuth 2.0 authorization code with PKCE (RFC 7636, S256), for the Query Explorer's hosted-UI sign-in. */

const base64url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** A fresh random code verifier (43 characters) or state value. */
export const randomToken = (): string => base64url(crypto.getRandomValues(new Uint8Array(32)));

/** code_challenge = BASE64URL(SHA-256(code_verifier)). */
export async function codeChallenge(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

export interface OAuthSettings {
  readonly authorizeUrl: string;
  readonly tokenUrl: string;
  readonly clientId: string;
}

/** Where to send the browser to sign in. */
export function authorizeRedirect(
  oauth: OAuthSettings,
  redirectUri: string,
  scopes: readonly string[],
  state: string,
  challenge: string,
): string {
  const url = new URL(oauth.authorizeUrl);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: oauth.clientId,
    redirect_uri: redirectUri,
    scope: scopes.join(' '),
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  })) {
    url.searchParams.set(k, v);
  }
  return url.toString();
}

/** The token request body that redeems the code (a public client: no secret, the verifier instead). */
export const tokenRequestBody = (oauth: OAuthSettings, code: string, redirectUri: string, verifier: string) =>
  new URLSearchParams({
    grant_type: 'authorization_code',
    client_id: oauth.clientId,
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });
