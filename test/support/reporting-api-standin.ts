/**
 * A stand-in for the YouTube Reporting API v1 and Google's OAuth token endpoint, on loopback, speaking their
 * documented wire format (discovery document youtubereporting v1; reporting-api.md §1.1):
 * - POST /token (refresh_token grant, form-encoded): an access token, or 400 `invalid_grant` for a revoked or
 *   unknown refresh token, 401 `invalid_client` for a wrong client;
 * - GET /v1/reportTypes, GET /v1/jobs (includeSystemManaged), POST /v1/jobs, GET /v1/jobs/{jobId}/reports (createdAfter,
 *   startTimeAtOrAfter, startTimeBefore), all with `onBehalfOfContentOwner` and paged with pageSize / pageToken /
 *   nextPageToken (small default pages, so callers must follow them);
 * - GET /v1/media/{+resourceName}?alt=media: the report's CSV, gzip-encoded when the request says
 *   `Accept-Encoding: gzip`.
 * Errors are Google's JSON error bodies. Reports exist only for jobs: a report published before its job exists
 * appears when the job is created (as YouTube's historical reports do). Faults can be injected: a status for the next
 * N matching requests (429 with Retry-After, 5xx), or a download cut off half-way.
 * Assumptions (not documented by Google): jobs.create for a type that already has a job answers 409 ALREADY_EXISTS;
 * default page sizes.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export interface StandinAccount {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly refreshToken: string;
  /** The channel the account owns (channel==MINE of the Reporting API). */
  readonly channel?: string;
  /** Content owners it may act for (onBehalfOfContentOwner). */
  readonly contentOwners?: readonly string[];
}

export interface StandinReportType {
  readonly id: string;
  readonly name: string;
  readonly systemManaged?: boolean;
  readonly deprecateTime?: string;
}

export interface PublishedReport {
  /** YYYY-MM-DD (Pacific). */
  readonly day: string;
  readonly csv: string;
  /** RFC 3339; default: now. */
  readonly createTime?: string;
  readonly id?: string;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly acceptEncoding?: string;
  readonly status: number;
  /** Downloads: whether the body went gzip-encoded. */
  readonly gzip?: boolean;
}

interface StoredJob {
  id: string;
  reportTypeId: string;
  name: string;
  createTime: string;
  systemManaged: boolean;
  owner: string;
}

interface StoredReport {
  id: string;
  jobId: string;
  startTime: string;
  endTime: string;
  createTime: string;
  csv: string;
  owner: string;
  resourceName: string;
}

interface Fault {
  method?: string;
  path: RegExp;
  remaining: number;
  status: number;
  retryAfter?: number;
  truncate?: boolean;
}

/** Pacific midnight of a day in UTC (PDT 07:00, PST 08:00), as the API's startTime. */
export function pacificStart(day: string): string {
  const probe = new Date(`${day}T12:00:00Z`);
  const hour = new Intl.DateTimeFormat('en-US', { timeZone: 'America/Los_Angeles', hour: 'numeric', hour12: false })
    .formatToParts(probe)
    .find((p) => p.type === 'hour')?.value;
  const offset = 12 - Number(hour); // 7 in summer, 8 in winter
  return `${day}T${String(offset).padStart(2, '0')}:00:00Z`;
}

const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** Microsecond RFC 3339, as the API writes times. */
const apiTime = (ms: number, micros = 0) =>
  `${new Date(ms).toISOString().slice(0, 23)}${String(micros).padStart(3, '0')}Z`;

const comparable = (t: string) => {
  const m = /^(.*?)(?:\.(\d+))?Z$/.exec(t);
  return m ? `${m[1]}.${(m[2] ?? '').padEnd(9, '0')}` : t;
};

