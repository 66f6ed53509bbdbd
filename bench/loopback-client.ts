/**
 * The benches' HTTP client for the local server: node:http over one keep-alive socket (the transport the SDK's own
 * calls use), asking for no compression. In the cloud API Gateway compresses answers, not the functions, so the
 * server's gzip and the client's gunzip are not the service's time; nor is a heavier client's (fetch spent about 1 ms
 * more of the shared process's processor a request, measured on 2026-11-29).
 */
import { Agent, request } from 'node:http';

export interface LoopbackAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** The body as the server sent it (no Accept-Encoding, so never encoded). */
  readonly text: string;
}

export interface LoopbackClient {
  send(method: string, path: string, options?: { token?: string; body?: unknown }): Promise<LoopbackAnswer>;
  close(): void;
}

export function loopbackClient(baseUrl: string): LoopbackClient {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return {
    send(method, path, { token, body } = {}) {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers: Record<string, string | number> = {};
      if (token) headers.Authorization = `Bearer ${token}`;
      if (payload !== undefined)
        Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) });
      return new Promise((resolve, reject) => {
        const req = request(`${baseUrl}${path}`, { method, agent, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        });
        req.on('error', reject);
        req.end(payload);
      });
    },
    close: () => agent.destroy(),
  };
}
