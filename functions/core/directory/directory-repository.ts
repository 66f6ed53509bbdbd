/** DynamoDB adapter for the directory (access patterns D1 and D4 in core/db/keys.ts). */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keyReader } from '../db/key-reader';
import * as keys from '../db/keys';
import { queryAll } from '../db/query-all';
import type { ChannelLink, ChannelLinks, DirectoryRepository, Profile } from './directory';

export interface TableContext {
  readonly db: DynamoDBDocumentClient;
  readonly tableName: string;
}

export const dynamoDirectoryRepository = ({ db, tableName }: TableContext): DirectoryRepository & ChannelLinks => {
  const reader = keyReader({ db, tableName });
  return {
    async profile(sub) {
      const channels: string[] = [];
      const contentOwners: string[] = [];
      const reads = new Set<string>();
      const items = await queryAll(db, {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.userPartition(sub) },
        ProjectionExpression: 'sk',
        ConsistentRead: true,
      });
      for (const item of items) {
        const sk = String(item.sk);
        if (sk.startsWith('OWNS#CHANNEL#')) channels.push(sk.slice('OWNS#CHANNEL#'.length));
        else if (sk.startsWith('MANAGES#CONTENT_OWNER#')) contentOwners.push(sk.slice('MANAGES#CONTENT_OWNER#'.length));
        else if (sk.startsWith('READS#')) reads.add(sk.slice('READS#'.length));
      }
      return { sub, channels, contentOwners, reads } satisfies Profile;
    },

    async contentOwnerAccess(contentOwnerId, sub) {
      const grant = keys.contentOwnerManager(contentOwnerId, sub);
      const list = keys.contentOwnerChannels(contentOwnerId);
      // By key through the shared reader: a report's facts, read in the same turn, come in the same request.
      const items = await reader.get([grant, list], { attributes: ['links', 'overflow'], consistent: true });
      const listed = items.find((item) => item.sk === list.sk);
      if (listed && listed.overflow !== true) {
        const links = Object.entries((listed.links ?? {}) as Record<string, string>)
          .map(([channelId, linkedSince]) => ({ channelId, linkedSince }))
          .sort((a, b) => (a.channelId < b.channelId ? -1 : a.channelId > b.channelId ? 1 : 0));
        return { manages: items.some((item) => item.sk === grant.sk), links };
      }
      // No list (a directory an earlier release loaded) or too long a one: the link items and the grant, one Query.
      const found = await queryAll(db, {
        TableName: tableName,
        // The links, then the grants (LINK# sorts before MANAGER#) up to this user's; the filter (on non-key
        // attributes, as DynamoDB requires) keeps the links and this user's grant.
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :links AND :grant',
        FilterExpression: 'entity = :link OR manager = :sub',
        ExpressionAttributeValues: {
          ':pk': grant.pk,
          ':links': keys.contentOwnerLinkPrefix,
          ':grant': grant.sk,
          ':link': 'ChannelLink',
          ':sub': sub,
        },
        ConsistentRead: true,
      });
      const links: ChannelLink[] = found
        .filter((item) => item.sk !== grant.sk)
        .map((item) => ({ channelId: String(item.channelId), linkedSince: String(item.linkedSince) }));
      const manages = found.length > links.length;
      return { manages, links };
    },
  };
};
