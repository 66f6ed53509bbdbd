/**
 * The bulk-export generator (infra/generator/export-generator.ts): deterministic, shaped like channel_basic_a1/a2/a3
 * files, internally consistent numbers, and realistic aggregate behaviour (uploads, power law, weekends, size).
 * Then the other report families (export-families.ts, export-world.ts) and the exchange rates (exchange-rates.ts):
 * exact columns per the reference, codes from the ingest's code tables, details and provinces only where they belong,
 * demographics summing to 100, valid content-owner combinations, consistent revenue, bounded sizes.
 * Last, the extensions (export-extensions.ts): extension columns only where they belong and only when asked, app
 * splits that keep every cell's totals, the x1 layouts, and every generated file accepted by the ingest's reader.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AD_TYPES,
  AGE_GROUPS,
  DEVICE_TYPES,
  GENDERS,
  OPERATING_SYSTEMS,
  PLAYBACK_LOCATION_TYPES,
  SHARING_SERVICES,
  TRAFFIC_SOURCE_TYPES,
} from '../../functions/core/reports/ingest/code-tables';
import { parseCsv as parseCsvTable } from '../../functions/core/reports/ingest/csv';
import { readReportFile } from '../../functions/core/reports/ingest/report-file';
import { CURRENCIES, exchangeRatesCsv, generateExchangeRates } from '../../infra/generator/exchange-rates';
import {
  CITIES,
  CODE_WEIGHT_TABLES,
  DETAIL_TRAFFIC_TYPES,
  EXTENDED_FAMILY_TYPES,
  EXTENSION_FAMILIES,
  REPORT_FAMILIES,
  reportTypeColumns,
} from '../../infra/generator/export-families';
import {
  COUNTRIES,
  type DayExport,
  DIMENSION_COLUMNS,
  defaultVideoPrefix,
  type GeneratorOptions,
  generateDays,
  metricColumns,
  planChannel,
  REPORT_VERSIONS,
  type ReportVersion,
  reportColumns,
  resolveReports,
  validateOptions,
  writeExports,
} from '../../infra/generator/export-generator';
import { type ExportSummary, generateReportDays, planWorld, writeAllExports } from '../../infra/generator/export-world';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

const options = (over: Partial<GeneratorOptions> = {}): GeneratorOptions => ({
  channel: 'UCdemo-alice',
  videos: 50,
  days: 30,
  start: '2025-11-01',
  seed: 42,
  videoPrefix: 'alice-v',
  videoWidth: 4,
  version: 'a3',
  gzip: false,
  ...over,
});

const tempDirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'export-generator-'));
  tempDirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** name -> content of every file under dir/channel/channel_basic_<version>. */
const readExports = (dir: string, o: GeneratorOptions) => {
  const folder = path.join(dir, o.channel, `channel_basic_${o.version}`);
  return new Map(readdirSync(folder).map((f) => [f, readFileSync(path.join(folder, f))] as const));
};

const parseCsv = (text: string) => {
  expect(text.endsWith('\n')).toBe(true);
  const [header, ...rows] = text.slice(0, -1).split('\n');
  return { header: header!.split(','), rows: rows.map((r) => r.split(',')) };
};

/** Rows as column-name records (readers must match by header name). */
const records = (day: DayExport) =>
  day.rows.map((row) => Object.fromEntries(day.header.map((name, i) => [name, row[i]!])) as Record<string, string>);

const dayIndex = (date: string, start: string) =>
  Math.round((Date.parse(`${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6)}`) - Date.parse(start)) / 86_400_000);

/** Collects failures instead of calling expect() for each of ~25,000 rows (which is slow). */
class Problems {
  readonly list: string[] = [];
  check(ok: boolean, message: string) {
    if (!ok && this.list.length < 20) this.list.push(message);
  }
}

const COUNT_COLUMNS = [
  'engaged_views',
  'views',
  'comments',
  'likes',
  'dislikes',
  'videos_added_to_playlists',
  'videos_removed_from_playlists',
  'shares',
  'annotation_impressions',
  'annotation_clickable_impressions',
  'annotation_closable_impressions',
  'annotation_clicks',
  'annotation_closes',
  'card_impressions',
  'card_teaser_impressions',
  'card_clicks',
  'card_teaser_clicks',
  'subscribers_gained',
  'subscribers_lost',
  'red_views',
];
const DECIMAL_COLUMNS = [
  'watch_time_minutes',
  'red_watch_time_minutes',
  'average_view_duration_seconds',
  'annotation_click_through_rate',
  'annotation_close_rate',
  'card_click_rate',
  'card_teaser_click_rate',
];
const RATES: [rate: string, clicks: string, impressions: string][] = [
  ['card_click_rate', 'card_clicks', 'card_impressions'],
  ['card_teaser_click_rate', 'card_teaser_clicks', 'card_teaser_impressions'],
  ['annotation_click_through_rate', 'annotation_clicks', 'annotation_clickable_impressions'],
  ['annotation_close_rate', 'annotation_closes', 'annotation_closable_impressions'],
];

describe('options', () => {
  it('derives the default video prefix from the channel id', () => {
    expect(defaultVideoPrefix('UCdemo-alice')).toBe('alice-v');
    expect(defaultVideoPrefix('UCdemo-carol')).toBe('carol-v');
    expect(defaultVideoPrefix('UCabc123')).toBe('UCabc123-v');
  });

  it('lists the columns of each version', () => {
    expect(metricColumns('a3')).toHaveLength(28);
    expect(metricColumns('a2')).toEqual(metricColumns('a3').filter((c) => c !== 'engaged_views'));
    expect(metricColumns('a1')).toEqual(
      metricColumns('a2').filter((c) => c !== 'red_views' && c !== 'red_watch_time_minutes'),
    );
  });

  it('rejects invalid options with readable messages', () => {
    expect(validateOptions(options())).toEqual([]);
    const errors = validateOptions(
      options({ videos: 0, days: 1.5, start: '2025-02-30', videoPrefix: 'a,b', videoWidth: 2, channel: '' }),
    );
    expect(errors.join('\n')).toMatch(/channel/);
    expect(errors.join('\n')).toMatch(/videos/);
    expect(errors.join('\n')).toMatch(/days/);
    expect(errors.join('\n')).toMatch(/start/);
    expect(errors.join('\n')).toMatch(/prefix/);
    expect(validateOptions(options({ videos: 1000, videoWidth: 3 }))).toEqual([
      'video width 3 is too small for 1000 videos',
    ]);
    expect(() => [...generateDays(options({ version: 'a9' as ReportVersion }))]).toThrow(/version/);
  });
});

describe('files', () => {
  it('are byte-identical for the same options and differ for another seed', async () => {
    const o = options();
    const [a, b, c] = [tempDir(), tempDir(), tempDir()];
    const resultA = await writeExports(o, a);
    await writeExports(o, b);
    await writeExports({ ...o, seed: 43 }, c);
    const [filesA, filesB, filesC] = [readExports(a, o), readExports(b, o), readExports(c, o)];
    expect(resultA.files).toBe(30);
    expect([...filesA.keys()]).toHaveLength(30);
    expect([...filesA.keys()].sort()[0]).toBe('20251101.csv');
    expect([...filesA.keys()].sort().at(-1)).toBe('20251130.csv');
    for (const [name, content] of filesA) expect(content.equals(filesB.get(name)!), name).toBe(true);
    expect([...filesA].filter(([name, content]) => !content.equals(filesC.get(name)!)).length).toBeGreaterThan(25);
  });

  it('hold exactly what generateDays yields, and report files and rows', async () => {
    const o = options({ videos: 30, days: 10 });
    const dir = tempDir();
    const seen: [string, number][] = [];
    const result = await writeExports(o, dir, (file, rows) => seen.push([path.basename(file), rows]));
    const files = readExports(dir, o);
    let rows = 0;
    for (const day of generateDays(o)) {
      const text = files.get(`${day.date}.csv`)!.toString('utf8');
      expect(parseCsv(text)).toEqual({ header: day.header, rows: day.rows });
      rows += day.rows.length;
    }
    expect(result).toEqual({ files: 10, rows });
    expect(seen.map(([f]) => f).sort()).toEqual([...files.keys()].sort());
    expect(seen.reduce((sum, [, n]) => sum + n, 0)).toBe(rows);
  });

  it('carry the same values in every version; only the columns differ', () => {
    const o = options({ videos: 30, days: 8 });
    const a1 = [...generateDays({ ...o, version: 'a1' })];
    const a3 = [...generateDays({ ...o, version: 'a3' })];
    expect(a1.map((d) => d.date)).toEqual(a3.map((d) => d.date));
    a1.forEach((day, i) => {
      const other = a3[i]!;
      const pick = (d: DayExport) => records(d).map((r) => day.header.map((c) => r[c]).join(','));
      expect(pick(day)).toEqual(pick(other));
    });
  });

  it('round-trip through gzip', async () => {
    const o = options({ videos: 20, days: 5 });
    const [plain, zipped] = [tempDir(), tempDir()];
    await writeExports(o, plain);
    await writeExports({ ...o, gzip: true }, zipped);
    const plainFiles = readExports(plain, o);
    const zippedFiles = readExports(zipped, o);
    expect([...zippedFiles.keys()].sort()).toEqual([...plainFiles.keys()].map((f) => `${f}.gz`).sort());
    for (const [name, content] of plainFiles) {
      expect(gunzipSync(zippedFiles.get(`${name}.gz`)!).equals(content), name).toBe(true);
    }
  });

  it('are header-only on days without any activity', async () => {
    // One video, uploaded during the period: the days before it often have no rows at all.
    const o = options({ videos: 1, days: 30, seed: 7 });
    const publishDay = planChannel(o).videos[0]!.publishDay;
    expect(publishDay).toBeGreaterThan(0);
    const dir = tempDir();
    await writeExports(o, dir);
    const empty = [...readExports(dir, o)].filter(([, content]) => content.toString().split('\n').length === 2);
    expect(empty.length).toBeGreaterThan(0);
    for (const [, content] of empty) {
      expect(content.toString()).toMatch(/^[a-z_,]+\n$/);
      expect(parseCsv(content.toString()).header.sort()).toEqual(reportColumns('a3').sort());
    }
  });
});

describe.each(['a1', 'a2', 'a3'] as const)('headers of version %s', (version) => {
  const days = [...generateDays(options({ videos: 20, days: 60, version }))];

  it('hold exactly the version columns, dimensions first', () => {
    const expected = [...reportColumns(version)].sort();
    for (const day of days) {
      expect([...day.header].sort()).toEqual(expected);
      expect([...day.header.slice(0, 6)].sort()).toEqual([...DIMENSION_COLUMNS].sort());
    }
  });

  it('vary in order between files', () => {
    const orders = new Set(days.map((d) => d.header.join(',')));
    expect(orders.size).toBeGreaterThan(50);
    const dimensionOrders = new Set(days.map((d) => d.header.slice(0, 6).join(',')));
    expect(dimensionOrders.size).toBeGreaterThan(1);
    const standard = days.filter((d) => d.header.slice(0, 6).join(',') === DIMENSION_COLUMNS.join(','));
    expect(standard.length).toBeGreaterThan(days.length * 0.7);
  });
});

