/**
 * The request and response bodies of the contract, as data in the discovery format (JSON Schema draft 3, as Google's
 * discovery documents write it). The route table names them per operation; they feed the discovery documents
 * (functions/discovery/) and the `fields` check of every response (functions/_shared/field-selector.ts).
 * Rules as for routes.ts: import nothing but types and pure data.
 */
import { INDUSTRY_CATEGORIES, PROPERTY_TYPES, SERVICE_LEVELS } from './core/properties/property';

export interface JsonSchema {
  readonly id?: string;
  readonly type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'any';
  readonly description?: string;
  readonly $ref?: SchemaName;
  readonly format?: string;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly additionalProperties?: JsonSchema;
  readonly items?: JsonSchema;
  readonly enum?: readonly string[];
  readonly readOnly?: boolean;
  readonly deprecated?: boolean;
}

/** A schema that knows its own name (every schema of the table below). */
export type NamedSchema<N extends SchemaName = SchemaName> = JsonSchema & { readonly id: N };

// The builders below are marked side-effect free, so a bundle keeps only the schemas it names (a handler carries its
// own response's, not the discovery documents' whole set).
const str = /* @__NO_SIDE_EFFECTS__ */ (description: string, extra: Partial<JsonSchema> = {}): JsonSchema => ({
  type: 'string',
  description,
  ...extra,
});
const ref = /* @__NO_SIDE_EFFECTS__ */ ($ref: SchemaName, description: string): JsonSchema => ({ $ref, description });
const object = /* @__NO_SIDE_EFFECTS__ */ <const N extends SchemaName>(
  id: N,
  description: string,
  properties: Record<string, JsonSchema>,
): NamedSchema<N> => ({
  id,
  type: 'object',
  description,
  properties,
});
/** Output-only timestamp, RFC 3339 UTC. */
const time = /* @__NO_SIDE_EFFECTS__ */ (description: string): JsonSchema =>
  str(description, { format: 'google-datetime', readOnly: true });
const errorsField = ref('Errors', 'Error details (never set here: errors travel as HTTP error bodies).');

/** Resource kinds as the handlers write them into `kind`. */
const kind = /* @__NO_SIDE_EFFECTS__ */ (value: string) =>
  str(`Identifies the resource type. The value is \`${value}\`.`);

const ITEM_TYPES = 'One of `youtube#channel`, `youtube#playlist`, `youtube#video`, `youtubePartner#asset`.';

// --- YouTube Analytics v2 ---------------------------------------------------------------------------------------
const EmptyResponse = object('EmptyResponse', 'Empty response (HTTP 204).', { errors: errorsField });
const Errors = object('Errors', 'Request error information (kept for schema compatibility).', {
  code: str('Deprecated global error code.', {
    deprecated: true,
    // biome-ignore format: word list
    enum: ['BAD_REQUEST', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'GONE', 'PRECONDITION_FAILED', 'INTERNAL_ERROR',
      'SERVICE_UNAVAILABLE'],
  }),
  error: { type: 'array', description: 'The errors.', items: { $ref: 'ErrorProto' } },
  requestId: str('Request identifier.'),
});
const ErrorProto = object('ErrorProto', 'One error.', {
  argument: { type: 'array', description: 'Error arguments.', items: { type: 'string' } },
  code: str('Error code in its domain.'),
  debugInfo: str('Debugging information.'),
  domain: str('Error domain.'),
  externalErrorMessage: str('A short explanation of the error.'),
  location: str('Where the error is, by location type.'),
  locationType: str('The kind of location.', { enum: ['PATH', 'OTHER', 'PARAMETER'] }),
});
const Group = object('Group', 'An analytics group: a collection of channels, videos, playlists or assets.', {
  contentDetails: ref('GroupContentDetails', 'The number and type of items in the group.'),
  errors: errorsField,
  etag: str('The entity tag of this resource.'),
  id: str('The group ID.'),
  kind: kind('youtube#group'),
  snippet: ref('GroupSnippet', 'Creation time and title.'),
});
const GroupContentDetails = object('GroupContentDetails', "A group's content details.", {
  itemCount: str('The number of items in the group (a decimal string).', { format: 'uint64' }),
  itemType: str(`The kind of the group's items. ${ITEM_TYPES}`),
});
const GroupItem = object('GroupItem', 'An item of a group.', {
  errors: errorsField,
  etag: str('The entity tag of this resource.'),
  groupId: str('The ID of the group that holds the item.'),
  id: str('The ID of this membership (not the resource ID, which is `resource.id`).'),
  kind: kind('youtube#groupItem'),
  resource: ref('GroupItemResource', 'The resource in the group.'),
});
const GroupItemResource = object('GroupItemResource', 'The resource a group item stands for.', {
  id: str('The channel, video, playlist or asset ID.'),
  kind: str(`The resource kind. ${ITEM_TYPES}`),
});
const GroupSnippet = object('GroupSnippet', "A group's snippet.", {
  publishedAt: str('When the group was created (RFC 3339, UTC).', { format: 'google-datetime' }),
  title: str('The group name: 1 to 200 characters.'),
});
const ListGroupItemsResponse = object('ListGroupItemsResponse', 'The items of a group.', {
  errors: errorsField,
  etag: str('The entity tag of this list.'),
  items: { type: 'array', description: 'The group items.', items: { $ref: 'GroupItem' } },
  kind: kind('youtube#groupItemListResponse'),
});
const ListGroupsResponse = object('ListGroupsResponse', 'A page of groups.', {
  errors: errorsField,
  etag: str('The entity tag of this list.'),
  items: { type: 'array', description: 'The groups.', items: { $ref: 'Group' } },
  kind: kind('youtube#groupListResponse'),
  nextPageToken: str('The token of the next page (absent on the last page).'),
});
const QueryResponse = object('QueryResponse', 'A report: column headers and rows.', {
  columnHeaders: {
    type: 'array',
    description: 'The columns: the requested dimensions, then the requested metrics, in request order.',
    items: { $ref: 'ResultTableColumnHeader' },
  },
  errors: errorsField,
  kind: kind('youtubeAnalytics#resultTable'),
  rows: {
    type: 'array',
    description: 'The rows, each ordered like columnHeaders; omitted when there is no data.',
    items: { type: 'array', items: { type: 'any' } },
  },
});
const ResultTableColumnHeader = object('ResultTableColumnHeader', 'One column of a report.', {
  columnType: str('`DIMENSION` or `METRIC`.'),
  dataType: str('`STRING`, `INTEGER` or `FLOAT`.'),
  name: str('The dimension or metric name.'),
});

