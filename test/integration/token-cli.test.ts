/** `npm run --silent token`: prints only a signed token for the local issuer, with the requested claims. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createVerifier } from '../../functions/authorizer/verifier';
import { LOCAL_ISSUER, LOCAL_JWKS_URI, loadIssuerKey, localJwks } from '../../infra/local/local-issuer';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..', '..');

const token = async (...args: string[]) => {
  const { stdout } = await run('npx', ['tsx', 'infra/local/mint-token.ts', ...args], { cwd: root, timeout: 30_000 });
  return stdout;
};
const claims = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1] as string, 'base64url').toString('utf8'));

describe('npm run token', () => {
  it('prints only a token signed by the local issuer key, with expanded scopes', async () => {
    const out = await token('--sub', 'alice', '--scope', 'video-analytics.readonly,analytics.readonly');

    expect(out).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const jwt = out.trim();
    const verifier = createVerifier({
      issuer: LOCAL_ISSUER,
      audience: 'analytics-api',
      jwksUri: LOCAL_JWKS_URI,
      jwks: localJwks(await loadIssuerKey(path.join(root, '.local', 'issuer-key.json'))) as never,
    });
    const verified = await verifier.verify(jwt);
    expect(verified.sub).toBe('alice');
    expect(verified.scope).toBe(
      'https://www.googleapis.com/auth/video-analytics.readonly https://www.googleapis.com/auth/analytics.readonly',
    );
  });

  it('takes a negative --expires-in (an already expired token) and --aud', async () => {
    const c = claims((await token('--sub', 'bob', '--expires-in', '-60', '--aud', 'someone-else')).trim());

    expect(c.exp - c.iat).toBe(-60);
    expect(c.aud).toBe('someone-else');
  });

  it('refuses to run without --sub', async () => {
    await expect(token('--scope', 'analytics.readonly')).rejects.toMatchObject({ code: 2 });
  });
});
