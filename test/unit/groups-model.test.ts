/**
 * The group model (functions/core/groups/group.ts) and page tokens (page-token.ts): membership ids, the effective
 * item kind, the wire representation, id ordering, and tamper-proof page tokens.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../functions/core/errors';
import {
  effectiveItemType,
  type Group,
  groupItemId,
  listEtag,
  newEtag,
  newGroupId,
  parseGroupItemId,
  toGroupItemResource,
  toGroupResource,
} from '../../functions/core/groups/group';
import { hmacPageTokens } from '../../functions/core/groups/page-token';

const group = (overrides: Partial<Group> = {}): Group => ({
  id: '00mwriziz50Id5RQWjL00TGg',
  actor: 'channel:UCdemo-alice',
  title: 'Best of',
  itemCount: 0,
  status: 'active',
  etag: '"e1"',
  publishedAt: '2026-11-22T07:38:42.257Z',
  ...overrides,
});

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url');

describe('group item ids', () => {
  it.each([
    ['00mwriziz50Id5RQWjL00TGg', 'youtube#video', 'alice-v0001'],
    ['g', 'youtube#playlist', 'alice-p01'],
    ['g', 'youtube#channel', 'UCdemo-carol'],
    ['g', 'youtubePartner#asset', 'co-a0001'],
    ['g', 'youtube#video', 'id|with|pipes'],
    ['g', 'youtube#video', 'ünïcödé-\u{1F600}'],
  ] as const)('round-trips (%s, %s, %s)', (groupId, kind, resourceId) => {
    const id = groupItemId(groupId, kind, resourceId);
    expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(parseGroupItemId(id)).toEqual({ groupId, kind, resourceId });
  });

  it('round-trips every resource id groupItems.insert accepts (up to 200 characters, any script)', () => {
    const groupId = newGroupId();
    for (const resourceId of ['v'.repeat(200), 'é'.repeat(200), '語'.repeat(200)]) {
      const id = groupItemId(groupId, 'youtube#video', resourceId);
      expect(parseGroupItemId(id), `resource id of ${Buffer.byteLength(resourceId)} bytes`).toEqual({
        groupId,
        kind: 'youtube#video',
        resourceId,
      });
    }
  });

  it('is one id per membership: different group, kind or resource → different id', () => {
    const ids = new Set([
      groupItemId('g1', 'youtube#video', 'x'),
      groupItemId('g2', 'youtube#video', 'x'),
      groupItemId('g1', 'youtube#playlist', 'x'),
      groupItemId('g1', 'youtube#video', 'y'),
    ]);
    expect(ids.size).toBe(4);
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'abc$def'],
    ['padding', `${b64('g|VIDEO|v')}=`],
    ['standard base64 alphabet', Buffer.from('g|VIDEO|v??>').toString('base64')],
    ['no separators', b64('gVIDEOv')],
    ['missing resource', b64('g|VIDEO|')],
    ['missing group', b64('|VIDEO|v')],
    ['unknown kind', b64('g|COMMENT|v')],
    ['content owner is not groupable', b64('g|CONTENT_OWNER|v')],
    ['wire kind instead of directory kind', b64('g|youtube#video|v')],
    ['prototype key as kind', b64('g|constructor|v')],
    ['prototype key toString', b64('g|toString|v')],
    ['too long', 'A'.repeat(601)],
  ])('rejects %s', (_name, id) => {
    expect(parseGroupItemId(id)).toBeUndefined();
  });

  it('rejects a tampered id: a non-canonical encoding of the same bytes, and an edited character', () => {
    const id = groupItemId('g1', 'youtube#video', 'alice-v0001'); // 20 bytes: the last character has 2 unused bits
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(id.at(-1) as string);
    const nonCanonical = `${id.slice(0, -1)}${alphabet[last ^ 1]}`;
    expect(Buffer.from(nonCanonical, 'base64url').equals(Buffer.from(id, 'base64url'))).toBe(true);
    expect(parseGroupItemId(nonCanonical)).toBeUndefined();
    // An edit in the middle decodes to other bytes: never the original membership.
    const edited = `${id.slice(0, 4)}${id[4] === 'Q' ? 'R' : 'Q'}${id.slice(5)}`;
    expect(parseGroupItemId(edited)).not.toEqual(parseGroupItemId(id));
  });

  it('maps to the wire resource', () => {
    expect(
      toGroupItemResource({ id: 'i1', groupId: 'g1', kind: 'youtube#video', resourceId: 'v1', etag: '"e"' }),
    ).toEqual({
      kind: 'youtube#groupItem',
      etag: '"e"',
      id: 'i1',
      groupId: 'g1',
      resource: { kind: 'youtube#video', id: 'v1' },
    });
  });
});

describe('effectiveItemType', () => {
  it('an undeclared group has no kind while empty, its items’ kind while not', () => {
    expect(effectiveItemType({ itemCount: 0 })).toBeUndefined();
    expect(effectiveItemType({ itemCount: 0, itemType: 'youtube#video' })).toBeUndefined();
    expect(effectiveItemType({ itemCount: 3, itemType: 'youtube#video' })).toBe('youtube#video');
  });

  it('a declared kind binds for the group’s whole life', () => {
    expect(effectiveItemType({ itemCount: 0, declaredItemType: 'youtube#playlist' })).toBe('youtube#playlist');
    expect(
      effectiveItemType({ itemCount: 0, declaredItemType: 'youtube#playlist', itemType: 'youtube#playlist' }),
    ).toBe('youtube#playlist');
    expect(effectiveItemType({ itemCount: 2, declaredItemType: 'youtube#playlist' })).toBe('youtube#playlist');
  });
});

describe('toGroupResource', () => {
  it('encodes itemCount as a JSON string and omits itemType while unknown', () => {
    const wire = toGroupResource(group());
    expect(wire).toEqual({
      kind: 'youtube#group',
      etag: '"e1"',
      id: '00mwriziz50Id5RQWjL00TGg',
      snippet: { publishedAt: '2026-11-22T07:38:42.257Z', title: 'Best of' },
      contentDetails: { itemCount: '0' },
    });
    expect(JSON.parse(JSON.stringify(wire)).contentDetails.itemCount).toBe('0');
    expect('itemType' in wire.contentDetails).toBe(false);
  });

  it('shows the effective kind and the count', () => {
    expect(toGroupResource(group({ itemCount: 500, itemType: 'youtube#video' })).contentDetails).toEqual({
      itemCount: '500',
      itemType: 'youtube#video',
    });
    expect(toGroupResource(group({ itemCount: 0, itemType: 'youtube#video' })).contentDetails).toEqual({
      itemCount: '0',
    });
    expect(toGroupResource(group({ declaredItemType: 'youtubePartner#asset' })).contentDetails).toEqual({
      itemCount: '0',
      itemType: 'youtubePartner#asset',
    });
  });

  it('does not leak internal fields (actor, status, declaredItemType)', () => {
    const text = JSON.stringify(toGroupResource(group({ status: 'deleting', declaredItemType: 'youtube#video' })));
    expect(text).not.toContain('actor');
    expect(text).not.toContain('UCdemo-alice');
    expect(text).not.toContain('deleting');
    expect(text).not.toContain('declared');
  });
});

describe('ids and etags', () => {
  it('group ids sort in creation-time order', () => {
    const t0 = Date.UTC(2026, 0, 1);
    const ids = [0, 1, 2, 1000, 86_400_000, 10 ** 11].map((dt) => newGroupId(new Date(t0 + dt)));
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id).toMatch(/^[0-9a-z]{10}[A-Za-z0-9]{14}$/);
  });

  it('group ids are unique within one millisecond', () => {
    const now = new Date();
    expect(new Set(Array.from({ length: 1000 }, () => newGroupId(now))).size).toBe(1000);
  });

  it('etags are quoted, fresh per change, and derived etags follow content', () => {
    expect(newEtag()).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(newEtag()).not.toBe(newEtag());
    const list = [
      { id: 'g1', etag: '"e1"' },
      { id: 'g2', etag: '"e2"' },
    ];
    expect(listEtag(list)).toBe(listEtag(list.map((i) => ({ ...i }))));
    expect(listEtag(list)).not.toBe(
      listEtag([
        { id: 'g1', etag: '"e1"' },
        { id: 'g2', etag: '"e3"' },
      ]),
    );
    expect(listEtag(list)).not.toBe(listEtag([...list].reverse()));
    expect(listEtag(list)).not.toBe(listEtag(list.slice(0, 1)));
    // No two lists collide by moving text between an id and an etag.
    expect(listEtag([{ id: 'a', etag: 'bc' }])).not.toBe(listEtag([{ id: 'ab', etag: 'c' }]));
    expect(listEtag([])).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  });
});

describe('page tokens', () => {
  const codec = hmacPageTokens('secret-1');
  const alice = 'channel:UCdemo-alice';
  const carol = 'channel:UCdemo-carol';
  const afterId = '00mwriziz50Id5RQWjL00TGg';

  const expectInvalidToken = (fn: () => unknown) => {
    let thrown: unknown;
    try {
      fn();
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(DomainError);
    expect(thrown).toMatchObject({ kind: 'invalid_argument', reason: 'invalidPageToken' });
    expect((thrown as DomainError).where).toEqual({ location: 'pageToken', locationType: 'parameter' });
  };

  it('round-trips for the same actor', () => {
    const token = codec.encode(alice, afterId);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(codec.decode(alice, token)).toBe(afterId);
  });

  it('does not reveal the acting owner in clear text', () => {
    expect(codec.encode(alice, afterId)).not.toContain('UCdemo');
  });

  it('refuses a token issued to another actor', () => {
    expectInvalidToken(() => codec.decode(carol, codec.encode(alice, afterId)));
  });

  it('refuses an edited payload (another position, or another actor written in)', () => {
    const [, mac] = codec.encode(alice, afterId).split('.');
    const otherPosition = b64(JSON.stringify({ v: 1, a: alice, k: '0000000000zzzzzzzzzzzzzz' }));
    expectInvalidToken(() => codec.decode(alice, `${otherPosition}.${mac}`));
    const otherActor = b64(JSON.stringify({ v: 1, a: carol, k: afterId }));
    expectInvalidToken(() => codec.decode(carol, `${otherActor}.${mac}`));
  });

  it('refuses an edited mac', () => {
    const [payload, mac = ''] = codec.encode(alice, afterId).split('.');
    const flipped = `${mac.slice(0, 5)}${mac[5] === 'A' ? 'B' : 'A'}${mac.slice(6)}`;
    expectInvalidToken(() => codec.decode(alice, `${payload}.${flipped}`));
    expectInvalidToken(() => codec.decode(alice, `${payload}.${mac.slice(0, -1)}`));
    expectInvalidToken(() => codec.decode(alice, `${payload}.${mac}x`));
  });

  it('refuses a token signed with another secret', () => {
    expectInvalidToken(() => codec.decode(alice, hmacPageTokens('secret-2').encode(alice, afterId)));
  });

  it.each([
    ['empty', ''],
    ['garbage', 'garbage'],
    ['dot only', '.'],
    ['three parts', 'a.b.c'],
    ['no mac', `${b64('{}')}.`],
    ['json, unsigned', JSON.stringify({ v: 1, a: alice, k: afterId })],
  ])('refuses %s', (_name, token) => {
    expectInvalidToken(() => codec.decode(alice, token));
  });

  it('refuses a correctly signed payload that is not a position for this actor', () => {
    // Forged with the secret to reach the checks behind the signature.
    const forge = (payload: string) =>
      `${payload}.${createHmac('sha256', 'secret-1').update(`${alice}\n${payload}`).digest('base64url')}`;
    expect(codec.decode(alice, forge(b64(JSON.stringify({ v: 1, a: alice, k: 'x' }))))).toBe('x');
    expectInvalidToken(() => codec.decode(alice, forge(b64('not json'))));
    expectInvalidToken(() => codec.decode(alice, forge(b64(JSON.stringify({ v: 2, a: alice, k: 'x' })))));
    expectInvalidToken(() => codec.decode(alice, forge(b64(JSON.stringify({ v: 1, a: carol, k: 'x' })))));
    expectInvalidToken(() => codec.decode(alice, forge(b64(JSON.stringify({ v: 1, a: alice, k: 5 })))));
  });
});
