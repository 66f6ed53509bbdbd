/**
 * Loads a directory description (who owns which channel, video, playlist, asset, property) into the table.
 * The same format serves the demo world and a deployment's own directory. Loading is idempotent: every entry is
 * an upsert guarded by its entity type, so a reload rewrites entries and can never clobber another kind of item.
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../db/conditions';
import { type DirectoryKind, keys } from '../db/keys';
import type { Property } from '../properties/property';
import { dynamoPropertyRepository } from '../properties/property-repository';
import { actorKey } from './directory';
import type { TableContext } from './directory-repository';

export interface DirectoryWorld {
  users: { sub: string; channels?: string[]; contentOwners?: string[]; reads?: string[] }[];
  channels: { id: string; title: string; videos: string[]; playlists: string[] }[];
  contentOwners: {
    id: string;
    displayName: string;
    /** Channels linked to this content owner, with the day the link began (YYYY-MM-DD). */
    linkedChannels?: { channelId: string; linkedSince: string }[];
    assets?: string[];
    /** Videos of other channels this content owner has claimed. */
    claimedVideos?: string[];
  }[];
  accounts: { id: string; displayName: string }[];
  properties: Property[];
}

interface Entry {
  kind: DirectoryKind;
  id: string;
  owners: Set<string>;
  attrs: Record<string, unknown>;
  channelId?: string;
}

/** Derives each entry's acting owners (who may put it in a group) from ownership and links. */
export function directoryEntries(world: DirectoryWorld): Entry[] {
  const linkOf = new Map<string, { contentOwnerId: string; linkedSince: string }>();
  for (const co of world.contentOwners) {
    for (const l of co.linkedChannels ?? [])
      linkOf.set(l.channelId, { contentOwnerId: co.id, linkedSince: l.linkedSince });
  }
  const ownerSubOf = new Map<string, string>();
  for (const u of world.users) for (const c of u.channels ?? []) ownerSubOf.set(c, u.sub);

  const entries: Entry[] = [];
  const byVideo = new Map<string, Entry>();
  for (const ch of world.channels) {
    const link = linkOf.get(ch.id);
    const channelActors = [actorKey({ type: 'channel', id: ch.id })];
    if (link) channelActors.push(actorKey({ type: 'contentOwner', id: link.contentOwnerId }));
    entries.push({
      kind: 'CHANNEL',
      id: ch.id,
      // A channel itself is groupable only by the content owner it is linked to.
      owners: new Set(link ? [actorKey({ type: 'contentOwner', id: link.contentOwnerId })] : []),
      attrs: {
        title: ch.title,
        ownerSub: ownerSubOf.get(ch.id),
        contentOwnerId: link?.contentOwnerId,
        linkedSince: link?.linkedSince,
      },
    });
    for (const v of ch.videos) {
      const e: Entry = { kind: 'VIDEO', id: v, owners: new Set(channelActors), attrs: {}, channelId: ch.id };
      byVideo.set(v, e);
      entries.push(e);
    }
    for (const p of ch.playlists) {
      entries.push({ kind: 'PLAYLIST', id: p, owners: new Set(channelActors), attrs: {}, channelId: ch.id });
    }
  }
  for (const co of world.contentOwners) {
    const actor = actorKey({ type: 'contentOwner', id: co.id });
    entries.push({ kind: 'CONTENT_OWNER', id: co.id, owners: new Set(), attrs: { displayName: co.displayName } });
    for (const a of co.assets ?? []) entries.push({ kind: 'ASSET', id: a, owners: new Set([actor]), attrs: {} });
    for (const v of co.claimedVideos ?? []) byVideo.get(v)?.owners.add(actor);
  }
  return entries;
}

const guardedPut = (ctx: TableContext, item: Record<string, unknown>) =>
  ctx.db.send(
    new PutCommand({
      TableName: ctx.tableName,
      Item: item,
      ConditionExpression: 'attribute_not_exists(pk) OR entity = :entity',
      ExpressionAttributeValues: { ':entity': item.entity },
    }),
  );

/** Links kept in a content owner's CHANNELS item; past this many its reports Query the link items instead. */
export const MAX_LISTED_LINKS = 5_000;
const LINKS_PER_UPDATE = 50;

