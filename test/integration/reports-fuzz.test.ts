/**
 * reports.query under random input, over real HTTP (the local API: authorizer, handler, DynamoDB Local). Whatever
 * the query string, the answer is never a 5xx: it is a 200 `youtubeAnalytics#resultTable` or a 4xx in Google's JSON
 * error shape, and no body shows a stack frame or a source path.
 *
 * The queries mix the real vocabulary (ids, dates, the catalog's metrics, dimensions and example queries, filter
 * values, currencies) with junk, arbitrary Unicode, repeated keys, long values and broken percent-encoding, and are
 * sent three ways: URLSearchParams-encoded, raw through fetch (the WHATWG URL parser escapes only what it must), and
 * raw on a socket (only bytes a request line cannot carry are escaped).
 *
 * FC_SEED=<seed> (printed on failure) replays a run; FC_RUNS=<n> runs more cases.
 */
import { request } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import {
  KNOWN_DIMENSIONS,
  KNOWN_METRICS,
  MONETARY_METRICS,
  REPORTS,
} from '../../functions/core/reports/catalog/catalog';
import { exampleQuery } from '../../functions/core/reports/catalog/report-examples';
import { dynamoRateRepository } from '../../functions/core/reports/storage/rate-repository';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { createReportFixture, type ReportFixture } from '../support/report-fixtures';

type Pair = readonly [string, string];
type Mode = 'encoded' | 'fetch-raw' | 'socket-raw';
type RawMode = Exclude<Mode, 'encoded'>;

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

interface Sent {
  /** The query string as it went on the wire (after the `?`). */
  readonly sent: string;
  readonly answer: Answer;
}

/** Who calls: a demo user (or the fixture channel's owner) with some scopes, or a broken credential. */
interface CallerSpec {
  readonly label: string;
  readonly sub?: string;
  readonly scopes?: readonly string[];
  /** A literal Authorization header instead of a minted token. */
  readonly header?: string;
  /** What `<own>` stands for in this caller's queries. */
  readonly own: string;
  /** How often the caller is drawn for free-form queries. */
  readonly weight: number;
}

const READ = 'video-analytics.readonly';
const MONEY = 'video-analytics-monetary.readonly';
const FIXTURE = '<fixture>';
/** A currency only this file loads rates for (other tests see no rates for real codes). */
const TEST_CURRENCY = 'XFZ';

// biome-ignore format: a table
const CALLERS: readonly CallerSpec[] = [
  { label: 'alice', sub: 'alice', scopes: [READ], own: 'channel==UCdemo-alice', weight: 6 },
  { label: 'alice+money', sub: 'alice', scopes: [READ, MONEY], own: 'channel==UCdemo-alice', weight: 3 },
  { label: 'alice money-only', sub: 'alice', scopes: [MONEY], own: 'channel==UCdemo-alice', weight: 2 },
  { label: 'bob', sub: 'bob', scopes: [READ], own: 'contentOwner==demo-co', weight: 3 },
  { label: 'bob+money', sub: 'bob', scopes: [READ, MONEY], own: 'contentOwner==demo-co', weight: 3 },
  { label: 'carol', sub: 'carol', scopes: [READ], own: 'channel==UCdemo-carol', weight: 2 },
  { label: 'mallory', sub: 'mallory', scopes: [READ, MONEY], own: 'channel==MINE', weight: 2 },
  { label: 'fixture', sub: FIXTURE, scopes: [READ], own: '<fixture-channel>', weight: 6 },
  { label: 'fixture+money', sub: FIXTURE, scopes: [READ, MONEY], own: '<fixture-channel>', weight: 4 },
  { label: 'alice video-platform', sub: 'alice', scopes: ['video-platform'], own: 'channel==MINE', weight: 1 },
  { label: 'no token', own: 'channel==MINE', weight: 1 },
  { label: 'junk token', header: 'Bearer not.a.jwt', own: 'channel==MINE', weight: 1 },
];
const callerOf = (label: string) => CALLERS.find((c) => c.label === label) as CallerSpec;

let api: LocalApi;
let fixture: ReportFixture;
let groupId: string;
const authorization = new Map<string, string | undefined>();

