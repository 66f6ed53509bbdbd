/** Google's `fields` selector: parsing, the check against a response schema, and applying it to a response. */
import { describe, expect, it } from 'vitest';
import {
  applyFields,
  checkFields,
  FieldSelectionError,
  parseFields,
  type Selection,
} from '../../functions/_shared/field-selector';
import { readSystemParameters } from '../../functions/_shared/system-parameters';
import { DomainError } from '../../functions/core/errors';
import { QUERY_RESPONSE_FIELDS, schemaNamed } from '../../functions/schemas';

/** A selection as plain nested objects, for readable expectations. */
const plain = (s: Selection | true): unknown =>
  s === true ? true : Object.fromEntries([...s].map(([k, v]) => [k, plain(v)]));

const report = {
  kind: 'youtubeAnalytics#resultTable',
  columnHeaders: [
    { name: 'day', columnType: 'DIMENSION', dataType: 'STRING' },
    { name: 'views', columnType: 'METRIC', dataType: 'INTEGER' },
  ],
  rows: [
    ['2026-10-01', 5],
    ['2026-10-02', 7],
  ],
};
const groups = {
  kind: 'youtube#groupListResponse',
  etag: '"e"',
  items: [
    { kind: 'youtube#group', etag: '"1"', id: 'g1', snippet: { title: 'A', publishedAt: 't1' } },
    { kind: 'youtube#group', etag: '"2"', id: 'g2', snippet: { title: 'B', publishedAt: 't2' } },
  ],
  nextPageToken: 'p',
};

describe('parseFields', () => {
  it.each([
    ['rows', { rows: true }],
    ['rows,columnHeaders(name)', { rows: true, columnHeaders: { name: true } }],
    ['items/id', { items: { id: true } }],
    ['items(id,snippet/title)', { items: { id: true, snippet: { title: true } } }],
    ['*', { '*': true }],
    ['items/id,items/snippet(title)', { items: { id: true, snippet: { title: true } } }],
    ['items(id),items', { items: true }],
    ['a(b(c,d),e)/x', null],
  ])('%s', (text, expected) => {
    if (expected === null) {
      expect(() => parseFields(text)).toThrow(FieldSelectionError);
      return;
    }
    expect(plain(parseFields(text))).toStrictEqual(expected);
  });

  it.each(['', ',', 'a,', 'a//b', 'a(', 'a()', 'a(b', 'a)b', 'a b', '(a)', 'a/(b)', 'a=b', 'a(b))'])(
    'refuses %j',
    (text) => {
      expect(() => parseFields(text)).toThrow(`Invalid field selection ${text}`);
    },
  );

  it('takes nested parentheses', () => {
    expect(plain(parseFields('a(b(c,d),e)'))).toStrictEqual({ a: { b: { c: true, d: true }, e: true } });
  });
});

describe('applyFields', () => {
  it('keeps only the named fields, in the response order', () => {
    expect(applyFields(report, parseFields('rows,columnHeaders(name)'))).toStrictEqual({
      columnHeaders: [{ name: 'day' }, { name: 'views' }],
      rows: report.rows,
    });
  });

  it('applies a path through a list to each element', () => {
    expect(applyFields(groups, parseFields('items/id'))).toStrictEqual({ items: [{ id: 'g1' }, { id: 'g2' }] });
    expect(applyFields(groups, parseFields('items(id,snippet/title)'))).toStrictEqual({
      items: [
        { id: 'g1', snippet: { title: 'A' } },
        { id: 'g2', snippet: { title: 'B' } },
      ],
    });
  });

  it('* is everything; * beside a narrower selection still selects everything', () => {
    expect(applyFields(groups, parseFields('*'))).toStrictEqual(groups);
    expect(applyFields(groups, parseFields('*,items/id'))).toStrictEqual(groups);
    expect(applyFields(groups, parseFields('items/*'))).toStrictEqual({ items: groups.items });
  });

  it('leaves out fields the response does not have (an absent nextPageToken stays absent)', () => {
    expect(applyFields({ kind: 'k', items: [] }, parseFields('nextPageToken,items'))).toStrictEqual({ items: [] });
  });
});

