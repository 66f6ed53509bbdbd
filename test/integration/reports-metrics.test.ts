/**
 * reports.query metrics through real HTTP (local API, DynamoDB Local): the EMF record of an answer carries what the
 * answer cost to read (the same figures as its X-Items-Read / X-Bytes-Read headers), its latency and the report
 * families it came from. Metrics are published outside Lambda only when POWERTOOLS_METRICS_DISABLED is set, so it is
 * set before the handler modules are imported.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
const { startLocalApi } = await import('../support/local-api');
const { createReportFixture } = await import('../support/report-fixtures');
const { METRIC, FAMILY_PROPERTY } = await import('../../functions/_shared/metric-names');

type Json = Record<string, any>;
let api: Awaited<ReturnType<typeof startLocalApi>>;
let fixture: Awaited<ReturnType<typeof createReportFixture>>;

beforeAll(async () => {
  fixture = await createReportFixture({ videos: 8, days: 12, a2Days: 0, start: '2026-05-25' });
  api = await startLocalApi();
}, 120_000);
afterAll(async () => {
  await api?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** Runs `call` and returns the EMF records written to stdout meanwhile. */
async function emfDuring<T>(call: () => Promise<T>): Promise<{ result: T; emf: Json[] }> {
  const written: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
    if (String(chunk).includes('"_aws"')) {
      written.push(String(chunk));
      return true;
    }
    return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write);
  const result = await call();
  const emf = written
    .join('')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Json);
  return { result, emf };
}

describe('reports.query metrics', () => {
  it('publishes items and bytes read as the headers say, the latency and the family answered from', async () => {
    const token = await api.token(fixture.sub, ['video-analytics.readonly']);
    const qs = new URLSearchParams({
      ids: 'channel==MINE',
      metrics: 'views,likes',
      dimensions: 'day',
      startDate: '2026-05-25',
      endDate: '2026-06-05',
    });

    const { result: res, emf } = await emfDuring(() => api.call(`/v2/reports?${qs}`, { token }));

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const reports = emf.filter((r) => r.operation === 'reports.query');
    expect(reports).toHaveLength(1);
    const record = reports[0] as Json;
    expect(record._aws.CloudWatchMetrics[0].Dimensions).toEqual([['operation']]);
    expect(record[METRIC.itemsRead]).toBe(Number(res.headers.get('x-items-read')));
    expect(record[METRIC.itemsRead]).toBeGreaterThan(0);
    expect(record[METRIC.bytesRead]).toBe(Number(res.headers.get('x-bytes-read')));
    expect(record[METRIC.latency]).toBeGreaterThan(0);
    expect(record[FAMILY_PROPERTY]).toBe('channel_basic');
    expect(emf.filter((r) => r.operation !== 'reports.query')).toEqual([]);
  });

  it('publishes the latency of a refused request, without read figures', async () => {
    const token = await api.token(fixture.sub, ['video-analytics.readonly']);

    const { result: res, emf } = await emfDuring(() =>
      api.call('/v2/reports?ids=channel==MINE&metrics=views&startDate=2026-06-01', { token }),
    );

    expect(res.status).toBe(400);
    const record = emf.find((r) => r.operation === 'reports.query') as Json;
    expect(record[METRIC.latency]).toBeGreaterThan(0);
    expect(record[METRIC.itemsRead]).toBeUndefined();
    expect(record[FAMILY_PROPERTY]).toBeUndefined();
  });
});
