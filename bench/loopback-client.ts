/**
 * The benches' HTTP client for the local server: HTTP/1.1 written and read directly on one keep-alive TCP socket
 * (node:net), one request at a time, asking for no compression. The client shares the benches' process, so whatever
 * it spends on a request is counted in the server's time: it should cost as little as it can. In the cloud API Gateway
 * compresses answers, not the functions, so the server's gzip and the client's gunzip are not the service's time; nor
 * is a heavier client's. Measured on this VM: fetch spent about 1 ms more of the processor a request than node:http
 * (2026-11-29), and node:http about 60 µs more than this client (groups.list, 2026-12-02).
 *
 * It reads what the local server and the minimal host send: bodies framed by Content-Length or chunked, none for 204
 * and 304, and a connection the server closes. It does not speak HTTP to anything else.
 */
import { connect, type Socket } from 'node:net';

export interface LoopbackAnswer {
  readonly status: number;
  /** Header names in lower case; a header sent more than once gives its values in order. */
  readonly headers: Record<string, string | string[] | undefined>;
  /** The body as the server sent it (no Accept-Encoding, so never encoded). */
  readonly text: string;
}

export interface LoopbackClient {
  send(method: string, path: string, options?: { token?: string; body?: unknown }): Promise<LoopbackAnswer>;
  close(): void;
}

interface Waiting {
  readonly resolve: (answer: LoopbackAnswer) => void;
  readonly reject: (error: Error) => void;
  readonly method: string;
}

const HEAD_END = Buffer.from('\r\n\r\n');
const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

export function loopbackClient(baseUrl: string): LoopbackClient {
  const url = new URL(baseUrl);
  if (url.protocol !== 'http:') throw new Error(`loopbackClient: plain http only, not ${url.protocol}`);
  let socket: Socket | undefined;
  let waiting: Waiting | undefined;
  const reader = new AnswerReader();

  const fail = (error: Error) => {
    const w = waiting;
    waiting = undefined;
    reader.reset();
    w?.reject(error);
  };
  const open = () =>
    new Promise<Socket>((resolve, reject) => {
      const s = connect({ host: url.hostname, port: Number(url.port || 80), noDelay: true });
      s.once('connect', () => resolve(s));
      s.on('error', (error) => {
        reject(error);
        fail(error);
      });
      s.on('data', (chunk: Buffer) => {
        try {
          const answer = reader.push(chunk, waiting?.method);
          if (answer) finish(s, answer);
        } catch (error) {
          s.destroy();
          fail(error as Error);
        }
      });
      // A server that closes the connection ends a body framed by the close, or leaves a request unanswered.
      s.on('end', () => {
        const answer = reader.end();
        if (answer) finish(s, answer);
        else if (waiting) fail(new Error('loopbackClient: the server closed the connection before answering'));
        if (socket === s) socket = undefined;
      });
      s.on('close', () => {
        if (socket === s) socket = undefined;
      });
    });
  function finish(s: Socket, answer: LoopbackAnswer & { readonly close: boolean }) {
    const w = waiting;
    waiting = undefined;
    if (answer.close) {
      s.destroy();
      if (socket === s) socket = undefined;
    }
    w?.resolve({ status: answer.status, headers: answer.headers, text: answer.text });
  }

  return {
    async send(method, path, { token, body } = {}) {
      if (waiting) throw new Error('loopbackClient: one request at a time');
      const payload = body === undefined ? undefined : JSON.stringify(body);
      let head = `${method} ${path} HTTP/1.1\r\nHost: ${url.host}\r\n`;
      if (token) head += `Authorization: Bearer ${token}\r\n`;
      if (payload !== undefined) {
        head += `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n`;
      } else if (METHODS_WITH_BODY.has(method)) head += 'Content-Length: 0\r\n';
      const answer = new Promise<LoopbackAnswer>((resolve, reject) => {
        waiting = { resolve, reject, method };
      });
      try {
        socket ??= await open();
      } catch {
        return answer; // failed with the connection's error
      }
      // One write: the request line, headers and body go out in one segment.
      socket.write(`${head}\r\n${payload ?? ''}`);
      return answer;
    },
    close() {
      socket?.destroy();
      socket = undefined;
      if (waiting) fail(new Error('loopbackClient: closed'));
    },
  };
}