beforeAll(async () => {
  api = await startLocalApi();
  // The global setup loads the demo directory only: a small channel with real facts lets sorting, paging and
  // filtering run over rows, and a group of its videos makes `group==` name something real.
  fixture = await createReportFixture({ videos: 12, days: 30, start: '2026-03-17', a2Days: 5, seed: 4242 });
  const db = createDocumentClient(process.env.DYNAMODB_ENDPOINT as string);
  try {
    await dynamoRateRepository({ db, tableName: process.env.TABLE_NAME as string }).write([
      { currency: TEST_CURRENCY, day: '2025-12-01', rate: 0.9 },
      { currency: TEST_CURRENCY, day: '2026-02-01', rate: 0.95 },
      { currency: TEST_CURRENCY, day: '2026-04-01', rate: 0.92 },
    ]);
  } finally {
    db.destroy();
  }
  const admin = await api.token(fixture.sub, ['video-platform']);
  const group = await api.call('/v2/groups', {
    method: 'POST',
    token: admin,
    body: JSON.stringify({ snippet: { title: 'fuzz' } }),
  });
  expect(group.status, JSON.stringify(group.body)).toBe(200);
  groupId = group.body.id as string;
  const item = await api.call('/v2/groupItems', {
    method: 'POST',
    token: admin,
    body: JSON.stringify({ groupId, resource: { kind: 'youtube#video', id: fixture.videoIds[0] } }),
  });
  expect(item.status, JSON.stringify(item.body)).toBe(200);
  for (const c of CALLERS) {
    const sub = c.sub === FIXTURE ? fixture.sub : c.sub;
    const minted = sub && c.scopes ? `Bearer ${await api.token(sub, [...c.scopes])}` : undefined;
    authorization.set(c.label, c.header ?? minted);
  }
}, 120_000);

afterAll(async () => {
  await api?.close();
});

// ---------------------------------------------------------------------------------------------------------------
// Sending

const hex = (b: number) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`;

/** Escapes only what a request line cannot carry (controls, space, DEL, non-ASCII); lone surrogates as CESU-8. */
function socketPath(query: string): string {
  let out = '';
  for (const ch of query) {
    const code = ch.codePointAt(0) as number;
    if (code > 0x20 && code < 0x7f) out += ch;
    else if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map(hex).join('');
    } else out += encodeURIComponent(ch);
  }
  return `/v2/reports?${out}`;
}

function socketGet(path: string, auth: string | undefined): Promise<Answer> {
  const { hostname, port } = new URL(api.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: hostname, port, method: 'GET', path, headers: auth ? { Authorization: auth } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function fetchGet(query: string, auth: string | undefined): Promise<Answer> {
  const res = await fetch(`${api.baseUrl}/v2/reports?${query}`, auth ? { headers: { Authorization: auth } } : {});
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** Sends a query string as it is. */
async function sendRaw(raw: string, mode: RawMode, caller: string): Promise<Sent> {
  const auth = authorization.get(caller);
  if (mode === 'fetch-raw') return { sent: raw, answer: await fetchGet(raw, auth) };
  const path = socketPath(raw);
  return { sent: path.slice('/v2/reports?'.length), answer: await socketGet(path, auth) };
}

const joinRaw = (pairs: readonly Pair[]) => pairs.map(([k, v]) => `${k}=${v}`).join('&');
const encode = (pairs: readonly Pair[]) =>
  new URLSearchParams(pairs.map(([k, v]): [string, string] => [k, v])).toString();

/** Sends key/value pairs: URLSearchParams-encoded, or joined with = and & as they are. */
async function send(pairs: readonly Pair[], mode: Mode, caller: string): Promise<Sent> {
  if (mode !== 'encoded') return sendRaw(joinRaw(pairs), mode, caller);
  const sent = encode(pairs);
  return { sent, answer: await fetchGet(sent, authorization.get(caller)) };
}

/** The parameters as the server reads them (WHATWG URL parsing of the request target). */
const serverParams = (sent: string) => new URL(`http://x/v2/reports?${sent}`).searchParams;

// ---------------------------------------------------------------------------------------------------------------
// The property

const STACK_FRAME = [
  /(?:^|\n)\s*at\s+\S/g, // "    at fn (…)" on a line of its own
  /\bat\s+(?:async\s+)?[\w$.<>[\]]+\s+\([^)]*:\d+(?::\d+)?\)/g, // "at fn (file:1:2)"
  /\bat\s+(?:file:\/\/|node:|\/)[^\s)]*:\d+/g, // "at /path/x.js:1"
];
const PATH_LEAK = [/\/work\//g, /\.ts:/g, /\.js:\d/g, /node_modules/g, /file:\/\//g];

const safeDecode = (s: string) => {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
};

/** Every way the server may have read the query: an echo of the caller's own text is not a leak. */
const echoSources = (sent: string) => [sent, safeDecode(sent), ...[...serverParams(sent)].flat()].join('\n');

function stringsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsIn(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) stringsIn(v, out);
  return out;
}

const isNonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

