/**
 * Access patterns, written before the keys (every key string is built here and nowhere else).
 *
 * | #  | Access pattern                                          | Operation                                   | Keys                                                                  |
 * |----|---------------------------------------------------------|---------------------------------------------|-----------------------------------------------------------------------|
 * | D1 | Who a token's `sub` is: channels owned, content owners  | Query pk = USER#sub (consistent)            | pk USER#<sub>, sk OWNS#CHANNEL#<id> / MANAGES#CONTENT_OWNER#<id> /     |
 * |    | managed, analytics accounts and properties readable     |                                             |    READS#accounts/<id> / READS#properties/<id>                        |
 * | D2 | A directory entry: channel, video, playlist, asset,     | GetItem; ConditionCheck in group-item       | pk <KIND>#<id> (CHANNEL, VIDEO, PLAYLIST, ASSET, CONTENT_OWNER),       |
 * |    | content owner, with the acting owners that may group it | transactions (`contains(owners, :actor)`)   |    sk DIR; attribute `owners` = string set of acting-owner keys;      |
 * |    |                                                         |                                             |    resources also `listedBy` (owners whose entry in the directory     |
 * |    |                                                         |                                             |    file lists it) and `seenBy` / `claimedBy` (owners whose exports    |
 * |    |                                                         |                                             |    named it / marked it claimed: recorded by ingest)                  |
 * | D3 | The videos / playlists of a channel (a changed link     | Query gsi1 = CHANNEL#<id>#RESOURCES         | gsi1pk CHANNEL#<id>#RESOURCES, gsi1sk <KIND>#<id>                     |
 * |    | updates their `owners`)                                 |                                             |                                                                       |
 * | D5 | The directory as last applied, entity by entity (plan,  | Query pk = DIRECTORY (consistent)           | pk DIRECTORY, sk <USER|CHANNEL|CONTENT_OWNER|ACCOUNT|PROPERTY>#<id>; |
 * |    | apply, export)                                          |                                             |    attribute `doc` = the entity as the file states it (JSON)         |
 * | D6 | Who is applying the directory now (one at a time)       | conditional Put / Update / Delete           | pk DIRECTORY#LEASE, sk LEASE: holder, leaseUntil (epoch ms)           |
 * | D7 | Whether any channel's link changed since ingest read    | GetItem; ConditionCheck in ingest's         | pk DIRECTORY#LINKS, sk REVISION: rev (a counter bumped with every    |
 * |    | the links (resources recorded with the right owners)    |    resource transactions                    |    change of a channel's link)                                        |
 * | D4 | The channels linked to a content owner (with the day  | BatchGetItem of CHANNELS and MANAGER#<sub>, | pk CONTENT_OWNER#<id>, sk CHANNELS: attr links = {channelId: day};   |
 * |    | each link began) and whether a user manages it, in one  |    in the same request as the report's      |    sk MANAGER#<sub>: D1's grant, also kept on the content owner's     |
 * |    | request with the report's facts (content-owner reports) |    facts (key-reader.ts); without CHANNELS: |    side (attr manager = <sub>); sk LINK#CHANNEL#<channelId>: one     |
 * |    |                                                         |    Query sk BETWEEN LINK#CHANNEL# AND       |    link (attr linkedSince), the Query's source when CHANNELS is      |
 * |    |                                                         |    MANAGER#<sub>, filtered                  |    missing or `overflow` (over 5,000 links)                           |
 * | P1 | A property (Analytics Admin)                             | GetItem                                     | pk PROPERTY#<id>, sk PROPERTY                                         |
 * | P2 | An analytics account                                    | GetItem                                     | pk ACCOUNT#<id>, sk ACCOUNT                                           |
 * | G1 | One group of an acting owner                            | GetItem (consistent)                        | pk OWNER#<actor>, sk GROUP#<groupId>                                  |
 * | G2 | An acting owner's groups, in id order (ids sort by time)| Query pk, begins_with(sk, GROUP#), paged    | same                                                                  |
 * | G3 | The items of one group                                  | Query pk, begins_with(sk, ITEM#<groupId>#)  | pk OWNER#<actor>, sk ITEM#<groupId>#<KIND>#<resourceId>               |
 * | F1 | One fact cube variant of a channel over a range of days | Query pk, sk BETWEEN (contiguous range)     | pk FACT#<family>#<channel>#<variant>[#<partition>],                   |
 * |    | or months (reports.query)                               |    with a ProjectionExpression of the       |    sk D#<yyyy-mm-dd> / M#<yyyy-mm> / B<n>#<yyyy-mm> (a block of n     |
 * |    |                                                         |    columns (or, for by-day month items, the |    months); a cube over the item limit: chunks <period>#<gen>#<i>     |
 * |    |                                                         |    days' column paths) the report needs     |    (gen: the cube's content hash, named in the first chunk's header;  |
 * |    |                                                         |                                             |    other chunks are stale). By-day month variants (d, gd): one map    |
 * |    |                                                         |                                             |    attribute s<dd> per day; their items M#<yyyy-mm>[#<i>] hold        |
 * |    |                                                         |                                             |    consecutive days. vb: partition g<00..15> (16 video buckets each), |
 * |    |                                                         |                                             |    one item per day D#<yyyy-mm-dd>, an attribute per bucket; vd:      |
 * |    |                                                         |                                             |    partition g<00..63> (4 buckets each), s<dd> = {b<bucket>: blob}.   |
 * |    |                                                         |                                             |    An open month's flat cubes: the compacted cube at M#<yyyy-mm> plus |
 * |    |                                                         |                                             |    one piece per day loaded since, M#<yyyy-mm>#p<dd>, in the same     |
 * |    |                                                         |                                             |    Query range; both carry `pb` (pieces count while theirs is equal). |
 * |    |                                                         |                                             |    Regional partitions (vk/vs/vn) hold a mark M#<yyyy-mm>#o instead:  |
 * |    |                                                         |                                             |    their open days are the root's pieces, read by a second Query.     |
 * | F2 | What a loaded month holds (days and the report each     | GetItem (consistent)                        | pk FACT#<family>#<channel>#MANIFEST, sk M#<yyyy-mm>                   |
 * |    | came from, partitions, by-day packing, a load in flight)|                                             |                                                                       |
 * | F3 | A restated day's previous full-day cube, kept while a   | Query pk, begins_with(sk, O#<day>)          | pk FACT#<family>#<channel>#f, sk O#<yyyy-mm-dd>[#<gen>#<i>]           |
 * |    | load that replaces it is in flight (crash recovery)     |                                             |    (not in any D# range a report reads)                               |
 * | F4 | Months whose blocks must be rewritten (set at each      | GetItem (consistent); UpdateItem ADD/DELETE | pk FACT#<family>#<channel>#MANIFEST, sk BLOCKS: string set `months`   |
 * |    | load's commit, cleared when the blocks are rewritten)   |                                             |                                                                       |
 * | L1 | The lease serializing loads of one (report type, owner, | UpdateItem with a condition (acquire, renew,| pk LEASE#FACT#<family>#<channel>, sk M#<yyyy-mm> or BLOCKS;          |
 * |    | month), and the one serializing an owner's block writes | release); ConditionCheck in the commit      |    holder, fence (a counter), expiresAt (epoch s, also the TTL)       |
 * | I1 | The owners and report types ingest has loaded (for      | Query pk, begins_with(sk, <owner>#) or all  | pk INGEST#OWNERS, sk <owner>#<family>: ownerType, months (string set) |
 * |    | ingest-status): one item per (owner, report type)       |    (an operator command, never a request)   |                                                                       |
 * | I2 | Rejected files (file, line, column, reason), cleared by | Query pk (all; TTL 180 days bounds it);     | pk INGEST#REJECTED, sk <file name or object key>                      |
 * |    | a later successful load of the same file                | Put / Delete with conditions; BatchGetItem  |                                                                       |
 * |    |                                                         |    of the loaded files' keys (to clear)     |                                                                       |
 * | X1 | Exchange rates of a currency over a range of days, and  | Query pk, sk BETWEEN the months; Query sk < | pk FX#<currency>, sk M#<yyyy-mm>; attribute d<dd> per day: units per  |
 * |    | the latest rate before the range (currency=)            |    first month (descending, Limit 1)        |    USD (earlier releases: sk D#<yyyy-mm-dd>, attribute `rate`; read,  |
 * |    |                                                         |                                             |    moved to month items by the next rates load)                       |
 * | S1 | Every connected owner with its sync state (connect      | Query pk = CONNECTIONS (consistent)         | pk CONNECTIONS, sk <channel|contentOwner>:<id>: the credentials'     |
 * |    | --list, the scheduled dispatcher, readSyncStates)       |                                             |    secret name, checkpoint, last success / error / run, re-consent    |
 * | S2 | One connected owner: connect, disconnect, its sync run   | GetItem / BatchGetItem; conditional Put and | same; a run holds a lease (`leaseId`, `leaseUntil`) so two syncs of  |
 * |    | (lease, checkpoint and result written conditionally)    |    Update on the lease                      |    one owner never overlap                                             |
 * | S3 | The OAuth credentials of a connected owner, on the local | GetItem, Put, Delete                        | pk SECRET#<name>, sk SECRET (deployed stacks keep them in Secrets     |
 * |    | table only (core/sync/credential-store.ts)              |                                             |    Manager under the same name instead)                               |
 * | S4 | The report each (report family, owner, day) was loaded  | Query pk, sk BETWEEN the days of the listed | pk SYNCED#<channel|contentOwner>:<id>#<family code>, sk D#<day>:     |
 * |    | from, and the older ones skipped (restatements: newest  |    reports (consistent); conditional Put    |    reportId, createTime, reportType, skipped (string set)             |
 * |    | createTime wins)                                         |                                             |                                                                       |
 *
 * Acting-owner keys (`actor`): `channel:<channelId>`, `contentOwner:<id>`, or `user:<sub>` for a caller that owns
 * no channel. Groups live in their owner's partition, so one owner can never address another owner's group: a
 * foreign id simply is not there (tenancy by construction, not by a check that could be forgotten).
 * Nothing on a request path scans. Ingest and ingest-status are not request paths; neither scans either.
 */