/** One answer at a time from the bytes as they arrive: its head, then its body as the head frames it. */
class AnswerReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private head: { status: number; headers: Record<string, string | string[]>; close: boolean } | undefined;
  private framing: { kind: 'none' } | { kind: 'length'; length: number } | { kind: 'chunked' } | { kind: 'close' } = {
    kind: 'none',
  };

  reset(): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.head = undefined;
  }

  /** The answer these bytes complete, if they do. */
  push(chunk: Buffer, method: string | undefined): (LoopbackAnswer & { close: boolean }) | undefined {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (!this.head) {
      const bytes = this.bytes();
      const end = bytes.indexOf(HEAD_END);
      if (end < 0) return undefined;
      this.readHead(bytes.toString('latin1', 0, end), method);
      this.pending = [bytes.subarray(end + HEAD_END.length)];
      this.pendingBytes = bytes.length - end - HEAD_END.length;
    }
    return this.complete();
  }

  /** At the connection's end: the answer whose body the end frames, if one is being read. */
  end(): (LoopbackAnswer & { close: boolean }) | undefined {
    if (!this.head || this.framing.kind !== 'close') return undefined;
    return this.answer(this.bytes(), true);
  }

  private bytes(): Buffer {
    if (this.pending.length !== 1) this.pending = [Buffer.concat(this.pending, this.pendingBytes)];
    return this.pending[0] as Buffer;
  }

  private readHead(text: string, method: string | undefined): void {
    const lines = text.split('\r\n');
    const status = Number((lines[0] ?? '').split(' ')[1]);
    if (!Number.isInteger(status)) throw new Error(`loopbackClient: not an HTTP answer: ${lines[0]}`);
    const headers: Record<string, string | string[]> = {};
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i] as string;
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      const seen = headers[name];
      headers[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
    }
    const one = (name: string) => {
      const v = headers[name];
      return Array.isArray(v) ? v.at(-1) : v;
    };
    const close = /\bclose\b/i.test(one('connection') ?? '');
    this.head = { status, headers, close };
    if (method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200)) {
      this.framing = { kind: 'none' };
    } else if (/\bchunked\b/i.test(one('transfer-encoding') ?? '')) this.framing = { kind: 'chunked' };
    else if (one('content-length') !== undefined)
      this.framing = { kind: 'length', length: Number(one('content-length')) };
    else this.framing = { kind: 'close' };
  }

  private complete(): (LoopbackAnswer & { close: boolean }) | undefined {
    const f = this.framing;
    if (f.kind === 'none') return this.answer(Buffer.alloc(0), this.head?.close ?? false);
    if (f.kind === 'length') {
      if (this.pendingBytes < f.length) return undefined;
      return this.answer(this.bytes().subarray(0, f.length), this.head?.close ?? false);
    }
    if (f.kind === 'chunked') {
      const body = dechunk(this.bytes());
      return body ? this.answer(body, this.head?.close ?? false) : undefined;
    }
    return undefined;
  }

  private answer(body: Buffer, close: boolean): LoopbackAnswer & { close: boolean } {
    const head = this.head as NonNullable<AnswerReader['head']>;
    this.reset();
    return { status: head.status, headers: head.headers, text: body.toString('utf8'), close };
  }
}

/** A chunked body once all of it (to the last, empty chunk and the trailer's end) has arrived; else undefined. */
function dechunk(bytes: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(bytes.toString('latin1', at, lineEnd).split(';')[0] as string, 16);
    if (!Number.isFinite(size)) throw new Error('loopbackClient: a malformed chunk');
    at = lineEnd + 2;
    if (size === 0) return bytes.indexOf(HEAD_END, lineEnd) < 0 ? undefined : Buffer.concat(parts);
    if (bytes.length < at + size + 2) return undefined;
    parts.push(bytes.subarray(at, at + size));
    at += size + 2;
  }
}