/** What is wrong with the answer to `sent` (empty when it is fine). */
function problemsOf({ sent, answer: { status, contentType, text } }: Sent): string[] {
  const problems: string[] = [];
  if (status >= 500) problems.push(`status ${status} is a server error`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    problems.push('the body is not JSON');
  }
  if (!/^application\/json\b/i.test(contentType)) problems.push(`content-type ${JSON.stringify(contentType)}`);

  const echoes = echoSources(sent);
  const texts = body === undefined ? [text] : stringsIn(body);
  for (const re of [...STACK_FRAME, ...PATH_LEAK]) {
    for (const t of texts) {
      for (const m of t.matchAll(re)) {
        if (!echoes.includes(m[0].trim())) problems.push(`leak ${JSON.stringify(m[0])} (${re})`);
      }
    }
  }
  if (body === undefined) return problems;

  const b = body as Record<string, any>;
  // A valid `fields` selector answers only part of the table: the shape checks below are for whole answers.
  if (status === 200 && serverParams(sent).has('fields')) return problems;
  if (status === 200) {
    if (b.kind !== 'youtubeAnalytics#resultTable') problems.push('a 200 without kind youtubeAnalytics#resultTable');
    if (!Array.isArray(b.columnHeaders)) problems.push('a 200 without columnHeaders');
    else if (b.columnHeaders.some((h: any) => !isNonEmptyString(h?.name) || !isNonEmptyString(h?.columnType))) {
      problems.push('a column header without name or columnType');
    }
    if (b.rows !== undefined && !(Array.isArray(b.rows) && b.rows.every(Array.isArray))) problems.push('bad rows');
    return problems;
  }
  if (status < 400 || status > 499) problems.push(`status ${status} is neither 200 nor 4xx`);
  const e = b.error;
  if (!e || typeof e !== 'object') return [...problems, 'no error object'];
  if (e.code !== status) problems.push(`error.code ${e.code} is not the HTTP status ${status}`);
  if (!isNonEmptyString(e.message)) problems.push('error.message is not a non-empty string');
  if (typeof e.status !== 'string' || !/^[A-Z][A-Z_]+$/.test(e.status)) problems.push('error.status is not a status');
  if (!Array.isArray(e.errors) || e.errors.length === 0) problems.push('error.errors is not a non-empty array');
  else {
    for (const item of e.errors) {
      if (!isNonEmptyString(item?.reason) || !isNonEmptyString(item?.message)) {
        problems.push(`an errors[] entry without reason and message: ${JSON.stringify(item)}`);
      }
    }
  }
  return problems;
}

const cut = (s: string, n = 3000) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** Asserts a well-formed answer. */
function expectWellFormed(result: Sent, mode: Mode, caller: string): void {
  const { sent, answer } = result;
  expect(
    problemsOf(result),
    `GET /v2/reports?${cut(sent)}\n(mode ${mode}, caller ${caller})\n→ ${answer.status} ${cut(answer.text)}`,
  ).toEqual([]);
}

// ---------------------------------------------------------------------------------------------------------------
// Arbitraries

const LONE_SURROGATES = ['\uD800', 'a\uDC00b', '\uDBFF\uDBFF', 'x\uD83D'];
// biome-ignore format: word lists read best packed
const PERCENT_EDGES = [
  '%', '%2', '%zz', '%00', '%0A', '%0D%0A', '%C0%AF', '%ED%A0%80', '%FF%FE', '%E2%82', '%2B', '+', '%3D%3D',
  '%26ids%3D', '%25', '%u0041', '%%41', '%2525', '&', '=', '#', '?', ';', ',',
];

/** `arb` in `percent` % of the cases, else undefined. */
const sometimes = <T>(arb: fc.Arbitrary<T>, percent: number): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: percent, arbitrary: arb }, { weight: 100 - percent, arbitrary: fc.constant(undefined) });

/** Short strings of any kind: printable ASCII, any code point, graphemes, lone surrogates, percent junk. */
const anyText = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.constantFrom(...LONE_SURROGATES, ...PERCENT_EDGES),
  fc
    .array(fc.oneof(fc.constantFrom(...PERCENT_EDGES), fc.string({ maxLength: 3 })), { maxLength: 4 })
    .map((a) => a.join('')),
);

/** A value of 300 to 2,000 characters (ASCII, so that the encoded request stays under Node's 16 KB header limit). */
const longText = fc
  .tuple(fc.string({ minLength: 1, maxLength: 8 }), fc.integer({ min: 300, max: 2000 }))
  .map(([chunk, n]) => chunk.repeat(Math.ceil(n / chunk.length)).slice(0, n));

const junk = fc.oneof({ weight: 6, arbitrary: anyText }, { weight: 1, arbitrary: longText });

/** Mostly `good`, one time in ten junk. */
const orJunk = (good: fc.Arbitrary<string>) => fc.oneof({ weight: 9, arbitrary: good }, { weight: 1, arbitrary: junk });

