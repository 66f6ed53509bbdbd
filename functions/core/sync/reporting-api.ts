/**
 * The YouTube Reporting API v1, through google-auth-library's OAuth2Client: it refreshes the access token from the
 * owner's refresh token (at OAUTH_TOKEN_URL) and sends every call with it. The calls are the documented REST of the
 * discovery document (youtubereporting v1): reportTypes.list, jobs.list, jobs.create, jobs.reports.list and
 * media.download; there is no @googleapis package for this API, and all of `googleapis` would bloat the function.
 *
 * Failures become ReportingError: `reconsent` (the refresh token was refused: invalid_grant), `transient` (429, 5xx
 * or the network, after bounded retries with full-jitter exponential backoff) or `failed` (anything else).
 */
import { OAuth2Client } from 'google-auth-library';
import type { OAuthCredentials } from './connection';
import type { ConnectedOwner } from './owner';

export interface ReportType {
  readonly id: string;
  readonly name?: string;
  readonly deprecateTime?: string;
  readonly systemManaged?: boolean;
}

export interface Job {
  readonly id: string;
  readonly reportTypeId: string;
  readonly name?: string;
  readonly createTime?: string;
  readonly expireTime?: string;
  readonly systemManaged?: boolean;
}

export interface Report {
  readonly id: string;
  readonly jobId: string;
  readonly startTime: string;
  readonly endTime: string;
  readonly createTime: string;
  readonly downloadUrl: string;
}

export interface ReportingApi {
  /** Report types the owner may create jobs for (every page). */
  reportTypes(): Promise<ReportType[]>;
  /** The owner's jobs; for content owners system-managed ones too (every page). */
  jobs(): Promise<Job[]>;
  createJob(reportTypeId: string, name: string): Promise<Job>;
  /** A job's reports created after `createdAfter` (RFC 3339; every page). */
  reports(jobId: string, createdAfter?: string): Promise<Report[]>;
  /** A report's content, asked for gzip-compressed (`Accept-Encoding: gzip`); the bytes are the CSV, whole. */
  download(report: Report): Promise<Uint8Array>;
}

export type ReportingErrorKind = 'reconsent' | 'transient' | 'failed';

export class ReportingError extends Error {
  constructor(
    readonly kind: ReportingErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ReportingError';
  }
}

