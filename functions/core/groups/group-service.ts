/**
 * The six group operations: who acts (the acting owner), what it may group, and the answers. Race-sensitive
 * rules (500 items, one kind, ownership, no insert into a deleted group) are enforced by the repository's
 * DynamoDB conditions; this module never reads-then-writes to enforce them.
 */
import { type ActingOwner, actorKey, type DirectoryRepository, type ResourceKind } from '../directory/directory';
import type { ScopeName } from '../scopes';
import { GROUPS_PAGE_SIZE, type Group, type GroupItem, newEtag, parseGroupItemId } from './group';
import type { InsertGroupCommand, InsertGroupItemCommand, ListGroupsQuery, UpdateGroupCommand } from './group-commands';
import { groupErrors } from './group-errors';
import type { GroupRepository } from './group-repository';
import type { PageTokenCodec } from './page-token';

export interface GroupDeps {
  readonly groups: GroupRepository;
  readonly directory: DirectoryRepository;
  readonly pageTokens: PageTokenCodec;
  readonly now: () => Date;
  readonly newId: (now: Date) => string;
}

export interface Caller {
  readonly sub: string;
  readonly scopes: ReadonlySet<ScopeName>;
  /** `onBehalfOfContentOwner`, when given. */
  readonly contentOwner?: string;
}

/** What each kind of acting owner may put in a group (the public contract's rules). */
export const ALLOWED_KINDS: Record<ActingOwner['type'], readonly ResourceKind[]> = {
  channel: ['youtube#video', 'youtube#playlist'],
  user: ['youtube#video', 'youtube#playlist'],
  contentOwner: ['youtube#video', 'youtube#playlist', 'youtube#channel', 'youtubePartner#asset'],
};

const OWNER_NOUN: Record<ActingOwner['type'], string> = {
  channel: 'channel owner',
  user: 'channel owner',
  contentOwner: 'content owner',
};

/**
 * Without onBehalfOfContentOwner the caller acts as its channel (or as itself when it owns none); with it, the
 * caller must manage that content owner and hold the partner scope. Identity comes from the directory only.
 */
export async function actingOwner(deps: Pick<GroupDeps, 'directory'>, caller: Caller): Promise<ActingOwner> {
  const profile = await deps.directory.profile(caller.sub);
  if (caller.contentOwner !== undefined) {
    if (!profile.contentOwners.includes(caller.contentOwner))
      throw groupErrors.notYourContentOwner(caller.contentOwner);
    if (!caller.scopes.has('video-platform-partner')) throw groupErrors.partnerScopeRequired();
    return { type: 'contentOwner', id: caller.contentOwner };
  }
  const channel = [...profile.channels].sort()[0];
  return channel ? { type: 'channel', id: channel } : { type: 'user', id: caller.sub };
}

function assertKindAllowed(owner: ActingOwner, kind: ResourceKind): void {
  const allowed = ALLOWED_KINDS[owner.type];
  if (!allowed.includes(kind)) throw groupErrors.itemTypeNotAllowed(kind, OWNER_NOUN[owner.type], allowed);
}

/** A group being deleted is, to every operation, a group that does not exist. */
async function activeGroup(deps: GroupDeps, actor: string, id: string): Promise<Group> {
  const group = await deps.groups.get(actor, id);
  if (group?.status !== 'active') throw groupErrors.groupNotFound(id);
  return group;
}

export async function insertGroup(deps: GroupDeps, caller: Caller, cmd: InsertGroupCommand): Promise<Group> {
  const owner = await actingOwner(deps, caller);
  if (cmd.itemType) assertKindAllowed(owner, cmd.itemType);
  const now = deps.now();
  const group: Group = {
    id: deps.newId(now),
    actor: actorKey(owner),
    title: cmd.title,
    ...(cmd.itemType ? { declaredItemType: cmd.itemType, itemType: cmd.itemType } : {}),
    itemCount: 0,
    status: 'active',
    etag: newEtag(),
    publishedAt: now.toISOString(),
  };
  await deps.groups.create(group);
  return group;
}

export async function updateGroup(deps: GroupDeps, caller: Caller, cmd: UpdateGroupCommand): Promise<Group> {
  const owner = await actingOwner(deps, caller);
  return deps.groups.updateTitle(actorKey(owner), cmd.id, cmd.title, cmd.etag);
}

export interface GroupPage {
  readonly groups: Group[];
  readonly nextPageToken?: string;
}

/** By id: the caller's groups among those ids, in the order asked. Mine: pages of 25 in id (creation) order. */
export async function listGroups(deps: GroupDeps, caller: Caller, query: ListGroupsQuery): Promise<GroupPage> {
  const actor = actorKey(await actingOwner(deps, caller));
  if (query.by === 'ids') {
    const groups = await deps.groups.getMany(actor, query.ids);
    return { groups: groups.filter((g) => g.status === 'active') };
  }
  const afterId = query.pageToken ? deps.pageTokens.decode(actor, query.pageToken) : undefined;
  const page = await deps.groups.listPage(actor, afterId, GROUPS_PAGE_SIZE);
  const last = page.groups[page.groups.length - 1];
  return page.more && last ? { groups: page.groups, nextPageToken: deps.pageTokens.encode(actor, last.id) } : page;
}

/** Fence, drain, finish. Safe against concurrent inserts; a retry resumes an interrupted delete. */
export async function deleteGroup(deps: GroupDeps, caller: Caller, id: string): Promise<void> {
  const actor = actorKey(await actingOwner(deps, caller));
  await deps.groups.beginDelete(actor, id);
  await deps.groups.drainItems(actor, id);
  await deps.groups.finishDelete(actor, id);
}

export async function listGroupItems(deps: GroupDeps, caller: Caller, groupId: string): Promise<GroupItem[]> {
  const actor = actorKey(await actingOwner(deps, caller));
  await activeGroup(deps, actor, groupId);
  return deps.groups.listItems(actor, groupId);
}

/** Inserting a resource already in the group returns the existing membership (safe retries, no count change). */
export async function insertGroupItem(
  deps: GroupDeps,
  caller: Caller,
  cmd: InsertGroupItemCommand,
): Promise<{ item: GroupItem; created: boolean }> {
  const owner = await actingOwner(deps, caller);
  assertKindAllowed(owner, cmd.kind);
  return deps.groups.insertItem(actorKey(owner), cmd.groupId, cmd.kind, cmd.resourceId);
}

export async function deleteGroupItem(deps: GroupDeps, caller: Caller, itemId: string): Promise<void> {
  const actor = actorKey(await actingOwner(deps, caller));
  const membership = parseGroupItemId(itemId);
  if (!membership) throw groupErrors.groupItemNotFound(itemId);
  await deps.groups.deleteItem(actor, membership.groupId, membership.kind, membership.resourceId, itemId);
}