const idsArb = orJunk(
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('channel==MINE', '<own>') },
    // biome-ignore format: word lists read best packed
    { weight: 3, arbitrary: fc.constantFrom(
      'channel==UCdemo-alice', 'channel==UCdemo-carol', 'channel==UCdemo-dave', 'contentOwner==demo-co',
      'contentOwner==nope', '<fixture-channel>',
    ) },
    // biome-ignore format: word lists read best packed
    { weight: 1, arbitrary: fc.constantFrom(
      'channel==', 'contentOwner==', 'channel=MINE', 'channel==mine', 'CHANNEL==MINE', ' channel==MINE ',
      'channel===MINE', 'channel==MINE;contentOwner==demo-co', 'channel==UCdemo-alice,UCdemo-carol',
      'video==alice-v0001', 'contentOwner==demo-co ', '==', 'channel==UC-_+', 'contentOwner==__proto__',
    ) },
  ),
);

const isoDay = (offset: number) => new Date(Date.UTC(2026, 0, 1) + offset * 86_400_000).toISOString().slice(0, 10);
const validDate = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 60, max: 130 }).map(isoDay) }, // around the fixture's data
  { weight: 2, arbitrary: fc.integer({ min: -60, max: 60 }).map(isoDay) }, // around demo-co's link date
  { weight: 1, arbitrary: fc.integer({ min: -800, max: 1200 }).map(isoDay) },
);
// biome-ignore format: word lists read best packed
const badDate = fc.constantFrom(
  '2026-02-30', '2026-02-29', '2026-13-01', '2026-00-10', '2026-04-31', '2026-1-1', '20260101', '2026/01/01',
  '2026-01-01T00:00:00Z', '0000-01-01', '9999-12-31', '+02026-01-01', '-2026-01-01', '2026-01-01 ', '２０２６-０１-０１',
  'today', '',
);
const dateArb = fc.oneof(
  { weight: 6, arbitrary: validDate },
  { weight: 2, arbitrary: badDate },
  { weight: 1, arbitrary: junk },
);
/** startDate, endDate: as drawn, in order, reversed or the same day. */
const datesArb = fc
  .tuple(dateArb, dateArb, fc.constantFrom('asIs', 'ordered', 'ordered', 'reversed', 'same'))
  .map(([a, b, how]): readonly [string, string] => {
    if (how === 'same') return [a, a];
    if (how === 'asIs') return [a, b];
    const [lo, hi] = a <= b ? [a, b] : [b, a];
    return how === 'ordered' ? [lo, hi] : [hi, lo];
  });

// biome-ignore format: word lists read best packed
const UNKNOWN_NAMES = [
  'impressions', 'Views', 'VIEWS', 'view', 'views ', ' views', '-views', 'constructor', '__proto__', 'toString',
  'hasOwnProperty', 'day;views', 'views==1', 'estimatedRevenue\u0000', 'vidéo', '7daytotals',
];
const knownOr = (known: readonly string[]) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...known) },
    { weight: 1, arbitrary: fc.constantFrom(...UNKNOWN_NAMES) },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  );
const metricName = knownOr(KNOWN_METRICS);
const dimensionName = knownOr(KNOWN_DIMENSIONS);
const separator = fc.constantFrom(',', ',', ',', ',', ', ', ' ,', ',,', ';');
const nameList = (name: fc.Arbitrary<string>, min: number, max: number) =>
  fc
    .tuple(fc.array(name, { minLength: min, maxLength: max }), separator, fc.boolean())
    .map(([names, sep, trailing]) => `${names.join(sep)}${trailing && names.length > 0 && sep === ',' ? ',' : ''}`);

// biome-ignore format: word lists read best packed
const FILTER_VALUES = [
  'US', 'us', 'ZZ', 'AQ', 'XX', 'CA', '150', '002', '019', '142', '009', '999', '155', '029', 'US-CA', 'US-ca',
  'US-XX', 'CA-ON', 'YT_SEARCH', 'EXT_URL', 'yt_search', 'EMBEDDED', 'SUBSCRIBED', 'LIVE', 'CORE', 'MOBILE',
  'claimed', 'self', 'thirdParty', 'xyz', 'a,b', 'a,,b', ',', 'alice-v0001', 'alice-v0001,alice-v0002',
  'carol-v0001', 'PLabc', 'alice-p01', 'UCdemo-alice', 'UCdemo-carol', 'G1234', 'age18-24', 'female',
  '<fixture-video>', '<fixture-videos>', '<fixture-group>',
];
const filterValue = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...FILTER_VALUES) },
  { weight: 2, arbitrary: anyText },
  // About the 500 ids a list filter takes at most (some 4 KB).
  {
    weight: 1,
    arbitrary: fc.integer({ min: 495, max: 505 }).map((n) => Array.from({ length: n }, (_, i) => `v${i}`).join(',')),
  },
);
// biome-ignore format: word lists read best packed
const GOOD_CLAUSES = [
  'country==US', 'continent==150', 'subContinent==155', 'video==a,b', 'group==xyz', 'province==US-CA',
  'insightTrafficSourceType==YT_SEARCH', 'insightPlaybackLocationType==EMBEDDED', 'claimedStatus==claimed',
  'uploaderType==self', 'subscribedStatus==SUBSCRIBED', 'deviceType==MOBILE', 'playlist==PLabc',
  'channel==UCdemo-carol', 'video==<fixture-video>', 'group==<fixture-group>',
];
const clause = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...GOOD_CLAUSES) },
  { weight: 4, arbitrary: fc.tuple(dimensionName, filterValue).map(([n, v]) => `${n}==${v}`) },
  // biome-ignore format: word lists read best packed
  { weight: 1, arbitrary: fc.constantFrom(
    '==', ';;', ';', 'country==', '==US', 'country=US', 'country===US', 'country==US==CA', 'group==',
  ) },
);
const filtersArb = fc
  .tuple(fc.array(clause, { minLength: 1, maxLength: 3 }), fc.constantFrom(';', ';', ';', ';;', '; ', ','))
  .map(([clauses, sep]) => clauses.join(sep));

