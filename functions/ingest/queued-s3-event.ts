/**
 * The event the stack's ingest queue delivers for an object landing in the exports bucket: an SQS message whose body
 * is the S3 notification. What `npm run import -- --as-lambda`, the ingest bench and the tests send through the
 * cloud handler (s3-ingest.ts), so they exercise the same parsing as the cloud. Not imported by the handler itself.
 */
import type { SQSEvent } from 'aws-lambda';

/** An object key as S3 event notifications spell it: URL-encoded per segment, '+' for spaces. */
export const notifiedKey = (key: string) =>
  key
    .split('/')
    .map((part) => encodeURIComponent(part).replace(/%20/g, '+'))
    .join('/');

/** One SQS message carrying the S3 notification of `key` (created now). */
export function queuedS3Message(
  key: string,
  options: { id?: string; bucket?: string; size?: number } = {},
): SQSEvent['Records'][number] {
  const bucket = options.bucket ?? 'local';
  const notification = {
    Records: [
      {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        eventName: 'ObjectCreated:Put',
        eventTime: new Date().toISOString(),
        s3: {
          bucket: { name: bucket, arn: `arn:aws:s3:::${bucket}` },
          object: { key: notifiedKey(key), size: options.size ?? 0 },
        },
      },
    ],
  };
  const id = options.id ?? key;
  return {
    messageId: id,
    receiptHandle: id,
    body: JSON.stringify(notification),
    attributes: {} as SQSEvent['Records'][number]['attributes'],
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:local:000000000000:ingest',
    awsRegion: 'local',
  };
}

/** An SQS batch of one message per key. */
export const queuedS3Event = (...keys: string[]): SQSEvent => ({ Records: keys.map((key) => queuedS3Message(key)) });
