/**
 * `npm run smoke -- --base-url URL --token TOKEN [--owner-token TOKEN] [--video ID] [--property ID]`: every operation
 * of the API against a deployment (the local server, or a stack's ApiUrl), one line per check and a last line
 * `smoke: N/M checks hold`. Exit code 1 if any check fails, 2 on bad usage. What each token is for: smoke-checks.ts.
 */
import { parseArgs } from 'node:util';
import { checkLine, runSmoke, summaryLine } from './smoke-checks';

const { values } = parseArgs({
  options: {
    'base-url': { type: 'string' },
    token: { type: 'string' },
    'owner-token': { type: 'string' },
    video: { type: 'string' },
    property: { type: 'string' },
  },
});
const baseUrl = values['base-url'];
if (!baseUrl || !values.token || !/^https?:\/\/\S+$/.test(baseUrl)) {
  console.error(
    'usage: npm run smoke -- --base-url URL --token TOKEN [--owner-token TOKEN] [--video ID] [--property ID]\n' +
      '  --token        reads (reports, properties, groups.list) and the 401/403 checks; may be a service token\n' +
      '  --owner-token  the group writes (default: --token); its sub must own a channel, scope video-platform',
  );
  process.exit(2);
}

console.log(`smoke: ${baseUrl}`);
const result = await runSmoke({
  baseUrl,
  token: values.token,
  ...(values['owner-token'] ? { ownerToken: values['owner-token'] } : {}),
  ...(values.video ? { video: values.video } : {}),
  ...(values.property ? { property: values.property } : {}),
  onCheck: (c) => console.log(checkLine(c)),
});
console.log(summaryLine(result));
process.exit(result.passed === result.total ? 0 : 1);
