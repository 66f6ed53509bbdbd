/**
 * Reading Reporting API `channel_basic` files (functions/core/reports/ingest/{csv,report-file}.ts, families.ts):
 * RFC 4180 CSV with line numbers, gzip, columns matched by header name, missing metric columns null (not 0),
 * and whole-file rejection naming file, line and column (reporting-api.md §1.2–1.4, §2.1, §3, §4).
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CHANNEL_BASIC, detectFamily, familyMeasures } from '../../functions/core/reports/catalog/families';
import { MEASURE_INDEX, type Measure } from '../../functions/core/reports/catalog/metrics';
import { CsvError, decodeText, isGzip, parseCsv } from '../../functions/core/reports/ingest/csv';
import { type ParsedDayFile, readReportFile } from '../../functions/core/reports/ingest/report-file';
import type { FactRow } from '../../functions/core/reports/storage/cube';
import { metricColumns, reportColumns } from '../../infra/generator/export-generator';

const FILE = 'UCparse/channel_basic_a3/20260305.csv';

/** The CsvError `fn` throws. */
function csvError(fn: () => unknown): CsvError {
  try {
    fn();
  } catch (err) {
    expect(err, String(err)).toBeInstanceOf(CsvError);
    return err as CsvError;
  }
  throw new Error('expected a CsvError, nothing was thrown');
}

const read = (text: string, file = FILE): ParsedDayFile => readReportFile(file, parseCsv(file, text));
const detectChannelBasic = (header: readonly string[]) => {
  const found = detectFamily(header)?.reportType;
  return found?.startsWith('channel_basic_') ? found : undefined;
};

/** A CSV text from rows of cells (no quoting needed for the values used here). */
const csv = (rows: readonly (readonly string[])[], eol = '\n') => `${rows.map((r) => r.join(',')).join(eol)}${eol}`;

/** A channel_basic row for `header`: dimension values given, metrics from `metrics` by column name, else '0'. */
function row(header: readonly string[], dims: Record<string, string>, metrics: Record<string, string> = {}) {
  return header.map((c) => dims[c] ?? metrics[c] ?? '0');
}

const dims = (overrides: Record<string, string> = {}) => ({
  date: '20260305',
  channel_id: 'UCparse',
  video_id: 'vid00000001',
  live_or_on_demand: 'on_demand',
  subscribed_status: 'subscribed',
  country_code: 'US',
  ...overrides,
});

const sumOf = (fact: FactRow | undefined, m: Measure) => fact?.sums[MEASURE_INDEX[m]];
const onlyFacts = (p: ParsedDayFile) => [...p.byOwner.values()].flat();

describe('parseCsv', () => {
  it('reads quoted fields with commas, escaped quotes and line breaks, numbering lines from the header', () => {
    const t = parseCsv('f.csv', 'a,b,c\n"x,1","say ""hi""",plain\n"multi\nline",2,3\nlast,4,5\n');
    expect(t.header).toEqual(['a', 'b', 'c']);
    expect(t.rows).toEqual([
      { line: 2, fields: ['x,1', 'say "hi"', 'plain'] },
      { line: 3, fields: ['multi\nline', '2', '3'] },
      { line: 5, fields: ['last', '4', '5'] },
    ]);
  });

  it('treats CRLF like LF and ignores the trailing newline (or its absence)', () => {
    const lf = parseCsv('f.csv', 'a,b\n1,2\n3,4\n');
    expect(parseCsv('f.csv', 'a,b\r\n1,2\r\n3,4\r\n')).toEqual(lf);
    expect(parseCsv('f.csv', 'a,b\n1,2\n3,4')).toEqual(lf);
    expect(lf.rows.map((r) => r.line)).toEqual([2, 3]);
  });

  it('keeps empty fields, skips blank lines but keeps counting them', () => {
    const t = parseCsv('f.csv', 'a,b,c\n,,\n\n1,,3\n');
    expect(t.rows).toEqual([
      { line: 2, fields: ['', '', ''] },
      { line: 4, fields: ['1', '', '3'] },
    ]);
  });

  it('strips a UTF-8 byte order mark and spaces from header names', () => {
    const t = parseCsv('f.csv', '\uFEFFdate, views ,likes\n20260305,1,2\n');
    expect(t.header).toEqual(['date', 'views', 'likes']);
  });

  it('a row with the wrong number of fields → CsvError naming that line', () => {
    const err = csvError(() => parseCsv('bad.csv', 'a,b,c\n1,2,3\r\n4,5\r\n6,7,8\n'));
    expect(err.file).toBe('bad.csv');
    expect(err.line).toBe(3);
    expect(err.message).toContain('bad.csv');
    expect(err.message).toContain('line 3');
    const extra = csvError(() => parseCsv('bad.csv', 'a,b\n1,2\n"q\nq",2,3\n'));
    expect(extra.line).toBe(3);
  });

  it('an unterminated quote or an empty file → CsvError', () => {
    expect(csvError(() => parseCsv('f.csv', 'a,b\n1,"2\n')).line).toBe(2);
    expect(csvError(() => parseCsv('f.csv', '')).message).toContain('empty');
    expect(() => parseCsv('f.csv', '\n\n')).toThrow(CsvError);
  });
});