const sortArb = fc
  .array(fc.tuple(fc.boolean(), fc.oneof(metricName, dimensionName)), { minLength: 1, maxLength: 3 })
  .map((keys) => keys.map(([desc, n]) => `${desc ? '-' : ''}${n}`).join(','));

const countArb = fc.oneof(
  // biome-ignore format: word lists read best packed
  fc.constantFrom(
    '0', '1', '10', '25', '26', '200', '-1', '-0', '+5', '1e3', '0x10', '007', '1.5', ' 5', '5 ', '١٢', '999999999',
    '1000000000', '99999999999999999999', 'NaN', 'Infinity', '',
  ),
  fc.integer().map(String),
  fc.integer({ min: 1, max: 50 }).map(String),
);
const currencyArb = orJunk(
  fc.constantFrom(TEST_CURRENCY, TEST_CURRENCY, 'EUR', 'XXX', 'eur', 'USD', 'JPY', 'EU', 'EURO', '€', ' EUR', 'usd'),
);
const historicalArb = orJunk(fc.constantFrom('true', 'true', 'false', 'TRUE', 'True', '1', '0', 'yes', ''));

interface Draft {
  readonly pairs: Pair[];
  /** A caller that fits the query (templates pick one most of the time). */
  readonly caller?: string;
}

/** One field per parameter, each maybe absent, its value from the vocabulary or junk. */
const fieldsQuery: fc.Arbitrary<Draft> = fc
  .record({
    ids: sometimes(idsArb, 95),
    dates: datesArb,
    drop: fc.constantFrom('none', 'none', 'none', 'none', 'none', 'none', 'none', 'startDate', 'endDate', 'both'),
    metrics: sometimes(orJunk(nameList(metricName, 1, 4)), 95),
    dimensions: sometimes(orJunk(nameList(dimensionName, 0, 3)), 60),
    filters: sometimes(orJunk(filtersArb), 40),
    sort: sometimes(orJunk(sortArb), 40),
    maxResults: sometimes(countArb, 30),
    startIndex: sometimes(countArb, 20),
    currency: sometimes(currencyArb, 15),
    includeHistoricalChannelData: sometimes(historicalArb, 15),
  })
  .map((r) => {
    const pairs: Pair[] = [];
    if (r.ids !== undefined) pairs.push(['ids', r.ids]);
    if (r.drop !== 'startDate' && r.drop !== 'both') pairs.push(['startDate', r.dates[0]]);
    if (r.drop !== 'endDate' && r.drop !== 'both') pairs.push(['endDate', r.dates[1]]);
    // biome-ignore format: one list
    for (const key of ['metrics', 'dimensions', 'filters', 'sort', 'maxResults', 'startIndex', 'currency',
      'includeHistoricalChannelData'] as const) {
      const v = r[key];
      if (v !== undefined) pairs.push([key, v]);
    }
    return { pairs };
  });

const CHANNEL_CALLERS = ['fixture', 'fixture+money', 'alice', 'alice+money', 'carol'];
const OWNER_CALLERS = ['bob', 'bob+money'];

