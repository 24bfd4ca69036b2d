/**
 * What our AWS SDK clients (EC2, CloudWatch) are built from, against AWS or the sandbox: only
 * the endpoint and keys differ.
 */
export type AwsClientOptions = {
  region: string;
  /** The sandbox, e.g. `${sandboxUrl}/sandbox/ec2/` or `…/sandbox/cloudwatch/`; unset for AWS. */
  endpoint?: string | undefined;
  /** Unset: the SDK's default chain (environment, instance role, …). */
  credentials?:
    { accessKeyId: string; secretAccessKey: string; sessionToken?: string | undefined } | undefined;
  /** Attempts per call including the SDK's own retries of 5xx and throttling. */
  maxAttempts?: number | undefined;
  /** A job must never hang on a socket. */
  requestTimeoutMs?: number | undefined;
};

/** The SDK client configuration for `options`: 3 attempts and a 30 s request timeout by default. */
export function awsClientConfig(options: AwsClientOptions) {
  const timeout = options.requestTimeoutMs ?? 30_000;
  return {
    region: options.region,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    maxAttempts: options.maxAttempts ?? 3,
    requestHandler: { requestTimeout: timeout, connectionTimeout: Math.min(timeout, 10_000) },
  };
}
