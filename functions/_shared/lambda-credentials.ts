/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (infra/constructs/function-bundling.ts
 * aliases it here). In Lambda the runtime puts the role's credentials in the environment, and the SDK's default
 * chain finds them there first; its other links (profiles, SSO, web identity, containers, the instance metadata)
 * bring the STS, SSO and sign-in clients with them: 135 KB of every bundle, parsed and partly run at each cold start.
 * Only the bundles use this: the local host, the tests and the operator CLI (profiles, SSO) keep the full chain.
 */

/** What the SDK's credential providers resolve to (AwsCredentialIdentity). */
interface EnvCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly expiration?: Date;
  readonly credentialScope?: string;
  readonly accountId?: string;
}

/** The SDK's `fromEnv`, the first link of its default chain, read the same way. */
export const defaultProvider = () => async (): Promise<EnvCredentials> => {
  const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_CREDENTIAL_EXPIRATION } = process.env;
  const { AWS_CREDENTIAL_SCOPE, AWS_ACCOUNT_ID } = process.env;
  if (!AWS_ACCESS_KEY_ID || !AWS_SECRET_ACCESS_KEY) {
    throw new Error(
      'AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set. The Lambda runtime sets them; ' +
        'this bundle reads no other source (lambda-credentials.ts).',
    );
  }
  return {
    accessKeyId: AWS_ACCESS_KEY_ID,
    secretAccessKey: AWS_SECRET_ACCESS_KEY,
    ...(AWS_SESSION_TOKEN ? { sessionToken: AWS_SESSION_TOKEN } : {}),
    ...(AWS_CREDENTIAL_EXPIRATION ? { expiration: new Date(AWS_CREDENTIAL_EXPIRATION) } : {}),
    ...(AWS_CREDENTIAL_SCOPE ? { credentialScope: AWS_CREDENTIAL_SCOPE } : {}),
    ...(AWS_ACCOUNT_ID ? { accountId: AWS_ACCOUNT_ID } : {}),
  };
};
