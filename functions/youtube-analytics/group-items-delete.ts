/** groupItems.delete: DELETE /v2/groupItems?id=… → 204 */
import { groupDeps } from '../_shared/group-deps';
import { httpHandler } from '../_shared/http-handler';
import { noContent } from '../_shared/http-result';
import { callerFrom, parseIdParam } from '../core/groups/group-commands';
import { deleteGroupItem, type GroupDeps } from '../core/groups/group-service';
import { EMPTY_RESPONSE_FIELDS } from '../schemas';

export const makeHandler = (deps: GroupDeps) =>
  httpHandler('groupItems.delete', { body: 'none', response: EMPTY_RESPONSE_FIELDS }, async ({ query, principal }) => {
    await deleteGroupItem(deps, callerFrom(principal, query), parseIdParam(query, 'id'));
    return noContent();
  });

export const handler = makeHandler(groupDeps());
