import { z } from 'zod';
import { DEFAULT_GST_RATE_PERCENT, findIndianState } from '../domain/gst.ts';
import { DEFAULT_REFUND_POLICY, type RefundPolicy } from '../domain/refund.ts';
import {
  ec2UsesSandbox,
  missingInProduction,
  parseVmConfig,
  VM_ENV,
  type Ec2Config,
  type VmConfig,
} from './vmConfig.ts';
import { AUTOPAY_ENV, parseAutopayConfig, type AutopayConfig } from './autopayConfig.ts';
import {
  CONNECTION_CHECK_ENV,
  connectionCheckConfig,
  type ConnectionCheckConfig,
} from './connectionCheckConfig.ts';
import { MACHINE_NAME_ENV, machineNameConfig, type MachineNameConfig } from './machineNameConfig.ts';

/**
 * Every environment variable the product reads, in one place. Each process calls
 * `loadConfig()` once at start-up and passes the result down; nothing else reads
 * `process.env`. docs/configuration.md is generated from the descriptions here (`npm run docs`).
 */

const DEV_APP_SECRET = 'development-only-secret-never-use-in-production-000000';

export const EnvSchema = z.object({
  NODE_ENV: z
    .enum(['development', 'test', 'production'])
    .default('development')
    .describe(
      '`production` turns on the production checks (the column beside this one), Secure cookies, HSTS. Production: `production`.',
    ),
  PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(3000)
    .describe('Web port. Production: set by the platform.'),
  HOST: z.string().optional().describe('Listen address. Default: `127.0.0.1` (`0.0.0.0` in production).'),
  DATA_DIR: z.string().min(1).default('.data').describe("`npm start`'s embedded Postgres and dev secret."),
  DATABASE_URL: z
    .url({ protocol: /^postgres(ql)?$/ })
    .optional()
    .describe('Postgres connection URL. Default: embedded Postgres. Production: **required**.'),
  APP_SECRET: z
    .string()
    .min(32, 'APP_SECRET must be at least 32 characters')
    .optional()
    .describe(
      'Key material for encrypting secrets at rest and hashing codes. Default: generated into `DATA_DIR` by `npm start`. Production: **required** (≥ 32 chars).',
    ),
  PUBLIC_URL: z
    .url()
    .optional()
    .describe(
      "The site's public origin: links in mail, PayU return URLs, the Origin check. Default: `http://localhost:PORT`. Production: **required**.",
    ),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('pino level (`silent` … `trace`).'),
  TRUST_PROXY_HOPS: z.coerce
    .number()
    .int()
    .min(0)
    .max(10)
    .default(0)
    .describe(
      "How many proxies of ours stand in front of the web process. `0`: the socket address is the client (rate limits, sessions). `N`: the Nth address from the right of `X-Forwarded-For` (the one our outermost proxy wrote), and `X-Forwarded-Proto` is believed; addresses further left are the client's own claims. The old `TRUST_PROXY` is refused with a message. Production: **set it behind a proxy** (usually `1`).",
    ),
  REQUEST_TIMEOUT_SECONDS: z.coerce
    .number()
    .min(0.1)
    .max(300)
    .default(30)
    .describe(
      'Seconds a client has to send a whole request, headers and body; a body that never arrives is cut with a 408 and the connection closed. Default: `30`. Production: 30 or below (bodies are at most 64 kB).',
    ),
  SERVE_SOURCE_MAPS: z
    .enum(['true', 'false'])
    .default('false')
    .describe(
      "Serve the SPA's source maps (`npm run build` writes them, unreferenced; they reveal the whole client source); off, `*.map` answers 404.",
    ),
  SMTP_URL: z
    .url({ protocol: /^smtps?$/ })
    .optional()
    .describe(
      '`smtp(s)://user:pass@host:port` for outgoing mail. Default: sandbox mail catcher. Production: **required**.',
    ),
  MAIL_FROM: z
    .string()
    .min(3)
    .default('Legend Cloud <no-reply@legendcloud.in>')
    .describe('Sender of every mail. Production: recommended.'),
  SUPPORT_EMAIL: z
    .email()
    .default('support@legendcloud.in')
    .describe('Where problem reports and contact messages go. Production: recommended.'),
  CONTACT_EMAIL: z
    .email()
    .default('hello@legendcloud.in')
    .describe('The address shown on the site. Production: recommended.'),
  SANDBOX_URL: z
    .url()
    .optional()
    .describe('Where the worker reaches the sandbox. Default: `http://127.0.0.1:PORT`.'),
  SANDBOX_PROFILE: z
    .enum(['fast', 'aws'])
    .default('fast')
    .describe('Sandbox timings: `fast` (seconds) or `aws` (real-world minutes).'),
  GOOGLE_CLIENT_ID: z
    .string()
    .min(1)
    .optional()
    .describe(
      'OAuth client id (type "Web application") for "Continue with Google"; unset in production hides the button. Sign-in is an OpenID Connect request (`response_type=id_token`, a nonce, a state) answered to `PUBLIC_URL/auth/google/callback`: register that as an authorised redirect URI. The sandbox plays Google\'s side of the same protocol, so development and the browser tests run the production path. Default: the sandbox plays Google. Production: optional.',
    ),
  GOOGLE_JWKS_URL: z
    .url()
    .optional()
    .describe(
      'Where ID-token signing keys are fetched. Default: `https://www.googleapis.com/oauth2/v3/certs` (sandbox: `SANDBOX_URL/sandbox/google/jwks`).',
    ),
  GOOGLE_AUTHORIZE_URL: z
    .url()
    .optional()
    .describe(
      'The authorization endpoint the browser is sent to. Default: `https://accounts.google.com/o/oauth2/v2/auth` (sandbox: `PUBLIC_URL/sandbox/google/authorize`).',
    ),
  GOOGLE_ISSUERS: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Accepted `iss` values of ID tokens, comma-separated. Default: `accounts.google.com,https://accounts.google.com`.',
    ),
  PAYU_KEY: z
    .string()
    .min(1)
    .optional()
    .describe(
      'PayU merchant key (set all four PayU variables or none). Default: sandbox merchant `LCSBX1`. Production: **required**.',
    ),
  PAYU_SALT: z
    .string()
    .min(1)
    .optional()
    .describe(
      "PayU salt: signs checkouts, verifies PayU's reverse hash and API calls. Default: the sandbox's public salt. Production: **required**.",
    ),
  PAYU_CHECKOUT_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      'Hosted checkout the browser posts to (`https://secure.payu.in/_payment`; test `https://test.payu.in/_payment`); its origin is added to the CSP `form-action`. Default: `PUBLIC_URL/sandbox/payu/_payment`. Production: **required**.',
    ),
  PAYU_API_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      'PayU server API base (`https://info.payu.in`; test `https://test.payu.in`), for `verify_payment` and refunds. Default: `SANDBOX_URL/sandbox/payu`. Production: **required**.',
    ),
  GST_RATE_PERCENT: z.coerce
    .number()
    .min(0)
    .max(100)
    .default(DEFAULT_GST_RATE_PERCENT)
    .describe('GST rate; prices are GST-inclusive, the tax is carved out of them.'),
  GSTIN: z
    .string()
    .regex(/^[0-9]{2}[A-Z0-9]{13}$/, 'GSTIN is 15 characters: a state code and 13 letters/digits')
    .optional()
    .describe('Our GSTIN, printed on every invoice. Default: a sample GSTIN. Production: **required**.'),
  LEGAL_NAME: z
    .string()
    .min(2)
    .max(200)
    .optional()
    .describe(
      'The legal name invoices are issued in. Default: `Legend Cloud (sandbox, not a tax invoice)`. Production: **required**.',
    ),
  LEGAL_ADDRESS: z
    .string()
    .min(5)
    .max(500)
    .optional()
    .describe(
      'The registered address invoices print. Default: `Bengaluru, Karnataka, India`. Production: **required**.',
    ),
  SUPPLIER_STATE: z
    .string()
    .min(2)
    .default('29')
    .describe(
      'Our state (GST code or name): a customer in it pays CGST + SGST, others IGST. Default: `29` (Karnataka). Production: recommended.',
    ),
  SAC_CODE: z
    .string()
    .regex(/^99[0-9]{4}$/, 'SAC_CODE is a 6-digit services code starting with 99')
    .default('998315')
    .describe(
      'The Services Accounting Code recorded on each invoice as issued and printed on it (6 digits starting with 99); earlier invoices keep what they were issued with. Default: `998315` (IT infrastructure provisioning / hosting). Production: recommended.',
    ),
  DEFAULT_CUSTOMER_STATE: z
    .string()
    .min(2)
    .optional()
    .describe("The place of supply when the customer's state is unknown. Default: `SUPPLIER_STATE`."),
  CAPACITY_LIMITS: z
    .string()
    .optional()
    .describe(
      'Machines of each instance type that may be in use at once, `instance-type=count` pairs, comma-separated; a plan whose type is full is not sold. Default: `g4dn.xlarge=20,g4dn.2xlarge=10,g5.xlarge=10,g5.2xlarge=5,g5.4xlarge=5`. Production: recommended.',
    ),
  REFUND_PERCENT_BY_DAY: z
    .string()
    .optional()
    .describe(
      'Percent refunded on day 1, 2, … of a plan, comma-separated; nothing after the list. Default: `70,70,60,50,40,30,25,20`.',
    ),
  REFUND_CANCELLATION_CHARGE_RUPEES: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Deducted from every policy refund. Default: `200`.'),
  AUTO_REFUND_HOURS: z.coerce
    .number()
    .min(0)
    .max(24 * 30)
    .default(24)
    .describe(
      'Hours after a paid-but-not-activated payment is found before the worker refunds it in full (docs/payments.md).',
    ),
  REFUND_STATUS_POLL_SECONDS: z.coerce
    .number()
    .min(0.1)
    .max(86_400)
    .default(60)
    .describe(
      "Seconds before a refund's first status check at PayU; later checks back off from it (docs/payments.md).",
    ),
  CHECKOUT_NO_ANSWER_MINUTES: z.coerce
    .number()
    .min(1)
    .max(72 * 60)
    .default(30)
    .describe(
      'Minutes without PayU\'s final answer after which the history reads a checkout "Not completed — no money was taken…" (before that it says when we ask PayU again); the sweep keeps asking, so a late success still starts the plan.',
    ),
  FAILED_DEBIT_RETURN_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(60)
    .default(5)
    .describe(
      'The N in "…returned automatically within N days" (history, refund policy page): RBI\'s turn-around time for card-not-present and UPI payments to merchants, T+5 (circular DPSS.CO.PD No.629/02.01.014/2019-20, 20 September 2019).',
    ),
  // Cloud PCs on EC2: see core/config/vmConfig.ts.
  ...VM_ENV,
  // AutoPay through PayU standing instructions: see core/config/autopayConfig.ts.
  ...AUTOPAY_ENV,
  // The connection check page: see core/config/connectionCheckConfig.ts.
  ...CONNECTION_CHECK_ENV,
  // The machines' stable DNS names (Route 53): see core/config/machineNameConfig.ts.
  ...MACHINE_NAME_ENV,
  // Usage page (progress): CloudWatch metrics pulled by the worker.
  CLOUDWATCH_ENDPOINT: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      "Another CloudWatch endpoint (a VPC endpoint); the keys and region are EC2's (they need `cloudwatch:GetMetricData`). Default: AWS's (sandbox: `SANDBOX_URL/sandbox/cloudwatch/`).",
    ),
  METRICS_PULL_CRON: z
    .string()
    .regex(/^\S+(\s+\S+){4}$/, 'a five-field cron expression such as */5 * * * *')
    .optional()
    .describe(
      'When `metrics-pull` copies CPU/GPU utilisation of recently running machines from CloudWatch for the usage page: a five-field cron expression. Default: `*/5 * * * *` (sandbox: `* * * * *`).',
    ),
  METRICS_PERIOD_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(3600)
    .refine((s) => s % 60 === 0, 'a multiple of 60')
    .optional()
    .describe(
      'Seconds per CPU/GPU sample: `300` with EC2 basic monitoring, `60` needs EC2 detailed monitoring on the instances. Default: `300` (sandbox: `60`).',
    ),
  METRICS_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(455)
    .optional()
    .describe('Days CPU/GPU samples are kept. Default: `8`.'),
  // Operations: Prometheus metrics and alerts that reach a person (core/observability/metrics.ts, core/commands/alertNotify.ts).
  METRICS_TOKEN: z
    .string()
    .min(16, 'METRICS_TOKEN must be at least 16 characters')
    .optional()
    .describe(
      'Bearer token Prometheus sends to `/metrics` (web and worker); in production, without it `/metrics` answers 404. Default: none (`/metrics` open). Production: **required** for `/metrics` (≥ 16 chars).',
    ),
  WORKER_METRICS_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .optional()
    .describe(
      'Port the worker serves its own `GET /metrics` on. Default: none (no worker metrics server). Production: recommended.',
    ),
  OPS_EMAIL: z
    .email()
    .optional()
    .describe(
      'Who is mailed each operator alert. Default: none. Production: **required** (this or `ALERT_WEBHOOK_URL`).',
    ),
  ALERT_WEBHOOK_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      'Slack-compatible incoming webhook each operator alert is posted to (`{"text": …}`); a secret, never logged. Default: none. Production: **required** (this or `OPS_EMAIL`).',
    ),
  ALERT_RENOTIFY_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_080)
    .default(60)
    .describe(
      'An alert still happening (seen again since it was sent) is sent again after this long, until acknowledged or resolved.',
    ),
});

