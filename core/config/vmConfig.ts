import { z } from 'zod';
import { DCV_WEB_URL_DEFAULT } from '../domain/desktop.ts';
import { DEFAULT_SNAPSHOT_DEADLINE_MS } from '../domain/lifecycle.ts';
import { DEFAULT_LAUNCH_BUDGET } from '../domain/launchBudget.ts';
import { CARD_PLANS, PLAN_IDS, type PlanId } from '../domain/plans.ts';
import { MOONLIGHT_HOME_URL, parseCidr4 } from '../domain/streaming.ts';

/**
 * The cloud-PC part of the configuration: where and how machines are launched, the
 * warm pool, and the timings of the jobs that look after them. `core/config/config.ts` merges
 * `VM_ENV` into its schema and calls `parseVmConfig` once; nothing here reads process.env.
 */

const list = z.string().transform((value) =>
  value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean),
);
const ids = (prefix: string, pattern: RegExp) =>
  list.refine((values) => values.every((v) => pattern.test(v)), `expected ${prefix}… ids, comma-separated`);

const AMI = z.string().regex(/^ami-[0-9a-f]{8,17}$/, 'an AMI id looks like ami-0123456789abcdef0');

export const VM_ENV = {
  AWS_REGION: z
    .string()
    .regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'an AWS region such as ap-south-1')
    .optional(),
  AWS_ACCESS_KEY_ID: z.string().min(16).optional(),
  AWS_SECRET_ACCESS_KEY: z.string().min(16).optional(),
  /**
   * The instance profile (name or ARN) every machine launches with: it lets the CloudWatch
   * agent and the GPU poller on the image publish metrics (infra/iam/instance-policy.json).
   */
  EC2_INSTANCE_PROFILE: z
    .string()
    .regex(
      /^(arn:aws[a-z-]*:iam::\d{12}:instance-profile\/[\w+=,.@/-]{1,128}|[\w+=,.@-]{1,128})$/,
      'an instance profile name or its ARN (arn:aws:iam::123456789012:instance-profile/name)',
    )
    .optional(),
  /** Another EC2 endpoint (the sandbox, a VPC endpoint); unset means AWS's own. */
  EC2_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  SERVICE_QUOTAS_ENDPOINT: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      "Where `npm run aws:check` asks Service Quotas for the G-instance vCPU quota. Default: derived from EC2_ENDPOINT as the SDK builds hostnames (service label `ec2` → `servicequotas`, e.g. https://ec2.ap-south-1.amazonaws.com → https://servicequotas.ap-south-1.amazonaws.com; the sandbox's /sandbox/ec2/ → /sandbox/servicequotas/), AWS's own when EC2_ENDPOINT is unset. Production: set it when EC2_ENDPOINT is a VPC endpoint's own hostname (vpce-…), which names no other service.",
    ),
  LAUNCH_BUDGET_PER_HOUR: z
    .string()
    .optional()
    .describe(
      "Instances that may be launched per hour, for each plan's warm pool and for each customer's plan (its machine and any replacement): one number for all (`4`), or `plan=count` pairs with `machine=count` for customers' plans (`legend=6,pro-legend=2,machine=3`). Default 4 each. Past it nothing is launched until the hour frees one, and an operator is alerted. Production: keep it small; every Windows GPU launch is billed.",
    ),
  EC2_KEY_NAME: z.string().min(1).max(255).optional(),
  /** The key pair's private key, PEM (literal `\n` sequences are read as line breaks). */
  EC2_PRIVATE_KEY_PEM: z.string().min(1).optional(),
  EC2_AMI_ID: AMI.optional(),
  EC2_AMI_LEGEND: AMI.optional(),
  EC2_AMI_PRO_LEGEND: AMI.optional(),
  EC2_AMI_ULTRA_LEGEND: AMI.optional(),
  EC2_AMI_EDITOR_LOW: AMI.optional(),
  EC2_AMI_EDITOR_HIGH: AMI.optional(),
  EC2_SECURITY_GROUP_IDS: ids('sg-', /^sg-[0-9a-z]+$/).optional(),
  EC2_SUBNET_IDS: ids('subnet-', /^subnet-[0-9a-z]+$/).optional(),
  EC2_FALLBACK_SUBNET_IDS: ids('subnet-', /^subnet-[0-9a-z]+$/).optional(),
  /** Tag value naming this deployment on every instance, so the reconciler never touches another's. */
  EC2_DEPLOYMENT_TAG: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,100}$/)
    .optional(),
  /** A count for every card plan, or `plan=count` pairs. */
  WARM_POOL_SIZE: z.string().optional(),
  POOL_HOT: z.string().optional(),
  VM_GRACE_DAYS: z.coerce.number().min(0).max(365).optional(),
  SNAPSHOT_KEEP_DAYS: z.coerce.number().min(0).max(365).optional(),
  SNAPSHOT_DEADLINE_HOURS: z.coerce.number().min(0.01).max(168).optional(),
  PROVISION_DEADLINE_MINUTES: z.coerce
    .number()
    .min(1)
    .max(24 * 60)
    .optional(),
  VM_POLL_SECONDS: z.coerce.number().min(0.2).max(300).optional(),
  VM_STUCK_SECONDS: z.coerce
    .number()
    .min(1)
    .max(24 * 3600)
    .optional(),
  ORPHAN_GRACE_MINUTES: z.coerce
    .number()
    .min(0)
    .max(7 * 24 * 60)
    .optional(),
  STREAMING_CLIENT_URL: z.url({ protocol: /^https?$/ }).optional(),
  SETUP_VIDEO_URL: z.url({ protocol: /^https?$/ }).optional(),
  RDP_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  DCV_WEB_URL: z.string().trim().min(1).max(500).optional(),
  /**
   * The worker's public egress addresses (its NAT gateway's), IPv4 CIDRs, comma-separated: the
   * only sources the security group lets reach Sunshine's API (TCP 47990) on the machines.
   */
  WORKER_EGRESS_CIDRS: list
    .refine((values) => values.length > 0 && values.every((v) => parseCidr4(v) !== null), {
      message: 'IPv4 addresses or CIDRs, comma-separated (e.g. 203.0.113.10/32)',
    })
    .optional(),
};

