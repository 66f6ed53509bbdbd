/**
 * Synthesising the stack for CDK assertions (bundling and built-in validation off, toolchain.md §4.6), and small
 * readers of the template, shared by the infra tests. Each synth writes to a folder of its own under one temporary
 * root that cleanUpSyntheses() removes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { loadConfig, type StackConfig } from '../../infra/config';
import { applyNag } from '../../infra/nag';
import { AnalyticsApiStack } from '../../infra/stacks/analytics-api-stack';

export type Resource = { Type: string; Properties?: Record<string, unknown>; DeletionPolicy?: string } & Record<
  string,
  unknown
>;
export type Statement = { Action: string | string[]; Effect: string; Resource?: unknown };

let outRoot: string | undefined;
let outCount = 0;

/** A fresh, empty cloud-assembly folder. */
export function outdir(): string {
  outRoot ??= mkdtempSync(path.join(tmpdir(), 'analytics-api-cdk-'));
  return path.join(outRoot, String(outCount++));
}

export function cleanUpSyntheses(): void {
  if (outRoot) rmSync(outRoot, { recursive: true, force: true });
  outRoot = undefined;
}

/** An app for stack tests; with `nag`, cdk-nag checks it at synth (infra/app.ts does the same). */
export function testApp(options: { nag?: boolean } = {}): App {
  const app = new App({
    context: { 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: false,
    outdir: outdir(),
  });
  if (options.nag) applyNag(app);
  return app;
}

export function synth(config: StackConfig): Template {
  return Template.fromStack(new AnalyticsApiStack(testApp(), 'Test', config));
}

/** Settings as `cdk -c key=value` would give them (the rest default). */
export const configWith = (context: Record<string, string> = {}): StackConfig => loadConfig((k) => context[k], {});

export const ofType = (t: Template, type: string): [string, Resource][] =>
  Object.entries(t.findResources(type) as Record<string, Resource>);

export const props = (r: Resource): Record<string, any> => r.Properties ?? {};

/** `{ Ref: X }` or `{ 'Fn::GetAtt': [X, ...] }` → X. */
export const refId = (v: unknown): string | undefined => {
  const o = v as { Ref?: string; 'Fn::GetAtt'?: [string, string] } | undefined;
  return o?.Ref ?? o?.['Fn::GetAtt']?.[0];
};

export const actionsOf = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);

/** All statements of the inline policies attached to a function's role. */
export function statementsOfFunction(t: Template, fnId: string): Statement[] {
  const fn = t.toJSON().Resources[fnId] as Resource;
  const roleId = refId(props(fn).Role);
  return ofType(t, 'AWS::IAM::Policy')
    .filter(([, p]) => (props(p).Roles as unknown[]).some((r) => refId(r) === roleId))
    .flatMap(([, p]) => props(p).PolicyDocument.Statement as Statement[]);
}

/** Our functions: every Lambda but the ones CDK adds by itself (the bucket-notification helper). */
export const ownFunctions = (t: Template): [string, Resource][] =>
  ofType(t, 'AWS::Lambda::Function').filter(([id]) => !id.startsWith('BucketNotificationsHandler'));
