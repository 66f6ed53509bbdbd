/** NodejsFunction with the house defaults, so every Lambda of the stack is built and logged the same way. */
import path from 'node:path';
import { Duration, Size } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { acknowledge } from '../nag';
import { aliasArgs, FUNCTION_BUNDLING } from './function-bundling';

/** infra/constructs → repo root; route entries (`functions/...ts`) are relative to it. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');

export interface ApiFunctionProps {
  /** Repo-relative module exporting `handler`. */
  readonly entry: string;
  readonly memorySize?: number;
  readonly timeout?: Duration;
  readonly environment?: Record<string, string>;
  readonly reservedConcurrentExecutions?: number;
  /** Size of /tmp (Lambda's default is 512 MB). */
  readonly ephemeralStorageMb?: number;
  /** Shell commands run in the repo root after esbuild, to add files next to the bundle in `outputDir`. */
  readonly afterBundling?: (outputDir: string) => string[];
}

export class ApiFunction extends NodejsFunction {
  /** Repo-relative module exporting `handler` (the cold-start bench builds every function of the stack from it). */
  readonly entry: string;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    // An explicit log group gets a retention without the LogRetention custom-resource Lambda.
    const logGroup = new LogGroup(scope, `${id}Logs`, { retention: RetentionDays.ONE_MONTH });
    // A role of its own instead of AWSLambdaBasicExecutionRole: that managed policy may create any log group and
    // write to all of them; this role writes to its function's log group only.
    const role = new Role(scope, `${id}Role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    logGroup.grantWrite(role);
    super(scope, id, {
      entry: path.join(REPO_ROOT, props.entry),
      handler: 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: path.join(REPO_ROOT, 'package-lock.json'),
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      ...(props.reservedConcurrentExecutions
        ? { reservedConcurrentExecutions: props.reservedConcurrentExecutions }
        : {}),
      ...(props.ephemeralStorageMb ? { ephemeralStorageSize: Size.mebibytes(props.ephemeralStorageMb) } : {}),
      environment: { POWERTOOLS_SERVICE_NAME: 'analytics-api', ...props.environment },
      role,
      logGroup,
      bundling: {
        format: OutputFormat.ESM,
        ...FUNCTION_BUNDLING,
        mainFields: [...FUNCTION_BUNDLING.mainFields],
        esbuildArgs: aliasArgs(),
        // Pin the SDK we test with instead of the runtime's copy.
        bundleAwsSDK: true,
        // Bundle with the project's esbuild; there is no Docker in CI or on the dev hosts.
        forceDockerBundling: false,
        ...(props.afterBundling
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (_inputDir: string, outputDir: string) => props.afterBundling?.(outputDir) ?? [],
              },
            }
          : {}),
      },
    });
    this.entry = props.entry;
    acknowledge(
      this,
      'L1',
      'nodejs22.x on purpose: the bundles target node22 and the tests run on the Node 22 line; moving to nodejs24.x is a deliberate upgrade (toolchain.md)',
    );
  }
}
