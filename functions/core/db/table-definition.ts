/**
 * The key schema of the one table, defined once. Read by the CDK stack (infra/constructs/app-table.ts) and by the
 * local host (infra/local/dynamo-local.ts), so the cloud and the laptop cannot drift apart.
 */
export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  globalIndexes: [{ name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' }],
  timeToLiveAttribute: 'expiresAt',
} as const;

export type TableKey = { pk: string; sk: string };