describe('a 100-video, 60-day sample', () => {
  const o = options({ videos: 100, days: 60 });
  const plan = planChannel(o);
  const byId = new Map(plan.videos.map((v) => [v.id, v]));
  let days: DayExport[] = [];
  let rows: (Record<string, string> & { day: number })[] = [];

  beforeAll(() => {
    days = [...generateDays(o)];
    rows = days.flatMap((d) => records(d).map((r) => Object.assign(r, { day: dayIndex(d.date, o.start) })));
  });

  it('has one file per day, in order, and consistent rows', () => {
    expect(days.map((d) => d.date)).toEqual(
      Array.from({ length: 60 }, (_, i) =>
        new Date(Date.UTC(2025, 10, 1 + i)).toISOString().slice(0, 10).replaceAll('-', ''),
      ),
    );
    const problems = new Problems();
    for (const day of days) {
      for (const row of day.rows) problems.check(row.length === day.header.length, `${day.date}: ${row.length} fields`);
      for (const r of records(day)) {
        const where = `${day.date} ${r.video_id}`;
        problems.check(r.date === day.date, `${where}: date ${r.date}`);
        problems.check(r.channel_id === 'UCdemo-alice', `${where}: channel ${r.channel_id}`);
        problems.check(['live', 'on_demand'].includes(r.live_or_on_demand!), `${where}: ${r.live_or_on_demand}`);
        problems.check(
          ['subscribed', 'not_subscribed'].includes(r.subscribed_status!),
          `${where}: ${r.subscribed_status}`,
        );
        problems.check(/^[A-Z]{2}$/.test(r.country_code!), `${where}: country ${r.country_code}`);
      }
    }
    expect(problems.list).toEqual([]);
  });

  it('has a unique dimension combination per row within each file', () => {
    for (const day of days) {
      const keys = records(day).map((r) =>
        [r.video_id, r.live_or_on_demand, r.subscribed_status, r.country_code].join('|'),
      );
      expect(new Set(keys).size).toBe(keys.length);
    }
  });

  it('has well-formed, consistent numbers', () => {
    const problems = new Problems();
    let over100 = 0;
    let annotated = 0;
    for (const r of rows) {
      const where = `day ${r.day} ${r.video_id}/${r.country_code}/${r.subscribed_status}`;
      for (const c of COUNT_COLUMNS) problems.check(/^(0|[1-9]\d*)$/.test(r[c]!), `${where}: ${c}=${r[c]}`);
      for (const c of DECIMAL_COLUMNS) {
        problems.check(/^(0|[1-9]\d*)(\.\d{0,5}[1-9])?$/.test(r[c]!), `${where}: ${c}=${r[c]}`);
      }
      const pct = r.average_view_duration_percentage!;
      problems.check(/^(0|[1-9]\d*)(\.\d?[1-9])?$/.test(pct), `${where}: percentage=${pct}`);
      const n = (c: string) => Number(r[c]);
      const views = n('views');
      problems.check(n('engaged_views') <= views, `${where}: engaged_views > views`);
      problems.check(n('red_views') <= views, `${where}: red_views > views`);
      problems.check(n('red_watch_time_minutes') <= n('watch_time_minutes'), `${where}: red minutes > minutes`);
      if (views === 0) {
        problems.check(n('average_view_duration_seconds') === 0, `${where}: average without views`);
        problems.check(n('watch_time_minutes') === 0, `${where}: minutes without views`);
      } else {
        const expected = (n('watch_time_minutes') * 60) / views;
        const error = Math.abs(n('average_view_duration_seconds') - expected) / expected;
        problems.check(error < 1e-6, `${where}: average_view_duration_seconds off by ${error}`);
        problems.check(n('average_view_duration_percentage') > 0, `${where}: percentage 0`);
      }
      for (const [rate, clicks, impressions] of RATES) {
        problems.check(n(clicks) <= n(impressions), `${where}: ${clicks} > ${impressions}`);
        const exact = n(impressions) > 0 ? n(clicks) / n(impressions) : 0;
        problems.check(Math.abs(n(rate) - exact) <= 5e-7, `${where}: ${rate}=${r[rate]} vs ${exact}`);
      }
      problems.check(n('annotation_clickable_impressions') <= n('annotation_impressions'), `${where}: clickable`);
      problems.check(n('annotation_closable_impressions') <= n('annotation_impressions'), `${where}: closable`);
      if (n('average_view_duration_percentage') > 100) over100++;
      if (n('annotation_impressions') > 0) annotated++;
    }
    expect(problems.list).toEqual([]);
    expect(over100 / rows.length).toBeLessThan(0.03);
    expect(annotated / rows.length).toBeLessThan(0.01);
  });

  it('uses only configured video ids, never before their publish day', () => {
    const problems = new Problems();
    const videoRows = rows.filter((r) => r.video_id !== '');
    for (const r of videoRows) {
      const id = r.video_id!;
      const n = Number(id.slice('alice-v'.length));
      problems.check(/^alice-v\d{4}$/.test(id) && n >= 1 && n <= 100, `unknown video ${id}`);
      const video = byId.get(id);
      problems.check(video !== undefined && r.day >= video.publishDay, `${id} on day ${r.day}, before its upload`);
      if (r.live_or_on_demand === 'live') {
        problems.check(video?.live === true && r.day === video.publishDay, `${id}: live row on day ${r.day}`);
      }
    }
    expect(problems.list).toEqual([]);
    expect(videoRows.some((r) => r.live_or_on_demand === 'live')).toBe(true);
  });

  it('keeps channel-level rows (empty video_id) for subscriber changes only', () => {
    const channelRows = rows.filter((r) => r.video_id === '');
    expect(channelRows.length).toBeGreaterThan(30);
    for (const r of channelRows) {
      expect(r.live_or_on_demand).toBe('on_demand');
      expect(r.country_code).toBe('ZZ');
      expect(r.views).toBe('0');
      expect(Number(r.subscribers_gained) + Number(r.subscribers_lost)).toBeGreaterThan(0);
    }
  });

  it('grows: about 40 % of videos exist at the start and more are uploaded over the period', () => {
    const before = plan.videos.filter((v) => v.publishDay < 0).length;
    expect(before).toBeGreaterThanOrEqual(30);
    expect(before).toBeLessThanOrEqual(50);
    const distinct = (d: DayExport) =>
      new Set(
        records(d)
          .map((r) => r.video_id)
          .filter(Boolean),
      ).size;
    expect(distinct(days.at(-1)!)).toBeGreaterThan(distinct(days[0]!));
  });

  it('follows a power law: the top 10 % of videos get more than half of the views', () => {
    const views = new Map<string, number>();
    for (const r of rows) if (r.video_id) views.set(r.video_id, (views.get(r.video_id) ?? 0) + Number(r.views));
    const sorted = [...views.values()].sort((a, b) => b - a);
    const total = sorted.reduce((a, b) => a + b, 0);
    const top = sorted.slice(0, 10).reduce((a, b) => a + b, 0);
    expect(top / total).toBeGreaterThan(0.5);
  });

  it('has more views per day on weekends than on weekdays', () => {
    const weekend: number[] = [];
    const weekday: number[] = [];
    for (const day of days) {
      const total = records(day).reduce((sum, r) => sum + Number(r.views), 0);
      const dow = new Date(Date.parse(o.start) + dayIndex(day.date, o.start) * 86_400_000).getUTCDay();
      (dow === 0 || dow === 6 ? weekend : weekday).push(total);
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(weekend)).toBeGreaterThan(mean(weekday));
  });

  it('extrapolates to at least 2,000,000 rows for 1000 videos over 730 days', () => {
    const perVideoDay = rows.length / (100 * 60);
    expect(perVideoDay * 1000 * 730).toBeGreaterThanOrEqual(2_000_000);
    expect(perVideoDay * 1000 * 730).toBeLessThan(4_000_000);
  });
});

describe('CLI', () => {
  const cli = (args: string[]) =>
    execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'infra/generator/generate.ts'), ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });

  it('writes the files and prints a summary', () => {
    const out = tempDir();
    const summary = cli([
      '--channel',
      'UCdemo-dave',
      '--videos',
      '10',
      '--days',
      '3',
      '--out',
      out,
      '--video-width',
      '3',
    ]);
    expect(summary).toMatch(/3 files, \d+ rows in [\d.]+ s/);
    const files = readdirSync(path.join(out, 'UCdemo-dave', 'channel_basic_a3')).sort();
    expect(files).toEqual(['20251101.csv', '20251102.csv', '20251103.csv']);
    const text = readFileSync(path.join(out, 'UCdemo-dave', 'channel_basic_a3', '20251101.csv'), 'utf8');
    expect(text).toMatch(/,dave-v0\d\d,/);
  }, 30_000);

  it('exits 2 with a usage message on bad options', () => {
    for (const args of [
      ['--channel', 'UCdemo-alice', '--videos', '10', '--days', '3'],
      ['--channel', 'UCdemo-alice', '--videos', 'ten', '--days', '3', '--out', '/tmp/x'],
      ['--channel', 'UCdemo-alice', '--videos', '10', '--days', '3', '--out', '/tmp/x', '--version', 'a4'],
      ['--channel', 'UCdemo-alice', '--videos', '10', '--days', '3', '--out', '/tmp/x', '--bogus'],
    ]) {
      let status: number | undefined;
      let stderr = '';
      try {
        cli(args);
      } catch (err) {
        ({ status, stderr } = err as { status: number; stderr: string });
      }
      expect(status, args.join(' ')).toBe(2);
      expect(stderr).toMatch(/usage: npm run generate/);
    }
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------------------------
// The other report families (export-families.ts, export-world.ts) and the exchange rates

/** Every file under `${dir}/${owner}/${type}`, by report type. */
const readTree = (dir: string) => {
  const out = new Map<string, { owner: string; files: Map<string, Buffer> }>();
  for (const owner of readdirSync(dir)) {
    const ownerDir = path.join(dir, owner);
    if (!statSync(ownerDir).isDirectory()) continue;
    for (const type of readdirSync(ownerDir)) {
      const typeDir = path.join(ownerDir, type);
      out.set(type, {
        owner,
        files: new Map(readdirSync(typeDir).map((f) => [f, readFileSync(path.join(typeDir, f))])),
      });
    }
  }
  return out;
};

interface FileTable {
  type: string;
  owner: string;
  date: string;
  header: string[];
  rows: Record<string, string>[];
}

/** Parses every file with the ingest's RFC 4180 reader (the generator quotes free text that needs it). */
const readTables = (dir: string): FileTable[] =>
  [...readTree(dir)].flatMap(([type, { owner, files }]) =>
    [...files].map(([name, content]) => {
      const table = parseCsvTable(name, content.toString('utf8'));
      const header = [...table.header];
      const rows = table.rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r.fields[i]!])));
      return { type, owner, date: name.slice(0, 8), header, rows };
    }),
  );

const familyOf = (type: string) => type.replace(/_a\d+$/, '');
const sameBytes = (a: Map<string, Buffer>, b: Map<string, Buffer>) =>
  a.size === b.size && [...a].every(([name, content]) => b.get(name)?.equals(content) === true);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

const CODE_COLUMNS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  traffic_source_type: TRAFFIC_SOURCE_TYPES,
  playback_location_type: PLAYBACK_LOCATION_TYPES,
  device_type: DEVICE_TYPES,
  operating_system: OPERATING_SYSTEMS,
  sharing_service: SHARING_SERVICES,
  ad_type: AD_TYPES,
};
/** In-video element codes (reporting-api §2.7); the ingest has no table for them. */
// biome-ignore format: code lists
const ELEMENT_CODES: Readonly<Record<string, readonly string[]>> = {
  annotation_type: ['0', '1', '3', '4', '8', '9', '10', '11', '12', '30'],
  card_type: ['0', '60', '61', '62', '63', '65', '66', '68', '69'],
  end_screen_element_type: ['501', '502', '503', '504', '505', '506', '507', '508', '509', '510'],
};
/** §2.2: the traffic-source types whose detail column can hold something. */
const DETAIL_CAPABLE = new Set(['1', '3', '4', '5', '7', '8', '9', '14', '17', '18', '19', '20', '24', '32']);
/** Dimension columns of every family (§2.1). */
// biome-ignore format: column list
const DIMENSIONS = new Set([
  'date', 'channel_id', 'playlist_id', 'video_id', 'asset_id', 'claimed_status', 'uploader_type', 'live_or_on_demand',
  'subscribed_status', 'country_code', 'province_code', 'playback_location_type', 'playback_location_detail',
  'traffic_source_type', 'traffic_source_detail', 'device_type', 'operating_system', 'age_group', 'gender',
  'sharing_service', 'subtitle_language', 'subtitle_language_autotranslated', 'annotation_type', 'annotation_id',
  'card_type', 'card_id', 'end_screen_element_type', 'end_screen_element_id', 'ad_type',
]);

