/**
 * OAuth scopes of the service. A scope on the wire is `${SCOPE_BASE}/auth/<name>`; the base is configuration
 * (env SCOPE_BASE, default below) so a self-hosted issuer can mint scopes under its own domain.
 */
export const SCOPE_NAMES = [
  'video-analytics.readonly',
  'video-analytics-monetary.readonly',
  'video-platform',
  'video-platform-partner',
  'analytics.readonly',
  'analytics.edit',
] as const;

export type ScopeName = (typeof SCOPE_NAMES)[number];

export const DEFAULT_SCOPE_BASE = 'https://www.googleapis.com';

export const scopeUri = (base: string, name: ScopeName): string => `${base.replace(/\/+$/, '')}/auth/${name}`;

const isScopeName = (s: string): s is ScopeName => (SCOPE_NAMES as readonly string[]).includes(s);

/** Expands a short scope name (`analytics.readonly`) to its URI; full URIs pass through unchanged. */
export const expandScope = (base: string, scope: string): string =>
  isScopeName(scope) ? scopeUri(base, scope) : scope;

/** The short names a space-separated `scope` claim grants under `base` (foreign scopes are dropped). */
export function grantedScopeNames(base: string, scopeClaim: string): Set<ScopeName> {
  const granted = new Set(scopeClaim.split(' ').filter(Boolean));
  return new Set(SCOPE_NAMES.filter((name) => granted.has(scopeUri(base, name))));
}
