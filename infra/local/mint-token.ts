/**
 * `npm run --silent token -- --sub alice --scope video-analytics.readonly,analytics.readonly`
 * Prints only a signed access token for the local issuer. Options: --expires-in SECONDS (may be negative),
 * --aud AUDIENCE. Short scope names are expanded with SCOPE_BASE; full scope URIs pass through.
 */
import { parseArgs } from 'node:util';
import { loadIssuerKey, mintToken } from './local-issuer';
import { localSettings } from './settings';

// `--expires-in -60` (negative, for tests): parseArgs would read -60 as an option, so join it to its flag.
const args = process.argv
  .slice(2)
  .map((a, i, all) => (all[i - 1] === '--expires-in' && /^-\d+$/.test(a) ? `=${a}` : a));
const argv = args.flatMap((a, i) =>
  a.startsWith('=') ? [] : args[i + 1]?.startsWith('=') ? [`${a}${args[i + 1]}`] : [a],
);

const { values } = parseArgs({
  args: argv,
  options: {
    sub: { type: 'string' },
    scope: { type: 'string', default: '' },
    'expires-in': { type: 'string', default: '3600' },
    aud: { type: 'string' },
  },
});

const expiresIn = Number(values['expires-in']);
if (!values.sub || !Number.isInteger(expiresIn)) {
  console.error('usage: npm run --silent token -- --sub <user> [--scope a,b] [--expires-in SECONDS] [--aud AUDIENCE]');
  process.exit(2);
}

const token = await mintToken(await loadIssuerKey(localSettings.keyFile), {
  sub: values.sub,
  scopes: values.scope.split(',').filter(Boolean),
  expiresInSeconds: expiresIn,
  audience: values.aud ?? localSettings.audience,
  scopeBase: localSettings.scopeBase,
});
process.stdout.write(`${token}\n`);
