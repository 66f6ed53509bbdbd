/** groupItems.list: GET /v2/groupItems?groupId=… (all items; a group holds at most 500). */
import { groupDeps } from '../_shared/group-deps';
import { httpHandler } from '../_shared/http-handler';
import { jsonResult } from '../_shared/http-result';
import { listEtag, toGroupItemResource } from '../core/groups/group';
import { callerFrom, parseGroupIdParam } from '../core/groups/group-commands';
import { type GroupDeps, listGroupItems } from '../core/groups/group-service';
import { LIST_GROUP_ITEMS_FIELDS } from '../schemas';

export const makeHandler = (deps: GroupDeps) =>
  httpHandler('groupItems.list', { body: 'none', response: LIST_GROUP_ITEMS_FIELDS }, async ({ query, principal }) => {
    const items = (await listGroupItems(deps, callerFrom(principal, query), parseGroupIdParam(query, 'groupId'))).map(
      toGroupItemResource,
    );
    return jsonResult(200, { kind: 'youtube#groupItemListResponse', etag: listEtag(items), items });
  });

export const handler = makeHandler(groupDeps());
