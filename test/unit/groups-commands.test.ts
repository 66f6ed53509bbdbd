/**
 * Parsing and validating the inputs of the group operations (functions/core/groups/group-commands.ts): titles,
 * bodies, groups.list selectors, id parameters, group item bodies and onBehalfOfContentOwner.
 */
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../functions/core/errors';
import {
  callerFrom,
  contentOwnerParam,
  parseIdParam,
  parseInsertGroup,
  parseInsertGroupItem,
  parseListGroups,
  parseResourceKind,
  parseUpdateGroup,
} from '../../functions/core/groups/group-commands';
import type { ScopeName } from '../../functions/core/scopes';

/** Runs `fn`, which must throw a DomainError, and returns it. */
function domainError(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return err as DomainError;
  }
  throw new Error('expected a DomainError, nothing was thrown');
}

const expectInvalid = (fn: () => unknown, reason: string, location?: string) => {
  const err = domainError(fn);
  expect(err.kind).toBe('invalid_argument');
  expect(err.reason).toBe(reason);
  if (location !== undefined) expect(err.where.location).toBe(location);
  return err;
};

const EMOJI = '\u{1F600}'; // one code point, two UTF-16 units

describe('groups.insert body', () => {
  it('takes the title, trimmed', () => {
    expect(parseInsertGroup({ snippet: { title: '  Best of 2026 \n' } })).toEqual({ title: 'Best of 2026' });
  });

  it('takes a declared itemType', () => {
    expect(parseInsertGroup({ snippet: { title: 't' }, contentDetails: { itemType: 'youtube#playlist' } })).toEqual({
      title: 't',
      itemType: 'youtube#playlist',
    });
  });

  it('treats contentDetails without itemType, or null, as no declared kind', () => {
    expect(parseInsertGroup({ snippet: { title: 't' }, contentDetails: {} })).toEqual({ title: 't' });
    expect(parseInsertGroup({ snippet: { title: 't' }, contentDetails: { itemType: null } })).toEqual({ title: 't' });
    expect(parseInsertGroup({ snippet: { title: 't' }, contentDetails: null })).toEqual({ title: 't' });
  });

  it('ignores output-only fields (kind, etag, id, publishedAt, itemCount)', () => {
    expect(
      parseInsertGroup({
        kind: 'youtube#group',
        etag: '"x"',
        id: 'chosen-by-caller',
        snippet: { title: 't', publishedAt: '2000-01-01T00:00:00.000Z' },
        contentDetails: { itemCount: '42' },
      }),
    ).toEqual({ title: 't' });
  });

  it.each([
    ['missing snippet', {}],
    ['null snippet', { snippet: null }],
    ['snippet without title', { snippet: {} }],
    ['null title', { snippet: { title: null } }],
    ['empty title', { snippet: { title: '' } }],
    ['whitespace-only title', { snippet: { title: ' \t\n ' } }],
    ['no-break-space-only title', { snippet: { title: '\u00a0\u2003' } }],
  ])('%s → 400 required snippet.title', (_name, body) => {
    const err = expectInvalid(() => parseInsertGroup(body), 'required', 'snippet.title');
    expect(err.message).toContain('snippet.title');
  });

  it.each([
    ['number', 42],
    ['boolean', true],
    ['array', ['t']],
    ['object', { text: 't' }],
  ])('a %s title → 400 invalidValue snippet.title', (_name, title) => {
    expectInvalid(() => parseInsertGroup({ snippet: { title } }), 'invalidValue', 'snippet.title');
  });

  it('accepts exactly 200 characters and refuses 201', () => {
    expect(parseInsertGroup({ snippet: { title: 'a'.repeat(200) } }).title).toHaveLength(200);
    expectInvalid(() => parseInsertGroup({ snippet: { title: 'a'.repeat(201) } }), 'invalidValue', 'snippet.title');
  });

  it('counts code points, not UTF-16 units: 200 emoji pass, 201 fail', () => {
    const ok = EMOJI.repeat(200);
    expect(ok.length).toBe(400);
    expect(parseInsertGroup({ snippet: { title: ok } }).title).toBe(ok);
    expectInvalid(() => parseInsertGroup({ snippet: { title: EMOJI.repeat(201) } }), 'invalidValue', 'snippet.title');
  });

  it('measures the length after trimming', () => {
    expect(parseInsertGroup({ snippet: { title: `   ${'b'.repeat(200)}   ` } }).title).toBe('b'.repeat(200));
  });

  it.each([
    ['a string', 'body'],
    ['null', null],
    ['an array', [{ snippet: { title: 't' } }]],
    ['a number', 7],
  ])('a body that is %s → 400 parseError', (_name, body) => {
    expectInvalid(() => parseInsertGroup(body), 'parseError');
  });

  it('refuses an unknown itemType and a non-object contentDetails with 400 invalidValue', () => {
    expectInvalid(
      () => parseInsertGroup({ snippet: { title: 't' }, contentDetails: { itemType: 'youtube#comment' } }),
      'invalidValue',
      'contentDetails.itemType',
    );
    expectInvalid(
      () => parseInsertGroup({ snippet: { title: 't' }, contentDetails: { itemType: 7 } }),
      'invalidValue',
      'contentDetails.itemType',
    );
    expectInvalid(
      () => parseInsertGroup({ snippet: { title: 't' }, contentDetails: 'youtube#video' }),
      'invalidValue',
      'contentDetails',
    );
  });

  it('reports a missing title the same way whether snippet is absent or empty (location and locationType)', () => {
    const noSnippet = domainError(() => parseInsertGroup({}));
    const emptySnippet = domainError(() => parseInsertGroup({ snippet: {} }));
    expect(noSnippet.reason).toBe(emptySnippet.reason);
    expect(noSnippet.where).toEqual(emptySnippet.where);
  });
});

