/**
 * Where ingest reports the videos and playlists each owner's exports named (ResourceSink of the ingest service): they
 * become directory entries (D2) the owners may group, marked as ingest's (`seenBy`), so `apply --prune` keeps them and
 * `export` leaves them out. A channel's resources are the channel's and its content owner's; a content owner's
 * files make the videos and playlists they name the content owner's (and record which it marked claimed).
 *
 * Cheap when nothing is new: the entries are read first (eventually consistent) and only those missing an owner are
 * written, 99 to a TransactWriteItems that also checks the links revision (D7), so a resource is never recorded with
 * the owners of a link an apply has just changed (that transaction fails and the links are read again). Writes are
 * ADDs to sets: never a clobber of another writer's owners, and a repeat changes nothing.
 *
 * A day names most of a channel's videos, every day: read by key, that was 0.5 RRU and a 100th of a BatchGetItem per
 * video, per file (500,000 RRU a file at a million videos). A channel whose file names many resources has its entries
 * read by the index instead (D3, every attribute projected), billed by their bytes: about a twentieth. A channel with
 * far more entries than its file names would pay more that way, so its Query stops after a page (a megabyte, 128 RRU)
 * per NAMED_PER_PAGE resources named, what reading those by key costs, and the ones it has not met are read by key: at
 * most twice the cost by key, whatever the channel. An entry the index does not show under the channel (another
 * channel's, or not yet indexed) reads as missing and is written again, which changes nothing.
 */
import { GetCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from '../db/batch-get';
import { isTransactionCanceled } from '../db/conditions';
import * as keys from '../db/keys';
import { queryPages } from '../db/query-all';
import { backoff, DEFAULT_RETRY } from '../db/retry';
import { tableDefinition } from '../db/table-definition';
import type { ResourceSink, SeenResources } from '../reports/ingest/ingest-service';
// Not from directory-items.ts: that module reaches the directory file's zod schema, which the ingest has no use for.
import { actorKey, channelActor, contentOwnerActor } from './directory';
import type { TableContext } from './directory-repository';

type Kind = 'VIDEO' | 'PLAYLIST';

interface Seen {
  kind: Kind;
  id: string;
  channelId?: string;
  /** Acting-owner keys of the owners whose files named it. */
  seenBy: Set<string>;
  /** Content owners whose files marked it claimed. */
  claimedBy: Set<string>;
}

/** What one `record` cost (benchmarks and the ingest log). */
export interface ResourceSinkStats {
  resources: number;
  written: number;
  /** Entries of another kind at a resource's key: never overwritten. */
  refused: number;
  batchGets: number;
  /** Query pages of channels' entries by the index (D3). */
  indexQueries: number;
  transactions: number;
  /** Times the links changed under a write and were read again. */
  relinks: number;
}

const PER_TRANSACTION = 99;
const IN_FLIGHT = 4;
/** Resources named per page of a channel's index Query, at most (a page costs what reading these by key costs). */
export const NAMED_PER_PAGE = 256;
const ENTRY_PROJECTION = {
  ProjectionExpression: 'pk, entity, #owners, seenBy, claimedBy, channelId',
  ExpressionAttributeNames: { '#owners': 'owners' },
};

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export function dynamoResourceSink(
  { db, tableName }: TableContext,
  options: {
    onStats?: (stats: ResourceSinkStats) => void;
    /** Caps an index Query page's entries (tests make a channel's index span pages; DynamoDB's page is a megabyte). */
    indexPageItems?: number;
  } = {},
): ResourceSink {
  return {
    async record(seen: readonly SeenResources[]): Promise<void> {
      const stats: ResourceSinkStats = {
        resources: 0,
        written: 0,
        refused: 0,
        batchGets: 0,
        indexQueries: 0,
        transactions: 0,
        relinks: 0,
      };
      const all = collect(seen);
      stats.resources = all.length;
      let todo = all;
      for (let attempt = 0; todo.length > 0; attempt++) {
        if (attempt > DEFAULT_RETRY.attempts * 2) throw new Error('recording resources: the links kept changing');
        if (attempt > 0) stats.relinks++;
        // The revision first, then the links: a link changed after this read moves the revision, and the writes fail.
        const rev = await db.send(
          new GetCommand({ TableName: tableName, Key: keys.directoryLinksRevision, ConsistentRead: true }),
        );
        const revision = typeof rev.Item?.rev === 'number' ? rev.Item.rev : undefined;
        const links = await readLinks(todo);
        const wanted = todo.map((r) => ({ r, owners: ownersOf(r, links) }));
        const stored = await readEntries(todo);
        const needed = wanted.filter(({ r, owners }) => {
          const item = stored.get(entryPk(r));
          if (!item) return true;
          if (item.entity !== `Directory${r.kind}`) {
            stats.refused++;
            return false;
          }
          return (
            !covers(item.owners, owners) ||
            !covers(item.seenBy, r.seenBy) ||
            !covers(item.claimedBy, r.claimedBy) ||
            (r.channelId !== undefined && item.channelId === undefined)
          );
        });
        todo = await writeAll(needed, revision);
      }
      options.onStats?.(stats);

      async function readLinks(resources: readonly Seen[]): Promise<Map<string, string>> {
        const channels = [...new Set(resources.map((r) => r.channelId).filter((c): c is string => !!c))];
        const items = await batchGetAll(
          db,
          tableName,
          channels.map((c) => keys.directoryEntry('CHANNEL', c)),
          { ProjectionExpression: 'id, contentOwnerId', ConsistentRead: true },
          () => stats.batchGets++,
        );
        return new Map(
          items
            .filter((i) => typeof i.contentOwnerId === 'string')
            .map((i) => [String(i.id), String(i.contentOwnerId)]),
        );
      }

      /** The stored entries of `resources`, by pk: channels naming many by the index, the others by key. */
      async function readEntries(resources: readonly Seen[]) {
        const found = new Map<string, Record<string, unknown> & { entity?: string }>();
        const byKey: Seen[] = [];
        const byChannel = new Map<string, Seen[]>();
        for (const r of resources) {
          const list = r.channelId ? byChannel.get(r.channelId) : byKey;
          if (list) list.push(r);
          else byChannel.set(r.channelId as string, [r]);
        }
        await Promise.all(
          [...byChannel].map(async ([channel, named]) => {
            const pages = Math.floor(named.length / NAMED_PER_PAGE);
            if (pages < 1) return void byKey.push(...named);
            const wanted = new Set(named.map(entryPk));
            const whole = await readIndex(channel, pages, (item) => {
              if (wanted.has(String(item.pk))) found.set(String(item.pk), item);
            });
            if (!whole) byKey.push(...named.filter((r) => !found.has(entryPk(r))));
          }),
        );
        const items = await batchGetAll(
          db,
          tableName,
          byKey.map((r) => keys.directoryEntry(r.kind, r.id)),
          ENTRY_PROJECTION,
          () => stats.batchGets++,
        );
        for (const item of items) found.set(String(item.pk), item);
        return found;
      }

      /** A channel's entries by the index (D3), at most `pages` pages; whether that was all of them. */
      async function readIndex(
        channel: string,
        pages: number,
        onItem: (item: Record<string, unknown>) => void,
      ): Promise<boolean> {
        let read = 0;
        const next = await queryPages(
          db,
          {
            TableName: tableName,
            IndexName: tableDefinition.globalIndexes[0].name,
            KeyConditionExpression: 'gsi1pk = :pk',
            ExpressionAttributeValues: { ':pk': keys.channelResourcesPartition(channel) },
            ...ENTRY_PROJECTION,
            ...(options.indexPageItems ? { Limit: options.indexPageItems } : {}),
          },
          (items) => {
            stats.indexQueries++;
            for (const item of items) onItem(item);
            return ++read < pages;
          },
        );
        return next === undefined;
      }

      /** Writes in transactions; returns the resources to write again with links read afresh. */
      async function writeAll(list: { r: Seen; owners: Set<string> }[], revision: number | undefined): Promise<Seen[]> {
        const chunks: (typeof list)[] = [];
        for (let at = 0; at < list.length; at += PER_TRANSACTION) chunks.push(list.slice(at, at + PER_TRANSACTION));
        const again: Seen[] = [];
        let next = 0;
        const worker = async () => {
          while (next < chunks.length) {
            const chunk = chunks[next++] as typeof list;
            if (!(await writeChunk(chunk, revision))) again.push(...chunk.map((c) => c.r));
          }
        };
        await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, chunks.length) }, worker));
        return again;
      }

      /** false when the links revision moved (the chunk is to be written again with the new links). */
      async function writeChunk(
        chunk: { r: Seen; owners: Set<string> }[],
        revision: number | undefined,
      ): Promise<boolean> {
        let items = chunk;
        for (let attempt = 0; items.length > 0; attempt++) {
          const check: TransactItem = {
            ConditionCheck: {
              TableName: tableName,
              Key: keys.directoryLinksRevision,
              ConditionExpression: revision === undefined ? 'attribute_not_exists(rev)' : 'rev = :rev',
              ExpressionAttributeValues: revision === undefined ? undefined : { ':rev': revision },
            },
          };
          try {
            stats.transactions++;
            await db.send(new TransactWriteCommand({ TransactItems: [check, ...items.map(recordAction)] }));
            stats.written += items.length;
            return true;
          } catch (err) {
            if (!isTransactionCanceled(err)) throw err;
            const reasons = err.CancellationReasons ?? [];
            if (reasons[0]?.Code === 'ConditionalCheckFailed') return false;
            // An entry of another kind at a resource's key: leave it alone, write the others.
            const refused = new Set(
              reasons.flatMap((r, i) => (i > 0 && r.Code === 'ConditionalCheckFailed' ? [i - 1] : [])),
            );
            if (refused.size === 0) {
              if (attempt >= DEFAULT_RETRY.attempts * 2) throw err;
              await backoff(Math.min(attempt, 6), DEFAULT_RETRY); // contention with another writer: try again
            }
            stats.refused += refused.size;
            items = items.filter((_, i) => !refused.has(i));
          }
        }
        return true;
      }

      function recordAction({ r, owners }: { r: Seen; owners: Set<string> }): TransactItem {
        const entity = `Directory${r.kind}`;
        const gsi = r.channelId ? keys.channelResourcesGsi(r.channelId, r.kind, r.id) : undefined;
        const sets = ['#owners :owners', 'seenBy :seen', ...(r.claimedBy.size ? ['claimedBy :claimed'] : [])];
        return {
          Update: {
            TableName: tableName,
            Key: keys.directoryEntry(r.kind, r.id),
            // The channel is set once: the directory file's listing, or the first export naming the resource, sets it.
            UpdateExpression: `SET entity = :entity, id = :id${gsi ? ', channelId = if_not_exists(channelId, :channel), gsi1pk = if_not_exists(gsi1pk, :gpk), gsi1sk = if_not_exists(gsi1sk, :gsk)' : ''} ADD ${sets.join(', ')}`,
            ConditionExpression: 'attribute_not_exists(pk) OR entity = :entity',
            ExpressionAttributeNames: { '#owners': 'owners' },
            ExpressionAttributeValues: {
              ':entity': entity,
              ':id': r.id,
              ':owners': owners,
              ':seen': r.seenBy,
              ...(r.claimedBy.size ? { ':claimed': r.claimedBy } : {}),
              ...(gsi ? { ':channel': r.channelId, ':gpk': gsi.gsi1pk, ':gsk': gsi.gsi1sk } : {}),
            },
          },
        };
      }
    },
  };
}

