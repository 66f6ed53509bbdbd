/** groupItems.insert: POST /v2/groupItems (a resource already in the group returns its existing membership). */
import { groupDeps } from '../_shared/group-deps';
import { httpHandler } from '../_shared/http-handler';
import { jsonResult } from '../_shared/http-result';
import { toGroupItemResource } from '../core/groups/group';
import { callerFrom, parseInsertGroupItem } from '../core/groups/group-commands';
import { type GroupDeps, insertGroupItem } from '../core/groups/group-service';
import { GROUP_ITEM_FIELDS } from '../schemas';

const OPTIONS = { body: 'json', response: GROUP_ITEM_FIELDS } as const;

export const makeHandler = (deps: GroupDeps) =>
  httpHandler('groupItems.insert', OPTIONS, async ({ query, body, principal }) => {
    const { item } = await insertGroupItem(deps, callerFrom(principal, query), parseInsertGroupItem(body));
    return jsonResult(200, toGroupItemResource(item));
  });

export const handler = makeHandler(groupDeps());
