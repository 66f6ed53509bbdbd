/** Helpers of the sync tests: the operator commands as child processes, and a channel its user owns. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { loadDirectory } from '../../functions/core/directory/directory-loader';
import type { TableContext } from '../../functions/core/directory/directory-repository';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** `tsx infra/cli/<script>.ts …args` on the run's DynamoDB Local and this file's table, with `env` added. */
export function runCli(
  script: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      path.join(ROOT, 'node_modules', '.bin', 'tsx'),
      [`infra/cli/${script}.ts`, ...args],
      {
        cwd: ROOT,
        timeout: 120_000,
        env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
      },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A channel (and its videos) in the directory, owned by `sub`. */
export const ownChannel = (table: TableContext, sub: string, channel: string, videos: readonly string[]) =>
  loadDirectory(table, {
    users: [{ sub, channels: [channel] }],
    channels: [{ id: channel, title: channel, videos: [...videos], playlists: [] }],
    contentOwners: [],
    accounts: [],
    properties: [],
  });

/** The arguments of `npm run connect` for an owner and its OAuth client and refresh token. */
export const connectArgs = (owner: string, a: { clientId: string; clientSecret: string; refreshToken: string }) => [
  '--owner',
  owner,
  '--client-id',
  a.clientId,
  '--client-secret',
  a.clientSecret,
  '--refresh-token',
  a.refreshToken,
];
