/**
 * The cloud ingest: the exports bucket, the queue its new export files are announced on, and the function that loads
 * them through the same ingest service `npm run import` runs locally.
 *
 * S3 → SQS standard queue → Lambda (event source mapping). The queue absorbs bursts (a backfill drops thousands of
 * files at once), the mapping's maximum concurrency bounds the write load on the table, and a file whose load keeps
 * failing lands in the dead-letter queue after a bounded number of receives instead of being dropped. Loads that
 * touch the same (report type, owner, month) are serialized by the ingest itself (a lease in the table), so the queue
 * need not be FIFO (S3 notifications cannot target a FIFO queue anyway).
 */
import { Aws, Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, type Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  EventType,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { SqsDestination } from 'aws-cdk-lib/aws-s3-notifications';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { StackConfig } from '../config';
import { acknowledge, logicalIdOf } from '../nag';
import { ApiFunction } from './api-function';
import { grantTable } from './table-access';

export type ExportIngestProps = Pick<
  StackConfig,
  'ingestMemoryMb' | 'ingestEphemeralStorageMb' | 'ingestMaxConcurrency' | 'ingestBatchSize'
> & {
  readonly table: ITable;
};

/** Lambda's maximum: a file of the largest supported size must load within it. */
export const INGEST_TIMEOUT = Duration.minutes(15);
/** Receives of one message before it moves to the dead-letter queue. */
export const MAX_RECEIVE_COUNT = 5;
/** Export file names the bucket announces. */
export const EXPORT_SUFFIXES = ['.csv', '.csv.gz'] as const;

export class ExportIngest extends Construct {
  readonly bucket: Bucket;
  readonly ingestFn: ApiFunction;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: ExportIngestProps) {
    super(scope, id);
    const { table } = props;
    // Stateful resources keep the ids (and so the logical ids) they had at the stack's root.
    const accessLogs = new Bucket(scope, 'ExportsAccessLogsBucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      lifecycleRules: [{ expiration: Duration.days(365) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    acknowledge(
      accessLogs,
      'S1',
      'This bucket holds the exports bucket’s access logs; logging it in turn would only record the log delivery',
    );
    // Analytics exports land here (any prefix; the key's UC… segment and YYYYMMDD name a header-only file's
    // channel and day) and are loaded by the same ingest service `npm run import` runs locally.
    this.bucket = new Bucket(scope, 'ExportsBucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      versioned: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    logAccessTo(this.bucket, accessLogs, 'exports/');

    this.ingestFn = new ApiFunction(scope, 'IngestFn', {
      entry: 'functions/ingest/s3-ingest.ts',
      memorySize: props.ingestMemoryMb,
      timeout: INGEST_TIMEOUT,
      ephemeralStorageMb: props.ingestEphemeralStorageMb,
      environment: { TABLE_NAME: table.tableName },
    });

    // Retention: the dead-letter queue keeps a message 14 days (the maximum) counted from when it first entered the
    // ingest queue, so it must outlive the ingest queue's 4 days (SQS keeps the original enqueue time).
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(4),
      // AWS guidance for an SQS event source: at least six times the function timeout, so a message is not handed
      // out again while the poller still retries a throttled invocation of it. It is also the delay before a failed
      // file is retried.
      visibilityTimeout: Duration.seconds(INGEST_TIMEOUT.toSeconds() * 6),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: MAX_RECEIVE_COUNT },
    });
    for (const suffix of EXPORT_SUFFIXES) {
      this.bucket.addEventNotification(EventType.OBJECT_CREATED, new SqsDestination(this.queue), { suffix });
    }
    this.ingestFn.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: props.ingestBatchSize,
        maxConcurrency: props.ingestMaxConcurrency,
        // The handler answers which files to retry; the others of the batch are done.
        reportBatchItemFailures: true,
      }),
    );

    grantTable(table, this.ingestFn, 'readWrite', { indexes: false });
    this.ingestFn.addToRolePolicy(
      new PolicyStatement({ actions: ['s3:GetObject'], resources: [this.bucket.arnForObjects('*')] }),
    );
    acknowledge(
      this.ingestFn.role as Role,
      `IAM5[Resource::<${logicalIdOf(this.bucket)}.Arn>/*]`,
      'Any object of the exports bucket may be an export file to load; only GetObject is granted',
    );
  }
}

/**
 * Server access logs of `bucket` into `logs`, delivered under a bucket policy (AWS's recommendation; CDK's own
 * serverAccessLogsBucket falls back to ACLs unless a feature flag is set on the app).
 */
function logAccessTo(bucket: Bucket, logs: Bucket, prefix: string): void {
  logs.addToResourcePolicy(
    new PolicyStatement({
      principals: [new ServicePrincipal('logging.s3.amazonaws.com')],
      actions: ['s3:PutObject'],
      resources: [logs.arnForObjects(`${prefix}*`)],
      conditions: {
        ArnLike: { 'aws:SourceArn': bucket.bucketArn },
        StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
      },
    }),
  );
  (bucket.node.defaultChild as CfnBucket).loggingConfiguration = {
    destinationBucketName: logs.bucketName,
    logFilePrefix: prefix,
  };
}