describe('report type columns', () => {
  // Column lists written out from reporting-api.md §4, §5, §7 (BASE, CBASE, VIEWSET, PSET, …).
  const BASE = ['date', 'channel_id', 'video_id', 'live_or_on_demand', 'subscribed_status', 'country_code'];
  // biome-ignore format: column list
  const PBASE = ['date', 'channel_id', 'playlist_id', 'video_id', 'live_or_on_demand', 'subscribed_status', 'country_code'];
  // biome-ignore format: column list
  const CBASE = ['date', 'channel_id', 'video_id', 'claimed_status', 'uploader_type', 'live_or_on_demand', 'subscribed_status', 'country_code'];
  // biome-ignore format: column list
  const VIEWSET = ['engaged_views', 'views', 'watch_time_minutes', 'average_view_duration_seconds', 'average_view_duration_percentage', 'red_views', 'red_watch_time_minutes'];
  const VIEWSET_A2 = VIEWSET.slice(1);
  // biome-ignore format: column list
  const ANNOTATIONS = ['annotation_click_through_rate', 'annotation_close_rate', 'annotation_impressions', 'annotation_clickable_impressions', 'annotation_closable_impressions', 'annotation_clicks', 'annotation_closes'];
  // biome-ignore format: column list
  const CARDS = ['card_click_rate', 'card_teaser_click_rate', 'card_impressions', 'card_teaser_impressions', 'card_clicks', 'card_teaser_clicks'];
  const END_SCREENS = ['end_screen_element_impressions', 'end_screen_element_clicks', 'end_screen_element_click_rate'];
  // biome-ignore format: column list
  const PSET_A1 = ['views', 'watch_time_minutes', 'average_view_duration_seconds', 'playlist_starts', 'playlist_saves_added', 'playlist_saves_removed'];
  const RED = ['red_views', 'red_watch_time_minutes'];
  // biome-ignore format: column list
  const CO_BASIC_A3 = [...CBASE, 'views', 'comments', 'shares', 'watch_time_minutes', 'average_view_duration_seconds', 'average_view_duration_percentage', ...ANNOTATIONS, ...CARDS, 'subscribers_gained', 'subscribers_lost', 'videos_added_to_playlists', 'videos_removed_from_playlists', 'likes', 'dislikes', ...RED];

  // biome-ignore format: column lists
  const EXPECTED: Record<string, string[]> = {
    channel_traffic_source_a3: [...BASE, 'traffic_source_type', 'traffic_source_detail', ...VIEWSET],
    channel_traffic_source_a2: [...BASE, 'traffic_source_type', 'traffic_source_detail', ...VIEWSET_A2],
    channel_province_a3: [...BASE, 'province_code', ...VIEWSET.slice(0, 5), ...ANNOTATIONS, ...CARDS, ...RED],
    channel_province_a2: [...BASE, 'province_code', ...VIEWSET_A2.slice(0, 4), ...ANNOTATIONS, ...CARDS, ...RED],
    channel_combined_a3: [...BASE, 'playback_location_type', 'traffic_source_type', 'device_type', 'operating_system', ...VIEWSET],
    channel_combined_a2: [...BASE, 'playback_location_type', 'traffic_source_type', 'device_type', 'operating_system', ...VIEWSET_A2],
    channel_demographics_a1: [...BASE, 'age_group', 'gender', 'views_percentage'],
    channel_sharing_service_a1: [...BASE, 'sharing_service', 'shares'],
    channel_annotations_a2: [...BASE, 'annotation_type', 'annotation_id', ...ANNOTATIONS],
    channel_cards_a1: [...BASE, 'card_type', 'card_id', ...CARDS],
    channel_end_screens_a2: [...BASE, 'end_screen_element_type', 'end_screen_element_id', ...END_SCREENS],
    channel_subtitles_a2: [...BASE, 'subtitle_language', 'subtitle_language_autotranslated', ...VIEWSET_A2],
    playlist_basic_a2: [...PBASE, 'engaged_views', ...PSET_A1],
    playlist_basic_a1: [...PBASE, ...PSET_A1],
    playlist_device_os_a1: [...PBASE, 'device_type', 'operating_system', ...PSET_A1],
    content_owner_basic_a4: [...CO_BASIC_A3.slice(0, 8), 'engaged_views', ...CO_BASIC_A3.slice(8)],
    content_owner_basic_a3: CO_BASIC_A3,
    content_owner_basic_a2: CO_BASIC_A3.slice(0, -2),
    content_owner_device_os_a2: [...CBASE, 'device_type', 'operating_system', ...VIEWSET_A2],
    content_owner_playlist_combined_a1: [...PBASE, 'playback_location_type', 'traffic_source_type', 'device_type', 'operating_system', ...PSET_A1],
    content_owner_estimated_revenue_a1: ['date', 'channel_id', 'video_id', 'claimed_status', 'uploader_type', 'country_code', 'estimated_partner_revenue', 'estimated_partner_ad_revenue', 'estimated_partner_ad_auction_revenue', 'estimated_partner_ad_reserved_revenue', 'estimated_youtube_ad_revenue', 'estimated_monetized_playbacks', 'estimated_playback_based_cpm', 'ad_impressions', 'estimated_cpm', 'estimated_partner_red_revenue', 'estimated_partner_transaction_revenue'],
    content_owner_ad_rates_a1: ['date', 'channel_id', 'video_id', 'claimed_status', 'uploader_type', 'country_code', 'ad_type', 'estimated_youtube_ad_revenue', 'ad_impressions', 'estimated_cpm'],
    content_owner_asset_basic_a3: ['date', 'channel_id', 'video_id', 'asset_id', ...CBASE.slice(3), 'engaged_views', 'views', 'comments', 'likes', 'dislikes', 'videos_added_to_playlists', 'videos_removed_from_playlists', 'shares', 'watch_time_minutes', 'average_view_duration_seconds', 'average_view_duration_percentage', ...ANNOTATIONS, ...CARDS, ...RED],
    content_owner_asset_estimated_revenue_a1: ['date', 'channel_id', 'video_id', 'asset_id', 'claimed_status', 'uploader_type', 'country_code', 'estimated_partner_revenue', 'estimated_partner_ad_revenue', 'estimated_partner_ad_auction_revenue', 'estimated_partner_ad_reserved_revenue', 'estimated_partner_red_revenue', 'estimated_partner_transaction_revenue'],
  };

  it('are the documented lists, in documented order, for current and previous versions', () => {
    for (const [type, columns] of Object.entries(EXPECTED)) expect(reportTypeColumns(type), type).toEqual(columns);
  });

  it('hold the real headers quoted in the reference (as sets: real metric order differs)', () => {
    // biome-ignore format: real headers
    const real = {
      channel_traffic_source_a3: 'date,channel_id,video_id,live_or_on_demand,subscribed_status,country_code,traffic_source_type,traffic_source_detail,views,engaged_views,watch_time_minutes,average_view_duration_seconds,average_view_duration_percentage,red_views,red_watch_time_minutes',
      playlist_traffic_source_a2: 'date,channel_id,playlist_id,video_id,live_or_on_demand,subscribed_status,country_code,traffic_source_type,traffic_source_detail,views,engaged_views,watch_time_minutes,average_view_duration_seconds,playlist_starts,playlist_saves_added,playlist_saves_removed',
    };
    for (const [type, header] of Object.entries(real)) {
      expect([...reportTypeColumns(type)].sort(), type).toEqual(header.split(',').sort());
    }
  });

  it('have the dimension counts of every channel family (basic 6 … combined 10)', () => {
    // biome-ignore format: counts
    const counts = { channel_basic: 6, channel_province: 7, channel_playback_location: 8, channel_traffic_source: 8, channel_device_os: 8, channel_demographics: 8, channel_sharing_service: 7, channel_subtitles: 8, channel_annotations: 8, channel_cards: 8, channel_end_screens: 8, channel_combined: 10 };
    for (const [type, n] of Object.entries(counts)) {
      const f = REPORT_FAMILIES.find((x) => x.type === type)!;
      expect(f.dimensions.length, type).toBe(n);
      expect(
        f.dimensions.every((d) => DIMENSIONS.has(d)),
        type,
      ).toBe(true);
    }
  });

  it('keep channel_basic equal to the versions of export-generator.ts', () => {
    for (const v of REPORT_VERSIONS) expect(reportTypeColumns(`channel_basic_${v}`)).toEqual(reportColumns(v));
    expect(() => reportTypeColumns('channel_basic_a9')).toThrow(/unknown/);
  });

  it('resolve prefixes at the version of the options, exact ids as given, and reject unknown names', () => {
    const o = options();
    expect(resolveReports(o)).toEqual(['channel_basic_a3']);
    expect(resolveReports({ ...o, reports: ['channel_traffic_source', 'playlist_basic_a1'] })).toEqual([
      'channel_traffic_source_a3',
      'playlist_basic_a1',
    ]);
    expect(
      resolveReports({ ...o, version: 'a2', reports: ['channel_basic', 'channel_combined', 'playlist_combined'] }),
    ).toEqual(['channel_basic_a2', 'channel_combined_a2', 'playlist_combined_a1']);
    expect(resolveReports({ ...o, version: 'a1', contentOwner: 'demo-co', reports: ['content_owner_basic'] })).toEqual([
      'content_owner_basic_a2',
    ]);
    const all = resolveReports({ ...o, reports: ['all'] });
    expect(all).toHaveLength(20);
    expect(all).toEqual(expect.arrayContaining(['channel_reach_basic_a1', 'channel_reach_combined_a1']));
    expect(all.every((id) => /^(channel|playlist)_/.test(id))).toBe(true);
    expect(resolveReports({ ...o, reports: ['all'], contentOwner: 'demo-co' })).toHaveLength(REPORT_FAMILIES.length);
    expect(validateOptions({ ...o, reports: ['channel_bogus', 'channel_basic_a7'] })).toEqual([
      'unknown report type or prefix "channel_bogus"',
      'unknown report type or prefix "channel_basic_a7"',
    ]);
    expect(validateOptions({ ...o, reports: ['content_owner_basic'] }).join()).toMatch(/need a content owner/);
  });

  it('validate the family options', () => {
    const o = options();
    expect(
      validateOptions({ ...o, playlists: 10, contentOwner: 'demo-co', channels: ['UCdemo-carol'], rates: true }),
    ).toEqual([]);
    const errors = validateOptions({
      ...o,
      playlists: 100,
      playlistPrefix: 'a b',
      contentOwner: 'x/y',
      channels: ['UCdemo-carol', 'UCdemo-carol', { channel: 'UCx', videos: 100_000 }],
      assets: 0,
    }).join('\n');
    expect(errors).toMatch(/playlists must be an integer from 0 to 99/);
    expect(errors).toMatch(/playlist prefix/);
    expect(errors).toMatch(/content owner/);
    expect(errors).toMatch(/UCdemo-carol is listed twice/);
    expect(errors).toMatch(/video width 4 of UCx is too small/);
    expect(errors).toMatch(/assets must be/);
  });
});

describe('code weight tables', () => {
  // The codes reporting-api.md §2.2–§2.8 lists. The generator writes only those code-tables.ts also names (the test
  // of the written files checks that), so a code the ingest lacks is left out rather than written.
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
  const DOCUMENTED = new Map<Readonly<Record<string, string>>, readonly string[]>([
    [
      TRAFFIC_SOURCE_TYPES,
      ['0', '1', '3', '4', '5', '7', '8', '9', '11', '14', '17', '18', '19', '20', ...range(23, 32)],
    ],
    [PLAYBACK_LOCATION_TYPES, ['0', '1', '2', '5', '7', '8', '10']],
    [DEVICE_TYPES, range(100, 105)],
    [OPERATING_SYSTEMS, [...range(1, 7), ...range(9, 31)]],
    [AD_TYPES, ['1', '2', '3', '5', '6', '13', '15', '19', '20']],
    [SHARING_SERVICES, Object.keys(SHARING_SERVICES)],
    [AGE_GROUPS, Object.keys(AGE_GROUPS)],
    [GENDERS, ['FEMALE', 'MALE', 'GENDER_OTHER']],
  ]);

  it('use only documented codes, with positive weights (a typo would silently drop a code)', () => {
    for (const [name, table, weights] of CODE_WEIGHT_TABLES) {
      const documented = DOCUMENTED.get(table)!;
      for (const [code, weight] of weights) {
        expect(documented, `${name}: ${code}`).toContain(code);
        expect(weight, `${name}: ${code}`).toBeGreaterThan(0);
      }
    }
    expect([...DETAIL_TRAFFIC_TYPES].sort()).toEqual([...DETAIL_CAPABLE].sort());
  });
});