/**
 * Adds links to the content owner's CHANNELS item (D4), creating it empty first; links of earlier loads stay. An
 * update that would take the list past MAX_LISTED_LINKS marks it `overflow` instead (the list is then not used).
 */
async function addToChannelList(
  ctx: TableContext,
  contentOwnerId: string,
  links: readonly { channelId: string; linkedSince: string }[],
): Promise<void> {
  const key = keys.contentOwnerChannels(contentOwnerId);
  const update = (input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName' | 'Key'>) =>
    ctx.db.send(new UpdateCommand({ TableName: ctx.tableName, Key: key, ...input }));
  await update({
    UpdateExpression: 'SET entity = :entity, #links = if_not_exists(#links, :empty)',
    ConditionExpression: 'attribute_not_exists(pk) OR entity = :entity',
    ExpressionAttributeNames: { '#links': 'links' },
    ExpressionAttributeValues: { ':entity': 'ChannelLinks', ':empty': {} },
  });
  for (let at = 0; at < links.length; at += LINKS_PER_UPDATE) {
    const part = links.slice(at, at + LINKS_PER_UPDATE);
    try {
      await update({
        UpdateExpression: `SET ${part.map((_, i) => `#links.#c${i} = :s${i}`).join(', ')}`,
        ConditionExpression: 'entity = :entity AND size(#links) <= :room',
        ExpressionAttributeNames: {
          '#links': 'links',
          ...Object.fromEntries(part.map((l, i) => [`#c${i}`, l.channelId])),
        },
        ExpressionAttributeValues: {
          ':entity': 'ChannelLinks',
          ':room': MAX_LISTED_LINKS - part.length,
          ...Object.fromEntries(part.map((l, i) => [`:s${i}`, l.linkedSince])),
        },
      });
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      await update({
        UpdateExpression: 'SET overflow = :yes',
        ConditionExpression: 'entity = :entity',
        ExpressionAttributeValues: { ':entity': 'ChannelLinks', ':yes': true },
      });
      return;
    }
  }
}

/** Runs `tasks` with at most `limit` in flight. */
async function inParallel(tasks: (() => Promise<unknown>)[], limit = 16): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await (tasks[next++] as () => Promise<unknown>)();
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
}

export async function loadDirectory(ctx: TableContext, world: DirectoryWorld): Promise<number> {
  const tasks: (() => Promise<unknown>)[] = [];
  for (const e of directoryEntries(world)) {
    tasks.push(() =>
      guardedPut(ctx, {
        ...keys.directoryEntry(e.kind, e.id),
        ...(e.channelId ? keys.channelResourcesGsi(e.channelId, e.kind, e.id) : {}),
        entity: `Directory${e.kind}`,
        id: e.id,
        channelId: e.channelId,
        ...(e.owners.size ? { owners: e.owners } : {}),
        ...e.attrs,
      }),
    );
  }
  for (const u of world.users) {
    for (const c of u.channels ?? [])
      tasks.push(() => guardedPut(ctx, { ...keys.userOwnsChannel(u.sub, c), entity: 'Grant' }));
    for (const co of u.contentOwners ?? []) {
      tasks.push(() => guardedPut(ctx, { ...keys.userManagesContentOwner(u.sub, co), entity: 'Grant' }));
      // The same grant on the content owner's side: its reports read it by key with the links (D4).
      tasks.push(() => guardedPut(ctx, { ...keys.contentOwnerManager(co, u.sub), entity: 'Grant', manager: u.sub }));
    }
    for (const r of u.reads ?? []) tasks.push(() => guardedPut(ctx, { ...keys.userReads(u.sub, r), entity: 'Grant' }));
  }
  for (const co of world.contentOwners) {
    for (const l of co.linkedChannels ?? []) {
      tasks.push(() => guardedPut(ctx, { ...keys.contentOwnerLink(co.id, l.channelId), entity: 'ChannelLink', ...l }));
    }
    if (co.linkedChannels?.length) tasks.push(() => addToChannelList(ctx, co.id, co.linkedChannels ?? []));
  }
  for (const a of world.accounts) {
    tasks.push(() => guardedPut(ctx, { ...keys.account(a.id), entity: 'Account', name: `accounts/${a.id}`, ...a }));
  }
  const properties = dynamoPropertyRepository(ctx);
  for (const p of world.properties) tasks.push(() => properties.put(p));
  await inParallel(tasks);
  return tasks.length;
}
