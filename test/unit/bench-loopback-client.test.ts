/**
 * The benches' HTTP client (bench/loopback-client.ts) against real servers on loopback: node:http for what the local
 * server and the minimal host send, and a raw TCP server for what node:http would not send (a body framed by the
 * connection's close, a connection dropped mid-request, a reply that is not HTTP).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket, type Server as TcpServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type LoopbackClient, loopbackClient } from '../../bench/loopback-client';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

async function httpServer(
  handle: (req: IncomingMessage, body: string, res: ServerResponse) => void,
): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

async function tcpServer(onRequest: (socket: Socket, request: string) => void): Promise<string> {
  const server: TcpServer = createTcpServer((socket) => {
    let text = '';
    socket.on('data', (c: Buffer) => {
      text += c.toString('latin1');
      if (text.includes('\r\n\r\n')) {
        onRequest(socket, text);
        text = '';
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const sockets = new Set<Socket>();
  server.on('connection', (s) => sockets.add(s));
  closers.push(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function client(url: string): LoopbackClient {
  const c = loopbackClient(url);
  closers.push(() => c.close());
  return c;
}

describe('loopbackClient', () => {
  it('sends the method, path, token and JSON body, and reads status, headers and a Content-Length body', async () => {
    let seen: { method?: string; url?: string; headers?: IncomingMessage['headers']; body?: string } = {};
    const { url } = await httpServer((req, body, res) => {
      seen = { method: req.method, url: req.url, headers: req.headers, body };
      res.setHeader('X-Twice', ['one', 'two']);
      res.writeHead(201, { 'Content-Type': 'application/json', 'X-Items-Read': '12' });
      res.end(JSON.stringify({ ok: 'é' }));
    });
    const answer = await client(url).send('POST', '/v2/groups?x=1', { token: 'abc', body: { title: 'é' } });
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/v2/groups?x=1');
    expect(seen.headers?.authorization).toBe('Bearer abc');
    expect(seen.headers?.['content-type']).toBe('application/json');
    expect(seen.headers?.['accept-encoding']).toBeUndefined();
    expect(seen.body).toBe('{"title":"é"}');
    expect(answer.status).toBe(201);
    expect(answer.headers['x-items-read']).toBe('12');
    expect(answer.headers['x-twice']).toEqual(['one', 'two']);
    expect(JSON.parse(answer.text)).toEqual({ ok: 'é' });
  });

  it('keeps one connection for a run of requests, bodies large or empty', async () => {
    const big = 'x'.repeat(1_500_000);
    const { url, connections } = await httpServer((req, _body, res) => {
      if (req.url === '/none') {
        res.writeHead(204);
        res.end();
      } else if (req.url === '/big') {
        res.writeHead(200, { 'Content-Length': big.length });
        res.end(big);
      } else {
        res.writeHead(200, { 'Content-Length': 2 });
        res.end('ok');
      }
    });
    const c = client(url);
    for (let i = 0; i < 3; i++) {
      expect((await c.send('GET', '/big')).text).toBe(big);
      const none = await c.send('DELETE', '/none');
      expect([none.status, none.text]).toEqual([204, '']);
      expect((await c.send('GET', '/small')).text).toBe('ok');
    }
    expect(connections()).toBe(1);
  });

  it('reads a chunked body (what node:http sends without a Content-Length)', async () => {
    const { url } = await httpServer((_req, _body, res) => {
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.write('first, ');
      setTimeout(() => res.end('then the rest'), 5);
    });
    const c = client(url);
    const answer = await c.send('POST', '/');
    expect(answer.status).toBe(500);
    expect(answer.headers['transfer-encoding']).toBe('chunked');
    expect(answer.text).toBe('first, then the rest');
    expect((await c.send('POST', '/')).text).toBe('first, then the rest');
  });

  it('opens a new connection after a server closes one', async () => {
    const { url, connections } = await httpServer((_req, _body, res) => {
      res.writeHead(200, { Connection: 'close', 'Content-Length': 4 });
      res.end('done');
    });
    const c = client(url);
    expect((await c.send('GET', '/')).text).toBe('done');
    expect((await c.send('GET', '/')).text).toBe('done');
    expect(connections()).toBe(2);
  });

  it('reads a body framed by the connection closing', async () => {
    const url = await tcpServer((socket) => {
      socket.end('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end');
    });
    const answer = await client(url).send('GET', '/');
    expect([answer.status, answer.text]).toEqual([200, 'until the end']);
  });

  it('fails a request the server drops, and one answered with something that is not HTTP', async () => {
    const dropped = await tcpServer((socket) => socket.end());
    await expect(client(dropped).send('GET', '/')).rejects.toThrow(/closed the connection before answering/);
    const garbled = await tcpServer((socket) => socket.write('SSH-2.0-OpenSSH\r\n\r\n'));
    await expect(client(garbled).send('GET', '/')).rejects.toThrow(/not an HTTP answer/);
  });

  it('fails a request nobody listens for', async () => {
    const { url } = await httpServer((_req, _body, res) => res.end());
    for (const close of closers.splice(0)) close(); // the port is free again
    await expect(client(url).send('GET', '/')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('refuses a second request while one is in flight', async () => {
    const { url } = await httpServer((_req, _body, res) => setTimeout(() => res.end('late'), 20));
    const c = client(url);
    const first = c.send('GET', '/');
    await expect(c.send('GET', '/')).rejects.toThrow(/one request at a time/);
    expect((await first).text).toBe('late');
  });
});