describe('groups.update body', () => {
  it('takes id and trimmed title; output-only fields are ignored', () => {
    expect(
      parseUpdateGroup({
        kind: 'youtube#group',
        id: ' g1 ',
        snippet: { title: ' New ', publishedAt: '1999-01-01T00:00:00.000Z' },
        contentDetails: { itemCount: '9', itemType: 'youtube#channel' },
      }),
    ).toEqual({ id: 'g1', title: 'New' });
  });

  it('keeps an etag for a conditional update', () => {
    expect(parseUpdateGroup({ id: 'g1', etag: '"abc"', snippet: { title: 'x' } })).toEqual({
      id: 'g1',
      title: 'x',
      etag: '"abc"',
    });
    expect(parseUpdateGroup({ id: 'g1', etag: null, snippet: { title: 'x' } })).toEqual({ id: 'g1', title: 'x' });
  });

  it('requires id and title', () => {
    expectInvalid(() => parseUpdateGroup({ snippet: { title: 'x' } }), 'required', 'id');
    expectInvalid(() => parseUpdateGroup({ id: '  ', snippet: { title: 'x' } }), 'required', 'id');
    expectInvalid(() => parseUpdateGroup({ id: 'g1' }), 'required', 'snippet.title');
    expectInvalid(() => parseUpdateGroup({ id: 'g1', snippet: { title: '   ' } }), 'required', 'snippet.title');
  });

  it('refuses a non-string id, an empty or non-string etag, and too long titles', () => {
    expectInvalid(() => parseUpdateGroup({ id: 5, snippet: { title: 'x' } }), 'invalidValue', 'id');
    expectInvalid(() => parseUpdateGroup({ id: 'g', etag: '', snippet: { title: 'x' } }), 'invalidValue', 'etag');
    expectInvalid(() => parseUpdateGroup({ id: 'g', etag: 3, snippet: { title: 'x' } }), 'invalidValue', 'etag');
    expectInvalid(
      () => parseUpdateGroup({ id: 'g', snippet: { title: EMOJI.repeat(201) } }),
      'invalidValue',
      'snippet.title',
    );
  });

  it('a non-object body → 400 parseError', () => {
    expectInvalid(() => parseUpdateGroup('x'), 'parseError');
    expectInvalid(() => parseUpdateGroup([]), 'parseError');
  });
});

describe('groups.list selectors', () => {
  it('mine=true, with or without a pageToken', () => {
    expect(parseListGroups({ mine: 'true' })).toEqual({ by: 'mine' });
    expect(parseListGroups({ mine: 'true', pageToken: 'tok' })).toEqual({ by: 'mine', pageToken: 'tok' });
  });

  it('a comma-separated id list, trimmed and de-duplicated', () => {
    expect(parseListGroups({ id: 'a, b,a' })).toEqual({ by: 'ids', ids: ['a', 'b'] });
    expect(parseListGroups({ id: 'a', mine: 'false' })).toEqual({ by: 'ids', ids: ['a'] });
  });

  it('both id and mine=true → 400 invalidParameter', () => {
    expectInvalid(() => parseListGroups({ id: 'a', mine: 'true' }), 'invalidParameter');
  });

  it('neither, or only mine=false → 400 required', () => {
    expectInvalid(() => parseListGroups({}), 'required');
    expectInvalid(() => parseListGroups({ mine: 'false' }), 'required');
    expectInvalid(() => parseListGroups({ pageToken: 'tok' }), 'required');
  });

  it('mine other than true/false → 400 invalidValue', () => {
    expectInvalid(() => parseListGroups({ mine: 'yes' }), 'invalidValue', 'mine');
    expectInvalid(() => parseListGroups({ mine: 'TRUE' }), 'invalidValue', 'mine');
    expectInvalid(() => parseListGroups({ mine: '' }), 'invalidValue', 'mine');
  });

  it('50 ids pass, 51 distinct ids → 400 invalidValue', () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `g${i}`).join(',');
    expect(parseListGroups({ id: ids(50) })).toMatchObject({ by: 'ids' });
    expectInvalid(() => parseListGroups({ id: ids(51) }), 'invalidValue', 'id');
  });

  it.each(['', ',', 'a,', ',a', 'a,,b', 'a, ,b'])('an empty entry in id=%j → 400 invalidValue', (id) => {
    expectInvalid(() => parseListGroups({ id }), 'invalidValue', 'id');
  });

  it('pageToken with id → 400 invalidValue; an empty pageToken → 400 invalidValue', () => {
    expectInvalid(() => parseListGroups({ id: 'a', pageToken: 'tok' }), 'invalidValue', 'pageToken');
    expectInvalid(() => parseListGroups({ mine: 'true', pageToken: '' }), 'invalidValue', 'pageToken');
  });
});