import type { TableKey } from './table-definition';

export type DirectoryKind = 'CHANNEL' | 'VIDEO' | 'PLAYLIST' | 'ASSET' | 'CONTENT_OWNER';
export type DirectoryRecordKind = 'USER' | 'CHANNEL' | 'CONTENT_OWNER' | 'ACCOUNT' | 'PROPERTY';

// One export per key, imported as a namespace (`import * as keys`): a bundle carries only the keys it builds.
export const userPartition = (sub: string) => `USER#${sub}`;
export const userOwnsChannel = (sub: string, channelId: string): TableKey => ({
  pk: `USER#${sub}`,
  sk: `OWNS#CHANNEL#${channelId}`,
});
export const userManagesContentOwner = (sub: string, contentOwnerId: string): TableKey => ({
  pk: `USER#${sub}`,
  sk: `MANAGES#CONTENT_OWNER#${contentOwnerId}`,
});
/** `resourceName` is `accounts/<id>` or `properties/<id>`. */
export const userReads = (sub: string, resourceName: string): TableKey => ({
  pk: `USER#${sub}`,
  sk: `READS#${resourceName}`,
});

export const directoryEntry = (kind: DirectoryKind, id: string): TableKey => ({ pk: `${kind}#${id}`, sk: 'DIR' });
export const contentOwnerLink = (contentOwnerId: string, channelId: string): TableKey => ({
  pk: `CONTENT_OWNER#${contentOwnerId}`,
  sk: `LINK#CHANNEL#${channelId}`,
});
export const contentOwnerLinkPrefix = 'LINK#CHANNEL#';
/** Every link of a content owner in one item (attribute `links`: channel id → linked since), read by key. */
export const contentOwnerChannels = (contentOwnerId: string): TableKey => ({
  pk: `CONTENT_OWNER#${contentOwnerId}`,
  sk: 'CHANNELS',
});
export const contentOwnerManager = (contentOwnerId: string, sub: string): TableKey => ({
  pk: `CONTENT_OWNER#${contentOwnerId}`,
  sk: `MANAGER#${sub}`,
});
export const channelResourcesGsi = (channelId: string, kind: DirectoryKind, id: string) => ({
  gsi1pk: channelResourcesPartition(channelId),
  gsi1sk: `${kind}#${id}`,
});
export const channelResourcesPartition = (channelId: string) => `CHANNEL#${channelId}#RESOURCES`;

