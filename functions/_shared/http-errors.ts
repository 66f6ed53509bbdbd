/** The ONLY place where errors become HTTP responses. */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { isThrottled } from '../core/db/throttled';
import { DomainError, type ErrorKind, overloaded } from '../core/errors';
import { googleError, WWW_AUTHENTICATE } from './error-envelope';
import { type ApiResponse, jsonResult, render } from './http-result';
import { logger } from './logger';

const statusByKind = {
  invalid_argument: [400, 'INVALID_ARGUMENT'],
  failed_precondition: [400, 'FAILED_PRECONDITION'],
  precondition_failed: [412, 'FAILED_PRECONDITION'],
  unauthenticated: [401, 'UNAUTHENTICATED'],
  permission_denied: [403, 'PERMISSION_DENIED'],
  not_found: [404, 'NOT_FOUND'],
  already_exists: [409, 'ALREADY_EXISTS'],
  aborted: [409, 'ABORTED'],
  resource_exhausted: [429, 'RESOURCE_EXHAUSTED'],
  unimplemented: [501, 'UNIMPLEMENTED'],
  unavailable: [503, 'UNAVAILABLE'],
} as const satisfies Record<ErrorKind, readonly [number, string]>;

/** The Google error answer for `err`. */
export function errorResponse(err: unknown, requestId: string): ApiResponse {
  if (err instanceof DomainError) {
    const [code, status] = statusByKind[err.kind];
    const headers = code === 401 ? { 'WWW-Authenticate': WWW_AUTHENTICATE } : undefined;
    return jsonResult(code, googleError(code, status, err.reason, err.message, err.where), headers);
  }
  // DynamoDB still throttling after the client's retries (any operation's reads or writes): the caller retries later.
  if (isThrottled(err)) {
    logger.warn('throttled by DynamoDB', { error: err as Error, correlation_id: requestId });
    return errorResponse(overloaded(), requestId);
  }
  // Unknown failure: log it with the request id, never echo its message or stack to the caller.
  logger.error('unhandled error', { error: err as Error, correlation_id: requestId });
  return jsonResult(500, googleError(500, 'INTERNAL', 'backendError', `Backend Error (request ${requestId})`));
}

/** The same, rendered as a proxy result with the default rendering. */
export const toErrorResult = (err: unknown, requestId: string): APIGatewayProxyResult =>
  render(errorResponse(err, requestId));