/** The pk of a resource's directory entry (D2). */
const entryPk = (r: Seen) => keys.directoryEntry(r.kind, r.id).pk;

/** One entry per resource, the contributions of every owner that named it merged. */
function collect(seen: readonly SeenResources[]): Seen[] {
  const byKey = new Map<string, Seen>();
  for (const s of seen) {
    const source = actorKey(s.owner);
    for (const [kind, named] of [
      ['VIDEO', s.videos],
      ['PLAYLIST', s.playlists],
    ] as const) {
      for (const [id, channel] of named) {
        const key = `${kind}#${id}`;
        let e = byKey.get(key);
        if (!e) {
          e = { kind, id, seenBy: new Set(), claimedBy: new Set() };
          byKey.set(key, e);
        }
        e.seenBy.add(source);
        if (channel) e.channelId ??= channel;
        if (kind === 'VIDEO' && s.owner.type === 'contentOwner' && s.claimed.has(id)) e.claimedBy.add(s.owner.id);
      }
    }
  }
  return [...byKey.values()];
}

/** The channel's own, its content owner's (the link), and every content owner whose exports named it. */
function ownersOf(r: Seen, links: ReadonlyMap<string, string>): Set<string> {
  const owners = new Set<string>();
  if (r.channelId) {
    owners.add(channelActor(r.channelId));
    const link = links.get(r.channelId);
    if (link) owners.add(contentOwnerActor(link));
  }
  for (const s of r.seenBy) if (s.startsWith('contentOwner:')) owners.add(s);
  return owners;
}

const covers = (stored: unknown, wanted: ReadonlySet<string>): boolean => {
  const have = stored instanceof Set ? (stored as Set<string>) : new Set<string>();
  for (const w of wanted) if (!have.has(w)) return false;
  return true;
};