export type Env = z.infer<typeof EnvSchema>;

export type Config = {
  env: Env['NODE_ENV'];
  production: boolean;
  port: number;
  host: string;
  dataDir: string;
  /** Unset only outside production: `npm start` then boots an embedded Postgres. */
  databaseUrl: string | undefined;
  appSecret: string;
  publicUrl: string;
  logLevel: Env['LOG_LEVEL'];
  /** Proxies of ours in front of the web process (0: the socket address is the client). */
  trustProxyHops: number;
  /** How long a client has to send a whole request (headers and body) before it is cut. */
  requestTimeoutMs: number;
  serveSourceMaps: boolean;
  mail: { smtpUrl: string | undefined; from: string };
  /** Metrics and alert notification (operations). */
  ops: {
    metricsToken: string | undefined;
    workerMetricsPort: number | undefined;
    opsEmail: string | undefined;
    alertWebhookUrl: string | undefined;
    alertRenotifyMinutes: number;
  };
  supportEmail: string;
  contactEmail: string;
  sandbox: {
    /** True when at least one outside service is played by the local sandbox. */
    enabled: boolean;
    /** Where the worker reaches the sandbox (the web process mounts it under /sandbox). */
    url: string;
    profile: Env['SANDBOX_PROFILE'];
  };
  /**
   * Google sign-in, one protocol whoever plays Google: an OpenID Connect authentication request
   * (`response_type=id_token`, a nonce) to `authorizeUrl`, the ID token back in the redirect's
   * fragment, verified against `jwksUrl`. `google`: a real client id. `sandbox`: the sandbox
   * plays Google's side (its own endpoint, signing key and JWKS). `off`: no button.
   */
  google: {
    mode: 'google' | 'sandbox' | 'off';
    clientId: string;
    authorizeUrl: string;
    jwksUrl: string;
    issuers: string[];
  };
  /** PayU hosted checkout. `sandbox`: the local stand-in at /sandbox/payu with its public key and salt. */
  payu: {
    mode: 'payu' | 'sandbox';
    key: string;
    salt: string;
    /** Where the browser posts the checkout form. */
    checkoutUrl: string;
    /** Base of the server API (we append /merchant/postservice.php?form=2). */
    apiUrl: string;
  };
  /** What a GST invoice prints about us, and how tax is split (prices are GST-inclusive). */
  invoice: {
    gstRatePercent: number;
    gstin: string;
    legalName: string;
    address: string;
    /** Our state (GST code or name): same state as the customer → CGST + SGST, else IGST. */
    supplierState: string;
    /** The customer's state when we do not know it. */
    defaultCustomerState: string;
    /** The Services Accounting Code each invoice records and prints. */
    sacCode: string;
  };
  /** Machines of each EC2 instance type we may have in use at once (the capacity model). */
  capacityLimits: Record<string, number>;
  refundPolicy: RefundPolicy;
  /** Hours before a paid-but-not-activated payment is refunded in full unless an operator resolved it. */
  autoRefundHours: number;
  /** Seconds before a refund's first check_action_status; doubling after, up to six hours. */
  refundStatusPollSeconds: number;
  /** How an unanswered checkout reads to the customer (core/domain/payments.ts). */
  checkout: { noAnswerMinutes: number; failedDebitReturnDays: number };
  /** Where and how cloud PCs are launched (core/config/vmConfig.ts). */
  ec2: Ec2Config;
  /** The warm pool, deadlines and links of cloud PCs (core/config/vmConfig.ts). */
  vm: VmConfig;
  /** CPU and GPU utilisation for the usage page, from CloudWatch (see metricsConfig). */
  metrics: MetricsConfig;
  /** Plans that renew themselves through PayU standing instructions (core/config/autopayConfig.ts). */
  autopay: AutopayConfig;
  /** The endpoint the connection check page measures (core/config/connectionCheckConfig.ts). */
  connectionCheck: ConnectionCheckConfig;
  /** The machines' DNS names in Route 53; null without a zone (core/config/machineNameConfig.ts). */
  machineNames: MachineNameConfig | null;
};

