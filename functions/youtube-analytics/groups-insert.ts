/** groups.insert: POST /v2/groups */
import { groupDeps } from '../_shared/group-deps';
import { httpHandler } from '../_shared/http-handler';
import { jsonResult } from '../_shared/http-result';
import { toGroupResource } from '../core/groups/group';
import { callerFrom, parseInsertGroup } from '../core/groups/group-commands';
import { type GroupDeps, insertGroup } from '../core/groups/group-service';
import { GROUP_FIELDS } from '../schemas';

export const makeHandler = (deps: GroupDeps) =>
  httpHandler('groups.insert', { body: 'json', response: GROUP_FIELDS }, async ({ query, body, principal }) =>
    jsonResult(200, toGroupResource(await insertGroup(deps, callerFrom(principal, query), parseInsertGroup(body)))),
  );

export const handler = makeHandler(groupDeps());
