/**
 * Writes answers as API Gateway does: bodies of at least MIN_COMPRESSION_BYTES travel gzip- (or deflate-) encoded
 * when the client accepts it (the stack's minCompressionSize), smaller ones and refusals as they are.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { deflateSync, gzipSync } from 'node:zlib';
import { MIN_COMPRESSION_BYTES } from '../../functions/_shared/transport';

/** The encoding to use for a client's Accept-Encoding, honouring q=0 refusals and `*`. */
export function chooseEncoding(acceptEncoding: string | undefined): 'gzip' | 'deflate' | undefined {
  if (!acceptEncoding) return undefined;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  const weight = (name: string) => q.get(name) ?? q.get('*') ?? 0;
  if (weight('gzip') > 0) return 'gzip';
  if (weight('deflate') > 0) return 'deflate';
  return undefined;
}

const appendVary = (current: unknown, value: string): string => (current ? `${String(current)}, ${value}` : value);

export function sendBody(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  headers: OutgoingHttpHeaders,
  body: string,
): void {
  const length = Buffer.byteLength(body, 'utf8');
  const encoding = length >= MIN_COMPRESSION_BYTES ? chooseEncoding(req.headers['accept-encoding']) : undefined;
  if (!encoding) {
    // The text as it is: Node writes it with the headers, no copy of it made here.
    if (!res.headersSent) res.writeHead(status, { ...headers, 'Content-Length': length });
    res.end(body, 'utf8');
    return;
  }
  const bytes = Buffer.from(body, 'utf8');
  const encoded = encoding === 'gzip' ? gzipSync(bytes) : deflateSync(bytes);
  const vary = Object.entries(headers).find(([k]) => k.toLowerCase() === 'vary')?.[1];
  const rest = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'vary'));
  if (!res.headersSent) {
    res.writeHead(status, {
      ...rest,
      'Content-Encoding': encoding,
      'Content-Length': encoded.length,
      Vary: appendVary(vary, 'Accept-Encoding'),
    });
  }
  res.end(encoded);
}