describe('decodeText', () => {
  it('reads plain and gzip bytes alike', () => {
    const text = 'date,views\n20260305,12\n';
    const gz = gzipSync(Buffer.from(text));
    expect(isGzip(gz)).toBe(true);
    expect(isGzip(Buffer.from(text))).toBe(false);
    expect(decodeText('f.csv.gz', gz)).toBe(text);
    expect(decodeText('f.csv', Buffer.from(text))).toBe(text);
  });

  it('a corrupt gzip → CsvError naming the file', () => {
    const gz = gzipSync(Buffer.from('date,views\n20260305,12\n'));
    const broken = gz.subarray(0, gz.length - 12);
    const err = csvError(() => decodeText('broken.csv.gz', broken));
    expect(err.file).toBe('broken.csv.gz');
    expect(err.message).toContain('broken.csv.gz');
  });
});

describe('detectFamily (channel_basic)', () => {
  it('tells the three versions apart by their metric columns', () => {
    expect(detectChannelBasic(reportColumns('a3'))).toBe('channel_basic_a3');
    expect(detectChannelBasic(reportColumns('a2'))).toBe('channel_basic_a2');
    expect(detectChannelBasic(reportColumns('a1'))).toBe('channel_basic_a1');
  });

  it('a traffic-source header (reporting-api.md §4, real 15 columns) is not channel_basic', () => {
    const trafficSource =
      'date,channel_id,video_id,live_or_on_demand,subscribed_status,country_code,traffic_source_type,traffic_source_detail,views,engaged_views,watch_time_minutes,average_view_duration_seconds,average_view_duration_percentage,red_views,red_watch_time_minutes';
    expect(detectChannelBasic(trafficSource.split(','))).toBeUndefined();
    expect(detectChannelBasic([...reportColumns('a3'), 'province_code'])).toBeUndefined();
    expect(detectChannelBasic(reportColumns('a3').filter((c) => c !== 'country_code'))).toBeUndefined();
  });

  it('reading another report type is refused naming the file', () => {
    const header = [...reportColumns('a3'), 'device_type'];
    const err = csvError(() => read(csv([header, row(header, dims(), { device_type: '1' })]), 'x/device.csv'));
    expect(err.file).toBe('x/device.csv');
    expect(err.line).toBe(1);
    const missing = csvError(() =>
      read(
        csv([
          ['date', 'views'],
          ['20260305', '1'],
        ]),
      ),
    );
    expect(missing.message).toContain('channel_id');
  });
});

