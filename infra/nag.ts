/**
 * cdk-nag (AwsSolutions pack, cdk-nag 3: a CDK validation plugin). The app turns it on here; each finding the stack
 * knowingly accepts is acknowledged in code next to the resource it concerns, with acknowledge() and a reason.
 */
import { type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/** Runs the AwsSolutions checks on every stack of `app` at synth: an unacknowledged error fails the synth. */
export function applyNag(app: IConstruct): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
}

/**
 * Acknowledges one AwsSolutions finding on `scope` and everything under it. `rule` is the rule id without the pack
 * prefix; findings with evidence need it in full, e.g. `IAM5[Resource::<Bucket.Arn>/*]`.
 */
export function acknowledge(scope: IConstruct, rule: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: `AwsSolutions::AwsSolutions-${rule}`, reason });
}

/** The logical id of a construct's CloudFormation resource, as nag evidence names it (`<Id.Arn>`). */
export function logicalIdOf(construct: IConstruct): string {
  return Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);
}
