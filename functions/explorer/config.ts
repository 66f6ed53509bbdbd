/** What the Query Explorer page is told by the server that serves it (a JSON script element in the page). */
export interface ExplorerConfig {
  /** The API root the page calls (`https://host/stage/`), with a trailing slash. */
  readonly apiRoot: string;
  /** Scopes are `${scopeBase}/auth/<name>`. */
  readonly scopeBase: string;
  /** Authorization-code + PKCE sign-in (a user pool's hosted UI or another OIDC provider), when configured. */
  readonly oauth?: { readonly authorizeUrl: string; readonly tokenUrl: string; readonly clientId: string };
}