export type MetricsConfig = {
  /** The CloudWatch client: EC2's region and keys; the sandbox's endpoint in sandbox mode. */
  cloudWatch: {
    region: string;
    endpoint: string | undefined;
    credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  };
  pullCron: string;
  periodSeconds: number;
  retentionDays: number;
};

/**
 * CloudWatch as the usage page needs it. Against AWS: every five minutes, 5-minute points (EC2's
 * free basic monitoring). The sandbox has "detailed monitoring": every minute, 1-minute points,
 * so the page shows CPU soon after a start.
 */
function metricsConfig(env: Env, ec2: Ec2Config, sandboxUrl: string): MetricsConfig {
  const sandbox = ec2.mode === 'sandbox';
  return {
    cloudWatch: {
      region: ec2.region,
      endpoint: env.CLOUDWATCH_ENDPOINT ?? (sandbox ? `${sandboxUrl}/sandbox/cloudwatch/` : undefined),
      credentials: ec2.credentials,
    },
    pullCron: env.METRICS_PULL_CRON ?? (sandbox ? '* * * * *' : '*/5 * * * *'),
    periodSeconds: env.METRICS_PERIOD_SECONDS ?? (sandbox ? 60 : 300),
    retentionDays: env.METRICS_RETENTION_DAYS ?? 8,
  };
}

