/** Cold-start baseline of functions that also read or write S3 (bench/cold-start.ts): the document client and an S3 client. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const db = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const s3 = new S3Client({});

export const handler = async () => ({ statusCode: 200, body: String(db !== undefined && s3 !== undefined) });
