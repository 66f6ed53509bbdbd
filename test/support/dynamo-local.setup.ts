/**
 * vitest global setup for the integration project: one in-memory DynamoDB Local for the run, the table created
 * from the table definition, the demo world loaded. Workers inherit the endpoint through the environment.
 */
import { createDocumentClient } from '../../functions/core/db/document-client';
import { ensureDemoWorld } from '../../infra/local/demo-world';
import { ensureTable, startDynamoLocal } from '../../infra/local/dynamo-local';

export const TEST_TABLE = 'analytics-api-test';

export default async function setup() {
  const ddb = await startDynamoLocal();
  await ensureTable(ddb.endpoint, TEST_TABLE);
  const db = createDocumentClient(ddb.endpoint);
  // The directory only: report tests load the exact facts they need.
  await ensureDemoWorld({ db, tableName: TEST_TABLE }, { facts: false });
  db.destroy();
  Object.assign(process.env, {
    DYNAMODB_ENDPOINT: ddb.endpoint,
    TABLE_NAME: TEST_TABLE,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
  return () => ddb.stop();
}
