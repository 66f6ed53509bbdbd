/**
 * Sample events in events/ are stored as templates, because tokens and expiry times rot: `${TOKEN:sub:scopes}`
 * becomes a freshly minted local token, `${EXP}` an expiry an hour from now, `${SCOPE:name}` a scope URI.
 */
import { readFileSync } from 'node:fs';
import { expandScope } from '../../functions/core/scopes';
import { type IssuerKey, mintToken } from './local-issuer';

export interface TemplateContext {
  issuerKey: IssuerKey;
  audience: string;
  scopeBase: string;
}

const PLACEHOLDER = /\$\{(TOKEN|EXP|SCOPE)(?::([^:}]*))?(?::([^}]*))?\}/g;

export async function fillTemplate(text: string, ctx: TemplateContext): Promise<string> {
  const tokens = new Map<string, string>();
  for (const m of text.matchAll(PLACEHOLDER)) {
    if (m[1] !== 'TOKEN' || tokens.has(m[0])) continue;
    tokens.set(
      m[0],
      await mintToken(ctx.issuerKey, {
        sub: m[2] || 'alice',
        scopes: (m[3] ?? '').split(',').filter(Boolean),
        audience: ctx.audience,
        scopeBase: ctx.scopeBase,
      }),
    );
  }
  const exp = String(Math.floor(Date.now() / 1000) + 3600);
  return text.replace(PLACEHOLDER, (whole, kind: string, a: string | undefined) => {
    if (kind === 'TOKEN') return tokens.get(whole) as string;
    if (kind === 'EXP') return exp;
    return (a ?? '')
      .split(',')
      .map((s) => expandScope(ctx.scopeBase, s))
      .join(' ');
  });
}

export async function loadEvent<T>(file: string, ctx: TemplateContext): Promise<T> {
  return JSON.parse(await fillTemplate(readFileSync(file, 'utf8'), ctx)) as T;
}
