/** groups.update: PUT /v2/groups (only the title changes; an `etag` in the body makes it conditional). */
import { groupDeps } from '../_shared/group-deps';
import { httpHandler } from '../_shared/http-handler';
import { jsonResult } from '../_shared/http-result';
import { toGroupResource } from '../core/groups/group';
import { callerFrom, parseUpdateGroup } from '../core/groups/group-commands';
import { type GroupDeps, updateGroup } from '../core/groups/group-service';
import { GROUP_FIELDS } from '../schemas';

export const makeHandler = (deps: GroupDeps) =>
  httpHandler('groups.update', { body: 'json', response: GROUP_FIELDS }, async ({ query, body, principal }) =>
    jsonResult(200, toGroupResource(await updateGroup(deps, callerFrom(principal, query), parseUpdateGroup(body)))),
  );

export const handler = makeHandler(groupDeps());
