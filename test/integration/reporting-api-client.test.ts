/**
 * The Reporting API client (functions/core/sync/reporting-api.ts) over real HTTP to the loopback stand-in: one access
 * token serves many calls until it is about to expire, then it is refreshed; failures before any answer are transient
 * and say why.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReportingApi, ReportingError, reportingApi } from '../../functions/core/sync/reporting-api';
import { ReportingApiStandin } from '../support/reporting-api-standin';

const ACCOUNT = { clientId: 'client-rac', clientSecret: 'secret-rac', refreshToken: 'refresh-rac', channel: 'UCrac' };
const FAST_RETRY = { attempts: 2, baseDelayMs: 1, maxDelayMs: 2 };

let standin: ReportingApiStandin;
beforeAll(async () => {
  standin = await ReportingApiStandin.start();
  standin.addAccount(ACCOUNT);
  standin.setReportTypes('channel', [{ id: 'channel_basic_a3', name: 'User activity' }]);
});
afterAll(() => standin?.close());

const client = (root = standin.baseUrl): ReportingApi =>
  reportingApi({
    root,
    tokenUrl: standin.tokenUrl,
    credentials: { clientId: ACCOUNT.clientId, clientSecret: ACCOUNT.clientSecret, refreshToken: ACCOUNT.refreshToken },
    owner: { type: 'channel', id: ACCOUNT.channel },
    retry: FAST_RETRY,
  });

const tokenRequests = () => standin.requests.filter((r) => r.path === '/token').length;

describe('reportingApi', () => {
  it('refreshes the access token once and uses it for every call while it is valid', async () => {
    standin.tokenLifetimeSeconds = 3599;
    const before = tokenRequests();
    const api = client();

    const types = await api.reportTypes();
    const job = await api.createJob('channel_basic_a3', 'daily');
    const jobs = await api.jobs();
    await api.reports(job.id);

    expect(types.map((t) => t.id)).toEqual(['channel_basic_a3']);
    expect(jobs.map((j) => j.id)).toContain(job.id);
    expect(tokenRequests() - before).toBe(1);
  });

  it('refreshes again when the token is within five minutes of expiring', async () => {
    standin.tokenLifetimeSeconds = 240;
    const before = tokenRequests();
    const api = client();
    try {
      await api.reportTypes();
      await api.jobs();
    } finally {
      standin.tokenLifetimeSeconds = 3599;
    }

    expect(tokenRequests() - before).toBe(2);
  });

  it('a host that refuses the connection is a transient failure naming the reason, after the retries', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));

    const failure = await client(`http://127.0.0.1:${port}/`)
      .jobs()
      .catch((err: unknown) => err);

    expect(failure).toBeInstanceOf(ReportingError);
    expect((failure as ReportingError).kind).toBe('transient');
    expect((failure as ReportingError).message).toMatch(/ECONNREFUSED.*gave up after 2 tries/);
  });
});