/** The audience the sandbox's stand-in for Google signs ID tokens for. */
export const SANDBOX_GOOGLE_CLIENT_ID = 'legend-cloud-sandbox.apps.googleusercontent.com';
const GOOGLE_JWKS_URL = 'https://www.googleapis.com/oauth2/v3/certs';
/** Google's `authorization_endpoint` (https://accounts.google.com/.well-known/openid-configuration). */
const GOOGLE_AUTHORIZE_URL = 'https://accounts.google.com/o/oauth2/v2/auth';
const GOOGLE_ISSUERS = ['accounts.google.com', 'https://accounts.google.com'];

/**
 * The sandbox PayU merchant, the same public pair sandbox/payu/index.ts exports (core may not
 * import the sandbox): they only ever work against the local stand-in.
 */
export const SANDBOX_PAYU_KEY = 'LCSBX1';
export const SANDBOX_PAYU_SALT = 'legend-sandbox-payu-salt-not-a-secret';

/**
 * How many machines of each instance type may be in use at once until the warm pool and EC2's
 * own answers back the capacity model (cloud-PC issue). Conservative: a fresh AWS account's
 * G-instance vCPU quota is small.
 */
const DEFAULT_CAPACITY_LIMITS: Readonly<Record<string, number>> = {
  'g4dn.xlarge': 20,
  'g4dn.2xlarge': 10,
  'g5.xlarge': 10,
  'g5.2xlarge': 5,
  'g5.4xlarge': 5,
};

