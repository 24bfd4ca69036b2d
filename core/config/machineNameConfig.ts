import { z } from 'zod';
import { isDnsSuffix, normaliseSuffix } from '../domain/machineName.ts';
import type { Ec2Config } from './vmConfig.ts';

/**
 * The machines' stable names (core/domain/machineName.ts): the Route 53 hosted zone they live in
 * and its domain. `core/config/config.ts` merges the env entries and calls `machineNameConfig`
 * once. Unset, machines have no name and are reached by their address, as before.
 */

/** An empty value is unset: `MACHINE_DNS_ZONE_ID= npm start` runs the sandbox without names. */
const blankIsUnset = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

export const MACHINE_NAME_ENV = {
  MACHINE_DNS_ZONE_ID: z
    .preprocess(
      blankIsUnset,
      z
        .string()
        .trim()
        .transform((id) => id.replace(/^\/?hostedzone\//, ''))
        .pipe(
          z.string().regex(/^Z[A-Z0-9]{1,31}$/, 'a Route 53 hosted zone id such as Z0123456789ABCDEFGHIJ'),
        )
        .optional(),
    )
    .describe(
      'The Route 53 public hosted zone every machine gets a DNS name in (its id, e.g. Z0123456789ABCDEFGHIJ). Default: unset, machines are reached by their IP address, which changes at every start; `npm start` uses the sandbox zone. Production: recommended; set it with MACHINE_DNS_SUFFIX; the worker role needs route53:ChangeResourceRecordSets, ListResourceRecordSets and GetHostedZone on it (infra/iam/worker-policy.json), and `npm run aws:check` checks it.',
    ),
  MACHINE_DNS_SUFFIX: z
    .preprocess(
      blankIsUnset,
      z
        .string()
        .refine(isDnsSuffix, 'a domain name such as play.legendcloud.in')
        .transform(normaliseSuffix)
        .optional(),
    )
    .describe(
      "The domain of MACHINE_DNS_ZONE_ID (the zone's own name, e.g. play.legendcloud.in): machines are named pc-xxxxxxxx.<suffix>. Default: unset (no names). Production: set with MACHINE_DNS_ZONE_ID, both or neither.",
    ),
  ROUTE53_ENDPOINT: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      "Another Route 53 endpoint. Default: AWS's own (the sandbox's `SANDBOX_URL/sandbox/route53` while EC2 is the sandbox's). Production: leave unset.",
    ),
};

type MachineNameEnv = {
  MACHINE_DNS_ZONE_ID?: string | undefined;
  MACHINE_DNS_SUFFIX?: string | undefined;
  ROUTE53_ENDPOINT?: string | undefined;
};

export type MachineNameConfig = {
  zoneId: string;
  /** `play.legendcloud.in`: lowercase, no dots at either end. */
  suffix: string;
  /** The Route 53 client: EC2's keys; AWS's global endpoint, or the sandbox's. */
  route53: {
    region: string;
    endpoint: string | undefined;
    credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  };
};

/** Null when no zone is configured. Throws an Error naming the problem (config.ts makes it a ConfigError). */
export function machineNameConfig(
  env: MachineNameEnv,
  context: { ec2: Ec2Config; sandboxUrl: string },
): MachineNameConfig | null {
  const { MACHINE_DNS_ZONE_ID: zoneId, MACHINE_DNS_SUFFIX: suffix } = env;
  if ((zoneId === undefined) !== (suffix === undefined))
    throw new Error(
      'Set both MACHINE_DNS_ZONE_ID and MACHINE_DNS_SUFFIX (the zone and its domain), or neither.',
    );
  if (zoneId === undefined || suffix === undefined) return null;
  const sandbox = context.ec2.mode === 'sandbox';
  return {
    zoneId,
    suffix,
    route53: {
      // Route 53 is global: the SDK signs for us-east-1 whatever the region; EC2's keeps one setting.
      region: context.ec2.region,
      endpoint: env.ROUTE53_ENDPOINT ?? (sandbox ? `${context.sandboxUrl}/sandbox/route53` : undefined),
      credentials: context.ec2.credentials,
    },
  };
}
