/**
 * The table items a directory stands for (access patterns D1, D2, D4, D5, P1, P2 in core/db/keys.ts). Pure: apply
 * writes the difference between the items of the directory the table holds and those of the target.
 * - Access items (grants, channel and content-owner entries, links, accounts, properties, the records of D5) belong
 *   to the directory alone: each is written whole.
 * - Resource entries (videos, playlists, assets) are shared with ingest, which records the resources exports name:
 *   the directory only adds or removes itself in their `listedBy` set and the owners it justifies.
 */
import type { DirectoryRecordKind } from '../db/keys';
import * as keys from '../db/keys';
import type { TableKey } from '../db/table-definition';
import { channelActor, contentOwnerActor } from './directory';
import type { DirectoryFile } from './directory-file';
import { type EntityKind, entityId, SECTIONS } from './directory-target';

export interface AccessItem {
  readonly key: TableKey;
  /** Everything but the key. */
  readonly attributes: Record<string, unknown>;
  /** Grants of one user (and that user's record) go in one transaction: a user loses or gains access at once. */
  readonly user?: string;
  /** A channel entry whose link this item sets (ingest's links revision moves with it). */
  readonly linkOf?: string;
}

export const itemId = (k: TableKey) => `${k.pk}\u0000${k.sk}`;

const RECORD_KIND: Record<EntityKind, DirectoryRecordKind> = {
  user: 'USER',
  channel: 'CHANNEL',
  contentOwner: 'CONTENT_OWNER',
  account: 'ACCOUNT',
  property: 'PROPERTY',
};

/** channel id → the content owner it is linked to, with the day the link began. */
export function linksOf(dir: DirectoryFile): Map<string, { contentOwnerId: string; linkedSince: string }> {
  const out = new Map<string, { contentOwnerId: string; linkedSince: string }>();
  for (const co of dir.contentOwners) {
    for (const l of co.linkedChannels) out.set(l.channelId, { contentOwnerId: co.id, linkedSince: l.linkedSince });
  }
  return out;
}

export function accessItems(dir: DirectoryFile): Map<string, AccessItem> {
  const items = new Map<string, AccessItem>();
  const add = (key: TableKey, attributes: Record<string, unknown>, extra: Partial<AccessItem> = {}) =>
    items.set(itemId(key), { key, attributes, ...extra });

  for (const { kind, section } of SECTIONS) {
    for (const entity of dir[section]) {
      const id = entityId(entity);
      const user = kind === 'user' ? id : undefined;
      add(
        keys.directoryRecord(RECORD_KIND[kind], id),
        { entity: 'DirectoryRecord', kind, doc: JSON.stringify(entity) },
        user ? { user } : {},
      );
    }
  }
  for (const u of dir.users) {
    const user = u.sub;
    for (const c of u.channels) add(keys.userOwnsChannel(user, c), { entity: 'Grant' }, { user });
    for (const co of u.contentOwners) {
      add(keys.userManagesContentOwner(user, co), { entity: 'Grant' }, { user });
      // The same grant on the content owner's side: its reports read it by key with the links (D4).
      add(keys.contentOwnerManager(co, user), { entity: 'Grant', manager: user }, { user });
    }
    for (const r of u.reads) add(keys.userReads(user, r), { entity: 'Grant' }, { user });
  }
  const links = linksOf(dir);
  for (const c of dir.channels) {
    const link = links.get(c.id);
    add(
      keys.directoryEntry('CHANNEL', c.id),
      {
        entity: 'DirectoryCHANNEL',
        id: c.id,
        title: c.title,
        ...(link
          ? {
              contentOwnerId: link.contentOwnerId,
              linkedSince: link.linkedSince,
              // A channel itself is groupable only by the content owner it is linked to.
              owners: new Set([contentOwnerActor(link.contentOwnerId)]),
            }
          : {}),
      },
      { linkOf: c.id },
    );
  }
  for (const co of dir.contentOwners) {
    add(keys.directoryEntry('CONTENT_OWNER', co.id), {
      entity: 'DirectoryCONTENT_OWNER',
      id: co.id,
      displayName: co.displayName,
    });
    for (const l of co.linkedChannels) {
      add(keys.contentOwnerLink(co.id, l.channelId), {
        entity: 'ChannelLink',
        channelId: l.channelId,
        linkedSince: l.linkedSince,
      });
    }
    // Every link in one item, read by key with a report's facts (D4); the file allows no more than it can hold.
    add(keys.contentOwnerChannels(co.id), {
      entity: 'ChannelLinks',
      links: Object.fromEntries(co.linkedChannels.map((l) => [l.channelId, l.linkedSince])),
    });
  }
  for (const a of dir.accounts) {
    add(keys.account(a.id), { entity: 'Account', name: `accounts/${a.id}`, id: a.id, displayName: a.displayName });
  }
  for (const p of dir.properties) add(keys.property(p.name.slice('properties/'.length)), { entity: 'Property', ...p });
  return items;
}

/** Items compare by content; sets as sorted lists. */
export const sameAttributes = (a: Record<string, unknown>, b: Record<string, unknown>): boolean =>
  stableJson(a) === stableJson(b);

function stableJson(value: unknown): string {
  if (value instanceof Set) return stableJson([...value].sort());
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export type ResourceKind = 'VIDEO' | 'PLAYLIST' | 'ASSET';

/** A resource the file lists, by whom (`listedBy`), and the owners that listing justifies. */
export interface ListedResource {
  readonly kind: ResourceKind;
  readonly id: string;
  /** The channel that lists it (videos and playlists); a claimed video listed by no channel has none. */
  readonly channelId?: string;
  readonly listedBy: ReadonlySet<string>;
  readonly owners: ReadonlySet<string>;
}

export const resourceId = (kind: ResourceKind, id: string) => `${kind}#${id}`;

/**
 * The resources a directory lists and their acting owners: a channel's videos and playlists are its own and its
 * content owner's; a content owner's assets and claimed videos are the content owner's.
 */
export function listedResources(dir: DirectoryFile): Map<string, ListedResource> {
  const links = linksOf(dir);
  const out = new Map<
    string,
    { kind: ResourceKind; id: string; channelId?: string; listedBy: Set<string>; owners: Set<string> }
  >();
  const entry = (kind: ResourceKind, id: string) => {
    const k = resourceId(kind, id);
    let e = out.get(k);
    if (!e) {
      e = { kind, id, listedBy: new Set(), owners: new Set() };
      out.set(k, e);
    }
    return e;
  };
  for (const c of dir.channels) {
    const link = links.get(c.id);
    const owners = [channelActor(c.id), ...(link ? [contentOwnerActor(link.contentOwnerId)] : [])];
    for (const [kind, ids] of [
      ['VIDEO', c.videos],
      ['PLAYLIST', c.playlists],
    ] as const) {
      for (const id of ids) {
        const e = entry(kind, id);
        e.channelId = c.id;
        e.listedBy.add(channelActor(c.id));
        for (const o of owners) e.owners.add(o);
      }
    }
  }
  for (const co of dir.contentOwners) {
    const actor = contentOwnerActor(co.id);
    for (const [kind, ids] of [
      ['ASSET', co.assets],
      ['VIDEO', co.claimedVideos],
    ] as const) {
      for (const id of ids) {
        const e = entry(kind, id);
        e.listedBy.add(actor);
        e.owners.add(actor);
      }
    }
  }
  return out;
}