export const directoryRecordPartition = 'DIRECTORY';
export const directoryRecord = (kind: DirectoryRecordKind, id: string): TableKey => ({
  pk: 'DIRECTORY',
  sk: `${kind}#${id}`,
});
export const directoryLease = { pk: 'DIRECTORY#LEASE', sk: 'LEASE' } as TableKey;
export const directoryLinksRevision = { pk: 'DIRECTORY#LINKS', sk: 'REVISION' } as TableKey;

export const property = (propertyId: string): TableKey => ({ pk: `PROPERTY#${propertyId}`, sk: 'PROPERTY' });
export const account = (accountId: string): TableKey => ({ pk: `ACCOUNT#${accountId}`, sk: 'ACCOUNT' });

export const ownerPartition = (actor: string) => `OWNER#${actor}`;
export const group = (actor: string, groupId: string): TableKey => ({ pk: `OWNER#${actor}`, sk: `GROUP#${groupId}` });
export const groupSkPrefix = 'GROUP#';
export const groupItemSkPrefix = (groupId: string) => `ITEM#${groupId}#`;
export const factPartition = (family: string, channel: string, variant: string, partition?: string) =>
  `FACT#${family}#${channel}#${variant}${partition === undefined ? '' : `#${partition}`}`;
export const factDaySk = (day: string) => `D#${day}`;
export const factMonthSk = (month: string) => `M#${month}`;
/** A day's piece of an open month's flat cube (month-pieces.ts), read in the month's Query range. */
export const factPieceSk = (month: string, dd: string) => `M#${month}#p${dd}`;
/** An open month's mark in a regional partition: its open days are read from the root's pieces (month-pieces.ts). */
export const factOpenSk = (month: string) => `M#${month}#o`;
export const factManifest = (family: string, channel: string, month: string): TableKey => ({
  pk: `FACT#${family}#${channel}#MANIFEST`,
  sk: `M#${month}`,
});
export const factManifestPartition = (family: string, channel: string) => `FACT#${family}#${channel}#MANIFEST`;
export const factChunkSk = (period: string, gen: string, chunk: number) =>
  `${period}#${gen}#${String(chunk).padStart(3, '0')}`;
