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

/**
 * Binary attributes come as base64 in DynamoDB's JSON, and the SDK's decoder first tests each string against a
 * regular expression: 1-4% of a report's time, whose facts are blobs. DynamoDB sends well-formed base64, which
 * Buffer decodes as the SDK's does after its test.
 */
export function base64Decoder(text: string): Uint8Array {
  const bytes = Buffer.from(text, 'base64');
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function createDocumentClient(endpoint = process.env.DYNAMODB_ENDPOINT): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    maxAttempts: 3,
    base64Decoder,
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