describe('all channel and playlist families, 100 videos × 30 days', () => {
  const o = options({ videos: 100, days: 30, reports: ['all'], playlists: 10 });
  let dir = '';
  let summary: ExportSummary;
  let tables: FileTable[] = [];
  const byFamily = (family: string) => tables.filter((t) => familyOf(t.type) === family);
  const rowsOf = (family: string) =>
    byFamily(family).flatMap((t) => t.rows.map((r) => Object.assign(r, { file: t.date })));

  beforeAll(async () => {
    dir = tempDir();
    summary = await writeAllExports(o, dir);
    tables = readTables(dir);
  }, 60_000);

  it('writes every family as <channel>/<type>/<day>.csv and stays bounded', () => {
    expect(summary.reports.map((r) => r.reportType)).toEqual(resolveReports(o));
    const tree = readTree(dir);
    expect([...tree.keys()].sort()).toEqual(resolveReports(o).sort());
    for (const r of summary.reports) {
      expect(r.owner).toBe('UCdemo-alice');
      expect(r.files, r.reportType).toBe(30);
      expect(tree.get(r.reportType)!.files.size).toBe(30);
    }
    expect(summary.rows).toBe(sum(summary.reports.map((r) => r.rows)));
    expect(summary.rows).toBeLessThan(300_000);
    for (const r of summary.reports) {
      // Annotations were retired in 2019: only a few legacy videos have any.
      if (!r.reportType.startsWith('channel_annotations')) expect(r.rows, r.reportType).toBeGreaterThan(50);
    }
    const largest = Math.max(...summary.reports.map((r) => r.rows));
    const basic = summary.reports.find((r) => r.reportType === 'channel_basic_a3')!.rows;
    expect(largest).toBeLessThan(basic * 2);
  });

  it('writes channel_basic exactly as writeExports does', async () => {
    const other = tempDir();
    await writeExports(o, other);
    expect(sameBytes(readTree(dir).get('channel_basic_a3')!.files, readExports(other, o))).toBe(true);
  });

  it('is byte-identical for the same options, per family, and differs for another seed', async () => {
    const [again, reseeded] = [tempDir(), tempDir()];
    await writeAllExports(o, again);
    await writeAllExports({ ...o, seed: 43 }, reseeded);
    const [a, b, c] = [readTree(dir), readTree(again), readTree(reseeded)];
    for (const [type, { files }] of a) {
      expect(sameBytes(files, b.get(type)!.files), type).toBe(true);
      expect(sameBytes(files, c.get(type)!.files), type).toBe(false);
    }
  }, 60_000);

  it('has the version columns in every header (order varies), dimensions first', () => {
    for (const t of tables) {
      const columns = reportTypeColumns(t.type);
      expect([...t.header].sort(), t.type).toEqual([...columns].sort());
      const dims = columns.filter((c) => DIMENSIONS.has(c)).length;
      expect(
        t.header.slice(0, dims).every((c) => DIMENSIONS.has(c)),
        `${t.type} ${t.date}`,
      ).toBe(true);
    }
    const orders = new Set(byFamily('channel_traffic_source').map((t) => t.header.join(',')));
    expect(orders.size).toBeGreaterThan(20);
  });

  it('has a unique dimension combination per row in every file', () => {
    const problems = new Problems();
    for (const t of tables) {
      const dims = t.header.filter((c) => DIMENSIONS.has(c)).sort();
      const keys = t.rows.map((r) => dims.map((c) => r[c]).join('|'));
      problems.check(new Set(keys).size === keys.length, `${t.type} ${t.date}: duplicate rows`);
    }
    expect(problems.list).toEqual([]);
  });

  it('uses numeric codes from the code tables in every code column', () => {
    const problems = new Problems();
    const seen = new Map<string, Set<string>>();
    for (const t of tables) {
      for (const r of t.rows) {
        for (const [column, table] of Object.entries(CODE_COLUMNS)) {
          const code = r[column];
          if (code === undefined) continue;
          problems.check(/^\d+$/.test(code) && Object.hasOwn(table, code), `${t.type}: ${column}=${code}`);
          seen.set(column, (seen.get(column) ?? new Set()).add(code));
        }
        for (const [column, codes] of Object.entries(ELEMENT_CODES)) {
          if (r[column] !== undefined) problems.check(codes.includes(r[column]), `${t.type}: ${column}=${r[column]}`);
        }
      }
    }
    expect(problems.list).toEqual([]);
    // Realistic spread, not one code everywhere.
    expect(seen.get('traffic_source_type')!.size).toBeGreaterThan(10);
    expect(seen.get('operating_system')!.size).toBeGreaterThan(8);
  });

  it('skews traffic, devices and playback locations like real channels', () => {
    const share = (rows: Record<string, string>[], column: string, values: string[]) =>
      sum(rows.filter((r) => values.includes(r[column]!)).map((r) => Number(r.views))) /
      sum(rows.map((r) => Number(r.views)));
    const traffic = rowsOf('channel_traffic_source');
    expect(share(traffic, 'traffic_source_type', ['3', '7', '5', '24'])).toBeGreaterThan(0.6);
    const devices = rowsOf('channel_device_os');
    expect(share(devices, 'device_type', ['104', '101'])).toBeGreaterThan(0.65);
    expect(share(devices, 'device_type', ['103', '100'])).toBeLessThan(0.05);
    const playback = rowsOf('channel_playback_location');
    expect(share(playback, 'playback_location_type', ['0'])).toBeGreaterThan(0.3);
    expect(share(playback, 'playback_location_type', ['1'])).toBeLessThan(0.1);
  });

  it('fills traffic_source_detail only for detail-capable types', () => {
    const problems = new Problems();
    const filled = new Set<string>();
    for (const family of ['channel_traffic_source', 'playlist_traffic_source']) {
      for (const r of rowsOf(family)) {
        const type = r.traffic_source_type!;
        if (!DETAIL_CAPABLE.has(type)) problems.check(r.traffic_source_detail === '', `${family}: ${type} has detail`);
        else if (r.traffic_source_detail !== '') filled.add(type);
      }
    }
    expect(problems.list).toEqual([]);
    for (const type of ['3', '5', '7', '9', '14', '24']) expect(filled.has(type), type).toBe(true);
    const traffic = rowsOf('channel_traffic_source');
    const details = (type: string) =>
      traffic.filter((r) => r.traffic_source_type === type).map((r) => r.traffic_source_detail!);
    expect(
      details('7')
        .filter((d) => d !== '')
        .every((d) => /^[\w-]{11}$/.test(d)),
    ).toBe(true);
    expect(details('7').some((d) => d.startsWith('alice-v'))).toBe(true);
    expect(details('24').every((d) => d === 'unknown' || d === '')).toBe(true);
    // Low-volume search terms are withheld, and the terms that needed CSV quotes survived the round trip.
    expect(details('5').some((d) => d === '')).toBe(true);
    expect(
      traffic.some(
        (r) => r.traffic_source_detail === 'pasta, no oven' || r.traffic_source_detail === 'the "best" lasagna',
      ),
    ).toBe(true);
    const playlistRows = rowsOf('playlist_traffic_source');
    expect(playlistRows.some((r) => r.traffic_source_type === '14' && r.traffic_source_detail === r.playlist_id)).toBe(
      true,
    );
  });

  it('fills playback_location_detail only for embedded views, some withheld', () => {
    const problems = new Problems();
    const embedded: string[] = [];
    for (const family of ['channel_playback_location', 'playlist_playback_location']) {
      for (const r of rowsOf(family)) {
        if (r.playback_location_type === '1') embedded.push(r.playback_location_detail!);
        else problems.check(r.playback_location_detail === '', `${family}: ${r.playback_location_type} has detail`);
      }
    }
    expect(problems.list).toEqual([]);
    expect(embedded.some((d) => d === '')).toBe(true);
    expect(embedded.filter((d) => d !== '').length).toBeGreaterThan(embedded.length / 2);
  });

  it('has province codes only for US views, US-ZZ included', () => {
    const problems = new Problems();
    const provinces = new Set<string>();
    for (const family of ['channel_province', 'playlist_province']) {
      for (const r of rowsOf(family)) {
        problems.check(r.country_code === 'US', `${family}: province row in ${r.country_code}`);
        problems.check(/^US-[A-Z]{2}$/.test(r.province_code!), `${family}: ${r.province_code}`);
        provinces.add(r.province_code!);
      }
    }
    for (const t of tables)
      if (!familyOf(t.type).endsWith('_province')) expect(t.header).not.toContain('province_code');
    expect(problems.list).toEqual([]);
    expect(provinces.has('US-ZZ')).toBe(true);
    expect(provinces.has('US-CA')).toBe(true);
    expect(provinces.size).toBeGreaterThan(30);
  });

  it('has demographic percentages summing to 100 per (video, day, live, subscribed, country) slice', () => {
    const slices = new Map<string, number>();
    const problems = new Problems();
    for (const r of rowsOf('channel_demographics')) {
      problems.check(Object.hasOwn(AGE_GROUPS, r.age_group!), `age ${r.age_group}`);
      problems.check(
        ['FEMALE', 'MALE', 'GENDER_OTHER'].includes(r.gender!) && Object.hasOwn(GENDERS, r.gender!),
        `gender ${r.gender}`,
      );
      problems.check(/^(100|\d{1,2}(\.\d{1,10})?)$/.test(r.views_percentage!), `percentage ${r.views_percentage}`);
      const key = [r.file, r.video_id, r.live_or_on_demand, r.subscribed_status, r.country_code].join('|');
      slices.set(key, (slices.get(key) ?? 0) + Number(r.views_percentage));
    }
    expect(problems.list).toEqual([]);
    expect(slices.size).toBeGreaterThan(1000);
    for (const [key, total] of slices) expect(Math.abs(total - 100), key).toBeLessThan(1e-6);
    // Big slices spread over many cells.
    const cells = new Map<string, number>();
    for (const r of rowsOf('channel_demographics')) {
      const key = [r.file, r.video_id, r.live_or_on_demand, r.subscribed_status, r.country_code].join('|');
      cells.set(key, (cells.get(key) ?? 0) + 1);
    }
    expect(Math.max(...cells.values())).toBeGreaterThanOrEqual(15);
  });

  it('slices the same views in traffic source, playback location, device and combined files', () => {
    const totals = (family: string) => {
      const m = new Map<string, number>();
      for (const r of rowsOf(family)) {
        const key = `${r.file}|${r.video_id}|${r.live_or_on_demand}`;
        m.set(key, (m.get(key) ?? 0) + Number(r.views));
      }
      return m;
    };
    // Header-only days (1 % per family) aside, every video-day has the same views in each slicing.
    const traffic = totals('channel_traffic_source');
    for (const family of ['channel_playback_location', 'channel_device_os', 'channel_combined']) {
      const other = totals(family);
      let compared = 0;
      for (const [key, views] of other) {
        if (!traffic.has(key)) continue;
        expect(traffic.get(key), `${family} ${key}`).toBe(views);
        compared++;
      }
      expect(compared).toBeGreaterThan(traffic.size * 0.9);
    }
  });

  it('keeps playlist rows to the playlists and their member videos', () => {
    const world = planWorld(o);
    expect(world.channel.playlists.map((p) => p.id)).toEqual(
      Array.from({ length: 10 }, (_, i) => `alice-p${String(i + 1).padStart(2, '0')}`),
    );
    const members = new Map(
      world.channel.playlists.map((p) => [p.id, new Set(p.members.map((i) => world.channel.plan.videos[i]!.id))]),
    );
    const problems = new Problems();
    for (const r of rowsOf('playlist_basic')) {
      problems.check(members.get(r.playlist_id!)?.has(r.video_id!) === true, `${r.playlist_id}: ${r.video_id}`);
      problems.check(Number(r.playlist_starts) <= Number(r.views), `${r.playlist_id}: starts > views`);
    }
    expect(problems.list).toEqual([]);
    expect(new Set(rowsOf('playlist_basic').map((r) => r.playlist_id)).size).toBeGreaterThan(5);
  });

  it('has well-formed numbers in the element families', () => {
    const problems = new Problems();
    for (const r of rowsOf('channel_end_screens')) {
      const [impressions, clicks] = [Number(r.end_screen_element_impressions), Number(r.end_screen_element_clicks)];
      problems.check(clicks <= impressions, 'end screen clicks > impressions');
      problems.check(
        Math.abs(Number(r.end_screen_element_click_rate) - clicks / impressions) < 1e-6,
        'end screen rate',
      );
      problems.check(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(r.end_screen_element_id!),
        'id',
      );
    }
    for (const r of rowsOf('channel_cards')) {
      problems.check(Number(r.card_clicks) <= Number(r.card_impressions), 'card clicks > impressions');
      problems.check(Number(r.card_teaser_clicks) <= Number(r.card_teaser_impressions), 'teaser clicks');
    }
    for (const r of rowsOf('channel_subtitles')) {
      problems.check(/^[a-z]{2}$/.test(r.subtitle_language!), `language ${r.subtitle_language}`);
      problems.check(['true', 'false'].includes(r.subtitle_language_autotranslated!), 'autotranslated');
    }
    for (const r of rowsOf('channel_sharing_service')) problems.check(Number(r.shares) > 0, 'zero shares');
    expect(problems.list).toEqual([]);
    expect(rowsOf('channel_end_screens').length).toBeGreaterThan(100);
  });
});