type VmEnv = z.infer<z.ZodObject<typeof VM_ENV>>;

export type Ec2Config = {
  /** `sandbox`: the local stand-in at /sandbox/ec2 with dummy keys; `aws`: the real thing. */
  mode: 'aws' | 'sandbox';
  region: string;
  endpoint: string | undefined;
  /** Static keys when given; undefined means the SDK's default chain (environment, SSO, instance or task role). */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  keyName: string;
  /** Name or ARN of the instance profile machines launch with; null launches without one. */
  instanceProfile: string | null;
  /** Null only outside production when none was given: passwords then cannot be decrypted. */
  privateKeyPem: string | null;
  amiByPlan: Record<PlanId, string>;
  securityGroupIds: string[];
  subnetIds: string[];
  fallbackSubnetIds: string[];
  deploymentTag: string;
  /** Where the worker's calls to the machines come from (WORKER_EGRESS_CIDRS); the preflight checks the group against it. */
  workerEgressCidrs: string[];
  /**
   * Service Quotas and IAM for the preflight (`deriveEndpoint`); undefined: AWS's own; null:
   * EC2_ENDPOINT names no other service (a VPC endpoint's own hostname) and
   * SERVICE_QUOTAS_ENDPOINT is unset.
   */
  serviceQuotasEndpoint: string | undefined | null;
  iamEndpoint: string | undefined;
};

export type VmConfig = {
  /** Launched, first-boot-done, stopped instances kept per plan. */
  warmPoolSize: Record<PlanId, number>;
  /**
   * At most this many running spares per plan (`POOL_HOT`). How many are kept follows demand:
   * one, plus one for each purchase of the plan in the last hour, within this bound and the
   * instance type's capacity limit.
   */
  hotPoolMax: Record<PlanId, number>;
  /** Days an expired plan's machine is kept (stopped) before it is terminated. */
  graceDays: number;
  /** An expired machine's disk is kept as a snapshot this long after it is taken. */
  snapshotKeepDays: number;
  /** A kept disk's copy still pending this long is alerted and taken again. */
  snapshotDeadlineHours: number;
  /** After this long without a ready machine the customer is told and an operator alerted. */
  provisionDeadlineMinutes: number;
  /** How soon a machine in transition is checked again. */
  pollSeconds: number;
  /** A transition with no progress for this long is picked up again by the reaper. */
  stuckSeconds: number;
  /** Launch attempts in the main subnets before the fallback subnets are tried. */
  launchAttemptsBeforeFallback: number;
  /** Instances per hour each plan's warm pool, and each customer's plan, may launch (LAUNCH_BUDGET_PER_HOUR). */
  launchBudget: { pool: Record<PlanId, number>; machine: number };
  orphanGraceMinutes: number;
  streamingClientUrl: string;
  setupVideoUrl: string | null;
  rdpPort: number;
  /** DCV's web client on a machine, `{ip}` standing for its address (the browser desktop). */
  dcvWebUrl: string;
};