export class ReportingApiStandin {
  readonly requests: RecordedRequest[] = [];
  readonly pageSizes = { reportTypes: 5, jobs: 3, reports: 4 };
  /** `expires_in` of the access tokens it hands out. */
  tokenLifetimeSeconds = 3599;
  private readonly accounts: StandinAccount[] = [];
  private readonly revoked = new Set<string>();
  private readonly tokens = new Map<string, StandinAccount>();
  private readonly types: Record<'channel' | 'contentOwner', StandinReportType[]> = { channel: [], contentOwner: [] };
  private readonly jobs: StoredJob[] = [];
  private readonly reports: StoredReport[] = [];
  private readonly pending: { owner: string; reportTypeId: string; report: PublishedReport }[] = [];
  private readonly faults: Fault[] = [];
  private seq = 0;
  private clock = Date.parse('2026-11-01T10:00:00Z');

  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
  ) {}

  static async start(): Promise<ReportingApiStandin> {
    let standin: ReportingApiStandin | undefined;
    const server = createServer((req, res) => {
      standin?.handle(req, res).catch((err: unknown) => {
        res.statusCode = 500;
        res.end(String(err));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    standin = new ReportingApiStandin(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    return standin;
  }

  get tokenUrl(): string {
    return `${this.baseUrl}token`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  addAccount(account: StandinAccount): void {
    this.accounts.push(account);
  }

  /** The account's refresh token stops working (the user revoked access). */
  revoke(refreshToken: string): void {
    this.revoked.add(refreshToken);
    for (const [token, account] of this.tokens) if (account.refreshToken === refreshToken) this.tokens.delete(token);
  }

  setReportTypes(owner: 'channel' | 'contentOwner', types: readonly StandinReportType[]): void {
    this.types[owner] = [...types];
  }

  /** A system-managed job YouTube keeps for a content owner. */
  addSystemJob(contentOwner: string, reportTypeId: string): string {
    const job = this.newJob(`contentOwner:${contentOwner}`, reportTypeId, `System-Managed ${reportTypeId}`, true);
    return job.id;
  }

  /** A job the owner created elsewhere (before connecting here). */
  addJob(owner: string, reportTypeId: string): string {
    return this.newJob(ownerKeyOf(owner), reportTypeId, `existing ${reportTypeId}`, false).id;
  }

  /**
   * Makes a report of (owner, report type) for a day: listed at once when a job of that type exists, else when the
   * job is created. Returns the report id.
   */
  publish(owner: string, reportTypeId: string, report: PublishedReport): string {
    const key = ownerKeyOf(owner);
    const id = report.id ?? `r${++this.seq}${randomBytes(3).toString('hex')}`;
    const withId = { ...report, id };
    const job = this.jobs.find((j) => j.owner === key && j.reportTypeId === reportTypeId);
    if (job) this.attach(job, withId);
    else this.pending.push({ owner: key, reportTypeId, report: withId });
    return id;
  }

  jobsOf(owner: string): { id: string; reportTypeId: string; systemManaged: boolean }[] {
    const key = ownerKeyOf(owner);
    return this.jobs.filter((j) => j.owner === key);
  }

  /** The next `times` requests matching answer `status` (429 carries Retry-After: `retryAfter` seconds). */
  fail(match: { method?: string; path: RegExp }, status: number, times = 1, retryAfter?: number): void {
    this.faults.push({ ...match, status, remaining: times, ...(retryAfter !== undefined ? { retryAfter } : {}) });
  }

  /** The next `times` downloads matching are cut off half-way (the connection closes mid-body). */
  truncate(path: RegExp, times = 1): void {
    this.faults.push({ method: 'GET', path, status: 200, remaining: times, truncate: true });
  }

  private newJob(owner: string, reportTypeId: string, name: string, systemManaged: boolean): StoredJob {
    const job: StoredJob = {
      id: `job-${++this.seq}-${randomBytes(4).toString('hex')}`,
      reportTypeId,
      name,
      createTime: this.tick(),
      systemManaged,
      owner,
    };
    this.jobs.push(job);
    for (const p of this.pending.filter((x) => x.owner === owner && x.reportTypeId === reportTypeId)) {
      this.attach(job, p.report as PublishedReport & { id: string });
    }
    this.pending.splice(
      0,
      this.pending.length,
      ...this.pending.filter((x) => !(x.owner === owner && x.reportTypeId === reportTypeId)),
    );
    return job;
  }

  private attach(job: StoredJob, r: PublishedReport & { id: string }): void {
    const [type, id] = job.owner.split(':') as [string, string];
    this.reports.push({
      id: r.id,
      jobId: job.id,
      startTime: pacificStart(r.day),
      endTime: pacificStart(nextDay(r.day)),
      createTime: r.createTime ?? this.tick(),
      csv: r.csv,
      owner: job.owner,
      resourceName: `${type === 'channel' ? 'CHANNEL' : 'CONTENT_OWNER'}/${id}/${job.id}/${r.id}`,
    });
  }

  /** Times move on a few seconds with every job and report, with microseconds, as the API writes them. */
  private tick(): string {
    this.clock += 3_000 + (this.seq % 7) * 101;
    return apiTime(this.clock, (this.seq * 37) % 1000);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.baseUrl);
    const query = Object.fromEntries(url.searchParams);
    const method = req.method ?? 'GET';
    const record = (status: number, gzip?: boolean) =>
      this.requests.push({
        method,
        path: url.pathname,
        query,
        ...(req.headers['accept-encoding'] ? { acceptEncoding: String(req.headers['accept-encoding']) } : {}),
        status,
        ...(gzip !== undefined ? { gzip } : {}),
      });
    const body = await new Promise<string>((resolve) => {
      let text = '';
      req.on('data', (c: Buffer) => {
        text += c.toString('utf8');
      });
      req.on('end', () => resolve(text));
    });
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      record(status);
      res.writeHead(status, { 'Content-Type': 'application/json; charset=UTF-8', ...headers });
      res.end(JSON.stringify(value));
    };
    const error = (status: number, statusText: string, message: string, headers: Record<string, string> = {}) =>
      json(status, { error: { code: status, message, status: statusText } }, headers);

    const fault = this.faults.find(
      (f) => f.remaining > 0 && f.path.test(url.pathname) && (!f.method || f.method === method),
    );
    if (fault && !fault.truncate) {
      fault.remaining--;
      const statusText =
        fault.status === 429 ? 'RESOURCE_EXHAUSTED' : fault.status === 503 ? 'UNAVAILABLE' : 'INTERNAL';
      return error(fault.status, statusText, fault.status === 429 ? 'Quota exceeded.' : 'Backend Error', {
        ...(fault.retryAfter !== undefined ? { 'Retry-After': String(fault.retryAfter) } : {}),
      });
    }

    if (method === 'POST' && url.pathname === '/token') {
      const form = new URLSearchParams(body);
      if (form.get('grant_type') !== 'refresh_token') {
        record(400);
        res.writeHead(400, { 'Content-Type': 'application/json' });
        return void res.end(JSON.stringify({ error: 'unsupported_grant_type' }));
      }
      const account = this.accounts.find((a) => a.refreshToken === form.get('refresh_token'));
      if (
        account &&
        (account.clientId !== form.get('client_id') || account.clientSecret !== form.get('client_secret'))
      ) {
        return json(401, { error: 'invalid_client', error_description: 'The OAuth client was not found.' });
      }
      if (!account || this.revoked.has(account.refreshToken)) {
        return json(400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
      }
      const token = `ya29.${randomBytes(12).toString('hex')}`;
      this.tokens.set(token, account);
      return json(200, {
        access_token: token,
        expires_in: this.tokenLifetimeSeconds,
        scope: 'https://www.googleapis.com/auth/yt-analytics.readonly',
        token_type: 'Bearer',
      });
    }

    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const account = bearer ? this.tokens.get(bearer) : undefined;
    if (!account) {
      return error(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.', {
        'WWW-Authenticate': 'Bearer realm="https://accounts.google.com/"',
      });
    }
    const media = /^\/v1\/media\/(.+)$/.exec(url.pathname);
    if (method === 'GET' && media) {
      // A download URL names its report; the token's account must own that channel or manage that content owner.
      if (query.alt !== 'media') return error(400, 'INVALID_ARGUMENT', 'Media download requires alt=media.');
      const report = this.reports.find((r) => r.resourceName === decodeURIComponent(media[1] as string));
      const [type, id] = (report?.owner ?? ':').split(':') as [string, string];
      const allowed = type === 'channel' ? account.channel === id : account.contentOwners?.includes(id) === true;
      if (!report || !allowed) return error(404, 'NOT_FOUND', 'Requested entity was not found.');
      const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
      const bytes = gzip ? gzipSync(report.csv) : Buffer.from(report.csv);
      record(200, gzip);
      res.writeHead(200, {
        'Content-Type': 'application/octet-stream',
        'Content-Length': String(bytes.length),
        ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
      });
      if (fault?.truncate) {
        fault.remaining--;
        // Half the body, then the connection drops: the client must not take this for the whole report.
        res.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
        return void setTimeout(() => res.socket?.destroy(), 20);
      }
      return void res.end(bytes);
    }
    const onBehalf = query.onBehalfOfContentOwner;
    let owner: string;
    if (onBehalf !== undefined) {
      if (!account.contentOwners?.includes(onBehalf))
        return error(403, 'PERMISSION_DENIED', 'The caller does not have permission');
      owner = `contentOwner:${onBehalf}`;
    } else {
      if (!account.channel) return error(403, 'PERMISSION_DENIED', 'The caller does not have permission');
      owner = `channel:${account.channel}`;
    }
    const kind = owner.startsWith('channel:') ? 'channel' : 'contentOwner';

    if (method === 'GET' && url.pathname === '/v1/reportTypes') {
      const types = this.types[kind].filter((t) => query.includeSystemManaged === 'true' || !t.systemManaged);
      return this.page(query, types, 'reportTypes', this.pageSizes.reportTypes, json, error);
    }
    if (method === 'GET' && url.pathname === '/v1/jobs') {
      const jobs = this.jobs
        .filter((j) => j.owner === owner && (query.includeSystemManaged === 'true' || !j.systemManaged))
        .map(jobResource);
      return this.page(query, jobs, 'jobs', this.pageSizes.jobs, json, error);
    }
    if (method === 'POST' && url.pathname === '/v1/jobs') {
      let spec: { reportTypeId?: unknown; name?: unknown };
      try {
        spec = JSON.parse(body) as typeof spec;
      } catch {
        return error(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
      }
      const type = this.types[kind].find((t) => t.id === spec.reportTypeId);
      if (!type) return error(404, 'NOT_FOUND', 'Requested entity was not found.');
      if (type.systemManaged) return error(400, 'INVALID_ARGUMENT', 'System-managed report types cannot be used.');
      if (this.jobs.some((j) => j.owner === owner && j.reportTypeId === type.id)) {
        return error(409, 'ALREADY_EXISTS', 'A job for this report type already exists.');
      }
      return json(200, jobResource(this.newJob(owner, type.id, String(spec.name ?? ''), false)));
    }
    const reportsPath = /^\/v1\/jobs\/([^/]+)\/reports$/.exec(url.pathname);
    if (method === 'GET' && reportsPath) {
      const job = this.jobs.find((j) => j.id === decodeURIComponent(reportsPath[1] as string) && j.owner === owner);
      if (!job) return error(404, 'NOT_FOUND', 'Requested entity was not found.');
      const times = ['createdAfter', 'startTimeAtOrAfter', 'startTimeBefore'] as const;
      for (const t of times) {
        if (query[t] !== undefined && Number.isNaN(Date.parse(query[t] as string))) {
          return error(
            400,
            'INVALID_ARGUMENT',
            `Invalid value at '${t}' (type.googleapis.com/google.protobuf.Timestamp)`,
          );
        }
      }
      const after = query.createdAfter !== undefined ? comparable(query.createdAfter) : undefined;
      const reports = this.reports
        .filter((r) => r.jobId === job.id)
        .filter((r) => after === undefined || comparable(r.createTime) > after)
        .filter(
          (r) =>
            query.startTimeAtOrAfter === undefined || Date.parse(r.startTime) >= Date.parse(query.startTimeAtOrAfter),
        )
        .filter(
          (r) => query.startTimeBefore === undefined || Date.parse(r.startTime) < Date.parse(query.startTimeBefore),
        )
        .map((r) => ({
          id: r.id,
          jobId: r.jobId,
          startTime: r.startTime,
          endTime: r.endTime,
          createTime: r.createTime,
          downloadUrl: `${this.baseUrl}v1/media/${r.resourceName}?alt=media`,
        }));
      return this.page(query, reports, 'reports', this.pageSizes.reports, json, error);
    }
    return error(404, 'NOT_FOUND', `The requested URL ${url.pathname} was not found on this server.`);
  }

  private page<T>(
    query: Readonly<Record<string, string>>,
    items: readonly T[],
    field: string,
    defaultSize: number,
    json: (status: number, value: unknown) => void,
    error: (status: number, statusText: string, message: string) => void,
  ): void {
    const size = query.pageSize !== undefined ? Number(query.pageSize) : defaultSize;
    if (!Number.isInteger(size) || size < 0) {
      error(400, 'INVALID_ARGUMENT', 'Invalid pageSize.');
      return;
    }
    let offset = 0;
    if (query.pageToken !== undefined) {
      const decoded = /^o(\d+)$/.exec(Buffer.from(query.pageToken, 'base64url').toString('utf8'));
      if (!decoded) {
        error(400, 'INVALID_ARGUMENT', 'Invalid page token.');
        return;
      }
      offset = Number(decoded[1]);
    }
    const take = size === 0 ? defaultSize : size;
    const slice = items.slice(offset, offset + take);
    const next = offset + take < items.length ? Buffer.from(`o${offset + take}`).toString('base64url') : undefined;
    json(200, { ...(slice.length > 0 ? { [field]: slice } : {}), ...(next ? { nextPageToken: next } : {}) });
  }
}

const ownerKeyOf = (owner: string) => (owner.startsWith('UC') ? `channel:${owner}` : `contentOwner:${owner}`);

const jobResource = (j: StoredJob) => ({
  id: j.id,
  reportTypeId: j.reportTypeId,
  name: j.name,
  createTime: j.createTime,
  ...(j.systemManaged ? { systemManaged: true } : {}),
});
