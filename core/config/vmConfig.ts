import { z } from 'zod';
import { DCV_WEB_URL_DEFAULT } from '../domain/desktop.ts';
import { DEFAULT_SNAPSHOT_DEADLINE_MS } from '../domain/keptDisk.ts';
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

/** One description for every plan's own AMI variable. */
const AMI_PER_PLAN =
  'Windows AMI for this plan (`EC2_AMI_LEGEND`, `EC2_AMI_PRO_LEGEND`, `EC2_AMI_ULTRA_LEGEND`, `EC2_AMI_EDITOR_LOW`, `EC2_AMI_EDITOR_HIGH`); it wins over `EC2_AMI_ID`. Default: `EC2_AMI_ID`. Production: **required** for each card plan unless `EC2_AMI_ID` is set.';

export const VM_ENV = {
  AWS_REGION: z
    .string()
    .regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'an AWS region such as ap-south-1')
    .optional()
    .describe('Region cloud PCs are launched in. Default: `ap-south-1`. Production: **required**.'),
  AWS_ACCESS_KEY_ID: z
    .string()
    .min(16)
    .optional()
    .describe(
      "Static key id, set with `AWS_SECRET_ACCESS_KEY` (both or neither). Unset, the worker uses the AWS SDK's default chain (ECS task role, EC2 instance role, `AWS_PROFILE`/SSO, web identity) — the norm. The role's policy is `infra/iam/worker-policy.json`; the web process needs none. Setting keys leaves the sandbox EC2. Default: dummy keys for the sandbox EC2. Production: optional.",
    ),
  AWS_SECRET_ACCESS_KEY: z
    .string()
    .min(16)
    .optional()
    .describe(
      'The secret of `AWS_ACCESS_KEY_ID` (both or neither). Default: dummy keys for the sandbox EC2. Production: optional.',
    ),
  EC2_INSTANCE_PROFILE: z
    .string()
    .regex(
      /^(arn:aws[a-z-]*:iam::\d{12}:instance-profile\/[\w+=,.@/-]{1,128}|[\w+=,.@-]{1,128})$/,
      'an instance profile name or its ARN (arn:aws:iam::123456789012:instance-profile/name)',
    )
    .optional()
    .describe(
      "Name or ARN of the instance profile every machine launches with (`infra/iam/instance-policy.json`): without it the CloudWatch agent and GPU poller on the image cannot publish, and the usage page's GPU chart stays empty. Default: `legend-cloud-pc` in the sandbox. Production: recommended.",
    ),
  EC2_ENDPOINT: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      "Another EC2 endpoint, e.g. a VPC endpoint. Default: AWS's (sandbox: `SANDBOX_URL/sandbox/ec2/`).",
    ),
  SERVICE_QUOTAS_ENDPOINT: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      "Where `npm run aws:check` asks Service Quotas for the G-instance vCPU quota. Default: derived from `EC2_ENDPOINT` as the SDK builds hostnames (service label `ec2` → `servicequotas`, e.g. https://ec2.ap-south-1.amazonaws.com → https://servicequotas.ap-south-1.amazonaws.com; the sandbox's /sandbox/ec2/ → /sandbox/servicequotas/), AWS's own when `EC2_ENDPOINT` is unset. Production: set it when `EC2_ENDPOINT` is a VPC endpoint's own hostname (vpce-…), which names no other service.",
    ),
  LAUNCH_BUDGET_PER_HOUR: z
    .string()
    .optional()
    .describe(
      "Instances that may be launched per hour, for each plan's warm pool and for each customer's plan (its machine and any replacement): one number for all (`4`), or `plan=count` pairs with `machine=count` for customers' plans (`legend=6,pro-legend=2,machine=3`). Past it nothing is launched until the hour frees one, and an operator is alerted. Default: `4` each. Production: keep it small; every Windows GPU launch is billed.",
    ),
  EC2_KEY_NAME: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe(
      'The RSA key pair machines launch with (Windows encrypts its administrator password to it). Default: `legend-sandbox`. Production: **required**.',
    ),
  EC2_PRIVATE_KEY_PEM: z
    .string()
    .min(1)
    .optional()
    .describe(
      "That key pair's private key, PEM (`\\n` escapes allowed); decrypts Windows passwords; never logged. Default: the sandbox key pair's, handed to the worker by `npm start`. Production: **required**.",
    ),
  EC2_AMI_ID: AMI.optional().describe(
    "Windows AMI for every plan; a plan's own `EC2_AMI_<PLAN>` wins. Default: a sandbox AMI id. Production: **required** (unless every card plan has its own).",
  ),
  EC2_AMI_LEGEND: AMI.optional().describe(AMI_PER_PLAN),
  EC2_AMI_PRO_LEGEND: AMI.optional().describe(AMI_PER_PLAN),
  EC2_AMI_ULTRA_LEGEND: AMI.optional().describe(AMI_PER_PLAN),
  EC2_AMI_EDITOR_LOW: AMI.optional().describe(AMI_PER_PLAN),
  EC2_AMI_EDITOR_HIGH: AMI.optional().describe(AMI_PER_PLAN),
  EC2_SECURITY_GROUP_IDS: ids('sg-', /^sg-[0-9a-z]+$/)
    .optional()
    .describe(
      'Comma-separated; must let RDP (`RDP_PORT`) in. Default: a sandbox group. Production: **required**.',
    ),
  EC2_SUBNET_IDS: ids('subnet-', /^subnet-[0-9a-z]+$/)
    .optional()
    .describe(
      'Comma-separated subnets (with public IPs) to launch in. Setting it (or static keys) leaves the sandbox EC2: with the default credential chain there may be no keys to tell. Default: a sandbox subnet. Production: **required**.',
    ),
  EC2_FALLBACK_SUBNET_IDS: ids('subnet-', /^subnet-[0-9a-z]+$/)
    .optional()
    .describe(
      'Subnets in other availability zones, tried after two launch attempts met a capacity or limit error. Default: a second sandbox subnet. Production: recommended.',
    ),
  EC2_DEPLOYMENT_TAG: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,100}$/)
    .optional()
    .describe(
      "The `legend:deployment` tag on every instance: the orphan reconciler only ever touches instances carrying ours. Default: `PUBLIC_URL`'s host.",
    ),
  WARM_POOL_SIZE: z
    .string()
    .optional()
    .describe(
      "The fewest launched, first-boot-done, stopped machines kept per plan: `2` (each card plan) or `legend=2,pro-legend=1`; `0` turns a plan's warm pool off. More are kept while purchases come fast: enough for the purchases that may come (95 % of the time, at the last hour's rate) during the ~7 minutes a new one takes, within `CAPACITY_LIMITS`. A stopped one costs only its disk; without one a purchase waits for a full launch. Sized by simulation: [docs/performance.md](performance.md#warm-pool-sizing-simulation). Default: `1` (each card plan). Production: recommended.",
    ),
  POOL_HOT: z
    .string()
    .optional()
    .describe(
      'Hot spares: at most this many **running**, unassigned machines per plan (`1` for every card plan, or `legend=2,ultra-legend=1`). A purchase then needs no start at all, only our tags and a Remote Desktop check. ' +
        "How many are kept follows demand (one, plus enough for the purchases that may come, 95 % of the time at the last hour's rate, during the ~6 minutes a new spare takes: 2 for 1–3 purchases in the last hour, 4 for 12, 7 for 30), never past `POOL_HOT` nor the type's `CAPACITY_LIMITS` (spares and machines in use together); a spare launched for a busy hour waits, running, for the next purchase. " +
        "In simulation ([docs/performance.md](performance.md#warm-pool-sizing-simulation)), hot spares cost at least 2.6 running spare-hours per purchase at a young service's demand (~19 new machines a day), whatever the rule; at 30× that, this rule gives p95 14 s for 0.44. " +
        "A hot spare costs its full on-demand price every hour it waits: about $0.76/h for g4dn.xlarge (LEGEND), $1.20/h g4dn.2xlarge (PRO LEGEND), $1.39/h g5.xlarge (ULTRA LEGEND) in ap-south-1, Windows (a third-party mirror of AWS's list prices; re-check), about ₹1,600–2,900 a day per spare — the stopped warm pool costs only its disk. " +
        'Default: `0` (each plan). Production: optional.',
    ),
  VM_GRACE_DAYS: z.coerce
    .number()
    .min(0)
    .max(365)
    .optional()
    .describe(
      "Days a lapsed plan's machine is kept, stopped, before it is terminated unless renewed. Default: `7`.",
    ),
  SNAPSHOT_KEEP_DAYS: z.coerce
    .number()
    .min(0)
    .max(365)
    .optional()
    .describe(
      "Days the snapshot of a terminated machine's disk is kept for a renewal to restore; `0`: no snapshot. Default: `30`.",
    ),
  SNAPSHOT_DEADLINE_HOURS: z.coerce
    .number()
    .min(0.01)
    .max(168)
    .optional()
    .describe(
      "A kept disk's copy still pending this long is given up (`snapshot-failed` alert) and taken again; the instance stays until a copy is safe. Default: `6`.",
    ),
  PROVISION_DEADLINE_MINUTES: z.coerce
    .number()
    .min(1)
    .max(24 * 60)
    .optional()
    .describe(
      'No ready machine after this: the customer is mailed, the dashboard says so, an operator alert is recorded (work goes on); a paid plan with no machine at all has its provisioning sent again. Default: `5`.',
    ),
  VM_POLL_SECONDS: z.coerce
    .number()
    .min(0.2)
    .max(300)
    .optional()
    .describe(
      'How soon a machine in transition is checked again. Default: `10` (`1` on the `fast` sandbox).',
    ),
  VM_STUCK_SECONDS: z.coerce
    .number()
    .min(1)
    .max(24 * 3600)
    .optional()
    .describe(
      'A transition with no progress for this long has its job sent again by the reaper. Default: `1800`.',
    ),
  ORPHAN_GRACE_MINUTES: z.coerce
    .number()
    .min(0)
    .max(7 * 24 * 60)
    .optional()
    .describe(
      'An instance tagged as ours that no machine owns is reported, then terminated after this. Default: `60`.',
    ),
  STREAMING_CLIENT_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      "The dashboard's remote streaming client (Moonlight, which Sunshine on every machine answers). Default: `https://moonlight-stream.org/`.",
    ),
  SETUP_VIDEO_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      "The dashboard's setup video. Default: none (the row points to the dashboard's step-by-step guides). Production: optional.",
    ),
  RDP_PORT: z.coerce
    .number()
    .int()
    .min(1)
    .max(65535)
    .optional()
    .describe('The port the RDP file names. Default: `3389`.'),
  DCV_WEB_URL: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .optional()
    .describe(
      'Where Amazon DCV\'s web client is on a machine, `{host}` its DNS name (its address without one), `{ip}` always its address; "Open in browser" appends `?authToken=…#console`. HTTPS only in production; only the sandbox (or a proxy in front of the machines) changes it. Default: `https://{host}:8443/` (`npm start`\'s sandbox: `http://{ip}:8443/`).',
    ),
  WORKER_EGRESS_CIDRS: list
    .refine((values) => values.length > 0 && values.every((v) => parseCidr4(v) !== null), {
      message: 'IPv4 addresses or CIDRs, comma-separated (e.g. 203.0.113.10/32)',
    })
    .optional()
    .describe(
      "The worker's public egress addresses (its NAT gateway's; IPv4 CIDRs, comma-separated): the only sources the machines' security group lets reach Sunshine's API (TCP 47990), which pairing calls; `npm run aws:check` checks it (docs/streaming.md). Default: `127.0.0.0/8` in the sandbox. Production: **required**.",
    ),
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
  /** DCV's web client on a machine, `{host}` standing for its name (or address), `{ip}` for its address. */
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
 * Where DCV's web client is: `https://{host}:8443/` on every machine (`{host}`: its DNS name, or
 * its address without one; `{ip}`: always its address). Only the sandbox (or a proxy in front of
 * the machines) changes it, and production accepts HTTPS only.
 */
function parseDcvWebUrl(text: string | undefined, production: boolean): string {
  const template = text ?? DCV_WEB_URL_DEFAULT;
  let url: URL;
  try {
    url = new URL(template.replaceAll('{ip}', '203.0.113.1').replaceAll('{host}', 'pc-0000abcd.example.in'));
  } catch {
    throw new Error(`DCV_WEB_URL: "${template}" is not a URL`);
  }
  if (!template.includes('{ip}') && !template.includes('{host}'))
    throw new Error('DCV_WEB_URL: name the machine as {host} (its name, or its address without one) or {ip}');
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