/** A catalog example query (a supported report) with ids, dates and a fitting caller, then perhaps mutated. */
const templateQuery: fc.Arbitrary<Draft> = fc
  .record({
    report: fc.constantFrom(...REPORTS),
    dates: fc.tuple(validDate, validDate).map(([a, b]): readonly [string, string] => (a <= b ? [a, b] : [b, a])),
    ids: fc.constantFrom('MINE', 'own', 'own', 'other'),
    fitting: fc.integer({ min: 0, max: 9 }),
    caller: fc.nat(),
    anyCaller: fc.constantFrom(...CALLERS.map((c) => c.label)),
    money: sometimes(fc.tuple(fc.nat(), fc.constantFrom(TEST_CURRENCY, TEST_CURRENCY, 'USD', 'EUR', undefined)), 20),
    historical: sometimes(fc.constantFrom('true', 'false'), 20),
    // Half of them as the catalog wrote them, the rest with one or two mutations.
    mutations: fc.oneof(
      fc.constant([]),
      fc.array(
        fc.record({
          at: fc.nat(),
          how: fc.constantFrom('drop', 'replace', 'append', 'duplicate', 'empty'),
          value: fc.oneof(junk, fc.constantFrom(...FILTER_VALUES), metricName, dimensionName),
        }),
        { minLength: 1, maxLength: 2 },
      ),
    ),
  })
  .map(({ report, dates, ids, fitting, caller, anyCaller, money, historical, mutations }) => {
    const co = report.owner === 'contentOwner';
    const fits = co ? OWNER_CALLERS : CHANNEL_CALLERS;
    const who = fitting < 8 ? (fits[caller % fits.length] as string) : anyCaller;
    const other = co ? 'contentOwner==nope' : 'channel==UCdemo-alice';
    const owner = ids === 'MINE' && !co ? 'channel==MINE' : ids === 'other' ? other : '<own>';
    const pairs: Pair[] = [
      ['ids', owner],
      ['startDate', dates[0]],
      ['endDate', dates[1]],
      ...exampleQuery(report)
        .split('&')
        .map((p): Pair => {
          const i = p.indexOf('=');
          return [p.slice(0, i), p.slice(i + 1)];
        }),
    ];
    const monetary = report.metrics.filter((m) => MONETARY_METRICS.has(m));
    if (money && monetary.length > 0) {
      // The report's money metrics instead of its own, sorted by the first when the report sorts.
      const [n, currency] = money;
      const metrics = [monetary[n % monetary.length] as string, ...monetary.filter((_, i) => i === (n + 1) % 3)];
      for (const [i, [k]] of pairs.entries()) {
        if (k === 'metrics') pairs[i] = ['metrics', [...new Set(metrics)].join(',')];
        if (k === 'sort' && pairs[i]?.[1].startsWith('-')) pairs[i] = ['sort', `-${metrics[0]}`];
      }
      if (currency) pairs.push(['currency', currency]);
    }
    if (historical) pairs.push(['includeHistoricalChannelData', historical]);
    for (const m of mutations) {
      if (pairs.length === 0) break;
      const i = m.at % pairs.length;
      const [k, v] = pairs[i] as Pair;
      if (m.how === 'drop') pairs.splice(i, 1);
      else if (m.how === 'replace') pairs[i] = [k, m.value];
      else if (m.how === 'append') pairs[i] = [k, `${v}${m.value}`];
      else if (m.how === 'duplicate') pairs.push([k, m.value]);
      else pairs[i] = [k, ''];
    }
    return { pairs, caller: who };
  });

// biome-ignore format: word lists read best packed
const ODD_KEYS = [
  'ids ', 'IDS', 'Ids', 'metrics[]', 'key', 'access_token', 'alt', 'fields', 'prettyPrint', 'callback', 'quotaUser',
  'onBehalfOfContentOwner', '$.xgafv', '', 'ids%00', 'ids\u0000',
];
const keyArb = fc.oneof(
  fc.constantFrom(...ODD_KEYS),
  fc.constantFrom('ids', 'startDate', 'endDate', 'metrics', 'dimensions', 'filters', 'sort', 'maxResults', 'currency'),
  anyText,
);
/** Arbitrary keys and values, nothing else. */
const chaosQuery: fc.Arbitrary<Draft> = fc
  .array(fc.tuple(keyArb, junk), { maxLength: 6 })
  .map((pairs) => ({ pairs: pairs.map(([k, v]): Pair => [k, v]) }));

const drawCaller = fc.oneof(...CALLERS.map((c) => ({ weight: c.weight, arbitrary: fc.constant(c.label) })));

const queryArb = fc
  .record({
    draft: fc.oneof(
      { weight: 5, arbitrary: fieldsQuery },
      { weight: 5, arbitrary: templateQuery },
      { weight: 1, arbitrary: chaosQuery },
    ),
    /** Keys nobody asked for (ignored unless they repeat a parameter). */
    extra: sometimes(fc.array(fc.tuple(keyArb, junk), { minLength: 1, maxLength: 2 }), 20),
    /** Repeat one key (the service refuses a key given twice). */
    repeat: sometimes(fc.tuple(fc.nat(), anyText), 8),
    reverse: fc.boolean(),
    mode: fc.constantFrom<Mode>('encoded', 'encoded', 'fetch-raw', 'socket-raw'),
    caller: drawCaller,
  })
  .map(({ draft, extra, repeat, reverse, mode, caller }) => {
    let pairs: Pair[] = [...draft.pairs, ...(extra ?? [])];
    if (repeat && pairs.length > 0) pairs.push([(pairs[repeat[0] % pairs.length] as Pair)[0], repeat[1]]);
    if (reverse) pairs = pairs.reverse();
    return { pairs, mode, caller: draft.caller ?? caller };
  })
  // Node answers a request line over 16 KB with a bare 431 before the API sees it: stay well below.
  .filter(({ pairs }) => encode(pairs).length < 12_000 && joinRaw(pairs).length < 6_000);

