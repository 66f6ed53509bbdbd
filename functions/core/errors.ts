/**
 * Domain errors: what went wrong, in contract terms. Each carries a stable `kind` (mapped to an HTTP status and
 * a Google canonical status in functions/_shared/http-errors.ts, and nowhere else), a Google `reason`, and a
 * message that is safe to show to the caller.
 */
export type ErrorKind =
  | 'invalid_argument'
  | 'failed_precondition'
  | 'precondition_failed'
  | 'unauthenticated'
  | 'permission_denied'
  | 'not_found'
  | 'already_exists'
  | 'aborted'
  | 'resource_exhausted'
  | 'unimplemented'
  | 'unavailable';

export interface ErrorLocation {
  readonly location?: string;
  readonly locationType?: 'parameter' | 'header' | 'body';
}

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly reason: string,
    message: string,
    readonly where: ErrorLocation = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** 400 INVALID_ARGUMENT. */
export const invalidArgument = (reason: string, message: string, where?: ErrorLocation) =>
  new DomainError('invalid_argument', reason, message, where);

/** 400 `required`, for a missing parameter or field. */
export const required = (name: string, locationType: 'parameter' | 'body' = 'parameter') =>
  new DomainError('invalid_argument', 'required', `Required parameter: ${name}`, { location: name, locationType });

/** 503 UNAVAILABLE `backendError`: DynamoDB still throttling or contended after bounded retries; retry later. */
export const overloaded = () =>
  new DomainError('unavailable', 'backendError', 'The service is temporarily overloaded; retry with backoff.');

export const notFound = (reason: string, message: string) => new DomainError('not_found', reason, message);

export const permissionDenied = (reason: string, message: string) =>
  new DomainError('permission_denied', reason, message);

export const unauthenticated = (message = 'Request had invalid authentication credentials.') =>
  new DomainError('unauthenticated', 'authError', message, { location: 'Authorization', locationType: 'header' });
