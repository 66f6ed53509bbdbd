/**
 * Opaque, tamper-proof page tokens: the position plus the acting owner it belongs to, signed with HMAC-SHA256.
 * An edited token, or one issued to another owner, fails verification (400), so it can never page through
 * somebody else's groups.
 */
import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { groupErrors } from './group-errors';

export interface PageTokenCodec {
  encode(actor: string, afterId: string): string;
  /** The position, or a 400 invalidPageToken. */
  decode(actor: string, token: string): string;
}

export function hmacPageTokens(secret: string): PageTokenCodec {
  // The key is imported once: from a string, every createHmac would import it again.
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  const sign = (payload: string) => createHmac('sha256', key).update(payload).digest('base64url');
  return {
    encode(actor, afterId) {
      const payload = Buffer.from(JSON.stringify({ v: 1, a: actor, k: afterId })).toString('base64url');
      return `${payload}.${sign(`${actor}\n${payload}`)}`;
    },
    decode(actor, token) {
      const [payload, mac, extra] = token.split('.');
      if (!payload || !mac || extra !== undefined) throw groupErrors.invalidPageToken();
      const expected = Buffer.from(sign(`${actor}\n${payload}`));
      const given = Buffer.from(mac);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw groupErrors.invalidPageToken();
      try {
        const parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
          v?: unknown;
          a?: unknown;
          k?: unknown;
        };
        if (parsed.v === 1 && parsed.a === actor && typeof parsed.k === 'string') return parsed.k;
      } catch {
        // falls through: a signed but unreadable token is still invalid
      }
      throw groupErrors.invalidPageToken();
    },
  };
}