describe('content-owner families', () => {
  const OWNED = ['UCdemo-carol', 'UCdemo-alice'];
  const o = options({
    videos: 40,
    days: 20,
    reports: ['content_owner'],
    contentOwner: 'demo-co',
    channels: OWNED,
    playlists: 4,
  });
  let dir = '';
  let tables: FileTable[] = [];
  const rowsOf = (family: string) => tables.filter((t) => familyOf(t.type) === family).flatMap((t) => t.rows);

  beforeAll(async () => {
    dir = tempDir();
    const summary = await writeAllExports(o, dir);
    expect(summary.reports.every((r) => r.owner === 'demo-co')).toBe(true);
    tables = readTables(dir);
  }, 60_000);

  it('writes every content-owner family under the content owner, deterministically', async () => {
    const tree = readTree(dir);
    expect([...tree.values()].every((t) => t.owner === 'demo-co')).toBe(true);
    expect(tree.size).toBe(REPORT_FAMILIES.filter((f) => f.type.startsWith('content_owner')).length);
    const again = tempDir();
    await writeAllExports(o, again);
    for (const [type, { files }] of readTree(again)) expect(sameBytes(files, tree.get(type)!.files), type).toBe(true);
  }, 60_000);

  it('covers every channel of the content owner, each with its own videos', () => {
    const basic = rowsOf('content_owner_basic');
    for (const channel of OWNED)
      expect(
        basic.some((r) => r.channel_id === channel),
        channel,
      ).toBe(true);
    const prefix = { 'UCdemo-carol': 'carol-v', 'UCdemo-alice': 'alice-v' } as Record<string, string>;
    for (const r of basic) {
      if (r.video_id === '') continue;
      if (prefix[r.channel_id!]) expect(r.video_id!.startsWith(prefix[r.channel_id!]!), r.video_id).toBe(true);
    }
  });

  it('uses only the valid claimed_status / uploader_type combinations', () => {
    const combos = new Map<string, number>();
    const problems = new Problems();
    for (const t of tables) {
      if (!t.header.includes('claimed_status')) continue;
      for (const r of t.rows) {
        const combo = `${r.claimed_status}/${r.uploader_type}`;
        problems.check(['/self', 'claimed/self', 'claimed/thirdParty'].includes(combo), `${t.type}: ${combo}`);
        // Own uploads sit on the owner's channels, claimed third-party uploads on other channels.
        problems.check(
          OWNED.includes(r.channel_id!) === (r.uploader_type === 'self'),
          `${t.type}: ${r.channel_id} ${combo}`,
        );
        if (t.header.includes('asset_id') || familyOf(t.type) === 'content_owner_estimated_revenue') {
          problems.check(r.claimed_status === 'claimed', `${t.type}: unclaimed ${r.video_id}`);
        }
        combos.set(combo, (combos.get(combo) ?? 0) + 1);
      }
    }
    expect(problems.list).toEqual([]);
    expect([...combos.keys()].sort()).toEqual(['/self', 'claimed/self', 'claimed/thirdParty']);
  });

  it('leaves claimed_status and uploader_type out of the playlist files, which cover the own channels', () => {
    for (const t of tables.filter((x) => x.type.startsWith('content_owner_playlist_'))) {
      expect(t.header).not.toContain('claimed_status');
      expect(t.header).not.toContain('uploader_type');
    }
    const rows = rowsOf('content_owner_playlist_basic');
    expect(new Set(rows.map((r) => r.channel_id))).toEqual(new Set(OWNED));
    for (const r of rows)
      expect(r.playlist_id!.startsWith(r.channel_id === 'UCdemo-carol' ? 'carol-p' : 'alice-p')).toBe(true);
  });

  it('uses the content owner assets co-a0001.. in asset reports', () => {
    const assets = new Set(rowsOf('content_owner_asset_basic').map((r) => r.asset_id!));
    expect(assets.size).toBeGreaterThan(10);
    for (const a of assets) expect(a).toMatch(/^co-a00(0[1-9]|[1-4]\d|50)$/);
  });

  it('has revenue in cents with CPMs derived from the written amounts', () => {
    const problems = new Problems();
    const cents = (x: string) => Math.round(Number(x) * 100);
    const gross = new Map<string, number>();
    const impressions = new Map<string, number>();
    for (const r of rowsOf('content_owner_estimated_revenue')) {
      for (const [c, v] of Object.entries(r)) {
        if (c.startsWith('estimated_partner') || c === 'estimated_youtube_ad_revenue') {
          problems.check(/^(0|[1-9]\d*)(\.\d?[1-9])?$/.test(v), `${c}=${v}`);
        }
      }
      const n = (c: string) => Number(r[c]);
      problems.check(
        cents(r.estimated_partner_revenue!) ===
          cents(r.estimated_partner_ad_revenue!) +
            cents(r.estimated_partner_red_revenue!) +
            cents(r.estimated_partner_transaction_revenue!),
        'partner revenue is not the sum of its parts',
      );
      problems.check(
        cents(r.estimated_partner_ad_revenue!) ===
          cents(r.estimated_partner_ad_auction_revenue!) + cents(r.estimated_partner_ad_reserved_revenue!),
        'ad revenue is not auction + reserved',
      );
      problems.check(n('estimated_partner_ad_revenue') <= n('estimated_youtube_ad_revenue'), 'partner share > gross');
      problems.check(n('estimated_monetized_playbacks') <= n('ad_impressions'), 'playbacks > impressions');
      const cpm = n('ad_impressions') > 0 ? (1000 * n('estimated_youtube_ad_revenue')) / n('ad_impressions') : 0;
      problems.check(Math.abs(n('estimated_cpm') - cpm) < 1e-6, `cpm ${r.estimated_cpm} vs ${cpm}`);
      const playbackCpm =
        n('estimated_monetized_playbacks') > 0
          ? (1000 * n('estimated_youtube_ad_revenue')) / n('estimated_monetized_playbacks')
          : 0;
      problems.check(Math.abs(n('estimated_playback_based_cpm') - playbackCpm) < 1e-6, 'playback-based cpm');
      gross.set(r.country_code!, (gross.get(r.country_code!) ?? 0) + n('estimated_youtube_ad_revenue'));
      impressions.set(r.country_code!, (impressions.get(r.country_code!) ?? 0) + n('ad_impressions'));
    }
    expect(problems.list).toEqual([]);
    // Realistic rates: US ads sell at several dollars per thousand, Indian ones far cheaper.
    const countryCpm = (c: string) => (1000 * gross.get(c)!) / impressions.get(c)!;
    expect(countryCpm('US')).toBeGreaterThan(4);
    expect(countryCpm('US')).toBeLessThan(25);
    expect(countryCpm('IN')).toBeLessThan(countryCpm('US') / 4);
  });

  it('has ad rates by numeric ad type with consistent CPMs', () => {
    const problems = new Problems();
    const types = new Set<string>();
    for (const r of rowsOf('content_owner_ad_rates')) {
      types.add(r.ad_type!);
      const cpm = (1000 * Number(r.estimated_youtube_ad_revenue)) / Number(r.ad_impressions);
      problems.check(Number(r.ad_impressions) > 0, 'ad rates row without impressions');
      problems.check(Math.abs(Number(r.estimated_cpm) - cpm) < 1e-6, `cpm ${r.estimated_cpm} vs ${cpm}`);
    }
    expect(problems.list).toEqual([]);
    expect(types.size).toBeGreaterThan(5);
  });
});

describe('generateReportDays', () => {
  it('yields the rows of any report type, and the same values in every version of a family', () => {
    const o = options({ videos: 30, days: 6 });
    const a3 = [...generateReportDays(o, 'channel_device_os_a3')];
    const a2 = [...generateReportDays(o, 'channel_device_os_a2')];
    expect(a3.map((d) => d.date)).toEqual(a2.map((d) => d.date));
    a2.forEach((day, i) => {
      const pick = (d: DayExport) => records(d).map((r) => day.header.map((c) => r[c]).join(','));
      expect(pick(day)).toEqual(pick(a3[i]!));
    });
    expect(a3.some((d) => d.rows.length > 0)).toBe(true);
    expect([...generateReportDays(o, 'channel_basic')]).toEqual([...generateDays(o)]);
    expect(() => generateReportDays(o, 'content_owner_basic')).toThrow(/content owner/);
  });

  it('pins channel_basic to the bytes it had before the families existed', () => {
    // sha256 of these options' generateDays output, recorded from the generator as it was before this change.
    const pinned: Record<ReportVersion, string> = {
      a1: 'abc50b119dd418aa1b709ef4b97446b5092df2b554319596e2486c58db2f28ca',
      a2: '6dfcb1b6bf17b8a3791f0ca66fc3eeb3a47016e4d9c94969929611048073f323',
      a3: 'a1234c767d714a2828abffddca730ed90eb5248ead8d3ea4b5673417b11308e9',
    };
    for (const version of REPORT_VERSIONS) {
      const hash = createHash('sha256');
      for (const d of generateDays(options({ videos: 40, days: 20, version }))) {
        hash.update(`${d.date}\n${d.header.join(',')}\n${d.rows.map((r) => r.join(',')).join('\n')}\n`);
      }
      expect(hash.digest('hex'), version).toBe(pinned[version]);
    }
  });
});

describe('exchange rates', () => {
  const ro = { start: '2025-11-01', days: 200, seed: 42 };
  const { rows, gaps } = generateExchangeRates(ro);

  it('has a row per day and currency except the gaps, first and last day complete', () => {
    const currencies = CURRENCIES.map(([c]) => c);
    for (const c of ['EUR', 'GBP', 'JPY', 'INR', 'BRL']) expect(currencies).toContain(c);
    const dates = [...new Set(rows.map((r) => r[0]!))];
    expect(dates).toHaveLength(200);
    expect(dates[0]).toBe('20251101');
    const byDate = (date: string) => rows.filter((r) => r[0] === date).map((r) => r[1]);
    expect(byDate(dates[0]!)).toEqual(currencies);
    expect(byDate(dates.at(-1)!)).toEqual(currencies);
    expect(rows).toHaveLength(200 * currencies.length - sum([...gaps.values()].map((g) => g.length)));
    for (const [c, missing] of gaps) {
      for (const d of missing) expect(byDate(dates[d]!), `${c} on day ${d}`).not.toContain(c);
    }
  });

  it('leaves gaps of a few consecutive days for some currencies', () => {
    const withGaps = [...gaps].filter(([, days]) => days.length > 0);
    expect(withGaps.length).toBeGreaterThanOrEqual(2);
    expect(withGaps.length).toBeLessThan(CURRENCIES.length);
    for (const [c, days] of withGaps) {
      expect(days[0], c).toBeGreaterThan(0);
      expect(
        days.some((d, i) => days[i + 1] === d + 1),
        c,
      ).toBe(true);
    }
  });

  it('walks slowly around realistic levels', () => {
    const levels: Record<string, [number, number]> = {
      EUR: [0.75, 1.1],
      GBP: [0.65, 0.95],
      JPY: [120, 180],
      INR: [70, 100],
      BRL: [4, 7.5],
    };
    for (const [c, [lo, hi]] of Object.entries(levels)) {
      const values = rows.filter((r) => r[1] === c).map((r) => Number(r[2]));
      expect(Math.min(...values), c).toBeGreaterThan(lo);
      expect(Math.max(...values), c).toBeLessThan(hi);
      for (let i = 1; i < values.length; i++)
        expect(Math.abs(Math.log(values[i]! / values[i - 1]!)), c).toBeLessThan(0.06);
      expect(new Set(values).size, c).toBeGreaterThan(values.length / 2);
    }
    for (const r of rows) expect(r[2]).toMatch(/^\d+(\.\d{1,6})?$/);
  });

  it('is deterministic and written by writeAllExports when asked', async () => {
    expect(exchangeRatesCsv(ro)).toBe(exchangeRatesCsv({ ...ro }));
    expect(exchangeRatesCsv(ro)).not.toBe(exchangeRatesCsv({ ...ro, seed: 7 }));
    const dir = tempDir();
    const summary = await writeAllExports(options({ videos: 5, days: 200, rates: true }), dir);
    const text = readFileSync(path.join(dir, 'exchange_rates.csv'), 'utf8');
    expect(text).toBe(exchangeRatesCsv(ro));
    expect(text.split('\n')[0]).toBe('date,currency,units_per_usd');
    expect(summary.rates).toEqual({ file: path.join(dir, 'exchange_rates.csv'), rows: rows.length });
  });
});

