/**
 * The floor of any HTTP host, for the groups bench: a `node:http` server on loopback that does nothing but run the bare
 * DynamoDB calls it is handed and answer their output as JSON (no routing, authorizer, events, validation or mapping),
 * reached through the same loopback client as the local server. Its p50 over the bare calls' is what one HTTP hop
 * costs on this machine, whoever serves it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loopbackClient } from './loopback-client';

export interface MinimalHost {
  /** `call` run behind the host: one request a call, its value handed back in process (the client reads the text). */
  behind<A extends unknown[], R>(call: (...args: A) => Promise<R>): (...args: A) => Promise<R>;
  close(): void;
}

export async function startMinimalHost(): Promise<MinimalHost> {
  let pending: (() => Promise<unknown>) | undefined;
  let result: unknown;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const run = pending;
      pending = undefined;
      (run ?? (async () => null))().then(
        (out) => {
          result = out;
          const body = JSON.stringify(out ?? null);
          res.writeHead(200, {
            'Content-Type': 'application/json; charset=UTF-8',
            'Content-Length': Buffer.byteLength(body),
          });
          res.end(body);
        },
        (error: unknown) => {
          res.writeHead(500, { 'Content-Type': 'text/plain' });
          res.end(String(error));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = loopbackClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return {
    behind:
      (call) =>
      async (...args) => {
        pending = () => call(...args);
        const answer = await client.send('POST', '/');
        if (answer.status !== 200) throw new Error(`minimal host: ${answer.text.slice(0, 300)}`);
        return result as Awaited<ReturnType<typeof call>>;
      },
    close() {
      client.close();
      server.closeAllConnections();
      server.close();
    },
  };
}