export const factBackupSk = (day: string) => `O#${day}`;
export const blocksToWrite = (family: string, channel: string): TableKey => ({
  pk: `FACT#${family}#${channel}#MANIFEST`,
  sk: 'BLOCKS',
});
export const monthLease = (family: string, channel: string, month: string): TableKey => ({
  pk: `LEASE#FACT#${family}#${channel}`,
  sk: `M#${month}`,
});
export const blocksLease = (family: string, channel: string): TableKey => ({
  pk: `LEASE#FACT#${family}#${channel}`,
  sk: 'BLOCKS',
});
export const ingestOwnersPartition = 'INGEST#OWNERS';
export const ingestOwner = (owner: string, family: string): TableKey => ({
  pk: 'INGEST#OWNERS',
  sk: `${owner}#${family}`,
});
export const rejectedPartition = 'INGEST#REJECTED';
export const rejectedFile = (file: string): TableKey => ({ pk: 'INGEST#REJECTED', sk: file });
export const fxPartition = (currency: string) => `FX#${currency}`;
/** A day's rate as earlier releases stored it (one item a day), still read. */
export const fxRate = (currency: string, day: string): TableKey => ({ pk: `FX#${currency}`, sk: `D#${day}` });
export const fxMonth = (currency: string, month: string): TableKey => ({ pk: `FX#${currency}`, sk: `M#${month}` });
export const connectionsPartition = 'CONNECTIONS';
/** `owner` is an owner key: `channel:<id>` or `contentOwner:<id>` (core/sync/owner.ts). */
export const connection = (owner: string): TableKey => ({ pk: 'CONNECTIONS', sk: owner });
export const localSecret = (name: string): TableKey => ({ pk: `SECRET#${name}`, sk: 'SECRET' });
export const syncedPartition = (owner: string, family: string) => `SYNCED#${owner}#${family}`;
export const syncedDay = (owner: string, family: string, day: string): TableKey => ({
  pk: `SYNCED#${owner}#${family}`,
  sk: `D#${day}`,
});
export const groupItem = (actor: string, groupId: string, kind: DirectoryKind, resourceId: string): TableKey => ({
  pk: `OWNER#${actor}`,
  sk: `ITEM#${groupId}#${kind}#${resourceId}`,
});
