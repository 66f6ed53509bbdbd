/**
 * A connected owner: a channel (`UC…`) or a content owner, whose Reporting API reports the sync loads. The same
 * rule as the ingest's folder names decides which: an id starting with `UC` is a channel.
 */
import { invalidArgument } from '../errors';

export interface ConnectedOwner {
  readonly type: 'channel' | 'contentOwner';
  readonly id: string;
}

/** Ids the Reporting API and S3 keys take safely: letters, digits, `_` and `-` (channel and content-owner ids). */
const OWNER_ID = /^[A-Za-z0-9_-]{1,100}$/;

export function parseOwner(raw: string): ConnectedOwner {
  const id = raw.trim();
  if (!OWNER_ID.test(id)) {
    throw invalidArgument('invalidValue', `"${raw}" is not a channel id (UC…) or a content owner id`);
  }
  return { type: id.startsWith('UC') ? 'channel' : 'contentOwner', id };
}

/** `channel:<id>` or `contentOwner:<id>`: the owner's key in the table (as the directory's acting owners). */
export const ownerKey = (o: ConnectedOwner): string => `${o.type}:${o.id}`;

export function ownerOfKey(key: string): ConnectedOwner {
  const [type, id] = key.split(':', 2) as [string, string];
  if ((type !== 'channel' && type !== 'contentOwner') || !id) throw new Error(`not an owner key: ${key}`);
  return { type, id };
}

/**
 * The name of an owner's credentials secret: under the table's name, so each deployment (and the IAM policy of its
 * sync functions) has its own prefix.
 */
export const secretPrefix = (tableName: string) => `analytics-api/${tableName}/connected/`;
export const secretName = (tableName: string, o: ConnectedOwner) => `${secretPrefix(tableName)}${o.type}/${o.id}`;
