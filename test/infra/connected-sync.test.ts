/**
 * The connected-owner sync in the synthesised stack: the schedule, the per-owner fan-out (a dispatcher queueing
 * one message per owner, a worker taking one owner per invocation, with a dead-letter queue), the settings it is
 * given, and the least privilege of each function. Settings (REPORTING_API_ROOT, OAUTH_TOKEN_URL, SYNC_SCHEDULE,
 * SYNC_CONCURRENCY) come through loadConfig like every other.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../infra/config';
import { AnalyticsApiStack } from '../../infra/stacks/analytics-api-stack';

type Resource = { Type: string; Properties?: Record<string, any> };
type Statement = { Action: string | string[]; Resource?: unknown };

function synth(context: Record<string, string> = {}): Template {
  const app = new App({
    context: { 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: false,
    outdir: mkdtempSync(path.join(tmpdir(), 'cdk-sync-')),
  });
  return Template.fromStack(
    new AnalyticsApiStack(
      app,
      'Sync',
      loadConfig((k) => context[k], {}),
    ),
  );
}

const resources = (t: Template) => t.toJSON().Resources as Record<string, Resource>;
const ofType = (t: Template, type: string) => Object.entries(resources(t)).filter(([, r]) => r.Type === type);
const fnByEntry = (t: Template, variable: string) =>
  ofType(t, 'AWS::Lambda::Function').find(([, fn]) => fn.Properties?.Environment?.Variables?.[variable] !== undefined);
const refId = (v: any): string | undefined => v?.Ref ?? v?.['Fn::GetAtt']?.[0];

function actionsOf(t: Template, fnId: string): { actions: string[]; resources: unknown[] } {
  const roleId = refId(resources(t)[fnId]?.Properties?.Role);
  const statements = ofType(t, 'AWS::IAM::Policy')
    .filter(([, p]) => ((p.Properties?.Roles ?? []) as unknown[]).some((r) => refId(r) === roleId))
    .flatMap(([, p]) => p.Properties?.PolicyDocument.Statement as Statement[]);
  return {
    actions: statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action])),
    resources: statements.map((s) => s.Resource),
  };
}

describe('ConnectedSync (default settings)', () => {
  let t: Template;
  beforeAll(() => {
    t = synth();
  });

  it('runs the dispatcher on a schedule, every 6 hours', () => {
    const [ruleId, rule] = ofType(t, 'AWS::Events::Rule')[0] as [string, Resource];
    expect(ruleId).toMatch(/SyncSchedule/);
    expect(rule.Properties?.ScheduleExpression).toBe('rate(6 hours)');
    const [dispatchId] = fnByEntry(t, 'SYNC_QUEUE_URL') as [string, Resource];
    expect(refId(rule.Properties?.Targets[0].Arn)).toBe(dispatchId);
    expect(rule.Properties?.Targets[0].RetryPolicy).toEqual({ MaximumRetryAttempts: 2 });
  });

  it('fans out one owner per worker invocation from a queue with a dead-letter queue', () => {
    const [workerId, worker] = fnByEntry(t, 'EXPORTS_BUCKET') as [string, Resource];
    const mapping = ofType(t, 'AWS::Lambda::EventSourceMapping').find(
      ([, m]) => refId(m.Properties?.FunctionName) === workerId,
    )?.[1] as Resource;
    expect(refId(mapping.Properties?.FunctionName)).toBe(workerId);
    expect(mapping.Properties?.BatchSize).toBe(1);
    expect(mapping.Properties?.ScalingConfig).toEqual({ MaximumConcurrency: 4 });
    expect(mapping.Properties?.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    const queues = ofType(t, 'AWS::SQS::Queue');
    const source = queues.find(([id]) => id === refId(mapping.Properties?.EventSourceArn))?.[1] as Resource;
    const dlqId = refId(source.Properties?.RedrivePolicy.deadLetterTargetArn);
    expect(queues.map(([id]) => id)).toContain(dlqId);
    expect(source.Properties?.RedrivePolicy.maxReceiveCount).toBe(3);
    // The queue hands a message out again only after six worker timeouts.
    expect(worker.Properties?.Timeout).toBe(900);
    expect(source.Properties?.VisibilityTimeout).toBe(5400);
  });

  it('gives the worker the Reporting API settings and the exports bucket', () => {
    const [, worker] = fnByEntry(t, 'EXPORTS_BUCKET') as [string, Resource];
    const vars = worker.Properties?.Environment.Variables;
    expect(vars.REPORTING_API_ROOT).toBe('https://youtubereporting.googleapis.com/');
    expect(vars.OAUTH_TOKEN_URL).toBe('https://oauth2.googleapis.com/token');
    expect(refId(vars.EXPORTS_BUCKET)).toMatch(/^ExportsBucket/);
  });

  it('grants each function only what it needs: no Scan, secrets only under this table’s prefix', () => {
    const [dispatchId] = fnByEntry(t, 'SYNC_QUEUE_URL') as [string, Resource];
    const [workerId] = fnByEntry(t, 'EXPORTS_BUCKET') as [string, Resource];
    const dispatch = actionsOf(t, dispatchId);
    expect(dispatch.actions.filter((a) => a.startsWith('dynamodb:'))).toEqual(['dynamodb:Query']);
    expect(dispatch.actions).toEqual(expect.arrayContaining(['sqs:SendMessage']));
    expect(dispatch.actions.some((a) => a.startsWith('secretsmanager:') || a.startsWith('s3:'))).toBe(false);

    const worker = actionsOf(t, workerId);
    expect(worker.actions).toEqual(expect.arrayContaining(['secretsmanager:GetSecretValue', 's3:PutObject']));
    expect(worker.actions.some((a) => a === 'dynamodb:Scan' || (a.endsWith('*') && a.startsWith('dynamodb')))).toBe(
      false,
    );
    expect(worker.actions).not.toContain('secretsmanager:CreateSecret');
    expect(JSON.stringify(worker.resources)).toContain('analytics-api/');
    expect(JSON.stringify(worker.resources)).toContain('/connected/*');
  });
});

describe('ConnectedSync settings', () => {
  it('takes the schedule and the concurrency from context', () => {
    const t = synth({ syncSchedule: 'cron(0 3 * * ? *)', syncConcurrency: '10' });
    const [[, rule]] = ofType(t, 'AWS::Events::Rule') as [[string, Resource]];
    const [workerId] = fnByEntry(t, 'EXPORTS_BUCKET') as [string, Resource];
    const [, mapping] = ofType(t, 'AWS::Lambda::EventSourceMapping').find(
      ([, m]) => refId(m.Properties?.FunctionName) === workerId,
    ) as [string, Resource];
    expect(rule.Properties?.ScheduleExpression).toBe('cron(0 3 * * ? *)');
    expect(mapping.Properties?.ScalingConfig).toEqual({ MaximumConcurrency: 10 });
  });

  it('refuses a bad schedule, concurrency or a non-https API root', () => {
    expect(() => loadConfig((k) => (k === 'syncSchedule' ? 'every 6 hours' : undefined), {})).toThrow(/syncSchedule/);
    expect(() => loadConfig((k) => (k === 'syncConcurrency' ? '1' : undefined), {})).toThrow(/from 2 to 1000/);
    expect(() => loadConfig(() => undefined, { REPORTING_API_ROOT: 'http://127.0.0.1:9/' })).toThrow(/https/);
    expect(loadConfig(() => undefined, { OAUTH_TOKEN_URL: 'https://token.example/' }).oauthTokenUrl).toBe(
      'https://token.example/',
    );
  });
});
