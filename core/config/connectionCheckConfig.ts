import { z } from 'zod';

/**
 * The connection check's endpoint (/connection-check): what the visitor's browser fetches to
 * measure its way to the region our PCs run in. `core/config/config.ts` merges the env entry and
 * calls `connectionCheckConfig` once; the page learns the URL from `GET /api/site`, and the CSP's
 * connect-src names its origin.
 */
export const CONNECTION_CHECK_ENV = {
  /**
   * Answers small GETs with CORS (`Access-Control-Allow-Origin`) from inside the region; with
   * `?bytes=N` it may answer N bytes, which adds a download speed. Unset: DynamoDB's regional
   * endpoint in AWS_REGION (small answers only), or the sandbox's stand-in in sandbox mode.
   */
  REGION_PING_URL: z
    .url({ protocol: /^https?$/, error: 'REGION_PING_URL must be an http(s) URL' })
    .refine((value) => {
      const url = new URL(value);
      return url.username === '' && url.password === '';
    }, 'REGION_PING_URL must not carry a user name or password (the browser fetches it)')
    .optional()
    .describe(
      "What the connection check page (`/connection-check`) fetches from the browser to measure round trip and jitter to the machines' region; answering `?bytes=N` with N bytes adds a download speed (the default does not). Must send CORS; the CSP's `connect-src` names its origin. https only in production. See [docs/connection-check.md](connection-check.md). Default: `https://dynamodb.<AWS_REGION>.amazonaws.com/ping` (sandbox: `PUBLIC_URL/sandbox/region-ping/ping`). Production: optional.",
    ),
};

type ConnectionCheckEnv = { REGION_PING_URL?: string | undefined };

export type ConnectionCheckConfig = {
  /** What the browser fetches (a cache-busting query is added per request). */
  pingUrl: string;
  /** The AWS region it stands for: the one machines are launched in. */
  region: string;
};

/**
 * DynamoDB's public regional endpoint answers `GET /ping` with a few bytes and sends
 * `Access-Control-Allow-Origin: *` (its browser SDK calls it cross-origin): the nearest thing AWS
 * offers to a ping in every region without an account's own resources.
 */
export function awsRegionPingUrl(region: string): string {
  return `https://dynamodb.${region}.amazonaws.com/ping`;
}

export function connectionCheckConfig(
  env: ConnectionCheckEnv,
  options: { production: boolean; region: string; ec2Sandbox: boolean; publicUrl: string },
): ConnectionCheckConfig {
  const given = env.REGION_PING_URL;
  if (given && options.production && new URL(given).protocol !== 'https:') {
    throw new Error('REGION_PING_URL: https only in production (an https page may not fetch http)');
  }
  const pingUrl =
    given ??
    // The browser reaches the sandbox on our public origin, like the sandbox's PayU checkout.
    (options.ec2Sandbox ? `${options.publicUrl}/sandbox/region-ping/ping` : awsRegionPingUrl(options.region));
  return { pingUrl, region: options.region };
}
