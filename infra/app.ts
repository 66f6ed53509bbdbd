/** CDK entry (cdk.json: `node --import tsx infra/app.ts`). Settings: infra/config.ts. */
import { App } from 'aws-cdk-lib';
import { loadConfig } from './config';
import { applyNag } from './nag';
import { AnalyticsApiStack } from './stacks/analytics-api-stack';

const app = new App();
const config = loadConfig((key) => app.node.tryGetContext(key), process.env);
const stackName = String(app.node.tryGetContext('stackName') ?? 'AnalyticsApi');

// cdk-nag runs on every synth and deploy (it adds well under a second); `-c nag=false` skips it in an emergency.
if (String(app.node.tryGetContext('nag') ?? 'true') !== 'false') applyNag(app);

new AnalyticsApiStack(app, stackName, {
  ...config,
  description: 'Self-hosted YouTube Analytics API v2 and Google Analytics Admin API v1alpha',
});