/** The dummy world the sandbox plays: ids in AWS's formats, keys that only work locally. */
export const SANDBOX_EC2 = {
  keyName: 'legend-sandbox',
  ami: 'ami-0a1b2c3d4e5f60718',
  securityGroupIds: ['sg-0sandbox0000000001'],
  subnetIds: ['subnet-0sandbox0000000001'],
  fallbackSubnetIds: ['subnet-0sandbox0000000002'],
  credentials: { accessKeyId: 'AKIASANDBOXSANDBOX00', secretAccessKey: 'sandbox-secret-not-a-secret-0000' },
  instanceProfile: 'legend-cloud-pc',
  workerEgressCidrs: ['127.0.0.0/8'],
} as const;

/**
 * Whether EC2 (and CloudWatch with it) is played by the sandbox: only outside production, and
 * only while nothing names a real account: neither static keys nor the subnets a real
 * deployment must launch in. With the SDK's default credential chain there may be no keys at
 * all, so the subnets are what says "this is AWS".
 */
export function ec2UsesSandbox(
  env: Pick<VmEnv, 'AWS_ACCESS_KEY_ID' | 'EC2_SUBNET_IDS'>,
  production: boolean,
): boolean {
  return !production && env.AWS_ACCESS_KEY_ID === undefined && !env.EC2_SUBNET_IDS?.length;
}

/** Moonlight, the client Sunshine on every machine answers (its official page lists every platform). */
const DEFAULT_STREAMING_CLIENT_URL = MOONLIGHT_HOME_URL;

const AMI_VARS: Record<PlanId, keyof VmEnv> = {
  legend: 'EC2_AMI_LEGEND',
  'pro-legend': 'EC2_AMI_PRO_LEGEND',
  'ultra-legend': 'EC2_AMI_ULTRA_LEGEND',
  'editor-low': 'EC2_AMI_EDITOR_LOW',
  'editor-high': 'EC2_AMI_EDITOR_HIGH',
};

/** What production must set for EC2 (checked with the rest by core/config/config.ts). */
export function missingInProduction(env: VmEnv): string[] {
  const missing: string[] = (
    [
      'AWS_REGION',
      'EC2_KEY_NAME',
      'EC2_PRIVATE_KEY_PEM',
      'EC2_SECURITY_GROUP_IDS',
      'EC2_SUBNET_IDS',
      'WORKER_EGRESS_CIDRS',
    ] as const
  ).filter((name) => env[name] === undefined || (Array.isArray(env[name]) && env[name].length === 0));
  const plansWithoutAmi = CARD_PLANS.filter((plan) => !env.EC2_AMI_ID && !env[AMI_VARS[plan.id]]);
  if (plansWithoutAmi.length > 0)
    missing.push(`EC2_AMI_ID (or ${plansWithoutAmi.map((p) => AMI_VARS[p.id]).join(', ')})`);
  return missing;
}

/**
 * The preflight's other endpoints, derived from EC2_ENDPOINT the way the SDK builds an endpoint
 * (`https://{service}.{region}.{dnsSuffix}`): the service label of EC2's hostname (`ec2`,
 * `ec2-fips`) replaced by the other service's, or the sandbox's path (`/sandbox/ec2/`) by its
 * sibling. A VPC endpoint's own hostname (`vpce-…`) names no other service: nothing is derived
 * (SERVICE_QUOTAS_ENDPOINT must say), and undefined means AWS's own endpoint.
 */
export function deriveEndpoint(
  ec2Endpoint: string | undefined,
  service: 'servicequotas' | 'iam',
): string | undefined | null {
  if (!ec2Endpoint) return undefined;
  const url = new URL(ec2Endpoint);
  if (/\/ec2\/?$/.test(url.pathname)) {
    url.pathname = url.pathname.replace(/\/ec2\/?$/, `/${service}/`);
    return url.toString();
  }
  const [label, ...rest] = url.hostname.split('.');
  if (label === 'ec2' || label === 'ec2-fips') {
    // IAM is global: one endpoint for every region (iam.amazonaws.com, iam-fips.amazonaws.com).
    const host =
      service === 'iam'
        ? `${label === 'ec2-fips' ? 'iam-fips' : 'iam'}.${rest.slice(1).join('.')}`
        : `${label === 'ec2-fips' ? 'servicequotas-fips' : 'servicequotas'}.${rest.join('.')}`;
    url.hostname = host;
    return url.toString();
  }
  return null;
}

