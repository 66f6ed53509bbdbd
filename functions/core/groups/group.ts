/** Groups and group items: the domain model, its invariants, and the public (wire) representation. */
import { createHash, randomBytes } from 'node:crypto';
import type { DirectoryKind } from '../db/keys';
import type { ResourceKind } from '../directory/directory';

export const MAX_ITEMS_PER_GROUP = 500;
export const MAX_TITLE_LENGTH = 200;
export const GROUPS_PAGE_SIZE = 25;
export const MAX_IDS_PER_LIST = 50;

export interface Group {
  readonly id: string;
  /** Acting-owner key (see directory.ts): the partition the group lives in. */
  readonly actor: string;
  readonly title: string;
  /** The kind given at insert; binding for the group's whole life. */
  readonly declaredItemType?: ResourceKind;
  /** The kind of the items; binding only while the group has items (or a declared kind). */
  readonly itemType?: ResourceKind;
  readonly itemCount: number;
  readonly status: 'active' | 'deleting';
  readonly etag: string;
  readonly publishedAt: string;
}

export interface GroupItem {
  readonly id: string;
  readonly groupId: string;
  readonly kind: ResourceKind;
  readonly resourceId: string;
  readonly etag: string;
}

/** A group without a declared kind takes its first item's kind and is kind-free again once empty. */
export const effectiveItemType = (g: Pick<Group, 'declaredItemType' | 'itemType' | 'itemCount'>) =>
  g.declaredItemType ?? (g.itemCount > 0 ? g.itemType : undefined);

export const directoryKindOf: Record<ResourceKind, DirectoryKind> = {
  'youtube#video': 'VIDEO',
  'youtube#playlist': 'PLAYLIST',
  'youtube#channel': 'CHANNEL',
  'youtubePartner#asset': 'ASSET',
};

/** Group ids sort by creation time (48-bit ms timestamp, then randomness), so "id order" is creation order. */
export function newGroupId(now: Date = new Date()): string {
  const time = now.getTime().toString(36).padStart(10, '0');
  return `${time}${randomBytes(10).toString('base64url')}`.replace(/[-_]/g, 'x');
}

/** Fresh opaque etag for a changed resource (quoted, as HTTP entity tags are). */
export const newEtag = (): string => `"${randomBytes(16).toString('base64url')}"`;

/**
 * Etag of a list answer: changes whenever its content does. Every change to a group or an item gives it a fresh
 * etag, so the ids and etags in order stand for the whole list, and hashing them costs far less than hashing the
 * list's JSON.
 */
export const listEtag = (items: readonly { readonly id: string; readonly etag: string }[]): string => {
  // One update of the whole text (the same digest as one per item, without a native call per item).
  let text = '';
  for (const item of items) text += `${item.id}\u0000${item.etag}\u0001`;
  return `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
};

/** Group item ids name their membership: group, kind and resource, opaque to callers. */
export const groupItemId = (groupId: string, kind: ResourceKind, resourceId: string): string =>
  Buffer.from(`${groupId}|${directoryKindOf[kind]}|${resourceId}`, 'utf8').toString('base64url');

const KIND_BY_DIRECTORY = Object.fromEntries(Object.entries(directoryKindOf).map(([k, v]) => [v, k])) as Record<
  DirectoryKind,
  ResourceKind
>;

export function parseGroupItemId(id: string): { groupId: string; kind: ResourceKind; resourceId: string } | undefined {
  if (!/^[A-Za-z0-9_-]{1,1100}$/.test(id)) return undefined;
  const [groupId, kind, ...rest] = Buffer.from(id, 'base64url').toString('utf8').split('|');
  const resourceId = rest.join('|');
  const resourceKind = kind ? KIND_BY_DIRECTORY[kind as DirectoryKind] : undefined;
  if (!groupId || !/^[A-Za-z0-9]{1,64}$/.test(groupId) || !resourceKind || !resourceId) return undefined;
  // Reject non-canonical encodings so one membership has exactly one id.
  if (groupItemId(groupId, resourceKind, resourceId) !== id) return undefined;
  return { groupId, kind: resourceKind, resourceId };
}

export const toGroupResource = (g: Group) => {
  const itemType = effectiveItemType(g);
  return {
    kind: 'youtube#group',
    etag: g.etag,
    id: g.id,
    snippet: { publishedAt: g.publishedAt, title: g.title },
    contentDetails: itemType ? { itemCount: String(g.itemCount), itemType } : { itemCount: String(g.itemCount) },
  };
};

export const toGroupItemResource = (i: GroupItem) => ({
  kind: 'youtube#groupItem',
  etag: i.etag,
  id: i.id,
  groupId: i.groupId,
  resource: { kind: i.kind, id: i.resourceId },
});
