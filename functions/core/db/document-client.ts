/** One DynamoDB document client per container; the endpoint is overridden only for local runs and tests. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

let shared: DynamoDBDocumentClient | undefined;

/** The document client every part of the service uses over a DynamoDB client (the operator CLI's too). */
export function documentClientOf(client: DynamoDBClient): DynamoDBDocumentClient {
  // The SDK's logger middleware copies every request and response through its sensitive-data filter to hand them to
  // the logger, even the default no-op one: a walk of every item read or written. We pass no logger, so drop it.
  client.middlewareStack.remove('loggerMiddleware');
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

export function createDocumentClient(endpoint = process.env.DYNAMODB_ENDPOINT): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    maxAttempts: 3,
    ...(endpoint
      ? {
          endpoint,
          region: process.env.AWS_REGION ?? 'us-east-1',
          credentials: {
            accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? 'local',
            secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
          },
        }
      : {}),
  });
  return documentClientOf(client);
}

export function documentClient(): DynamoDBDocumentClient {
  shared ??= createDocumentClient();
  return shared;
}