describe('readReportFile (channel_basic): values', () => {
  const a3 = reportColumns('a3');

  it('columns in any order give identical facts', () => {
    const metrics = {
      views: '120',
      engaged_views: '100',
      likes: '7',
      watch_time_minutes: '33.25',
      average_view_duration_percentage: '41.5',
      subscribers_gained: '2',
      red_views: '3',
    };
    const rowsFor = (header: readonly string[]) => [
      header,
      row(header, dims(), metrics),
      row(header, dims({ video_id: 'vid00000002', country_code: 'GB' }), { ...metrics, views: '5' }),
      row(header, dims({ video_id: '', subscribed_status: 'not_subscribed', country_code: 'ZZ' }), {
        subscribers_gained: '4',
      }),
    ];
    const reference = read(csv(rowsFor(a3)));
    const reversed = [...a3].reverse();
    const shuffled = [
      ...a3.slice(6).filter((_, i) => i % 2 === 0),
      ...a3.slice(0, 6),
      ...a3.slice(6).filter((_, i) => i % 2 === 1),
    ];
    for (const header of [reversed, shuffled]) {
      const other = read(csv(rowsFor(header)));
      expect(other.byOwner).toEqual(reference.byOwner);
      expect(other.day).toBe('2026-03-05');
      expect(other.reportType).toBe('channel_basic_a3');
    }
    // the facts are sorted by (video, country, subscribedStatus, liveOrOnDemand), not by file order
    expect(onlyFacts(reference).map((f) => f.dims.video)).toEqual(['', 'vid00000001', 'vid00000002']);
  });

  it('maps values to Analytics API dimension values', () => {
    const p = read(csv([a3, row(a3, dims({ country_code: 'de', live_or_on_demand: 'LIVE' }), { views: '1' })]));
    expect(p.byOwner.get('UCparse')).toEqual([
      expect.objectContaining({
        day: '2026-03-05',
        dims: {
          video: 'vid00000001',
          country: 'DE',
          subscribedStatus: 'SUBSCRIBED',
          liveOrOnDemand: 'LIVE',
          // extension columns the file does not carry
          creatorContentType: 'UNSPECIFIED',
          youtubeProduct: 'UNKNOWN',
        },
      }),
    ]);
    expect(p.rows).toBe(1);
  });

  it.each([
    ['not_subscribed', 'UNSUBSCRIBED'],
    ['unsubscribed', 'UNSUBSCRIBED'],
    ['subscribed', 'SUBSCRIBED'],
  ])('subscribed_status %s → %s', (raw, expected) => {
    const p = read(csv([a3, row(a3, dims({ subscribed_status: raw }))]));
    expect(onlyFacts(p)[0]?.dims.subscribedStatus).toBe(expected);
  });

  it.each([
    ['on_demand', 'ON_DEMAND'],
    ['onDemand', 'ON_DEMAND'],
    ['live', 'LIVE'],
  ])('live_or_on_demand %s → %s', (raw, expected) => {
    const p = read(csv([a3, row(a3, dims({ live_or_on_demand: raw }))]));
    expect(onlyFacts(p)[0]?.dims.liveOrOnDemand).toBe(expected);
  });

  it('an a2 file: engagedViews is null (not 0) while views and redViews are set', () => {
    const a2 = reportColumns('a2');
    const p = read(csv([a2, row(a2, dims(), { views: '10', red_views: '2', red_watch_time_minutes: '1.5' })]));
    expect(p.reportType).toBe('channel_basic_a2');
    const f = onlyFacts(p)[0];
    expect(sumOf(f, 'engagedViews')).toBeNull();
    expect(sumOf(f, 'views')).toBe(10);
    expect(sumOf(f, 'redViews')).toBe(2);
    expect(sumOf(f, 'redWatchMinutes')).toBe(1.5);
  });

  it('an a1 file: engagedViews, redViews and redWatchMinutes are null', () => {
    const a1 = reportColumns('a1');
    const p = read(csv([a1, row(a1, dims(), { views: '10', likes: '1' })]));
    expect(p.reportType).toBe('channel_basic_a1');
    const f = onlyFacts(p)[0];
    expect(sumOf(f, 'engagedViews')).toBeNull();
    expect(sumOf(f, 'redViews')).toBeNull();
    expect(sumOf(f, 'redWatchMinutes')).toBeNull();
    expect(sumOf(f, 'views')).toBe(10);
    expect(sumOf(f, 'likes')).toBe(1);
    expect(sumOf(f, 'dislikes')).toBe(0);
  });

  it('a forced type overrides the detected one', () => {
    const p = readReportFile(FILE, parseCsv(FILE, csv([a3, row(a3, dims())])), { type: 'channel_basic_a2' });
    expect(p.reportType).toBe('channel_basic_a2');
  });

  it('empty cells are null, not 0 (suppressed values); 0 stays 0', () => {
    const p = read(csv([a3, row(a3, dims(), { views: '', likes: '0', watch_time_minutes: '', comments: ' ' })]));
    const f = onlyFacts(p)[0];
    expect(sumOf(f, 'views')).toBeNull();
    expect(sumOf(f, 'watchMinutes')).toBeNull();
    expect(sumOf(f, 'comments')).toBeNull();
    expect(sumOf(f, 'likes')).toBe(0);
    // no views: the weighted percentage is unknown too
    expect(sumOf(f, 'viewPercentageWeighted')).toBeNull();
  });

  it('viewPercentageWeighted = average_view_duration_percentage × views', () => {
    const p = read(
      csv([
        a3,
        row(a3, dims(), { views: '40', average_view_duration_percentage: '97.26' }),
        row(a3, dims({ video_id: 'v2' }), { views: '3', average_view_duration_percentage: '112.5' }),
        row(a3, dims({ video_id: 'v3' }), { views: '3', average_view_duration_percentage: '' }),
      ]),
    );
    const byVideo = new Map(onlyFacts(p).map((f) => [f.dims.video, f]));
    expect(sumOf(byVideo.get('vid00000001'), 'viewPercentageWeighted')).toBe(97.26 * 40);
    expect(sumOf(byVideo.get('v2'), 'viewPercentageWeighted')).toBe(112.5 * 3);
    // an empty percentage: unknown weight, while the views still count
    expect(sumOf(byVideo.get('v3'), 'viewPercentageWeighted')).toBeNull();
    expect(sumOf(byVideo.get('v3'), 'views')).toBe(3);
  });

  it('accepts decimals, exponents and a numeric date such as 20260305.0', () => {
    const p = read(csv([a3, row(a3, dims({ date: '20260305.0' }), { views: '1e3', watch_time_minutes: '.5' })]));
    expect(p.day).toBe('2026-03-05');
    expect(sumOf(onlyFacts(p)[0], 'views')).toBe(1000);
    expect(sumOf(onlyFacts(p)[0], 'watchMinutes')).toBe(0.5);
  });

  it('a header-only file: day undefined and no rows', () => {
    for (const version of ['a1', 'a2', 'a3'] as const) {
      const p = read(csv([reportColumns(version)]));
      expect(p.day).toBeUndefined();
      expect(p.rows).toBe(0);
      expect(p.byOwner.size).toBe(0);
    }
  });

  it('rows of several channels are kept apart', () => {
    const p = read(csv([a3, row(a3, dims()), row(a3, dims({ channel_id: 'UCother' }))]));
    expect([...p.byOwner.keys()].sort()).toEqual(['UCother', 'UCparse']);
  });

  it('metric columns of every version are all read', () => {
    expect(metricColumns('a3')).toContain('engaged_views');
    const header = reportColumns('a3');
    const values = Object.fromEntries(metricColumns('a3').map((c, i) => [c, String(i + 1)]));
    const f = onlyFacts(read(csv([header, row(header, dims(), values)])))[0];
    for (const m of familyMeasures(CHANNEL_BASIC)) expect(sumOf(f, m), m).not.toBeNull();
  });
});