/** The caller's and the fixture's names, put in where the vocabulary has placeholders. */
function resolve(text: string, caller: string): string {
  return text
    .replaceAll('<own>', callerOf(caller).own)
    .replaceAll('<fixture-channel>', `channel==${fixture.channel}`)
    .replaceAll('<fixture-videos>', fixture.videoIds.slice(0, 3).join(','))
    .replaceAll('<fixture-video>', fixture.videoIds[1] as string)
    .replaceAll('<fixture-group>', groupId);
}

// ---------------------------------------------------------------------------------------------------------------

/** Hand-picked nasty queries: each must answer 200 or a Google 4xx. */
const REGRESSIONS: readonly { name: string; query: string; mode: RawMode; caller: string }[] = [
  // Once 500s: a parameter named after an Object.prototype member (the local server's query maps) …
  {
    name: 'a parameter named constructor',
    query: 'ids=channel==MINE&constructor=1',
    mode: 'fetch-raw',
    caller: 'alice',
  },
  { name: 'a parameter named __proto__', query: 'ids=channel==MINE&__proto__=1', mode: 'fetch-raw', caller: 'alice' },
  // … content-owner top videos across a channel's link date (no month rollup held channel and day) …
  {
    name: 'content-owner top videos across a link date',
    query:
      'ids=contentOwner==demo-co&startDate=2025-12-31&endDate=2026-03-02&dimensions=video&metrics=views,likes&filters=subscribedStatus==SUBSCRIBED;uploaderType==self&sort=-views&maxResults=10',
    mode: 'fetch-raw',
    caller: 'bob',
  },
  // … and top videos by revenue in another currency (converted day by day).
  {
    name: 'top videos by revenue in another currency',
    query: `ids=channel==MINE&startDate=2026-03-10&endDate=2026-05-20&dimensions=video&metrics=estimatedRevenue&sort=-estimatedRevenue&maxResults=10&currency=${TEST_CURRENCY}`,
    mode: 'fetch-raw',
    caller: 'fixture',
  },
  { name: 'nothing at all', query: '', mode: 'fetch-raw', caller: 'alice' },
  { name: 'every parameter empty', query: 'ids=&startDate=&endDate=&metrics=', mode: 'fetch-raw', caller: 'alice' },
  {
    name: 'ids given twice',
    query: 'ids=channel==MINE&ids=channel==MINE&startDate=2026-03-17&endDate=2026-04-10&metrics=views',
    mode: 'fetch-raw',
    caller: 'fixture',
  },
  {
    name: 'a lone %, a broken UTF-8 escape and a CESU-8 surrogate',
    query: 'ids=channel==MINE%&startDate=2026-03-17%C0%AF&endDate=%ED%A0%80&metrics=views%',
    mode: 'socket-raw',
    caller: 'fixture',
  },
  {
    name: 'a NUL and CR LF inside values',
    query: 'ids=channel%3D%3DMINE%00&startDate=2026-03-17&endDate=2026-04-10&metrics=views%0D%0Alikes',
    mode: 'socket-raw',
    caller: 'fixture',
  },
  {
    name: 'raw quotes, braces, backquotes and backslashes on the socket',
    query: 'ids=channel=="MINE"&startDate={2026-03-17}&endDate=2026-04-10&metrics=views\\&sort=`-views`|x^',
    mode: 'socket-raw',
    caller: 'fixture',
  },
  {
    name: 'a raw # cuts the query short',
    query: 'ids=channel==MINE&startDate=2026-03-17#&endDate=2026-04-10&metrics=views',
    mode: 'socket-raw',
    caller: 'fixture',
  },
  {
    name: 'filters with nothing between the separators',
    query: 'ids=channel==MINE&startDate=2026-03-17&endDate=2026-04-10&metrics=views&filters=;;==;country==',
    mode: 'fetch-raw',
    caller: 'fixture',
  },
  {
    name: 'a video filter of 501 ids',
    query: `ids=channel==MINE&startDate=2026-03-17&endDate=2026-04-10&metrics=views&filters=video==${Array.from({ length: 501 }, (_, i) => `v${i}`).join(',')}`,
    mode: 'fetch-raw',
    caller: 'fixture',
  },
  {
    name: 'maxResults and startIndex at the 9-digit limit',
    query:
      'ids=channel==MINE&startDate=2026-03-17&endDate=2026-04-10&metrics=views&dimensions=video&sort=-views&maxResults=999999999&startIndex=999999999',
    mode: 'fetch-raw',
    caller: 'fixture',
  },
  {
    name: 'a top-N report one row past its page cap',
    query:
      'ids=channel==MINE&startDate=2026-03-17&endDate=2026-04-10&metrics=views&dimensions=city&sort=-views&maxResults=25&startIndex=2',
    mode: 'fetch-raw',
    caller: 'fixture',
  },
  {
    name: 'an unknown currency and a bad includeHistoricalChannelData with a money metric',
    query:
      'ids=channel==MINE&startDate=2026-03-17&endDate=2026-04-10&metrics=estimatedRevenue&currency=XXX&includeHistoricalChannelData=TRUE',
    mode: 'fetch-raw',
    caller: 'fixture+money',
  },
  {
    name: 'money converted day by day, without a video dimension',
    query: `ids=channel==MINE&startDate=2026-01-20&endDate=2026-04-10&metrics=estimatedRevenue,cpm&dimensions=day&currency=${TEST_CURRENCY}`,
    mode: 'fetch-raw',
    caller: 'fixture+money',
  },
  {
    name: "a content owner's top videos from the link date on (historical data included before it)",
    query:
      'ids=contentOwner==demo-co&startDate=2025-12-31&endDate=2026-03-02&dimensions=video&metrics=views&filters=uploaderType==self&sort=-views&maxResults=10&includeHistoricalChannelData=true',
    mode: 'fetch-raw',
    caller: 'bob',
  },
  {
    name: 'a content-owner query by someone who manages nothing',
    query: 'ids=contentOwner==demo-co&startDate=2026-01-01&endDate=2026-12-31&metrics=views&dimensions=channel',
    mode: 'fetch-raw',
    caller: 'mallory',
  },
  {
    name: "another channel's group as a playlist filter",
    query:
      'ids=channel==UCdemo-carol&startDate=2026-03-17&endDate=2026-04-10&metrics=playlistViews&filters=group==<fixture-group>',
    mode: 'fetch-raw',
    caller: 'carol',
  },
  {
    name: 'a percent-encoded key that decodes to almost __proto__',
    query: 'ids=channel==MINE&startDate=2026-03-17&endDate=2026-04-10&metrics=views&%5F%5Fproto%5F%5F%5B%5D=1',
    mode: 'fetch-raw',
    caller: 'fixture',
  },
  {
    name: 'a long value of astral-plane characters',
    query: `ids=channel==MINE&startDate=2026-03-17&endDate=2026-04-10&metrics=${encodeURIComponent('𝕧𝕚𝕖𝕨𝕤'.repeat(100))}`,
    mode: 'fetch-raw',
    caller: 'fixture',
  },
];

