/**
 * Parsing and validating the inputs of the six group operations (query parameters and JSON bodies, as the
 * public contract names them). Output-only fields in bodies (kind, etag, publishedAt, itemCount) are ignored.
 */
import { RESOURCE_KINDS, type ResourceKind } from '../directory/directory';
import { invalidArgument, required } from '../errors';
import type { ScopeName } from '../scopes';
import { MAX_IDS_PER_LIST, MAX_TITLE_LENGTH } from './group';
import { groupErrors } from './group-errors';

type Query = Readonly<Record<string, string>>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const invalidField = (field: string, message: string, locationType: 'parameter' | 'body' = 'body') =>
  invalidArgument('invalidValue', message, { location: field, locationType });

function requireBodyObject(body: unknown): Record<string, unknown> {
  if (!isObject(body))
    throw invalidArgument('parseError', 'The request body must be a JSON object.', { locationType: 'body' });
  return body;
}

function requireString(value: unknown, field: string, locationType: 'parameter' | 'body' = 'body'): string {
  if (value === undefined || value === null) throw required(field, locationType);
  if (typeof value !== 'string') throw invalidField(field, `${field} must be a string.`, locationType);
  if (value.trim() === '') throw required(field, locationType);
  return value.trim();
}

/** Optional `onBehalfOfContentOwner`; present but empty is an error, not "absent". */
export function contentOwnerParam(query: Query): string | undefined {
  const v = query.onBehalfOfContentOwner;
  if (v === undefined) return undefined;
  if (v.trim() === '')
    throw invalidField('onBehalfOfContentOwner', 'onBehalfOfContentOwner must not be empty.', 'parameter');
  return v.trim();
}

function parseTitle(snippet: unknown): string {
  if (!isObject(snippet)) throw required('snippet.title', 'body');
  const title = requireString(snippet.title, 'snippet.title');
  if ([...title].length > MAX_TITLE_LENGTH) {
    throw invalidField('snippet.title', `snippet.title must be at most ${MAX_TITLE_LENGTH} characters.`);
  }
  return title;
}

export function parseResourceKind(value: unknown, field: string): ResourceKind {
  const kind = requireString(value, field);
  if (!(RESOURCE_KINDS as readonly string[]).includes(kind)) {
    throw invalidField(field, `${field} must be one of ${RESOURCE_KINDS.join(', ')}.`);
  }
  return kind as ResourceKind;
}

export interface InsertGroupCommand {
  title: string;
  itemType?: ResourceKind;
}

export function parseInsertGroup(body: unknown): InsertGroupCommand {
  const b = requireBodyObject(body);
  const title = parseTitle(b.snippet);
  const details = b.contentDetails;
  if (details !== undefined && details !== null && !isObject(details)) {
    throw invalidField('contentDetails', 'contentDetails must be an object.');
  }
  const itemType =
    isObject(details) && details.itemType !== undefined && details.itemType !== null
      ? parseResourceKind(details.itemType, 'contentDetails.itemType')
      : undefined;
  return itemType ? { title, itemType } : { title };
}

export interface UpdateGroupCommand {
  id: string;
  title: string;
  /** When given, the update applies only if the group still has this etag. */
  etag?: string;
}

export function parseUpdateGroup(body: unknown): UpdateGroupCommand {
  const b = requireBodyObject(body);
  const id = groupIdOf(requireString(b.id, 'id'));
  const title = parseTitle(b.snippet);
  if (b.etag === undefined || b.etag === null) return { id, title };
  if (typeof b.etag !== 'string' || b.etag === '') throw invalidField('etag', 'etag must be a non-empty string.');
  return { id, title, etag: b.etag };
}

export type ListGroupsQuery = { by: 'ids'; ids: string[] } | { by: 'mine'; pageToken?: string };

export function parseListGroups(query: Query): ListGroupsQuery {
  const { id, mine, pageToken } = query;
  if (mine !== undefined && mine !== 'true' && mine !== 'false') {
    throw invalidField('mine', 'mine must be true or false.', 'parameter');
  }
  const wantsMine = mine === 'true';
  if (id !== undefined && wantsMine) {
    throw invalidArgument('invalidParameter', 'Give exactly one of id or mine=true, not both.', {
      location: 'id',
      locationType: 'parameter',
    });
  }
  if (id !== undefined) {
    const ids = [...new Set(id.split(',').map((s) => s.trim()))];
    const wellFormed = ids.filter(isGroupIdShape); // any other id names no group: simply absent
    if (ids.some((s) => s === ''))
      throw invalidField('id', 'id must be a comma-separated list of group ids.', 'parameter');
    if (ids.length > MAX_IDS_PER_LIST) {
      throw invalidField('id', `id may list at most ${MAX_IDS_PER_LIST} group ids.`, 'parameter');
    }
    if (pageToken !== undefined) {
      throw invalidField('pageToken', 'pageToken can only be used with mine=true.', 'parameter');
    }
    return { by: 'ids', ids: wellFormed };
  }
  if (!wantsMine) {
    throw invalidArgument('required', 'Give exactly one of id or mine=true.', {
      location: 'mine',
      locationType: 'parameter',
    });
  }
  if (pageToken !== undefined && pageToken === '') {
    throw invalidField('pageToken', 'pageToken must not be empty.', 'parameter');
  }
  return pageToken ? { by: 'mine', pageToken } : { by: 'mine' };
}

/** A group id as this service makes them; anything else names no group (a 404, never a key DynamoDB rejects). */
export const isGroupIdShape = (id: string): boolean => /^[A-Za-z0-9]{1,64}$/.test(id);

export function groupIdOf(id: string): string {
  if (!isGroupIdShape(id)) throw groupErrors.groupNotFound(id.length > 64 ? `${id.slice(0, 64)}…` : id);
  return id;
}

export const parseIdParam = (query: Query, name: 'id' | 'groupId'): string =>
  requireString(query[name], name, 'parameter');

export const parseGroupIdParam = (query: Query, name: 'id' | 'groupId'): string => groupIdOf(parseIdParam(query, name));

export interface InsertGroupItemCommand {
  groupId: string;
  kind: ResourceKind;
  resourceId: string;
}

export function parseInsertGroupItem(body: unknown): InsertGroupItemCommand {
  const b = requireBodyObject(body);
  const groupId = groupIdOf(requireString(b.groupId, 'groupId'));
  if (!isObject(b.resource)) throw required('resource', 'body');
  const kind = parseResourceKind(b.resource.kind, 'resource.kind');
  const resourceId = requireString(b.resource.id, 'resource.id');
  if (resourceId.length > 200) throw invalidField('resource.id', 'resource.id must be at most 200 characters.');
  return { groupId, kind, resourceId };
}

/** The caller of a group operation: verified identity plus the acting-owner parameter. */
export const callerFrom = (who: { sub: string; scopes: ReadonlySet<ScopeName> }, query: Query) => {
  const contentOwner = contentOwnerParam(query);
  return contentOwner === undefined
    ? { sub: who.sub, scopes: who.scopes }
    : { sub: who.sub, scopes: who.scopes, contentOwner };
};