describe('id parameters and onBehalfOfContentOwner', () => {
  it('parseIdParam trims and requires', () => {
    expect(parseIdParam({ id: ' g1 ' }, 'id')).toBe('g1');
    expect(parseIdParam({ groupId: 'g2' }, 'groupId')).toBe('g2');
    const err = expectInvalid(() => parseIdParam({}, 'groupId'), 'required', 'groupId');
    expect(err.where.locationType).toBe('parameter');
    expectInvalid(() => parseIdParam({ id: '' }, 'id'), 'required', 'id');
    expectInvalid(() => parseIdParam({ groupId: 'g' }, 'id'), 'required', 'id');
  });

  it('onBehalfOfContentOwner: absent, given (trimmed), empty → 400 invalidValue', () => {
    expect(contentOwnerParam({})).toBeUndefined();
    expect(contentOwnerParam({ onBehalfOfContentOwner: ' demo-co ' })).toBe('demo-co');
    expectInvalid(() => contentOwnerParam({ onBehalfOfContentOwner: ' ' }), 'invalidValue', 'onBehalfOfContentOwner');
  });

  it('callerFrom carries the content owner only when given', () => {
    const scopes = new Set<ScopeName>(['video-platform']);
    expect(callerFrom({ sub: 'alice', scopes }, {})).toEqual({ sub: 'alice', scopes });
    expect(callerFrom({ sub: 'bob', scopes }, { onBehalfOfContentOwner: 'demo-co' })).toEqual({
      sub: 'bob',
      scopes,
      contentOwner: 'demo-co',
    });
  });
});

describe('groupItems.insert body', () => {
  it('takes groupId, resource.kind and resource.id (trimmed)', () => {
    expect(parseInsertGroupItem({ groupId: ' g ', resource: { kind: 'youtube#video', id: ' v1 ' } })).toEqual({
      groupId: 'g',
      kind: 'youtube#video',
      resourceId: 'v1',
    });
  });

  it.each(['youtube#video', 'youtube#playlist', 'youtube#channel', 'youtubePartner#asset'] as const)(
    'accepts kind %s',
    (kind) => {
      expect(parseResourceKind(kind, 'resource.kind')).toBe(kind);
    },
  );

  it('requires groupId, resource, resource.kind and resource.id', () => {
    expectInvalid(() => parseInsertGroupItem({ resource: { kind: 'youtube#video', id: 'v' } }), 'required', 'groupId');
    expectInvalid(() => parseInsertGroupItem({ groupId: 'g' }), 'required', 'resource');
    expectInvalid(() => parseInsertGroupItem({ groupId: 'g', resource: { id: 'v' } }), 'required', 'resource.kind');
    expectInvalid(
      () => parseInsertGroupItem({ groupId: 'g', resource: { kind: 'youtube#video' } }),
      'required',
      'resource.id',
    );
  });

  it('refuses unknown kinds, non-string ids and resource ids over 200 characters', () => {
    expectInvalid(
      () => parseInsertGroupItem({ groupId: 'g', resource: { kind: 'youtube#comment', id: 'v' } }),
      'invalidValue',
      'resource.kind',
    );
    expectInvalid(
      () => parseInsertGroupItem({ groupId: 'g', resource: { kind: 'youtube#video', id: 12 } }),
      'invalidValue',
      'resource.id',
    );
    expectInvalid(
      () => parseInsertGroupItem({ groupId: 'g', resource: { kind: 'youtube#video', id: 'v'.repeat(201) } }),
      'invalidValue',
      'resource.id',
    );
    expect(
      parseInsertGroupItem({ groupId: 'g', resource: { kind: 'youtube#video', id: 'v'.repeat(200) } }).resourceId,
    ).toHaveLength(200);
  });

  it('a non-object body → 400 parseError', () => {
    expectInvalid(() => parseInsertGroupItem(null), 'parseError');
    expectInvalid(() => parseInsertGroupItem('{"groupId":"g"}'), 'parseError');
  });
});