// --- Analytics Admin v1alpha -------------------------------------------------------------------------------------
const GoogleAnalyticsAdminV1alphaProperty = object('GoogleAnalyticsAdminV1alphaProperty', 'An analytics property.', {
  account: str('The parent account: `accounts/{account_id}`.'),
  createTime: time('When the property was created.'),
  currencyCode: str('ISO 4217 currency of monetary reports.'),
  deleteTime: time('When the property was moved to the trash (absent otherwise).'),
  displayName: str('Display name.'),
  expireTime: time('When a trashed property will be deleted for good (absent otherwise).'),
  industryCategory: str('Industry of the property.', { enum: INDUSTRY_CATEGORIES }),
  name: str('Resource name: `properties/{property_id}`.', { readOnly: true }),
  parent: str("The property's logical parent: `accounts/{account}` or `properties/{property}`."),
  propertyType: str('The property type.', { enum: PROPERTY_TYPES }),
  serviceLevel: str('The service level.', { enum: SERVICE_LEVELS, readOnly: true }),
  timeZone: str('Reporting time zone (IANA name).'),
  updateTime: time('When the property was last updated.'),
});
/** Every schema by name: the discovery documents and the tests read them all. */
export const schemas = {
  EmptyResponse,
  Errors,
  ErrorProto,
  Group,
  GroupContentDetails,
  GroupItem,
  GroupItemResource,
  GroupSnippet,
  ListGroupItemsResponse,
  ListGroupsResponse,
  QueryResponse,
  ResultTableColumnHeader,
  GoogleAnalyticsAdminV1alphaProperty,
} as const satisfies Record<SchemaName, JsonSchema>;

export type SchemaName =
  | 'EmptyResponse'
  | 'Errors'
  | 'ErrorProto'
  | 'Group'
  | 'GroupContentDetails'
  | 'GroupItem'
  | 'GroupItemResource'
  | 'GroupSnippet'
  | 'ListGroupItemsResponse'
  | 'ListGroupsResponse'
  | 'QueryResponse'
  | 'ResultTableColumnHeader'
  | 'GoogleAnalyticsAdminV1alphaProperty';

export const schemaNamed = (name: SchemaName): JsonSchema => schemas[name];

/** What the `fields` check of one operation's response needs: its schema and a resolver of the schemas it refers to. */
export interface ResponseFields<N extends SchemaName = SchemaName> {
  readonly schema: NamedSchema<N>;
  readonly resolve: (name: SchemaName) => JsonSchema;
}

/** `schema` and every schema it refers to, at any depth (test/unit/response-fields.test.ts checks the lists are whole). */
const fieldsOf = /* @__NO_SIDE_EFFECTS__ */ <N extends SchemaName>(
  schema: NamedSchema<N>,
  ...referred: NamedSchema[]
): ResponseFields<N> => {
  const byName = new Map<SchemaName, JsonSchema>([schema, ...referred].map((s) => [s.id, s]));
  return {
    schema,
    resolve: (name) => {
      const found = byName.get(name);
      if (!found) throw new Error(`schema ${schema.id} refers to ${name}, which its fields list does not hold`);
      return found;
    },
  };
};

// One constant per response (the route table names the response; http-handler.ts holds each handler to it), so a
// function carries its own response's schemas only.
export const EMPTY_RESPONSE_FIELDS = fieldsOf(EmptyResponse, Errors, ErrorProto);
export const GROUP_FIELDS = fieldsOf(Group, GroupContentDetails, GroupSnippet, Errors, ErrorProto);
export const GROUP_ITEM_FIELDS = fieldsOf(GroupItem, GroupItemResource, Errors, ErrorProto);
export const LIST_GROUPS_FIELDS = fieldsOf(
  ListGroupsResponse,
  Group,
  GroupContentDetails,
  GroupSnippet,
  Errors,
  ErrorProto,
);
export const LIST_GROUP_ITEMS_FIELDS = fieldsOf(
  ListGroupItemsResponse,
  GroupItem,
  GroupItemResource,
  Errors,
  ErrorProto,
);
export const QUERY_RESPONSE_FIELDS = fieldsOf(QueryResponse, ResultTableColumnHeader, Errors, ErrorProto);
export const PROPERTY_FIELDS = fieldsOf(GoogleAnalyticsAdminV1alphaProperty);
