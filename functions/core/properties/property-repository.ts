/** DynamoDB adapter for properties (access patterns P1/P2 in core/db/keys.ts). */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../db/keys';
import type { TableContext } from '../directory/directory-repository';
import type { Property } from './property';
import type { PropertyRepository } from './property-service';

const FIELDS = [
  'name',
  'propertyType',
  'createTime',
  'updateTime',
  'parent',
  'displayName',
  'industryCategory',
  'timeZone',
  'currencyCode',
  'serviceLevel',
  'deleteTime',
  'expireTime',
  'account',
] as const satisfies readonly (keyof Property)[];

/** Copies only the resource's own fields, in the public field order; unset optional fields stay absent. */
export const toProperty = (item: Record<string, unknown>): Property => {
  const out: Record<string, unknown> = {};
  for (const f of FIELDS) if (item[f] !== undefined) out[f] = item[f];
  return out as unknown as Property;
};

export const dynamoPropertyRepository = ({
  db,
  tableName,
}: TableContext): PropertyRepository & {
  put(p: Property): Promise<void>;
} => ({
  async get(propertyId) {
    const out = await db.send(new GetCommand({ TableName: tableName, Key: keys.property(propertyId) }));
    return out.Item ? toProperty(out.Item) : undefined;
  },
  /** Directory load: an upsert of a Property, guarded so it can only ever overwrite a Property. */
  async put(p) {
    const id = p.name.slice('properties/'.length);
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...keys.property(id), entity: 'Property', ...p },
        ConditionExpression: 'attribute_not_exists(pk) OR entity = :entity',
        ExpressionAttributeValues: { ':entity': 'Property' },
      }),
    );
  },
});