function parseCapacityLimits(text: string | undefined): Record<string, number> {
  const limits: Record<string, number> = { ...DEFAULT_CAPACITY_LIMITS };
  if (!text) return limits;
  for (const pair of text.split(',')) {
    const match = /^\s*([a-z0-9]+\.[a-z0-9]+)\s*=\s*(\d{1,6})\s*$/.exec(pair);
    if (!match?.[1] || !match[2]) {
      throw new ConfigError(`CAPACITY_LIMITS: "${pair.trim()}" is not instance-type=count`);
    }
    limits[match[1]] = Number(match[2]);
  }
  return limits;
}

function parseRefundPolicy(percentText: string | undefined, chargeRupees: number | undefined): RefundPolicy {
  let percentByDay = DEFAULT_REFUND_POLICY.percentByDay;
  if (percentText) {
    const parts = percentText.split(',').map((p) => Number(p.trim()));
    if (parts.some((p) => !Number.isInteger(p) || p < 0 || p > 100)) {
      throw new ConfigError('REFUND_PERCENT_BY_DAY: whole percents 0–100, comma-separated (day 1 first)');
    }
    percentByDay = parts;
  }
  return {
    percentByDay,
    cancellationChargePaise:
      chargeRupees === undefined ? DEFAULT_REFUND_POLICY.cancellationChargePaise : chargeRupees * 100,
  };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads and validates the environment. Throws ConfigError naming every problem at once. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const raw = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
  const env = parsed.data;
  const production = env.NODE_ENV === 'production';
  if (raw.TRUST_PROXY !== undefined) {
    // Trusting the whole header let any client pick its own address and walk past rate limits.
    throw new ConfigError(
      'TRUST_PROXY was replaced by TRUST_PROXY_HOPS: set it to the number of proxies in front of the web process (usually 1), or leave it unset when none.',
    );
  }

  if (production) {
    const required = [
      'DATABASE_URL',
      'APP_SECRET',
      'PUBLIC_URL',
      'SMTP_URL',
      'PAYU_KEY',
      'PAYU_SALT',
      'PAYU_CHECKOUT_URL',
      'PAYU_API_URL',
      'GSTIN',
      'LEGAL_NAME',
      'LEGAL_ADDRESS',
    ] as const;
    const missing: string[] = [
      ...required.filter((name) => env[name] === undefined),
      ...missingInProduction(env),
      // Operator alerts (a payment that activated nothing, a machine that will not stop, jobs
      // that ran out of retries) must reach a person, not only `npm run alerts`.
      ...(env.OPS_EMAIL === undefined && env.ALERT_WEBHOOK_URL === undefined
        ? ['OPS_EMAIL or ALERT_WEBHOOK_URL']
        : []),
    ];
    if (missing.length > 0) {
      throw new ConfigError(
        `Refusing to start in production on sandbox defaults. Set: ${missing.join(', ')}.`,
      );
    }
  }

  const port = env.PORT;
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const payuVars = [env.PAYU_KEY, env.PAYU_SALT, env.PAYU_CHECKOUT_URL, env.PAYU_API_URL];
  // All four or none: half a PayU configuration would hash with one merchant and verify with another.
  if (payuVars.some((v) => v !== undefined) && payuVars.some((v) => v === undefined)) {
    throw new ConfigError('Set all of PAYU_KEY, PAYU_SALT, PAYU_CHECKOUT_URL and PAYU_API_URL, or none.');
  }
  const payuSandbox = env.PAYU_KEY === undefined;
  for (const [name, value] of [
    ['SUPPLIER_STATE', env.SUPPLIER_STATE],
    ['DEFAULT_CUSTOMER_STATE', env.DEFAULT_CUSTOMER_STATE],
  ] as const) {
    if (value !== undefined && !findIndianState(value)) {
      throw new ConfigError(`${name}: "${value}" is not an Indian state or its GST code`);
    }
  }
  const ec2Sandbox = ec2UsesSandbox(env, production);
  const sandboxEnabled = !production && (env.SMTP_URL === undefined || payuSandbox || ec2Sandbox);
  const sandboxUrl = (env.SANDBOX_URL ?? `http://127.0.0.1:${port}`).replace(/\/+$/, '');
  const googleMode = env.GOOGLE_CLIENT_ID ? 'google' : sandboxEnabled ? 'sandbox' : 'off';
  let vmSection: { ec2: Ec2Config; vm: VmConfig };
  let autopay: AutopayConfig;
  let connectionCheck: ConnectionCheckConfig;
  let machineNames: MachineNameConfig | null;
  try {
    vmSection = parseVmConfig(env, { production, sandboxUrl, publicUrl, profile: env.SANDBOX_PROFILE });
    autopay = parseAutopayConfig(env, { production, payuSandbox });
    connectionCheck = connectionCheckConfig(env, {
      production,
      region: vmSection.ec2.region,
      ec2Sandbox: vmSection.ec2.mode === 'sandbox',
      publicUrl,
    });
    machineNames = machineNameConfig(env, { ec2: vmSection.ec2, sandboxUrl });
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }

  return {
    env: env.NODE_ENV,
    production,
    port,
    host: env.HOST ?? (production ? '0.0.0.0' : '127.0.0.1'),
    dataDir: env.DATA_DIR,
    databaseUrl: env.DATABASE_URL,
    appSecret: env.APP_SECRET ?? DEV_APP_SECRET,
    publicUrl,
    logLevel: env.LOG_LEVEL,
    trustProxyHops: env.TRUST_PROXY_HOPS,
    requestTimeoutMs: Math.round(env.REQUEST_TIMEOUT_SECONDS * 1000),
    serveSourceMaps: env.SERVE_SOURCE_MAPS === 'true',
    mail: { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM },
    ops: {
      metricsToken: env.METRICS_TOKEN,
      workerMetricsPort: env.WORKER_METRICS_PORT,
      opsEmail: env.OPS_EMAIL,
      alertWebhookUrl: env.ALERT_WEBHOOK_URL,
      alertRenotifyMinutes: env.ALERT_RENOTIFY_MINUTES,
    },
    supportEmail: env.SUPPORT_EMAIL,
    contactEmail: env.CONTACT_EMAIL,
    sandbox: {
      enabled: sandboxEnabled,
      url: sandboxUrl,
      profile: env.SANDBOX_PROFILE,
    },
    google: {
      mode: googleMode,
      clientId: env.GOOGLE_CLIENT_ID ?? (googleMode === 'sandbox' ? SANDBOX_GOOGLE_CLIENT_ID : ''),
      // The browser goes there, so the sandbox's is on the site's own origin.
      authorizeUrl:
        env.GOOGLE_AUTHORIZE_URL ??
        (googleMode === 'sandbox' ? `${publicUrl}/sandbox/google/authorize` : GOOGLE_AUTHORIZE_URL),
      jwksUrl:
        env.GOOGLE_JWKS_URL ??
        (googleMode === 'sandbox' ? `${sandboxUrl}/sandbox/google/jwks` : GOOGLE_JWKS_URL),
      issuers: env.GOOGLE_ISSUERS
        ? env.GOOGLE_ISSUERS.split(',')
            .map((i) => i.trim())
            .filter(Boolean)
        : GOOGLE_ISSUERS,
    },
    payu: payuSandbox
      ? {
          mode: 'sandbox',
          key: SANDBOX_PAYU_KEY,
          salt: SANDBOX_PAYU_SALT,
          // The browser reaches the sandbox on our public origin; the worker through SANDBOX_URL.
          checkoutUrl: `${publicUrl}/sandbox/payu/_payment`,
          apiUrl: `${sandboxUrl}/sandbox/payu`,
        }
      : {
          mode: 'payu',
          key: env.PAYU_KEY as string,
          salt: env.PAYU_SALT as string,
          checkoutUrl: env.PAYU_CHECKOUT_URL as string,
          apiUrl: (env.PAYU_API_URL as string).replace(/\/+$/, ''),
        },
    invoice: {
      gstRatePercent: env.GST_RATE_PERCENT,
      gstin: env.GSTIN ?? '29AAAAA0000A1Z5',
      legalName: env.LEGAL_NAME ?? 'Legend Cloud (sandbox, not a tax invoice)',
      address: env.LEGAL_ADDRESS ?? 'Bengaluru, Karnataka, India',
      supplierState: env.SUPPLIER_STATE,
      defaultCustomerState: env.DEFAULT_CUSTOMER_STATE ?? env.SUPPLIER_STATE,
      sacCode: env.SAC_CODE,
    },
    capacityLimits: parseCapacityLimits(env.CAPACITY_LIMITS),
    refundPolicy: parseRefundPolicy(env.REFUND_PERCENT_BY_DAY, env.REFUND_CANCELLATION_CHARGE_RUPEES),
    autoRefundHours: env.AUTO_REFUND_HOURS,
    refundStatusPollSeconds: env.REFUND_STATUS_POLL_SECONDS,
    checkout: {
      noAnswerMinutes: env.CHECKOUT_NO_ANSWER_MINUTES,
      failedDebitReturnDays: env.FAILED_DEBIT_RETURN_DAYS,
    },
    ...vmSection,
    metrics: metricsConfig(env, vmSection.ec2, sandboxUrl),
    autopay,
    connectionCheck,
    machineNames,
  };
}

/** The database URL, which every process but the dev orchestrator must have. */
export function requireDatabaseUrl(config: Config): string {
  if (!config.databaseUrl) {
    throw new ConfigError('DATABASE_URL is not set. Use `npm start` for a local embedded Postgres.');
  }
  return config.databaseUrl;
}
