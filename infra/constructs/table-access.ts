/**
 * Least-privilege table grants with explicit action lists. CDK's grantReadData / grantReadWriteData include Scan,
 * which no request path may use, and name the indexes with a wildcard.
 */
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { tableDefinition } from '../../functions/core/db/table-definition';
import type { TableAccess } from '../../functions/routes';

const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'];
const WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
export const TABLE_ACTIONS: Record<TableAccess, readonly string[]> = {
  read: READ_ACTIONS,
  readWrite: [...READ_ACTIONS, ...WRITE_ACTIONS],
};

/** Grants `fn` the table (and, with `indexes`, each index of the table definition by name). */
export function grantTable(table: ITable, fn: IFunction, access: TableAccess, options: { indexes: boolean }): void {
  const indexArns = options.indexes
    ? tableDefinition.globalIndexes.map((i) => `${table.tableArn}/index/${i.name}`)
    : [];
  fn.addToRolePolicy(
    new PolicyStatement({ actions: [...TABLE_ACTIONS[access]], resources: [table.tableArn, ...indexArns] }),
  );
}
