/** GitHub workflows: schema-valid (action-validator, offline) and shaped the way the release process assumes. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const WORKFLOWS = path.join(ROOT, '.github', 'workflows');
const VALIDATOR = path.join(ROOT, 'node_modules', '.bin', 'action-validator');

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  needs?: string | string[];
  if?: string;
  environment?: string | { name: string };
  permissions?: Record<string, string>;
  env?: Record<string, string>;
  steps: Step[];
}
interface Workflow {
  env?: Record<string, string>;
  jobs: Record<string, Job>;
}

/** Exit status and output of action-validator on one file (it takes one file per call). */
const validate = (file: string): { status: number; output: string } => {
  try {
    return { status: 0, output: execFileSync(VALIDATOR, [file], { stdio: 'pipe', encoding: 'utf8' }) };
  } catch (error) {
    const e = error as { status?: number; stdout?: string; stderr?: string };
    return { status: e.status ?? -1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
};

const files = readdirSync(WORKFLOWS).filter((f) => /\.ya?ml$/.test(f));
const tmp = mkdtempSync(path.join(tmpdir(), 'analytics-api-workflows-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('workflow files', () => {
  it('exist', () => {
    expect(files).toContain('ci.yml');
  });

  it.each(files)('%s passes action-validator', (file) => {
    expect(validate(path.join(WORKFLOWS, file))).toEqual({ status: 0, output: '' });
  });

  it('action-validator rejects a broken workflow', () => {
    const broken = path.join(tmp, 'broken.yml');
    writeFileSync(broken, 'on:\n  pushh:\njobs:\n  x:\n    runs-on: ubuntu-latest\n    step:\n      - run: true\n');

    const result = validate(broken);

    expect(result.status).not.toBe(0);
    expect(result.output).toMatch(/step/);
  });
});

describe('ci.yml', () => {
  const ci = parse(readFileSync(path.join(WORKFLOWS, 'ci.yml'), 'utf8')) as Workflow;
  const runs = (job: Job) => job.steps.map((s) => s.run ?? '').join('\n');

  it('check job runs lint, typecheck, tests and synth', () => {
    const check = ci.jobs.check as Job;

    for (const script of ['npm ci', 'npm run lint', 'npm run typecheck', 'npm test', 'npm run synth']) {
      expect(runs(check)).toContain(script);
    }
  });

  it('deploy job runs after check, only for pushes to main, in the production environment', () => {
    const deploy = ci.jobs.deploy as Job;

    expect([deploy.needs].flat()).toContain('check');
    expect(deploy.if).toMatch(/github\.event_name == 'push'/);
    expect(deploy.if).toMatch(/github\.ref == 'refs\/heads\/main'/);
    expect(deploy.environment).toBe('production');
  });

  it('deploy job assumes the deploy role through OIDC', () => {
    const deploy = ci.jobs.deploy as Job;
    const creds = deploy.steps.find((s) => s.uses?.startsWith('aws-actions/configure-aws-credentials@'));

    expect(deploy.permissions).toEqual({ 'id-token': 'write', contents: 'read' });
    expect(creds?.with?.['role-to-assume']).toBe('${{ vars.AWS_DEPLOY_ROLE_ARN }}');
    expect(creds?.with?.['aws-region']).toBe('${{ vars.AWS_REGION }}');
  });

  it('deploy job runs cdk deploy with the three JWT settings and telemetry off', () => {
    const deploy = ci.jobs.deploy as Job;
    const step = deploy.steps.find((s) => s.run?.includes('cdk deploy')) as Step;
    const env = { ...ci.env, ...deploy.env, ...step.env };

    expect(step.run).toMatch(/npx cdk deploy --all --require-approval never/);
    for (const [context, variable] of [
      ['jwtIssuer', 'JWT_ISSUER'],
      ['jwtAudience', 'JWT_AUDIENCE'],
      ['jwksUri', 'JWKS_URI'],
    ]) {
      expect(step.run).toContain(`-c ${context}="$${variable}"`);
      expect(env[variable as string]).toBe(`\${{ vars.${variable} }}`);
    }
    expect(env.CDK_DISABLE_CLI_TELEMETRY).toBe('true');
  });

  it('deploy job passes the user pool option and runs the smoke test after cdk deploy when it is on', () => {
    const deploy = ci.jobs.deploy as Job;
    const deployAt = deploy.steps.findIndex((s) => s.run?.includes('cdk deploy'));
    const smokeAt = deploy.steps.findIndex((s) => s.run?.includes('npm run smoke'));
    const smoke = deploy.steps[smokeAt] as Step & { if?: string };

    expect(deploy.steps[deployAt]?.run).toContain('-c userPool="${USER_POOL:-false}"');
    expect(deploy.steps[deployAt]?.env?.USER_POOL).toBe('${{ vars.USER_POOL }}');
    expect(smokeAt).toBeGreaterThan(deployAt);
    expect(smoke.if).toBe("vars.USER_POOL == 'true'");
    expect(smoke.run).toMatch(/npm run smoke -- --base-url "\$API_URL" --token "\$TOKEN"/);
    // A client-credentials token of the service client, its secret read at run time and masked in the log.
    expect(smoke.run).toContain('grant_type=client_credentials');
    expect(smoke.run).toContain('describe-user-pool-client');
    expect(smoke.run).toContain('::add-mask::$CLIENT_SECRET');
    expect(smoke.run).toContain('::add-mask::$TOKEN');
  });

  it('never splices an expression into a script: values reach run steps through env', () => {
    for (const job of Object.values(ci.jobs)) {
      for (const step of job.steps) expect(step.run ?? '', step.run).not.toMatch(/\$\{\{/);
    }
  });
});
