/**
 * The handler wrapper: request parsing, the principal, Google's system parameters (`fields`, `prettyPrint`, `alt`,
 * `callback`, …), CORS headers, logging context, metrics and the single catch that turns errors into Google-shaped responses.
 * Handlers built on it contain no try/catch, no status codes and no serialization.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { invalidArgument } from '../core/errors';
// Types only: the route table and the schemas stay out of the bundles (a handler names its response's schemas).
import type { RouteId, routes } from '../routes';
import type { ResponseFields, SchemaName } from '../schemas';
import * as env from './env';
import { errorResponse } from './http-errors';
import { type ApiResponse, render } from './http-result';
import { type InvocationFigures, measured, withRequestContext } from './observability';
import { type Principal, principalFrom } from './principal';
import { headerOf, requestRootUrl } from './request-url';
import { readSystemParameters } from './system-parameters';
import { corsHeaders } from './transport';

export interface PublicHttpRequest {
  /** The operation's own parameters (system parameters already taken out). */
  readonly query: Readonly<Record<string, string>>;
  readonly pathParameters: Readonly<Record<string, string>>;
  /** Parsed JSON body (only for operations declared with `body: 'json'`). */
  readonly body: unknown;
  readonly requestId: string;
  /** What the operation measured besides its latency (published with it when the request ends). */
  readonly figures: InvocationFigures;
  /** Where the caller reached the API (`https://host/stage/`), for answers that name it. */
  readonly rootUrl: string;
}

export interface HttpRequest extends PublicHttpRequest {
  readonly principal: Principal;
}

export interface HandlerOptions {
  /** `none`: the request body must be empty. `json`: it must be a JSON document. `ignore`: not read at all. */
  readonly body: 'none' | 'json' | 'ignore';
  /** Publish the request's latency as a metric beside the figures the operation adds. */
  readonly latencyMetric?: boolean;
}

export type ProxyHandler = (event: APIGatewayProxyEvent, context?: Context) => Promise<APIGatewayProxyResult>;

type RouteOf<Op extends RouteId> = Extract<(typeof routes)[number], { id: Op }>;
/**
 * The schemas the `fields` system parameter is checked against: those of the response the route table names for the
 * operation (schemas.ts `*_FIELDS`), required by type; none for free-form answers.
 */
export type ResponseOption<Op extends RouteId> =
  RouteOf<Op> extends { response: infer N extends SchemaName }
    ? { readonly response: ResponseFields<N> }
    : { readonly response?: undefined };

/** An operation behind the authorizer: the principal is re-checked before run(). */
export const httpHandler = <Op extends RouteId>(
  operation: Op,
  options: HandlerOptions & ResponseOption<Op>,
  run: (req: HttpRequest) => Promise<ApiResponse>,
): ProxyHandler =>
  wrap(operation, options, (req, event) => {
    req.principal = principalFrom(event, env.scopeBase(), Math.floor(Date.now() / 1000));
    return run(req as HttpRequest);
  });

/** A public operation (no token: the discovery documents, the Query Explorer page). */
export const publicHttpHandler = <Op extends RouteId>(
  operation: Op,
  options: HandlerOptions & ResponseOption<Op>,
  run: (req: PublicHttpRequest) => Promise<ApiResponse>,
): ProxyHandler => wrap(operation, options, (req) => run(req));

/**
 * One request as an operation sees it. A class rather than an object literal: its `rootUrl` getter lives on the
 * prototype, so building a request per call costs no more than its fields.
 */
class OperationRequest implements PublicHttpRequest {
  readonly pathParameters: Readonly<Record<string, string>>;
  principal?: Principal;
  constructor(
    private readonly event: APIGatewayProxyEvent,
    readonly query: Readonly<Record<string, string>>,
    readonly body: unknown,
    readonly requestId: string,
    readonly figures: InvocationFigures,
  ) {
    this.pathParameters = (event.pathParameters ?? {}) as Record<string, string>;
  }

  // Worked out only by the operations that name the API in their answer.
  get rootUrl(): string {
    return requestRootUrl(this.event, env.publicRootUrl());
  }
}

function wrap(
  operation: RouteId,
  options: HandlerOptions & { readonly response?: ResponseFields },
  run: (req: OperationRequest, event: APIGatewayProxyEvent) => Promise<ApiResponse>,
): ProxyHandler {
  const { response } = options;
  const handle = (event: APIGatewayProxyEvent, context?: Context) =>
    measured(
      operation,
      async (figures) => {
        const requestId = event.requestContext?.requestId ?? context?.awsRequestId ?? 'local';
        let prettyPrint = true;
        let cors: Readonly<Record<string, string>> = NO_HEADERS;
        try {
          cors = corsHeaders(env.corsOrigins(), headerOf(event, 'origin'));
          const read = readSystemParameters(readQuery(event), headerOf(event, 'x-goog-fieldmask'), response);
          prettyPrint = read.system.prettyPrint;
          const req = new OperationRequest(event, read.query, readBody(event, options.body), requestId, figures);
          const res = await run(req, event);
          return render(res, { prettyPrint, fields: read.system.fields, extraHeaders: cors });
        } catch (err) {
          return render(errorResponse(err, requestId), { prettyPrint, extraHeaders: cors });
        }
      },
      { latency: options.latencyMetric },
    );
  return withRequestContext(operation, handle, (event) => event.requestContext?.requestId);
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** Single-valued query parameters; a parameter given twice is ambiguous and refused. */
function readQuery(event: APIGatewayProxyEvent): Record<string, string> {
  const multi = event.multiValueQueryStringParameters ?? {};
  for (const [name, values] of Object.entries(multi)) {
    if (values && values.length > 1) {
      throw invalidArgument('invalidParameter', `Parameter ${name} was given more than once.`, {
        location: name,
        locationType: 'parameter',
      });
    }
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) {
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function readBody(event: APIGatewayProxyEvent, mode: HandlerOptions['body']): unknown {
  if (mode === 'ignore') return undefined;
  const raw = event.body
    ? event.isBase64Encoded
      ? Buffer.from(event.body, 'base64').toString('utf8')
      : event.body
    : '';
  if (mode === 'none') {
    if (raw.trim() !== '')
      throw invalidArgument('badRequest', 'The request body must be empty.', { locationType: 'body' });
    return undefined;
  }
  if (raw.trim() === '') throw invalidArgument('required', 'The request body is required.', { locationType: 'body' });
  try {
    return JSON.parse(raw);
  } catch {
    throw invalidArgument('parseError', 'Parse Error: the request body is not valid JSON.', { locationType: 'body' });
  }
}
