/**
 * The bulk-export generator (infra/local/export-generator.ts): deterministic, shaped like channel_basic_a1/a2/a3
 * files, internally consistent numbers, and realistic aggregate behaviour (uploads, power law, weekends, size).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DayExport,
  DIMENSION_COLUMNS,
  defaultVideoPrefix,
  type GeneratorOptions,
  generateDays,
  metricColumns,
  planChannel,
  type ReportVersion,
  reportColumns,
  validateOptions,
  writeExports,
} from '../../infra/local/export-generator';

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

  it('a small run (50 videos, 30 days) is fast', async () => {
    const started = performance.now();
    const result = await writeExports(options(), tempDir());
    expect(performance.now() - started).toBeLessThan(2000);
    expect(result.rows).toBeGreaterThan(1000);
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
    execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'infra/local/generate.ts'), ...args], {
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
