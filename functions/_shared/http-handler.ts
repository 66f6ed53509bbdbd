/**
 * The handler wrapper: request parsing, the principal, logging context, metrics and the single catch that turns
 * errors into Google-shaped responses. Handlers built on it contain no try/catch and no status codes.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { invalidArgument } from '../core/errors';
import type { RouteId } from '../routes';
import { env } from './env';
import { toErrorResult } from './http-errors';
import { type InvocationFigures, measured, withRequestContext } from './observability';
import { type Principal, principalFrom } from './principal';

export interface HttpRequest {
  readonly query: Readonly<Record<string, string>>;
  readonly pathParameters: Readonly<Record<string, string>>;
  /** Parsed JSON body (only for operations declared with `body: 'json'`). */
  readonly body: unknown;
  readonly principal: Principal;
  readonly requestId: string;
  /** What the operation measured besides its latency (published with it when the request ends). */
  readonly figures: InvocationFigures;
}

export interface HandlerOptions {
  /** `none`: the request body must be empty. `json`: it must be a JSON document. `ignore`: not read at all. */
  readonly body: 'none' | 'json' | 'ignore';
  /** Publish the request's latency as a metric beside the figures the operation adds. */
  readonly latencyMetric?: boolean;
}

export type ProxyHandler = (event: APIGatewayProxyEvent, context?: Context) => Promise<APIGatewayProxyResult>;

export function httpHandler(
  operation: RouteId,
  options: HandlerOptions,
  run: (req: HttpRequest) => Promise<APIGatewayProxyResult>,
): ProxyHandler {
  const handle = async (event: APIGatewayProxyEvent, context?: Context) => {
    const requestId = event.requestContext?.requestId ?? context?.awsRequestId ?? 'local';
    return measured(
      operation,
      async (figures) => {
        try {
          const principal = principalFrom(event, env.scopeBase, Math.floor(Date.now() / 1000));
          return await run({
            query: readQuery(event),
            pathParameters: (event.pathParameters ?? {}) as Record<string, string>,
            body: readBody(event, options.body),
            principal,
            requestId,
            figures,
          });
        } catch (err) {
          return toErrorResult(err, requestId);
        }
      },
      { latency: options.latencyMetric },
    );
  };
  return withRequestContext(operation, handle, (event) => event.requestContext?.requestId);
}

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
