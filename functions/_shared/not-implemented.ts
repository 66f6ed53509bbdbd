/** Placeholder for operations whose issue has not landed: an honest 501 in the Google error shape. */
import { DomainError } from '../core/errors';
import type { RouteId } from '../routes';
import { httpHandler, type ProxyHandler } from './http-handler';

export const notImplementedHandler = (operation: RouteId): ProxyHandler =>
  httpHandler(operation, { body: 'ignore' }, async () => {
    throw new DomainError('unimplemented', 'notImplemented', `${operation} is not implemented yet in this release.`);
  });
