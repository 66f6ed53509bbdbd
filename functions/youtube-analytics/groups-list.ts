/** groups.list: GET /v2/groups?id=… | mine=true[&pageToken=…] */
import { groupDeps } from '../_shared/group-deps';
import { httpHandler } from '../_shared/http-handler';
import { jsonResult } from '../_shared/http-result';
import { listEtag, toGroupResource } from '../core/groups/group';
import { callerFrom, parseListGroups } from '../core/groups/group-commands';
import { type GroupDeps, listGroups } from '../core/groups/group-service';
import { LIST_GROUPS_FIELDS } from '../schemas';

export const makeHandler = (deps: GroupDeps) =>
  httpHandler('groups.list', { body: 'none', response: LIST_GROUPS_FIELDS }, async ({ query, principal }) => {
    const page = await listGroups(deps, callerFrom(principal, query), parseListGroups(query));
    const items = page.groups.map(toGroupResource);
    return jsonResult(200, {
      kind: 'youtube#groupListResponse',
      etag: listEtag(items),
      items,
      ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
    });
  });

export const handler = makeHandler(groupDeps());
