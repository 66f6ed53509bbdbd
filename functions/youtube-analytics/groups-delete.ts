/** groups.delete: DELETE /v2/groups?id=… → 204; removes the group and every item in it. */
import { groupDeps } from '../_shared/group-deps';
import { httpHandler } from '../_shared/http-handler';
import { noContent } from '../_shared/http-result';
import { callerFrom, parseGroupIdParam } from '../core/groups/group-commands';
import { deleteGroup, type GroupDeps } from '../core/groups/group-service';
import { EMPTY_RESPONSE_FIELDS } from '../schemas';

export const makeHandler = (deps: GroupDeps) =>
  httpHandler('groups.delete', { body: 'none', response: EMPTY_RESPONSE_FIELDS }, async ({ query, principal }) => {
    await deleteGroup(deps, callerFrom(principal, query), parseGroupIdParam(query, 'id'));
    return noContent();
  });

export const handler = makeHandler(groupDeps());