describe('reports.query fuzz: never a 5xx, always a result table or a Google error', () => {
  it('300 generated queries', async () => {
    const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
    const numRuns = process.env.FC_RUNS ? Number(process.env.FC_RUNS) : 300;
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(queryArb, async ({ pairs, mode, caller }) => {
        runs++;
        const resolved = pairs.map(([k, v]): Pair => [resolve(k, caller), resolve(v, caller)]);
        expectWellFormed(await send(resolved, mode, caller), mode, caller);
      }),
      { numRuns, ...(seed !== undefined ? { seed } : {}) },
    );
    expect(runs).toBeGreaterThanOrEqual(numRuns);
  }, 180_000);

  it.each(REGRESSIONS)('$name', async ({ query, mode, caller }) => {
    expectWellFormed(await sendRaw(resolve(query, caller), mode, caller), mode, caller);
  });

  // Once the process died (a month loop past 9999-12 as text never ended): every reports.query with this end date.
  it.each([
    'metrics=views',
    'metrics=views&dimensions=day',
    'metrics=views,likes&dimensions=video&sort=-views&maxResults=10',
    'metrics=views&dimensions=country&sort=-views',
    'metrics=views&dimensions=video&sort=-views&maxResults=5&filters=country==US',
  ])('a range to the last valid day, 9999-12-31, answers as the range to the end of the data: %s', async (rest) => {
    const answer = async (endDate: string) => {
      const { answer } = await sendRaw(
        `ids=channel==MINE&startDate=2026-03-17&endDate=${endDate}&${rest}`,
        'fetch-raw',
        'fixture',
      );
      expect(answer.status, answer.text).toBe(200);
      return JSON.parse(answer.text);
    };
    expect(await answer('9999-12-31')).toEqual(await answer('2027-12-31'));
  });
});
