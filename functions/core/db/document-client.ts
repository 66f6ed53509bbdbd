/** One DynamoDB document client per container; the endpoint is overridden only for local runs and tests. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, type TranslateConfig } from '@aws-sdk/lib-dynamodb';
import { createWireClient, decodeBinary, operationOf, type WireClient } from './wire-client';

let shared: DynamoDBDocumentClient | undefined;

/** The document client every part of the service uses over a DynamoDB client (the operator CLI's too). */
export function documentClientOf(client: DynamoDBClient): DynamoDBDocumentClient {
  // The SDK's logger middleware copies every request and response through its sensitive-data filter to hand them to
  // the logger, even the default no-op one: a walk of every item read or written. We pass no logger, so drop it.
  client.middlewareStack.remove('loggerMiddleware');
  return new WireDocumentClient(client, { marshallOptions: { removeUndefinedValues: true } });
}

/**
 * The document client whose document commands (Get, Put, Update, Delete, Query, Scan and their batch and transaction
 * forms) go over the wire client (wire-client.ts) rather than the SDK's middleware stack; anything else (a table's
 * creation, a call with a callback or abort signal) goes through the SDK as before.
 */
class WireDocumentClient extends DynamoDBDocumentClient {
  private readonly wire: WireClient;

  constructor(client: DynamoDBClient, translateConfig: TranslateConfig) {
    super(client, translateConfig);
    this.wire = createWireClient(client, translateConfig.marshallOptions ?? {});
  }

  override send(command: any, ...rest: any[]): any {
    const operation = rest.length === 0 ? operationOf(command) : undefined;
    if (operation === undefined) return (super.send as (...args: unknown[]) => unknown)(command, ...rest);
    return this.wire.send(operation, command);
  }

  override destroy(): void {
    this.wire.destroy();
    super.destroy();
  }
}

/** The SDK's path decodes binary attributes as the wire client does. */
export const base64Decoder = decodeBinary;

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
