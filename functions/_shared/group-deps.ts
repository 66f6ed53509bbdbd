/** The adapters the group operations run on in a Lambda (and in the local server, which imports the handlers). */
import { dynamoDirectoryRepository } from '../core/directory/directory-repository';
import { newGroupId } from '../core/groups/group';
import { dynamoGroupRepository } from '../core/groups/group-repository';
import type { GroupDeps } from '../core/groups/group-service';
import { hmacPageTokens } from '../core/groups/page-token';
import * as env from './env';
import { tableContext } from './table';

export const groupDeps = (): GroupDeps => {
  const table = tableContext();
  return {
    groups: dynamoGroupRepository(table),
    directory: dynamoDirectoryRepository(table),
    pageTokens: hmacPageTokens(env.pageTokenSecret()),
    now: () => new Date(),
    newId: newGroupId,
  };
};
