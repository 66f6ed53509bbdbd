/**
 * Every rule of groups and group items has its own documented error (README, "Groups: rules and errors").
 * Status codes are derived from the kind in functions/_shared/http-errors.ts.
 */
import { DomainError, overloaded } from '../errors';

export const groupErrors = {
  groupNotFound: (id: string) => new DomainError('not_found', 'groupNotFound', `Group ${id} was not found.`),
  groupItemNotFound: (id: string) =>
    new DomainError('not_found', 'groupItemNotFound', `Group item ${id} was not found.`),
  resourceNotFound: (kind: string, id: string) =>
    new DomainError('not_found', 'resourceNotFound', `Resource ${kind} ${id} was not found.`),
  itemLimitReached: (max: number) =>
    new DomainError(
      'failed_precondition',
      'itemLimitReached',
      `The group already holds ${max} items, the most a group can hold.`,
    ),
  itemTypeMismatch: (groupKind: string, kind: string) =>
    new DomainError(
      'failed_precondition',
      'itemTypeMismatch',
      `The group holds ${groupKind} items; a ${kind} cannot be added to it.`,
    ),
  itemTypeNotAllowed: (kind: string, ownerType: string, allowed: readonly string[]) =>
    new DomainError(
      'invalid_argument',
      'itemTypeNotAllowed',
      `A ${ownerType} cannot group ${kind} resources; allowed: ${allowed.join(', ')}.`,
    ),
  notYourContentOwner: (id: string) =>
    new DomainError(
      'permission_denied',
      'forbidden',
      `The authenticated user cannot act on behalf of content owner ${id}.`,
    ),
  partnerScopeRequired: () =>
    new DomainError(
      'permission_denied',
      'insufficientPermissions',
      'Acting on behalf of a content owner requires the video-platform-partner scope.',
    ),
  etagMismatch: () =>
    new DomainError('precondition_failed', 'conditionNotMet', 'The group was modified since the given etag.', {
      location: 'etag',
      locationType: 'body',
    }),
  invalidPageToken: () =>
    new DomainError('invalid_argument', 'invalidPageToken', 'The page token is invalid.', {
      location: 'pageToken',
      locationType: 'parameter',
    }),
  contention: () =>
    new DomainError('aborted', 'aborted', 'The group is being changed by other requests; retry the request.'),
  overloaded,
};
