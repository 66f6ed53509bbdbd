/**
 * The YouTube Reporting API v1 over fetch, with OAuth 2.0 access tokens refreshed from the owner's refresh token at
 * OAUTH_TOKEN_URL (RFC 6749 §6) and sent with every call. The calls are the documented REST of the discovery document
 * (youtubereporting v1): reportTypes.list, jobs.list, jobs.create, jobs.reports.list and media.download; there is no
 * @googleapis package for this API. No Google client library either: google-auth-library and its HTTP stack were
 * 290 KB of the worker's bundle for one form POST (bench/README.md, cold start).
 *
 * Failures become ReportingError: `reconsent` (the refresh token was refused: invalid_grant), `transient` (429, 5xx
 * or the network, after bounded retries with full-jitter exponential backoff) or `failed` (anything else).
 */
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

/** A call that got no 2xx: its status, headers and (parsed) body, or, with no status, a failure before any answer. */
class HttpFailure extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly data?: unknown,
    readonly headers?: Headers,
  ) {
    super(message);
  }
}

/** The answer's body: JSON when it is JSON, else its text (error pages). */
async function bodyOf(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Throws HttpFailure for an answer that is not 2xx. */
async function ensureOk(res: Response, what: string): Promise<Response> {
  if (res.ok) return res;
  throw new HttpFailure(`${what} answered ${res.status}`, res.status, await bodyOf(res), res.headers);
}

/** The OAuth error code of a token endpoint answer (`invalid_grant`, `invalid_client`, …), if that is what failed. */
function oauthError(err: HttpFailure): string | undefined {
  const data = err.data as { error?: unknown } | undefined;
  return typeof data?.error === 'string' ? data.error : undefined;
}

function describe(err: unknown): string {
  if (!(err instanceof HttpFailure)) {
    // fetch's own failures: the reason (ECONNREFUSED, a reset, the timeout) is in the cause.
    const e = err as { message?: string; cause?: { message?: string; code?: string } };
    const cause = e.cause?.code ?? e.cause?.message;
    return `${e.message ?? String(err)}${cause ? ` (${cause})` : ''}`;
  }
  const data = err.data as { error?: { message?: unknown }; error_description?: unknown } | undefined;
  const message =
    (typeof data?.error === 'object' && typeof data.error?.message === 'string' && data.error.message) ||
    (typeof data?.error_description === 'string' && data.error_description) ||
    err.message;
  return err.status ? `${err.status} ${message}` : message;
}

/** Tokens are refreshed this long before they expire, so none runs out during a call (as google-auth-library). */
const REFRESH_MARGIN_MS = 5 * 60_000;

export function reportingApi(options: ReportingApiOptions): ReportingApi {
  const root = new URL(options.root);
  const retry = options.retry ?? DEFAULT_SYNC_RETRY;
  const sleep = options.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)));
  const onBehalf = options.owner.type === 'contentOwner' ? { onBehalfOfContentOwner: options.owner.id } : {};
  const timeout = options.timeoutMs ?? 120_000;

  let token: { value: string; refreshAt: number } | undefined;
  /** The current access token, refreshed from the refresh token when it is missing or about to expire. */
  async function accessToken(): Promise<string> {
    if (token && Date.now() < token.refreshAt) return token.value;
    const { clientId, clientSecret, refreshToken } = options.credentials;
    const res = await fetch(options.tokenUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: clientId,
        client_secret: clientSecret,
      }),
      signal: AbortSignal.timeout(timeout),
    });
    const body = (await bodyOf(await ensureOk(res, 'the token endpoint'))) as {
      access_token?: unknown;
      expires_in?: unknown;
    };
    if (typeof body?.access_token !== 'string' || body.access_token === '') {
      throw new HttpFailure('the token endpoint answered without an access_token', res.status);
    }
    const lifetimeMs = (Number(body.expires_in) || 3600) * 1000;
    token = { value: body.access_token, refreshAt: Date.now() + lifetimeMs - REFRESH_MARGIN_MS };
    return token.value;
  }

  /** One authorised request to the API; a non-2xx answer throws HttpFailure. */
  async function send(
    url: URL,
    init: { method?: 'GET' | 'POST'; params?: Record<string, string | boolean | undefined>; json?: unknown },
    headers: Record<string, string> = {},
  ): Promise<Response> {
    for (const [name, value] of Object.entries(init.params ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const res = await fetch(url, {
      method: init.method ?? 'GET',
      headers: {
        Authorization: `Bearer ${await accessToken()}`,
        ...(init.json === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...headers,
      },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
      signal: AbortSignal.timeout(timeout),
    });
    return ensureOk(res, `${init.method ?? 'GET'} ${url.pathname}`);
  }

  /** One call with bounded retries of what may pass (429, 5xx, the network); errors as ReportingError. */
  async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (err) {
        const failure = err instanceof HttpFailure ? err : undefined;
        const code = failure && oauthError(failure);
        if (code === 'invalid_grant') {
          throw new ReportingError('reconsent', `the refresh token was refused (invalid_grant): ${describe(err)}`, 400);
        }
        const status = failure?.status;
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
        const after = Number(failure?.headers?.get('retry-after') ?? undefined);
        await sleep(Math.max(backoff, Number.isFinite(after) ? Math.min(after * 1000, retry.maxDelayMs) : 0));
      }
    }
  }

  const get = <T>(path: string, params: Record<string, string | boolean | undefined>) =>
    call(`GET ${path}`, async () => (await bodyOf(await send(new URL(path, root), { params }))) as T);

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
      call(
        'POST v1/jobs',
        async () =>
          (await bodyOf(
            await send(new URL('v1/jobs', root), { method: 'POST', params: onBehalf, json: { reportTypeId, name } }),
          )) as Job,
      ),
    reports: (jobId, createdAfter) =>
      all<Report>(`v1/jobs/${encodeURIComponent(jobId)}/reports`, 'reports', { ...onBehalf, createdAfter }),
    async download(report) {
      const url = new URL(report.downloadUrl);
      // The bearer token goes only to the Reporting API's own host.
      if (url.origin !== root.origin) {
        throw new ReportingError('failed', `report ${report.id}: its downloadUrl is not on ${root.origin}`);
      }
      // fetch undoes the gzip Content-Encoding: the bytes are the CSV.
      return call(`download of report ${report.id}`, async () => {
        const res = await send(new URL(url), {}, { 'Accept-Encoding': 'gzip' });
        return new Uint8Array(await res.arrayBuffer());
      });
    },
  };
}