/** Launches per hour: one number for every plan's pool and every customer's plan, or pairs. */
function parseLaunchBudget(text: string | undefined): { pool: Record<PlanId, number>; machine: number } {
  const value = text?.trim() || String(DEFAULT_LAUNCH_BUDGET);
  const pool = Object.fromEntries(PLAN_IDS.map((id) => [id, DEFAULT_LAUNCH_BUDGET])) as Record<
    PlanId,
    number
  >;
  if (/^\d{1,3}$/.test(value)) {
    for (const id of PLAN_IDS) pool[id] = Number(value);
    return { pool, machine: Number(value) };
  }
  let machine = DEFAULT_LAUNCH_BUDGET;
  for (const pair of value.split(',')) {
    const match = /^\s*([a-z-]+)\s*=\s*(\d{1,3})\s*$/.exec(pair);
    const name = match?.[1];
    if (!match?.[2] || !name || !(name === 'machine' || (PLAN_IDS as readonly string[]).includes(name)))
      throw new Error(
        `LAUNCH_BUDGET_PER_HOUR: "${pair.trim()}" is not plan=count or machine=count (plans: ${PLAN_IDS.join(', ')})`,
      );
    if (name === 'machine') machine = Number(match[2]);
    else pool[name as PlanId] = Number(match[2]);
  }
  return { pool, machine };
}

function parseWarmPoolSize(text: string | undefined): Record<PlanId, number> {
  // One stopped machine per card plan: a purchase is then a start (about a minute), not a launch.
  return parsePoolSizes('WARM_POOL_SIZE', text, '1');
}

/** Sizes per plan: one number for every card plan, or `plan=count,…`. */
function parsePoolSizes(name: string, text: string | undefined, fallback: string): Record<PlanId, number> {
  const sizes = Object.fromEntries(PLAN_IDS.map((id) => [id, 0])) as Record<PlanId, number>;
  const value = text?.trim() || fallback;
  if (/^\d{1,3}$/.test(value)) {
    for (const plan of CARD_PLANS) sizes[plan.id] = Number(value);
    return sizes;
  }
  for (const pair of value.split(',')) {
    const match = /^\s*([a-z-]+)\s*=\s*(\d{1,3})\s*$/.exec(pair);
    const plan = match?.[1];
    if (!match?.[2] || !plan || !(PLAN_IDS as readonly string[]).includes(plan)) {
      throw new Error(`${name}: "${pair.trim()}" is not plan=count (plans: ${PLAN_IDS.join(', ')})`);
    }
    sizes[plan as PlanId] = Number(match[2]);
  }
  return sizes;
}

/**
 * Where DCV's web client is: `https://{ip}:8443/` on every machine. Only the sandbox (or a
 * proxy in front of the machines) changes it, and production accepts HTTPS only.
 */
function parseDcvWebUrl(text: string | undefined, production: boolean): string {
  const template = text ?? DCV_WEB_URL_DEFAULT;
  let url: URL;
  try {
    url = new URL(template.replaceAll('{ip}', '203.0.113.1'));
  } catch {
    throw new Error(`DCV_WEB_URL: "${template}" is not a URL`);
  }
  if (!template.includes('{ip}')) throw new Error('DCV_WEB_URL: name the machine as {ip}');
  if (url.protocol !== 'https:' && (production || url.protocol !== 'http:')) {
    throw new Error(`DCV_WEB_URL: ${production ? 'https' : 'http or https'} only`);
  }
  return template;
}

