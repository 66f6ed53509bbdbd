/**
 * The connected-owner sync in the cloud: an EventBridge schedule (every 6 hours by default) starts a dispatcher that
 * queues one message per connected owner; a worker takes one owner per invocation (so a slow or broken owner never
 * delays the others), syncs it from the YouTube Reporting API with the credentials in Secrets Manager and writes the
 * reports to the exports bucket, whose ingest function loads them. A message whose worker crashed three times goes to
 * the dead-letter queue. The same code runs locally in `npm run sync`.
 */
import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { secretPrefix } from '../../functions/core/sync/owner';
import { acknowledge, logicalIdOf } from '../nag';
import { ApiFunction } from './api-function';

export interface ConnectedSyncProps {
  readonly table: ITable;
  /** The exports bucket (ExportIngest): the worker writes reports there. */
  readonly bucket: IBucket;
  readonly reportingApiRoot: string;
  readonly oauthTokenUrl: string;
  /** EventBridge `rate(…)` or `cron(…)`. */
  readonly syncSchedule: string;
  /** Owners synced at once. */
  readonly syncConcurrency: number;
}

/** One owner's sync may download a few hundred reports; the worker stops starting downloads a minute before this. */
const WORKER_TIMEOUT = Duration.minutes(15);

export class ConnectedSync extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly dispatchFn: ApiFunction;
  readonly workerFn: ApiFunction;
  readonly schedule: Rule;

  constructor(scope: Construct, id: string, props: ConnectedSyncProps) {
    super(scope, id);
    const { table, bucket } = props;
    this.deadLetterQueue = new Queue(this, 'SyncDeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.queue = new Queue(this, 'SyncQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // AWS's advice for Lambda consumers: six times the function's timeout, so a retried message is not handed out
      // while a slow worker still holds it.
      visibilityTimeout: Duration.minutes(WORKER_TIMEOUT.toMinutes() * 6),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: 3 },
    });

    this.dispatchFn = new ApiFunction(this, 'SyncDispatchFn', {
      entry: 'functions/sync/dispatch.ts',
      timeout: Duration.minutes(1),
      environment: { TABLE_NAME: table.tableName, SYNC_QUEUE_URL: this.queue.queueUrl },
    });
    this.dispatchFn.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:Query'], resources: [table.tableArn] }));
    this.queue.grantSendMessages(this.dispatchFn);

    this.workerFn = new ApiFunction(this, 'SyncWorkerFn', {
      entry: 'functions/sync/worker.ts',
      memorySize: 1024,
      timeout: WORKER_TIMEOUT,
      environment: {
        TABLE_NAME: table.tableName,
        EXPORTS_BUCKET: bucket.bucketName,
        REPORTING_API_ROOT: props.reportingApiRoot,
        OAUTH_TOKEN_URL: props.oauthTokenUrl,
      },
    });
    this.workerFn.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: 1,
        maxConcurrency: props.syncConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    this.workerFn.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:UpdateItem'],
        resources: [table.tableArn],
      }),
    );
    // Only this deployment's owner secrets (their names start with the table's name; owner.ts).
    const stack = Stack.of(this);
    this.workerFn.addToRolePolicy(
      new PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: [
          stack.formatArn({
            service: 'secretsmanager',
            resource: 'secret',
            resourceName: `${secretPrefix(table.tableName)}*`,
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        ],
      }),
    );
    // Explicit: grantPut would add s3:Abort* and more. Reports go under any owner's prefix of the bucket.
    this.workerFn.addToRolePolicy(
      new PolicyStatement({ actions: ['s3:PutObject'], resources: [bucket.arnForObjects('*')] }),
    );
    acknowledge(
      this.workerFn.role as Role,
      `IAM5[Resource::<${logicalIdOf(bucket)}.Arn>/*]`,
      'The worker writes each connected owner’s reports under that owner’s prefix of the exports bucket; only PutObject',
    );
    acknowledge(
      this.workerFn.role as Role,
      'IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:analytics-api/<' +
        `${logicalIdOf(table)}>/connected/*]`,
      'One secret per connected owner, created by `npm run connect`: the worker reads only this deployment’s prefix',
    );

    this.schedule = new Rule(this, 'SyncSchedule', {
      description: 'Syncs the connected owners from the YouTube Reporting API',
      schedule: Schedule.expression(props.syncSchedule),
      targets: [new LambdaFunction(this.dispatchFn, { retryAttempts: 2 })],
    });
  }
}