describe('readReportFile (channel_basic): rejections name file, line and column', () => {
  const a3 = reportColumns('a3');
  const lines = (...bad: Record<string, string>[][]) =>
    csv([
      a3,
      row(a3, dims({ video_id: 'ok1' }), { views: '1' }),
      row(a3, dims({ video_id: 'ok2' }), { views: '2' }),
      ...bad.map(([d, m]) => row(a3, dims(d), m)),
    ]);

  function expectRejected(text: string, line: number, column: string, file = FILE) {
    const err = csvError(() => read(text, file));
    expect(err.file).toBe(file);
    expect(err.line).toBe(line);
    expect(err.column).toBe(column);
    expect(err.message).toContain(file);
    expect(err.message).toContain(`line ${line}`);
    expect(err.message).toContain(`column ${column}`);
    return err;
  }

  it('a malformed number: file name, the right line, column likes', () => {
    const err = expectRejected(lines([{}, { likes: '12x' }]), 4, 'likes', 'exports/UCx/20260305.csv');
    expect(err.message).toContain('12x');
  });

  it('a row of another day, or a date that is no calendar day, after rows of one day: that line, column date', () => {
    // The date is checked once and then compared: a cell written otherwise ('20260305.0', spaces) is the same day.
    const same = lines([{ date: '20260305.0', video_id: 'ok3' }], [{ date: ' 20260305 ', video_id: 'ok4' }]);
    expect(read(same).rows).toBe(4);
    expect(expectRejected(lines([{ date: '20260306', video_id: 'ok3' }]), 4, 'date').message).toContain(
      'every row of a daily file has the same date',
    );
    expectRejected(
      lines([{ date: '20260305.0', video_id: 'ok3' }], [{ date: '20260230', video_id: 'ok4' }]),
      5,
      'date',
    );
  });

  it('the right line after a quoted multi-line field and CRLF line ends', () => {
    const header = [...a3];
    const text =
      `${header.join(',')}\r\n` +
      `${row(header, dims({ video_id: '"multi\r\nline"' })).join(',')}\r\n` +
      `${row(header, dims({ video_id: 'v2' }), { likes: 'many' }).join(',')}\r\n`;
    expectRejected(text, 4, 'likes');
  });

  it.each([
    ['a bad date', { date: '2026-03-05' }, {}, 'date'],
    ['an impossible date', { date: '20260230' }, {}, 'date'],
    ['a second date in one file', { date: '20260306' }, {}, 'date'],
    ['a bad live_or_on_demand', { live_or_on_demand: 'replay' }, {}, 'live_or_on_demand'],
    ['a bad subscribed_status', { subscribed_status: 'unknown' }, {}, 'subscribed_status'],
    ['a bad country_code', { country_code: 'USA' }, {}, 'country_code'],
    ['an empty country_code', { country_code: '' }, {}, 'country_code'],
    ['an empty channel_id', { channel_id: '' }, {}, 'channel_id'],
    ['a negative count', {}, { views: '-1' }, 'views'],
    ['a negative watch time', {}, { watch_time_minutes: '-0.5' }, 'watch_time_minutes'],
    ['a non-numeric percentage', {}, { average_view_duration_percentage: 'half' }, 'average_view_duration_percentage'],
    ['an infinite number', {}, { shares: '1e999' }, 'shares'],
  ])('%s → rejected on its column', (_name, d, m, column) => {
    expectRejected(lines([d, m]), 4, column);
  });

  it('a duplicate dimension combination → rejected at the second occurrence', () => {
    const dup = dims({ video_id: 'ok2' });
    const text = csv([
      a3,
      row(a3, dims({ video_id: 'ok1' })),
      row(a3, dup, { views: '2' }),
      row(a3, dims({ video_id: 'ok3' })),
      row(a3, { ...dup, subscribed_status: 'SUBSCRIBED' }, { views: '5' }),
    ]);
    expectRejected(text, 5, 'video_id');
  });

  it('not_subscribed and unsubscribed are the same status, so together they duplicate a row', () => {
    const text = csv([
      a3,
      row(a3, dims({ subscribed_status: 'not_subscribed' })),
      row(a3, dims({ subscribed_status: 'unsubscribed' })),
    ]);
    expectRejected(text, 3, 'video_id');
  });

  it('the first bad row wins when there are several', () => {
    expectRejected(lines([{ country_code: '1' }, {}], [{}, { likes: 'x' }]), 4, 'country_code');
  });
});
