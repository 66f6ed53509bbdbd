/**
 * The cloud ingest: the exports bucket and the function that loads every export file landing in it through the same
 * ingest service `npm run import` runs locally.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, EventType } from 'aws-cdk-lib/aws-s3';
import { LambdaDestination } from 'aws-cdk-lib/aws-s3-notifications';
import { Construct } from 'constructs';
import { ApiFunction } from './api-function';

export interface ExportIngestProps {
  readonly table: ITable;
}

export class ExportIngest extends Construct {
  readonly bucket: Bucket;
  readonly ingestFn: ApiFunction;

  constructor(scope: Construct, id: string, props: ExportIngestProps) {
    super(scope, id);
    const { table } = props;
    // Analytics exports land here (any prefix; the key's UC… segment and YYYYMMDD name a header-only file's
    // channel and day) and are loaded by the same ingest service `npm run import` runs locally.
    this.bucket = new Bucket(scope, 'ExportsBucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      versioned: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.ingestFn = new ApiFunction(scope, 'IngestFn', {
      entry: 'functions/ingest/s3-ingest.ts',
      memorySize: 1536,
      timeout: Duration.minutes(5),
      // One at a time: a file's month is recomputed from all its days, so loads of one month must not interleave.
      reservedConcurrentExecutions: 1,
      environment: { TABLE_NAME: table.tableName },
    });
    this.bucket.grantRead(this.ingestFn);
    this.ingestFn.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:BatchWriteItem'],
        resources: [table.tableArn],
      }),
    );
    for (const suffix of ['.csv', '.csv.gz']) {
      this.bucket.addEventNotification(EventType.OBJECT_CREATED, new LambdaDestination(this.ingestFn), { suffix });
    }
  }
}