/** Throws Error naming the problem; core/config/config.ts turns it into a ConfigError. */
export function parseVmConfig(
  env: VmEnv,
  context: { production: boolean; sandboxUrl: string; publicUrl: string; profile: 'fast' | 'aws' },
): { ec2: Ec2Config; vm: VmConfig } {
  const keys = [env.AWS_ACCESS_KEY_ID, env.AWS_SECRET_ACCESS_KEY];
  if (keys.some((k) => k !== undefined) && keys.some((k) => k === undefined)) {
    throw new Error('Set both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or neither.');
  }
  const sandbox = ec2UsesSandbox(env, context.production);
  const amiByPlan = Object.fromEntries(
    PLAN_IDS.map((id) => [id, env[AMI_VARS[id]] ?? env.EC2_AMI_ID ?? SANDBOX_EC2.ami]),
  ) as Record<PlanId, string>;
  const subnetIds = env.EC2_SUBNET_IDS?.length
    ? env.EC2_SUBNET_IDS
    : sandbox
      ? [...SANDBOX_EC2.subnetIds]
      : [];
  if (subnetIds.length === 0) throw new Error('EC2_SUBNET_IDS: at least one subnet to launch machines in');
  let deploymentTag = env.EC2_DEPLOYMENT_TAG;
  if (!deploymentTag) {
    const host = new URL(context.publicUrl).host.replace(/[^A-Za-z0-9._:-]/g, '-');
    deploymentTag = sandbox ? `sandbox-${host}` : host;
  }
  const ec2: Ec2Config = {
    mode: sandbox ? 'sandbox' : 'aws',
    region: env.AWS_REGION ?? 'ap-south-1',
    endpoint: env.EC2_ENDPOINT ?? (sandbox ? `${context.sandboxUrl}/sandbox/ec2/` : undefined),
    credentials:
      env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
        ? { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY }
        : sandbox
          ? { ...SANDBOX_EC2.credentials }
          : undefined,
    instanceProfile: env.EC2_INSTANCE_PROFILE ?? (sandbox ? SANDBOX_EC2.instanceProfile : null),
    keyName: env.EC2_KEY_NAME ?? SANDBOX_EC2.keyName,
    privateKeyPem: env.EC2_PRIVATE_KEY_PEM ? env.EC2_PRIVATE_KEY_PEM.replaceAll('\\n', '\n') : null,
    amiByPlan,
    securityGroupIds: env.EC2_SECURITY_GROUP_IDS?.length
      ? env.EC2_SECURITY_GROUP_IDS
      : sandbox
        ? [...SANDBOX_EC2.securityGroupIds]
        : [],
    subnetIds,
    fallbackSubnetIds: env.EC2_FALLBACK_SUBNET_IDS ?? (sandbox ? [...SANDBOX_EC2.fallbackSubnetIds] : []),
    deploymentTag,
    // The sandbox's machines are loopback addresses, reached from this host.
    workerEgressCidrs: env.WORKER_EGRESS_CIDRS ?? (sandbox ? [...SANDBOX_EC2.workerEgressCidrs] : []),
    serviceQuotasEndpoint: undefined,
    iamEndpoint: undefined,
  };
  const endpoint = ec2.endpoint;
  ec2.serviceQuotasEndpoint = env.SERVICE_QUOTAS_ENDPOINT ?? deriveEndpoint(endpoint, 'servicequotas');
  ec2.iamEndpoint = deriveEndpoint(endpoint, 'iam') ?? undefined;
  const vm: VmConfig = {
    warmPoolSize: parseWarmPoolSize(env.WARM_POOL_SIZE),
    // Running spares cost their full hourly price: none unless asked for.
    hotPoolMax: parsePoolSizes('POOL_HOT', env.POOL_HOT, '0'),
    graceDays: env.VM_GRACE_DAYS ?? 7,
    snapshotKeepDays: env.SNAPSHOT_KEEP_DAYS ?? 30,
    snapshotDeadlineHours: env.SNAPSHOT_DEADLINE_HOURS ?? DEFAULT_SNAPSHOT_DEADLINE_MS / 3_600_000,
    provisionDeadlineMinutes: env.PROVISION_DEADLINE_MINUTES ?? 5,
    // The sandbox's fast profile settles in seconds; AWS in tens of seconds to minutes.
    pollSeconds: env.VM_POLL_SECONDS ?? (sandbox && context.profile === 'fast' ? 1 : 10),
    stuckSeconds: env.VM_STUCK_SECONDS ?? 30 * 60,
    launchAttemptsBeforeFallback: 2,
    launchBudget: parseLaunchBudget(env.LAUNCH_BUDGET_PER_HOUR),
    orphanGraceMinutes: env.ORPHAN_GRACE_MINUTES ?? 60,
    streamingClientUrl: env.STREAMING_CLIENT_URL ?? DEFAULT_STREAMING_CLIENT_URL,
    setupVideoUrl: env.SETUP_VIDEO_URL ?? null,
    rdpPort: env.RDP_PORT ?? 3389,
    dcvWebUrl: parseDcvWebUrl(env.DCV_WEB_URL, context.production),
  };
  return { ec2, vm };
}