describe('CLI with families', () => {
  const cli = (args: string[]) =>
    execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'infra/generator/generate.ts'), ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });

  it('writes the requested families, playlists, content owner and rates, one summary line per type', () => {
    const out = tempDir();
    // biome-ignore format: argument list
    const summary = cli(['--channel', 'UCdemo-alice', '--videos', '12', '--days', '3', '--out', out, '--reports', 'channel_device_os,playlist_basic_a1,content_owner_basic', '--playlists', '3', '--content-owner', 'demo-co', '--channels', 'UCdemo-carol,UCx', '--rates']);
    const lines = summary.trim().split('\n');
    expect(lines[0]).toMatch(/^channel_device_os_a3 UCdemo-alice: 3 files, \d+ rows in [\d.]+ s/);
    expect(lines[1]).toMatch(/^playlist_basic_a1 UCdemo-alice: 3 files/);
    expect(lines[2]).toMatch(/^content_owner_basic_a4 demo-co: 3 files/);
    expect(summary).toMatch(/exchange rates: \d+ rows/);
    expect(readdirSync(path.join(out, 'UCdemo-alice')).sort()).toEqual(['channel_device_os_a3', 'playlist_basic_a1']);
    expect(readdirSync(path.join(out, 'demo-co'))).toEqual(['content_owner_basic_a4']);
    const basic = readdirSync(path.join(out, 'demo-co', 'content_owner_basic_a4'))
      .map((f) => readFileSync(path.join(out, 'demo-co', 'content_owner_basic_a4', f), 'utf8'))
      .join('');
    expect(basic).toMatch(/,UCdemo-carol,carol-v\d{4},/);
    expect(basic).toMatch(/,UCx,UCx-v\d{4},/);
    expect(readFileSync(path.join(out, 'exchange_rates.csv'), 'utf8')).toMatch(
      /^date,currency,units_per_usd\n2025110[1-3],EUR,/,
    );
  }, 30_000);

  it('exits 2 on unknown report types and content-owner options without a content owner', () => {
    for (const extra of [
      ['--reports', 'channel_nope'],
      ['--reports', 'content_owner_basic'],
      ['--channels', 'UCx'],
      ['--playlists', 'x'],
    ]) {
      let status: number | undefined;
      let stderr = '';
      try {
        cli(['--channel', 'UCdemo-alice', '--videos', '5', '--days', '2', '--out', '/tmp/x', ...extra]);
      } catch (err) {
        ({ status, stderr } = err as { status: number; stderr: string });
      }
      expect(status, extra.join(' ')).toBe(2);
      expect(stderr).toMatch(/usage: npm run generate/);
    }
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------------------------
// Extensions (export-extensions.ts): extension columns, app splits, the x1 layouts, and the ingest's reader

const EXTENSION_COLUMN_NAMES = ['creator_content_type', 'youtube_product'];
const PRODUCT_VALUES = ['CORE', 'GAMING', 'KIDS', 'UNKNOWN'];
const CREATOR_VALUES = ['SHORTS', 'VIDEO_ON_DEMAND', 'LIVE_STREAM', 'STORY'];
/** The video families that carry the extension columns (functions/core/reports/catalog/families.ts BASE, CBASE; README). */
// biome-ignore format: type list
const EXTENDED_TYPES = [
  'channel_basic', 'channel_province', 'channel_playback_location', 'channel_traffic_source', 'channel_device_os',
  'channel_combined', 'channel_demographics', 'channel_sharing_service', 'content_owner_basic', 'content_owner_province',
  'content_owner_playback_location', 'content_owner_traffic_source', 'content_owner_device_os', 'content_owner_combined',
  'content_owner_demographics', 'content_owner_sharing_service',
];
const typeFamily = (type: string) => type.replace(/_[ax]\d+$/, '');
const isX1 = (type: string) => type.endsWith('_x1');
/** Every file under dir, in a fixed order (for hashes). */
const walk = (dir: string): string[] =>
  readdirSync(dir)
    .sort()
    .flatMap((f) => {
      const p = path.join(dir, f);
      return statSync(p).isDirectory() ? walk(p) : [p];
    });

/** Reads every report file of a tree with the ingest's own reader, as the import would (folder = type, owner). */
const readWithIngest = (dir: string) => {
  const problems = new Problems();
  const rows = new Map<string, number>();
  for (const [type, { owner, files }] of readTree(dir)) {
    for (const [name, content] of files) {
      const file = `${owner}/${type}/${name}`;
      const text = content.toString('utf8');
      try {
        const parsed = readReportFile(file, parseCsvTable(file, text), { type, contentOwner: owner });
        const lines = text.split('\n').length - 2; // header, trailing newline (no field spans lines)
        problems.check(parsed.rows === lines, `${file}: read ${parsed.rows} rows of ${lines}`);
        problems.check(parsed.reportType === type, `${file}: read as ${parsed.reportType}`);
        const facts = [...parsed.byOwner.values()].reduce((n, list) => n + list.length, 0);
        problems.check(facts === lines, `${file}: ${facts} facts`);
        rows.set(type, (rows.get(type) ?? 0) + parsed.rows);
      } catch (err) {
        problems.check(false, `${file}: ${(err as Error).message}`);
      }
    }
  }
  return { problems: problems.list, rows };
};

describe('extensions off', () => {
  it('pins every file of a content-owner world to the bytes it had before the extensions existed', async () => {
    // sha256 over (path, bytes) of every file, recorded from the generator as it was before this change.
    const pinned = {
      a3: '1bb8edd5320f2ae180514bf04ec29dbc00d00035621eab0d67b00a430d9930d9',
      a1: '2e27813343961d0f50384667f10c708a0fb4c6318cbcdcf8b0f3da5f92676293',
    };
    for (const [version, extensions] of [
      ['a3', false],
      ['a1', undefined],
    ] as const) {
      const dir = tempDir();
      await writeAllExports(
        options({
          videos: 20,
          days: 8,
          version,
          reports: ['all'],
          contentOwner: 'demo-co',
          channels: ['UCdemo-carol', 'UCdemo-alice'],
          playlists: 3,
          assets: 12,
          rates: true,
          ...(extensions === undefined ? {} : { extensions }),
        }),
        dir,
      );
      const hash = createHash('sha256');
      // The reach reports came later: the pin covers the files that existed before them.
      const [reach, files] = partition(walk(dir), (f) => f.includes(`${path.sep}channel_reach_`));
      for (const f of files) {
        hash.update(`${path.relative(dir, f)}\n`);
        hash.update(readFileSync(f));
      }
      expect(files).toHaveLength(377);
      expect(reach).toHaveLength(2 * 8);
      expect(hash.digest('hex'), version).toBe(pinned[version]);
    }
  }, 60_000);
});

describe('extension options', () => {
  const o = options();
  const CHANNEL_X1 = [
    'channel_city_x1',
    'channel_audience_retention_x1',
    'channel_estimated_revenue_x1',
    'channel_ad_rates_x1',
  ];

  it('select the x1 layouts with all or a prefix when on, by name always', () => {
    const all = resolveReports({ ...o, reports: ['all'] });
    expect(resolveReports({ ...o, reports: ['all'], extensions: true })).toEqual([
      ...all,
      ...CHANNEL_X1,
      'playlist_demographics_x1',
    ]);
    expect(resolveReports({ ...o, reports: ['all'], extensions: false })).toEqual(all);
    const owned = resolveReports({ ...o, reports: ['all'], extensions: true, contentOwner: 'demo-co' });
    expect(owned).toHaveLength(REPORT_FAMILIES.length + 8);
    expect(owned.slice(-4)).toEqual([
      'playlist_demographics_x1',
      'content_owner_playlist_demographics_x1',
      'content_owner_city_x1',
      'content_owner_audience_retention_x1',
    ]);
    expect(resolveReports({ ...o, reports: ['channel'] }).every((id) => /_a\d$/.test(id))).toBe(true);
    expect(resolveReports({ ...o, reports: ['channel'], extensions: true }).filter(isX1)).toEqual(CHANNEL_X1);
    // A prefix naming only extension layouts, or an exact x1 id, asks for them without the option.
    expect(resolveReports({ ...o, reports: ['channel_city'] })).toEqual(['channel_city_x1']);
    expect(
      resolveReports({
        ...o,
        contentOwner: 'demo-co',
        reports: ['content_owner_audience_retention_x1', 'channel_basic'],
      }),
    ).toEqual(['channel_basic_a3', 'content_owner_audience_retention_x1']);
    expect(resolveReports({ ...o, reports: ['channel_estimated_revenue'] })).toEqual(['channel_estimated_revenue_x1']);
  });

  it('select the playlist demographics layouts like the other x1 layouts', () => {
    const co = { ...o, contentOwner: 'demo-co' };
    const x1 = (entries: string[], opts: GeneratorOptions = o) =>
      resolveReports({ ...opts, reports: entries }).filter(isX1);
    // Prefixes covering them, with extensions on.
    expect(x1(['playlist'])).toEqual([]);
    expect(resolveReports({ ...o, reports: ['playlist'] })).toEqual(
      REPORT_FAMILIES.filter((f) => f.scope === 'playlist').map((f) => `${f.type}_a2`),
    );
    expect(x1(['playlist'], { ...o, extensions: true })).toEqual(['playlist_demographics_x1']);
    expect(x1(['playlist_demographics'], { ...o, extensions: true })).toEqual(['playlist_demographics_x1']);
    expect(x1(['content_owner_playlist'], co)).toEqual([]);
    expect(x1(['content_owner_playlist'], { ...co, extensions: true })).toEqual([
      'content_owner_playlist_demographics_x1',
    ]);
    expect(x1(['content_owner'], { ...co, extensions: true })).toEqual([
      'content_owner_playlist_demographics_x1',
      'content_owner_city_x1',
      'content_owner_audience_retention_x1',
    ]);
    // By exact id or a prefix naming only them, without the option; content-owner ones need a content owner.
    expect(resolveReports({ ...o, reports: ['playlist_demographics'] })).toEqual(['playlist_demographics_x1']);
    expect(resolveReports({ ...o, reports: ['playlist_demographics_x1'] })).toEqual(['playlist_demographics_x1']);
    expect(resolveReports({ ...co, reports: ['content_owner_playlist_demographics'] })).toEqual([
      'content_owner_playlist_demographics_x1',
    ]);
    expect(validateOptions({ ...o, reports: ['content_owner_playlist_demographics_x1'] }).join()).toMatch(
      /need a content owner/,
    );
    expect(
      resolveReports({ ...o, reports: ['all'], extensions: true }).filter((id) => id.includes('playlist_demo')),
    ).toEqual(['playlist_demographics_x1']);
  });

  it('are validated', () => {
    expect(validateOptions({ ...o, extensions: true })).toEqual([]);
    expect(validateOptions({ ...o, extensions: 'yes' as unknown as boolean })).toEqual([
      'extensions must be true or false',
    ]);
    expect(validateOptions({ ...o, reports: ['channel_city_x2'] })).toEqual([
      'unknown report type or prefix "channel_city_x2"',
    ]);
    expect(validateOptions({ ...o, reports: ['content_owner_city_x1'] }).join()).toMatch(/need a content owner/);
    expect(() => generateReportDays(o, 'content_owner_city')).toThrow(/content owner/);
  });

  it('give the x1 layouts their exact columns', () => {
    // biome-ignore format: column list
    const REVENUE = ['estimated_partner_revenue', 'estimated_partner_ad_revenue', 'estimated_partner_ad_auction_revenue', 'estimated_partner_ad_reserved_revenue', 'estimated_youtube_ad_revenue', 'estimated_monetized_playbacks', 'estimated_playback_based_cpm', 'ad_impressions', 'estimated_cpm', 'estimated_partner_red_revenue', 'estimated_partner_transaction_revenue'];
    // biome-ignore format: column list
    const CITY_METRICS = ['views', 'engaged_views', 'red_views', 'watch_time_minutes', 'red_watch_time_minutes', 'average_view_duration_percentage'];
    const RETENTION_METRICS = ['views', 'audience_watch_ratio', 'relative_retention_performance'];
    // biome-ignore format: column lists
    const EXPECTED: Record<string, string[]> = {
      channel_city_x1: ['date', 'channel_id', 'video_id', 'subscribed_status', 'country_code', 'province_code', 'city', 'creator_content_type', ...CITY_METRICS],
      channel_audience_retention_x1: ['date', 'channel_id', 'video_id', 'elapsed_video_time_ratio', 'audience_type', 'subscribed_status', 'youtube_product', 'creator_content_type', ...RETENTION_METRICS],
      channel_estimated_revenue_x1: ['date', 'channel_id', 'video_id', 'country_code', 'creator_content_type', 'youtube_product', ...REVENUE],
      channel_ad_rates_x1: ['date', 'channel_id', 'video_id', 'country_code', 'ad_type', 'estimated_youtube_ad_revenue', 'ad_impressions', 'estimated_cpm'],
      playlist_demographics_x1: ['date', 'channel_id', 'playlist_id', 'video_id', 'live_or_on_demand', 'subscribed_status', 'country_code', 'age_group', 'gender', 'views_percentage'],
      content_owner_playlist_demographics_x1: ['date', 'channel_id', 'playlist_id', 'video_id', 'live_or_on_demand', 'subscribed_status', 'country_code', 'age_group', 'gender', 'views_percentage'],
      content_owner_city_x1: ['date', 'channel_id', 'video_id', 'claimed_status', 'uploader_type', 'subscribed_status', 'country_code', 'province_code', 'city', 'creator_content_type', ...CITY_METRICS],
      content_owner_audience_retention_x1: ['date', 'channel_id', 'video_id', 'claimed_status', 'uploader_type', 'elapsed_video_time_ratio', 'audience_type', 'subscribed_status', 'youtube_product', 'creator_content_type', ...RETENTION_METRICS],
    };
    expect(EXTENSION_FAMILIES.map((f) => `${f.type}_x1`)).toEqual(Object.keys(EXPECTED));
    for (const [type, columns] of Object.entries(EXPECTED)) {
      expect(reportTypeColumns(type), type).toEqual(columns);
      expect(reportTypeColumns(type, true), type).toEqual(columns);
    }
    expect([...EXTENDED_FAMILY_TYPES].sort()).toEqual([...EXTENDED_TYPES].sort());
    const basic = reportTypeColumns('content_owner_basic_a4', true);
    expect(basic.slice(8, 10)).toEqual(EXTENSION_COLUMN_NAMES);
    expect(reportTypeColumns('content_owner_basic_a4')).toEqual(
      basic.filter((c) => !c.startsWith('creator_') && !c.startsWith('youtube_')),
    );
    expect(reportTypeColumns('playlist_basic_a2', true)).toEqual(reportTypeColumns('playlist_basic_a2'));
    expect(reportTypeColumns('channel_subtitles_a3', true)).toEqual(reportTypeColumns('channel_subtitles_a3'));
  });

  it('have a realistic city table over every country the generator uses', () => {
    const cities = Object.values(CITIES).flat();
    expect(cities.length).toBeGreaterThanOrEqual(90);
    expect(new Set(cities.map(([c]) => c)).size).toBe(cities.length);
    for (const country of COUNTRIES.filter((c) => c !== 'ZZ'))
      expect(CITIES[country]?.length, country).toBeGreaterThan(0);
    for (const [country, list] of Object.entries(CITIES)) {
      for (const [city] of list) {
        expect(city).toMatch(country === 'US' ? /^US-[A-Z]{2}-[a-z_]+$/ : new RegExp(`^${country}-[a-z_]+$`));
      }
    }
  });
});

describe('extensions on: a content-owner world, all report types', () => {
  const OWNED = ['UCdemo-alice', 'UCdemo-carol'];
  const o = options({
    videos: 40,
    days: 12,
    reports: ['all'],
    playlists: 3,
    contentOwner: 'demo-co',
    channels: OWNED,
    assets: 12,
    rates: true,
  });
  const ox: GeneratorOptions = { ...o, extensions: true };
  let plainDir = '';
  let extDir = '';
  let plain: ExportSummary;
  let ext: ExportSummary;
  let plainTables: FileTable[] = [];
  let tables: FileTable[] = [];
  const rowsOf = (type: string) =>
    tables
      .filter((t) => typeFamily(t.type) === type)
      .flatMap((t) => t.rows.map((r): Record<string, string> => ({ ...r, file: t.date })));

  beforeAll(async () => {
    [plainDir, extDir] = [tempDir(), tempDir()];
    plain = await writeAllExports(o, plainDir);
    ext = await writeAllExports(ox, extDir);
    [plainTables, tables] = [readTables(plainDir), readTables(extDir)];
  }, 120_000);

  it('writes every report type and the eight x1 layouts, each file accepted by the ingest reader', () => {
    expect(ext.reports.map((r) => r.reportType)).toEqual(resolveReports(ox));
    expect(ext.reports.filter((r) => isX1(r.reportType)).map((r) => [r.reportType, r.owner])).toEqual([
      ['channel_city_x1', 'UCdemo-alice'],
      ['channel_audience_retention_x1', 'UCdemo-alice'],
      ['channel_estimated_revenue_x1', 'UCdemo-alice'],
      ['channel_ad_rates_x1', 'UCdemo-alice'],
      ['playlist_demographics_x1', 'UCdemo-alice'],
      ['content_owner_playlist_demographics_x1', 'demo-co'],
      ['content_owner_city_x1', 'demo-co'],
      ['content_owner_audience_retention_x1', 'demo-co'],
    ]);
    for (const r of ext.reports) {
      expect(r.files, r.reportType).toBe(12);
      if (isX1(r.reportType)) expect(r.rows, r.reportType).toBeGreaterThan(100);
    }
    for (const [dir, summary] of [
      [extDir, ext],
      [plainDir, plain],
    ] as const) {
      const { problems, rows } = readWithIngest(dir);
      expect(problems).toEqual([]);
      expect(new Map(summary.reports.map((r) => [r.reportType, r.rows]))).toEqual(rows);
    }
  }, 60_000);

  it('puts the extension columns only on the video families, after their dimensions, and only when asked', () => {
    for (const t of tables) {
      const family = typeFamily(t.type);
      const has = EXTENSION_COLUMN_NAMES.filter((c) => t.header.includes(c));
      if (EXTENDED_TYPES.includes(family)) {
        const dims = REPORT_FAMILIES.find((f) => f.type === family)!.dimensions.length;
        expect(t.header.slice(dims, dims + 2), `${t.type} ${t.date}`).toEqual(EXTENSION_COLUMN_NAMES);
        expect([...t.header].sort()).toEqual([...reportTypeColumns(t.type, true)].sort());
      } else if (isX1(t.type)) {
        expect([...t.header].sort()).toEqual([...reportTypeColumns(t.type)].sort());
      } else {
        expect(has, t.type).toEqual([]);
      }
    }
    for (const t of plainTables)
      expect(
        t.header.some((c) => EXTENSION_COLUMN_NAMES.includes(c)),
        t.type,
      ).toBe(false);
    // Everything else is byte for byte what the plain run wrote.
    const [a, b] = [readTree(plainDir), readTree(extDir)];
    for (const [type, { files }] of a) {
      if (!EXTENDED_TYPES.includes(typeFamily(type))) expect(sameBytes(files, b.get(type)!.files), type).toBe(true);
    }
    expect(readFileSync(path.join(extDir, 'exchange_rates.csv'))).toEqual(
      readFileSync(path.join(plainDir, 'exchange_rates.csv')),
    );
  });

  it('keeps every cell total when splitting rows over youtube_product', () => {
    let split = 0;
    const productViews = new Map<string, number>();
    for (const family of EXTENDED_TYPES) {
      const plainRows = plainTables.filter((t) => typeFamily(t.type) === family);
      const extRows = tables.filter((t) => typeFamily(t.type) === family);
      expect(extRows.length, family).toBe(12);
      const metric = family.endsWith('_sharing_service') ? 'shares' : family.endsWith('_demographics') ? '' : 'views';
      const totals = (list: FileTable[]) => {
        const m = new Map<string, number>();
        for (const t of list) {
          const dims = t.header.filter((c) => DIMENSIONS.has(c) && c !== 'age_group' && c !== 'gender').sort();
          for (const r of t.rows) {
            const key = [t.date, ...dims.map((c) => `${c}=${r[c]}`)].join('|');
            m.set(key, (m.get(key) ?? 0) + (metric ? Number(r[metric]) : 0));
          }
        }
        return m;
      };
      expect(totals(extRows), family).toEqual(totals(plainRows));
      const cells = new Map<string, Set<string>>();
      for (const t of extRows) {
        const dims = t.header.filter((c) => DIMENSIONS.has(c) && c !== 'age_group' && c !== 'gender');
        for (const r of t.rows) {
          const key = [t.date, ...dims.map((c) => r[c])].join('|');
          cells.set(key, (cells.get(key) ?? new Set()).add(r.youtube_product!));
          if (metric === 'views')
            productViews.set(r.youtube_product!, (productViews.get(r.youtube_product!) ?? 0) + Number(r.views));
        }
      }
      split += [...cells.values()].filter((s) => s.size > 1).length;
      if (!metric) {
        // Each app's part of a slice is a demographic breakdown of its own, summing to 100.
        const sums = new Map<string, number>();
        for (const r of rowsOf(family)) {
          const key = [
            r.file,
            r.channel_id,
            r.video_id,
            r.live_or_on_demand,
            r.subscribed_status,
            r.country_code,
            r.youtube_product,
          ].join('|');
          sums.set(key, (sums.get(key) ?? 0) + Number(r.views_percentage));
        }
        for (const [key, total] of sums) expect(Math.abs(total - 100), key).toBeLessThan(1e-6);
      }
    }
    expect(split).toBeGreaterThan(100);
    const all = sum([...productViews.values()]);
    expect(productViews.get('CORE')! / all).toBeGreaterThan(0.9);
    expect(productViews.get('KIDS')).toBeGreaterThan(0);
    expect(productViews.get('UNKNOWN')).toBeGreaterThan(0);
    for (const p of productViews.keys()) expect(PRODUCT_VALUES).toContain(p);
  });

  it('keeps creator_content_type a property of the video in every file and on every day', () => {
    const world = planWorld(ox);
    const videos = new Map(
      [world.channel, ...world.owner!.channels].flatMap((cw) => cw.plan.videos.map((v) => [v.id, v] as const)),
    );
    const seen = new Map<string, string>();
    const problems = new Problems();
    for (const t of tables) {
      if (!t.header.includes('creator_content_type')) continue;
      for (const r of t.rows) {
        const type = r.creator_content_type!;
        if (r.video_id === '') {
          problems.check(type === 'UNSPECIFIED' && r.youtube_product === 'UNKNOWN', `${t.type}: channel row ${type}`);
          continue;
        }
        problems.check((seen.get(r.video_id!) ?? type) === type, `${t.type} ${t.date} ${r.video_id}: ${type}`);
        seen.set(r.video_id!, type);
        const v = videos.get(r.video_id!)!;
        const expected = v.live ? ['LIVE_STREAM'] : v.short ? ['SHORTS', 'STORY'] : ['VIDEO_ON_DEMAND'];
        problems.check(expected.includes(type), `${r.video_id}: ${type}`);
      }
    }
    expect(problems.list).toEqual([]);
    expect(seen.size).toBeGreaterThan(80);
    const types = new Set(seen.values());
    for (const type of ['SHORTS', 'VIDEO_ON_DEMAND', 'LIVE_STREAM']) expect(types.has(type), type).toBe(true);
    for (const type of types) expect(CREATOR_VALUES).toContain(type);
  });

  it('places city views in real cities, with a province only for US rows', () => {
    const problems = new Problems();
    const cities = new Set<string>();
    for (const family of ['channel_city', 'content_owner_city']) {
      for (const r of rowsOf(family)) {
        const [country, city] = [r.country_code!, r.city!];
        problems.check(CITIES[country]?.some(([c]) => c === city) === true, `${family}: ${city} in ${country}`);
        if (country === 'US')
          problems.check(r.province_code === city.slice(0, 5), `${family}: ${city} ${r.province_code}`);
        else problems.check(r.province_code === '', `${family}: province ${r.province_code} in ${country}`);
        problems.check(Number(r.red_views) <= Number(r.views) && Number(r.engaged_views) <= Number(r.views), 'views');
        cities.add(city);
      }
    }
    expect(problems.list).toEqual([]);
    expect(cities.size).toBeGreaterThan(60);
    expect([...cities].some((c) => c.startsWith('US-'))).toBe(true);
    // About 70 % of the views have a known city (same day views as the other families).
    const views = (family: string) => sum(rowsOf(family).map((r) => Number(r.views)));
    const share = views('channel_city') / views('channel_traffic_source');
    expect(share).toBeGreaterThan(0.6);
    expect(share).toBeLessThan(0.8);
    const claimed = new Set(rowsOf('content_owner_city').map((r) => `${r.claimed_status}/${r.uploader_type}`));
    expect([...claimed].sort()).toEqual(['/self', 'claimed/self', 'claimed/thirdParty']);
  });

  it('writes audience retention on the 0.01 grid for the top videos, a few slices each', () => {
    const grid = Array.from({ length: 100 }, (_, k) => String((k + 1) / 100));
    expect(grid.slice(0, 3)).toEqual(['0.01', '0.02', '0.03']);
    expect(grid.at(-1)).toBe('1');
    const problems = new Problems();
    let above1 = 0;
    let points = 0;
    for (const family of ['channel_audience_retention', 'content_owner_audience_retention']) {
      const slices = new Map<string, Record<string, string>[]>();
      const videosPerDay = new Map<string, Set<string>>();
      for (const r of rowsOf(family)) {
        const key = [r.file, r.channel_id, r.video_id, r.audience_type, r.subscribed_status, r.youtube_product].join(
          '|',
        );
        slices.set(key, [...(slices.get(key) ?? []), r]);
        const day = `${r.file}|${r.channel_id}`;
        videosPerDay.set(day, (videosPerDay.get(day) ?? new Set()).add(r.video_id!));
        const watch = Number(r.audience_watch_ratio);
        const relative = Number(r.relative_retention_performance);
        problems.check(/^\d+(\.\d{1,6})?$/.test(r.audience_watch_ratio!) && watch >= 0, `watch ${watch}`);
        problems.check(relative >= 0 && relative <= 1, `relative ${relative}`);
        problems.check(['ORGANIC', 'AD_INSTREAM', 'AD_INDISPLAY'].includes(r.audience_type!), r.audience_type!);
        problems.check(PRODUCT_VALUES.includes(r.youtube_product!), r.youtube_product!);
        if (watch > 1) above1++;
        points++;
      }
      expect(slices.size, family).toBeGreaterThan(20);
      for (const [key, list] of slices) {
        problems.check(list.map((r) => r.elapsed_video_time_ratio).join() === grid.join(), `${key}: grid`);
        problems.check(new Set(list.map((r) => r.views)).size === 1 && Number(list[0]!.views) >= 10, `${key}: views`);
        const mean = (rs: Record<string, string>[]) => sum(rs.map((r) => Number(r.audience_watch_ratio))) / rs.length;
        problems.check(mean(list.slice(0, 10)) > mean(list.slice(-10)), `${key}: no decay`);
      }
      for (const [day, videos] of videosPerDay) problems.check(videos.size <= 20, `${family} ${day}: ${videos.size}`);
      // Slices of a video-day hold at most its views (the same views as the other families).
      const dayViews = new Map<string, number>();
      for (const r of rowsOf(family.replace('audience_retention', 'traffic_source'))) {
        const key = `${r.file}|${r.video_id}`;
        dayViews.set(key, (dayViews.get(key) ?? 0) + Number(r.views));
      }
      const sliceViews = new Map<string, number>();
      for (const list of slices.values()) {
        const key = `${list[0]!.file}|${list[0]!.video_id}`;
        sliceViews.set(key, (sliceViews.get(key) ?? 0) + Number(list[0]!.views));
      }
      for (const [key, views] of sliceViews) {
        if (dayViews.has(key)) problems.check(views <= dayViews.get(key)!, `${key}: ${views} > ${dayViews.get(key)}`);
      }
    }
    expect(problems.list).toEqual([]);
    // Shorts loop and rewatch spikes push the ratio above 1 at times.
    expect(above1).toBeGreaterThan(0);
    expect(above1 / points).toBeLessThan(0.2);
  });

  it('splits the playlist rows over age × gender, each slice summing to 100', () => {
    const problems = new Problems();
    const AGES = ['AGE_13_17', 'AGE_18_24', 'AGE_25_34', 'AGE_35_44', 'AGE_45_54', 'AGE_55_64', 'AGE_65_'];
    const GENDERS = ['FEMALE', 'MALE', 'GENDER_OTHER'];
    for (const [family, basic] of [
      ['playlist_demographics', 'playlist_basic'],
      ['content_owner_playlist_demographics', 'content_owner_playlist_basic'],
    ] as const) {
      const slices = new Map<string, number>();
      const cells = new Set<string>();
      const units = new Set<string>();
      const list = rowsOf(family);
      expect(list.length, family).toBeGreaterThan(100);
      for (const r of list) {
        problems.check(AGES.includes(r.age_group!), `${family}: age ${r.age_group}`);
        problems.check(GENDERS.includes(r.gender!), `${family}: gender ${r.gender}`);
        problems.check(/^(100|\d{1,2}(\.\d{1,10})?)$/.test(r.views_percentage!), `percentage ${r.views_percentage}`);
        const unit = [r.file, r.channel_id, r.playlist_id, r.video_id, r.live_or_on_demand].join('|');
        const slice = [unit, r.subscribed_status, r.country_code].join('|');
        const cell = [slice, r.age_group, r.gender].join('|');
        problems.check(!cells.has(cell), `${family}: duplicate cell ${cell}`);
        cells.add(cell);
        units.add(unit);
        slices.set(slice, (slices.get(slice) ?? 0) + Number(r.views_percentage));
      }
      for (const [key, total] of slices) problems.check(Math.abs(total - 100) < 1e-6, `${family} ${key}: ${total}`);
      expect([...slices.values()].length, family).toBeGreaterThan(20);
      expect(new Set(list.map((r) => `${r.age_group}/${r.gender}`)).size, family).toBeGreaterThan(10);
      // The same playlists and videos (playlist-video-days) as the playlist's basic report, on the days whose
      // basic file is not one of the generator's empty days.
      const basicRows = rowsOf(basic);
      const basicDays = new Set(basicRows.map((r) => r.file));
      const basicUnits = new Set(
        basicRows.map((r) => [r.file, r.channel_id, r.playlist_id, r.video_id, r.live_or_on_demand].join('|')),
      );
      for (const unit of units) {
        if (basicDays.has(unit.split('|')[0]))
          problems.check(basicUnits.has(unit), `${family}: ${unit} not in ${basic}`);
      }
      expect(units.size / basicUnits.size, family).toBeGreaterThan(0.5);
    }
    // A content owner's playlists are its own channels'.
    const channels = new Set(rowsOf('content_owner_playlist_demographics').map((r) => r.channel_id));
    expect([...channels].sort()).toEqual(
      [...new Set(rowsOf('content_owner_playlist_basic').map((r) => r.channel_id))].sort(),
    );
    expect(problems.list).toEqual([]);
  });

  it('generates the playlist demographics deterministically', () => {
    for (const type of ['playlist_demographics_x1', 'content_owner_playlist_demographics_x1']) {
      const a = [...generateReportDays({ ...ox, days: 4 }, type)];
      const b = [...generateReportDays({ ...ox, days: 4 }, type)];
      const c = [...generateReportDays({ ...ox, days: 4, seed: 43 }, type)];
      expect(a, type).toEqual(b);
      expect(a.flatMap((d) => d.rows).length, type).toBeGreaterThan(0);
      expect(c, type).not.toEqual(a);
      for (const d of a) expect([...d.header].sort()).toEqual([...reportTypeColumns(type)].sort());
    }
  });

  it('has channel revenue by app and ad rates by ad type, consistent like the content-owner ones', () => {
    const problems = new Problems();
    const cents = (x: string) => Math.round(Number(x) * 100);
    const products = new Set<string>();
    for (const r of rowsOf('channel_estimated_revenue')) {
      products.add(r.youtube_product!);
      problems.check(CREATOR_VALUES.includes(r.creator_content_type!), r.creator_content_type!);
      problems.check(
        cents(r.estimated_partner_revenue!) ===
          cents(r.estimated_partner_ad_revenue!) +
            cents(r.estimated_partner_red_revenue!) +
            cents(r.estimated_partner_transaction_revenue!),
        'partner revenue is not the sum of its parts',
      );
      const n = (c: string) => Number(r[c]);
      const cpm = n('ad_impressions') > 0 ? (1000 * n('estimated_youtube_ad_revenue')) / n('ad_impressions') : 0;
      problems.check(Math.abs(n('estimated_cpm') - cpm) < 1e-6, `cpm ${r.estimated_cpm} vs ${cpm}`);
      problems.check(n('estimated_monetized_playbacks') <= n('ad_impressions'), 'playbacks > impressions');
    }
    for (const r of rowsOf('channel_ad_rates')) {
      problems.check(Object.hasOwn(AD_TYPES, r.ad_type!), `ad type ${r.ad_type}`);
      const cpm = (1000 * Number(r.estimated_youtube_ad_revenue)) / Number(r.ad_impressions);
      problems.check(Math.abs(Number(r.estimated_cpm) - cpm) < 1e-6, `cpm ${r.estimated_cpm} vs ${cpm}`);
    }
    expect(problems.list).toEqual([]);
    expect(products.has('CORE')).toBe(true);
    // A channel earns from all of its videos, a content owner only from the claimed ones.
    const videos = (family: string, channel: string) =>
      new Set(
        rowsOf(family)
          .filter((r) => r.channel_id === channel)
          .map((r) => r.video_id),
      ).size;
    expect(videos('channel_estimated_revenue', 'UCdemo-alice')).toBeGreaterThan(
      videos('content_owner_estimated_revenue', 'UCdemo-alice'),
    );
  });

  it('is deterministic and bounded', async () => {
    const [again, reseeded] = [tempDir(), tempDir()];
    await writeAllExports(ox, again);
    await writeAllExports({ ...ox, seed: 43, reports: ['channel_city', 'channel_audience_retention'] }, reseeded);
    const [a, b, c] = [readTree(extDir), readTree(again), readTree(reseeded)];
    for (const [type, { files }] of a) expect(sameBytes(files, b.get(type)!.files), type).toBe(true);
    for (const [type, { files }] of c) expect(sameBytes(files, a.get(type)!.files), type).toBe(false);
    // The app split adds a few rows to the video families; retention stays within its caps.
    const rows = (s: ExportSummary, type: string) => s.reports.find((r) => r.reportType === type)!.rows;
    for (const r of plain.reports) {
      if (!EXTENDED_TYPES.includes(typeFamily(r.reportType))) continue;
      expect(rows(ext, r.reportType), r.reportType).toBeGreaterThanOrEqual(r.rows);
      expect(rows(ext, r.reportType), r.reportType).toBeLessThan(r.rows * 1.15 + 20);
    }
    expect(rows(ext, 'channel_audience_retention_x1')).toBeLessThanOrEqual(12 * 20 * 4 * 100);
    const x1 = sum(ext.reports.filter((r) => isX1(r.reportType)).map((r) => r.rows));
    expect(x1).toBeLessThan(plain.rows * 0.5);
  }, 60_000);

  it('yields x1 days from generateReportDays, by id or prefix', () => {
    const days = [...generateReportDays({ ...ox, days: 3 }, 'channel_audience_retention')];
    expect(days).toHaveLength(3);
    for (const d of days)
      expect([...d.header].sort()).toEqual([...reportTypeColumns('channel_audience_retention_x1')].sort());
    expect(
      [...generateReportDays({ ...ox, days: 3 }, 'content_owner_city_x1')].flatMap((d) => d.rows).length,
    ).toBeGreaterThan(0);
    // channel_basic days with extensions carry the columns; their cells keep the plain views.
    const plainDays = [...generateDays(options({ videos: 30, days: 6 }))];
    const extDays = [...generateDays(options({ videos: 30, days: 6, extensions: true }))];
    extDays.forEach((day, i) => {
      expect(day.header.slice(6, 8)).toEqual(EXTENSION_COLUMN_NAMES);
      const totals = (d: DayExport) => {
        const m = new Map<string, number>();
        for (const r of records(d)) {
          const key = [r.video_id, r.live_or_on_demand, r.subscribed_status, r.country_code].join('|');
          m.set(key, (m.get(key) ?? 0) + Number(r.views));
        }
        return m;
      };
      expect(totals(day)).toEqual(totals(plainDays[i]!));
    });
  });

  it('are written by the CLI with --extensions', () => {
    const out = tempDir();
    const summary = execFileSync(
      process.execPath,
      // biome-ignore format: argument list
      ['--import', 'tsx', path.join(ROOT, 'infra/generator/generate.ts'), '--channel', 'UCdemo-alice', '--videos', '12', '--days', '2', '--out', out, '--reports', 'channel_basic,channel_city,channel_audience_retention_x1', '--extensions'],
      { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    expect(summary).toMatch(/^channel_basic_a3 UCdemo-alice: 2 files/m);
    expect(summary).toMatch(/^channel_city_x1 UCdemo-alice: 2 files/m);
    expect(readdirSync(path.join(out, 'UCdemo-alice')).sort()).toEqual([
      'channel_audience_retention_x1',
      'channel_basic_a3',
      'channel_city_x1',
    ]);
    const basic = readFileSync(path.join(out, 'UCdemo-alice', 'channel_basic_a3', '20251101.csv'), 'utf8');
    expect(basic.split('\n')[0]).toContain(',creator_content_type,youtube_product,');
  }, 30_000);
});

/** The items that pass `test`, and the others. */
function partition<T>(items: readonly T[], test: (t: T) => boolean): [T[], T[]] {
  return [items.filter(test), items.filter((t) => !test(t))];
}

describe('reach reports', () => {
  const o = options({ videos: 60, days: 10 });

  it('channel_reach_basic_a1: the verified header, one row per video with impressions, a four-decimal click rate', () => {
    const days = [...generateReportDays(o, 'channel_reach_basic_a1')];
    expect(days).toHaveLength(10);
    let rows = 0;
    for (const day of days) {
      // Columns in any order (readers match by name), as in real files.
      expect([...day.header].sort()).toEqual(
        ['date', 'channel_id', 'video_id', 'video_thumbnail_impressions', 'video_thumbnail_impressions_ctr'].sort(),
      );
      const at = (name: string) => day.header.indexOf(name);
      const videos = day.rows.map((r) => r[at('video_id')]);
      expect(new Set(videos).size).toBe(videos.length);
      for (const r of day.rows) {
        expect(r[at('date')]).toBe(day.date);
        expect(Number(r[at('video_thumbnail_impressions')])).toBeGreaterThan(0);
        expect(r[at('video_thumbnail_impressions_ctr')]).toMatch(/^(0|0\.\d{1,4}|1)$/);
      }
      rows += day.rows.length;
    }
    expect(rows).toBeGreaterThan(100);
  });

  it('channel_reach_combined_a1 slices a video-day by traffic source, system and device, in at most 12 rows', () => {
    for (const day of generateReportDays(o, 'channel_reach_combined_a1')) {
      expect([...day.header].sort()).toEqual(
        [
          'date',
          'channel_id',
          'video_id',
          'traffic_source_type',
          'traffic_source_detail',
          'operating_system',
          'device_type',
          'video_thumbnail_impressions',
          'video_thumbnail_impressions_ctr',
        ].sort(),
      );
      const perVideo = new Map<string, number>();
      const video = day.header.indexOf('video_id');
      for (const r of day.rows) perVideo.set(r[video] as string, (perVideo.get(r[video] as string) ?? 0) + 1);
      expect(Math.max(0, ...perVideo.values())).toBeLessThanOrEqual(12);
    }
  });

  it('the click rates are realistic: a few percent overall', () => {
    let impressions = 0;
    let clicks = 0;
    for (const day of generateReportDays(o, 'channel_reach_basic_a1')) {
      const shown = day.header.indexOf('video_thumbnail_impressions');
      const rate = day.header.indexOf('video_thumbnail_impressions_ctr');
      for (const r of day.rows) {
        impressions += Number(r[shown]);
        clicks += Number(r[shown]) * Number(r[rate]);
      }
    }
    expect(clicks / impressions).toBeGreaterThan(0.01);
    expect(clicks / impressions).toBeLessThan(0.12);
  });
});