export interface RetryOptions {
  /** Tries per call (the first included). */
  readonly attempts: number;
  /** The first retry waits up to this long; each further one up to twice as long (full jitter). */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_SYNC_RETRY: RetryOptions = { attempts: 5, baseDelayMs: 1000, maxDelayMs: 30_000 };

export interface ReportingApiOptions {
  /** REPORTING_API_ROOT, with a trailing slash (https://youtubereporting.googleapis.com/). */
  readonly root: string;
  /** OAUTH_TOKEN_URL (https://oauth2.googleapis.com/token). */
  readonly tokenUrl: string;
  readonly credentials: OAuthCredentials;
  readonly owner: ConnectedOwner;
  readonly retry?: RetryOptions;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Per request, in milliseconds. */
  readonly timeoutMs?: number;
}

/** A page loop cut off here is a server bug (a token that never ends), not a big account. */
const MAX_PAGES = 1000;

interface HttpFailure {
  status?: number;
  code?: unknown;
  response?: { status?: number; data?: unknown; headers?: Headers | Record<string, string> };
  message?: string;
}

const headerOf = (h: Headers | Record<string, string> | undefined, name: string): string | undefined =>
  h instanceof Headers ? (h.get(name) ?? undefined) : h?.[name];

/** The OAuth error code of a token endpoint answer (`invalid_grant`, `invalid_client`, …), if that is what failed. */
function oauthError(err: HttpFailure): string | undefined {
  const data = err.response?.data as { error?: unknown } | undefined;
  return typeof data?.error === 'string' ? data.error : undefined;
}

function describe(err: HttpFailure): string {
  const data = err.response?.data as { error?: { message?: unknown }; error_description?: unknown } | undefined;
  const message =
    (typeof data?.error === 'object' && typeof data.error?.message === 'string' && data.error.message) ||
    (typeof data?.error_description === 'string' && data.error_description) ||
    err.message ||
    String(err);
  const status = err.response?.status ?? err.status;
  return status ? `${status} ${message}` : message;
}

export function reportingApi(options: ReportingApiOptions): ReportingApi {
  const root = new URL(options.root);
  const retry = options.retry ?? DEFAULT_SYNC_RETRY;
  const sleep = options.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)));
  const client = new OAuth2Client({
    clientId: options.credentials.clientId,
    clientSecret: options.credentials.clientSecret,
    endpoints: { oauth2TokenUrl: options.tokenUrl },
  });
  client.setCredentials({ refresh_token: options.credentials.refreshToken });
  const onBehalf = options.owner.type === 'contentOwner' ? { onBehalfOfContentOwner: options.owner.id } : {};
  const timeout = options.timeoutMs ?? 120_000;

  /** One call with bounded retries of what may pass (429, 5xx, the network); errors as ReportingError. */
  async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (raw) {
        const err = raw as HttpFailure;
        const code = oauthError(err);
        if (code === 'invalid_grant') {
          throw new ReportingError('reconsent', `the refresh token was refused (invalid_grant): ${describe(err)}`, 400);
        }
        const status = err.response?.status;
        if (code !== undefined && status !== undefined && status < 500) {
          throw new ReportingError(
            'failed',
            `the token endpoint refused the OAuth client (${code}): ${describe(err)}`,
            status,
          );
        }
        const transient = status === undefined || status === 429 || status >= 500;
        if (!transient) throw new ReportingError('failed', `${what}: ${describe(err)}`, status);
        if (attempt >= retry.attempts) {
          throw new ReportingError('transient', `${what}: ${describe(err)} (gave up after ${attempt} tries)`, status);
        }
        // Full jitter; a Retry-After the server sends is a floor (capped, so one answer cannot stall the run).
        const backoff = Math.random() * Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
        const after = Number(headerOf(err.response?.headers, 'retry-after'));
        await sleep(Math.max(backoff, Number.isFinite(after) ? Math.min(after * 1000, retry.maxDelayMs) : 0));
      }
    }
  }

  const get = <T>(path: string, params: Record<string, string | boolean | undefined>) =>
    call(`GET ${path}`, async () => {
      const res = await client.request<T>({
        url: new URL(path, root).toString(),
        params: Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)),
        retry: false,
        timeout,
      });
      return res.data;
    });

  /** Every page of a list. */
  async function all<T>(path: string, field: string, params: Record<string, string | boolean | undefined>) {
    const out: T[] = [];
    const seen = new Set<string>();
    let pageToken: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const body = await get<Record<string, unknown>>(path, { ...params, pageToken });
      out.push(...(((body?.[field] as T[] | undefined) ?? []) as T[]));
      const next = body?.nextPageToken;
      if (typeof next !== 'string' || next === '') return out;
      if (seen.has(next)) throw new ReportingError('failed', `GET ${path}: the server repeated a page token`);
      seen.add(next);
      pageToken = next;
    }
    throw new ReportingError('failed', `GET ${path}: more than ${MAX_PAGES} pages`);
  }

  return {
    reportTypes: () => all<ReportType>('v1/reportTypes', 'reportTypes', { ...onBehalf }),
    jobs: () =>
      all<Job>('v1/jobs', 'jobs', {
        ...onBehalf,
        ...(options.owner.type === 'contentOwner' ? { includeSystemManaged: true } : {}),
      }),
    createJob: (reportTypeId, name) =>
      // Retried like the rest: a try that created the job before failing makes the retry answer 409, which the
      // sync counts as the job existing.
      call('POST v1/jobs', async () => {
        const res = await client.request<Job>({
          url: new URL('v1/jobs', root).toString(),
          method: 'POST',
          params: onBehalf,
          data: { reportTypeId, name },
          retry: false,
          timeout,
        });
        return res.data;
      }),
    reports: (jobId, createdAfter) =>
      all<Report>(`v1/jobs/${encodeURIComponent(jobId)}/reports`, 'reports', { ...onBehalf, createdAfter }),
    async download(report) {
      const url = new URL(report.downloadUrl);
      // The bearer token goes only to the Reporting API's own host.
      if (url.origin !== root.origin) {
        throw new ReportingError('failed', `report ${report.id}: its downloadUrl is not on ${root.origin}`);
      }
      return call(`download of report ${report.id}`, async () => {
        const res = await client.request<ArrayBuffer>({
          url: url.toString(),
          headers: { 'Accept-Encoding': 'gzip' },
          responseType: 'arraybuffer',
          retry: false,
          timeout,
        });
        return new Uint8Array(res.data);
      });
    },
  };
}
