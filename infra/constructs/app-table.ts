/**
 * The one DynamoDB table, built from the same key schema the code and the local host use. Stateful: the id is
 * fixed to 'AppTable' here because a changed id means a new logical id, i.e. a new, empty table.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { tableDefinition } from '../../functions/core/db/table-definition';

const str = (name: string) => ({ name, type: AttributeType.STRING });

export class AppTable extends Table {
  constructor(scope: Construct) {
    super(scope, 'AppTable', {
      partitionKey: str(tableDefinition.partitionKey),
      sortKey: str(tableDefinition.sortKey),
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of tableDefinition.globalIndexes) {
      this.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: str(index.partitionKey),
        sortKey: str(index.sortKey),
        projectionType: ProjectionType.ALL,
      });
    }
  }
}
