/**
 * How every Lambda of the stack is bundled. ApiFunction hands these settings to NodejsFunction, which runs esbuild's
 * CLI with them; esbuildOptions() gives the same build through esbuild's API, so the cold-start bench
 * (bench/cold-start.ts) measures the very bundles the stack deploys. test/infra/function-bundling.test.ts checks
 * that both produce the same bytes. Pure data and esbuild types only: no aws-cdk-lib here.
 */
import path from 'node:path';
import type { BuildOptions } from 'esbuild';

/** NodejsFunction `bundling` settings (format ESM, platform node and no externals are set by ApiFunction and CDK). */
export const FUNCTION_BUNDLING = {
  // The same line as the runtime (Runtime.NODEJS_22_X in ApiFunction).
  target: 'node22',
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  mainFields: ['module', 'main'],
  // Some CommonJS dependencies still call require() inside the ESM bundle.
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
} as const;

/**
 * Packages the bundles replace (esbuild's alias; the path is resolved in the project root): the SDK's default
 * credential chain becomes its first link, the environment, which is where Lambda puts the role's credentials.
 */
export const BUNDLE_ALIASES: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': './functions/_shared/lambda-credentials.ts',
};

/** BUNDLE_ALIASES as NodejsFunction's `esbuildArgs` (`--alias:<package>=<path>`). */
export const aliasArgs = (): { '--alias': string[] } => ({
  '--alias': Object.entries(BUNDLE_ALIASES).map(([pkg, to]) => `${pkg}=${to}`),
});

/** The file NodejsFunction writes for an ESM bundle (its source map is this name + `.map`). */
export const BUNDLE_FILE = 'index.mjs';

/**
 * esbuild API options equal to the CLI arguments CDK builds from ApiFunction's bundling (aws-lambda-nodejs
 * Bundling: `--bundle <entry> --target --platform=node --format=esm --outfile --minify --sourcemap
 * --sources-content=false --banner:js --main-fields --alias`; `bundleAwsSDK` means no `--external`). `entry` is
 * relative to `root`, as CDK runs esbuild in the project root.
 */
export function esbuildOptions(root: string, entry: string, outdir: string): BuildOptions {
  return {
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    target: FUNCTION_BUNDLING.target,
    platform: 'node',
    format: 'esm',
    outfile: path.join(outdir, BUNDLE_FILE),
    minify: FUNCTION_BUNDLING.minify,
    sourcemap: FUNCTION_BUNDLING.sourceMap,
    sourcesContent: FUNCTION_BUNDLING.sourcesContent,
    banner: { js: FUNCTION_BUNDLING.banner },
    mainFields: [...FUNCTION_BUNDLING.mainFields],
    alias: { ...BUNDLE_ALIASES },
  };
}
