/**
 * The directory: who a token's `sub` is. Channels owned, content owners managed, and analytics accounts and
 * properties readable are data in the table, never taken from headers or the body.
 */
export interface Profile {
  readonly sub: string;
  readonly channels: readonly string[];
  readonly contentOwners: readonly string[];
  /** Analytics Admin resource names the user may read: `accounts/<id>` and `properties/<id>`. */
  readonly reads: ReadonlySet<string>;
}

/** A channel linked to a content owner, and the day (YYYY-MM-DD) the link began. */
export interface ChannelLink {
  readonly channelId: string;
  readonly linkedSince: string;
}

export interface DirectoryRepository {
  profile(sub: string): Promise<Profile>;
}

/** Which channels a content owner's reports cover, and since when (content-owner reports only). */
export interface ChannelLinks {
  /**
   * The links together with whether `sub` manages the content owner, in one read (the content owner's side of the
   * grant; `manages: false` when the grant was written only on the user's side, by an earlier release).
   */
  contentOwnerAccess(contentOwnerId: string, sub: string): Promise<{ manages: boolean; links: ChannelLink[] }>;
}

/** The kinds of resource a group can hold, as the wire names them. */
export const RESOURCE_KINDS = ['youtube#video', 'youtube#playlist', 'youtube#channel', 'youtubePartner#asset'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/**
 * Acting owners. A caller acts as its channel, or (with onBehalfOfContentOwner) as a content owner it manages;
 * a caller without a channel acts as itself, owning groups but no resources.
 */
export type ActingOwner =
  | { readonly type: 'channel'; readonly id: string }
  | { readonly type: 'contentOwner'; readonly id: string }
  | { readonly type: 'user'; readonly id: string };

export const actorKey = (a: ActingOwner): string => `${a.type}:${a.id}`;
export const contentOwnerActor = (id: string) => actorKey({ type: 'contentOwner', id });
export const channelActor = (id: string) => actorKey({ type: 'channel', id });
