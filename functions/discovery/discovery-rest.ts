/** discovery.rest: GET /$discovery/rest?version=v2 | v1alpha (public, as Google's discovery documents are). */
import * as env from '../_shared/env';
import { publicHttpHandler } from '../_shared/http-handler';
import { jsonResult } from '../_shared/http-result';
import { notFound } from '../core/errors';
import { discoveryDocument } from './document';

export const handler = publicHttpHandler('discovery.rest', { body: 'none' }, async ({ query, rootUrl }) => {
  const doc = discoveryDocument(query.version ?? '', rootUrl, env.scopeBase());
  if (!doc) throw notFound('notFound', 'Requested entity was not found.');
  // Names this request's own host, so it may be kept only by this caller.
  return jsonResult(200, doc, { 'Cache-Control': 'private, max-age=300' });
});