describe('checkFields against the response schema', () => {
  const check = (text: string, schema: Parameters<typeof schemaNamed>[0]) =>
    checkFields(parseFields(text), schemaNamed(schema), schemaNamed);

  it.each([
    ['rows,columnHeaders(name)', 'QueryResponse'],
    ['kind,rows', 'QueryResponse'],
    ['items(id,snippet/title)', 'ListGroupsResponse'],
    ['items/contentDetails/itemCount,nextPageToken', 'ListGroupsResponse'],
    ['items/resource/kind', 'ListGroupItemsResponse'],
    ['*', 'Group'],
    ['name,displayName', 'GoogleAnalyticsAdminV1alphaProperty'],
    ['errors', 'EmptyResponse'],
  ] as const)('%s is a selection of %s', (text, schema) => {
    expect(() => check(text, schema)).not.toThrow();
  });

  it.each([
    ['foo', 'QueryResponse', 'foo'],
    ['rows/name', 'QueryResponse', 'rows/name'],
    ['columnHeaders(name,width)', 'QueryResponse', 'columnHeaders/width'],
    ['kind/x', 'QueryResponse', 'kind/x'],
    ['items(id,snippet/titel)', 'ListGroupsResponse', 'items/snippet/titel'],
    ['id', 'EmptyResponse', 'id'],
  ] as const)('%s is not a selection of %s', (text, schema, path) => {
    expect(() => check(text, schema)).toThrow(`Invalid field selection ${path}`);
  });
});

describe('readSystemParameters', () => {
  const read = (query: Record<string, string>, fieldMask?: string) =>
    readSystemParameters(query, fieldMask, QUERY_RESPONSE_FIELDS);
  const refusal = (query: Record<string, string>) => {
    try {
      read(query);
    } catch (err) {
      expect(err).toBeInstanceOf(DomainError);
      return err as DomainError;
    }
    throw new Error('expected a refusal');
  };

  it('takes the system parameters out of the query and keeps the rest', () => {
    const { system, query } = read({
      ids: 'channel==MINE',
      fields: 'rows',
      prettyPrint: 'false',
      alt: 'json',
      quotaUser: 'u1',
      '$.xgafv': '2',
      key: 'k',
      access_token: 't',
      oauth_token: 't',
      uploadType: 'media',
      upload_protocol: 'raw',
    });

    expect(query).toStrictEqual({ ids: 'channel==MINE' });
    expect(system.prettyPrint).toBe(false);
    expect(plain(system.fields as Selection)).toStrictEqual({ rows: true });
  });

  it('pretty-prints by default and reads booleans as Google does', () => {
    expect(read({}).system).toStrictEqual({ prettyPrint: true });
    expect(read({ prettyPrint: 'TRUE' }).system.prettyPrint).toBe(true);
    expect(read({ prettyPrint: '0' }).system.prettyPrint).toBe(false);
  });

  it('takes X-Goog-FieldMask when there is no fields parameter', () => {
    expect(plain(read({}, 'kind').system.fields as Selection)).toStrictEqual({ kind: true });
    expect(plain(read({ fields: 'rows' }, 'kind').system.fields as Selection)).toStrictEqual({ rows: true });
  });

  it.each([
    [{ alt: 'media' }, 'alt'],
    [{ alt: 'proto' }, 'alt'],
    [{ callback: 'cb' }, 'callback'],
    [{ prettyPrint: 'yes' }, 'prettyPrint'],
    [{ '$.xgafv': '3' }, '$.xgafv'],
    [{ fields: 'nope' }, 'fields'],
    [{ fields: 'rows(' }, 'fields'],
  ])('%j → 400 invalidParameter at %s', (query, location) => {
    const err = refusal(query);
    expect(err.kind).toBe('invalid_argument');
    expect(err.reason).toBe('invalidParameter');
    expect(err.where).toStrictEqual({ location, locationType: 'parameter' });
  });

  it('without a response schema checks only the syntax', () => {
    expect(() => readSystemParameters({ fields: 'anything/goes' }, undefined, undefined)).not.toThrow();
    expect(() => readSystemParameters({ fields: 'a(' }, undefined, undefined)).toThrow(DomainError);
  });
});
