import { PgBoss, type Job, type SendOptions } from 'pg-boss';
import { z } from 'zod';
import type { Db } from './db/pool.ts';
import { EMAIL_MAX_LENGTH, EMAIL_PATTERN } from './domain/account.ts';

/**
 * The one contract between the web process and the worker: every queue's name, payload
 * schema and retry policy. Web sends; the worker works; both re-parse payloads here.
 */

/**
 * Any address an account or a form may hold (core/domain/account.ts) can be mailed: zod's
 * stricter z.email() refused some the sign-up accepts (`a!b@example.com`), which failed the
 * sign-up's transaction with a 500 after validation had said yes.
 */
const MailAddress = z.string().max(EMAIL_MAX_LENGTH).regex(EMAIL_PATTERN);

const EmailSend = z.object({
  to: MailAddress,
  subject: z.string().min(1).max(200),
  text: z.string().min(1),
  html: z.string().optional(),
  replyTo: z.email().optional(),
  /** Why the mail exists, for logs and the operator's job listing; never personal data. */
  kind: z.string().min(1).max(60),
  /**
   * Secrets the mail carries (a one-time code, a reset link), encrypted with core/crypto/crypto.ts so
   * the job table never holds them in plain text. The text and HTML name them as
   * `{{sealed.NAME}}`; the worker opens and fills them in just before sending
   * (core/emails/sealed.ts).
   */
  sealed: z.string().min(1).max(4000).optional(),
});

/**
 * A forgot-password request, for the worker to act on: a reset link or a login code when the
 * email has an account, nothing otherwise. The web process only enqueues, so the answer takes
 * the same work and time whether or not the email is registered.
 */
const AccountRecovery = z.object({
  // The route's own email rule already passed; a second, different one here could refuse it.
  email: z.string().min(3).max(320),
  method: z.enum(['link', 'otp']),
  /** The asking browser's requester hash: the code works only there (core/db/codes.ts). */
  requesterHash: z.string().min(1).max(200),
});

/**
 * Check one PayU transaction with PayU itself and, when paid, activate what it bought. Sent by
 * every callback (browser return, webhook, the SPA's payment-callback); the handler is keyed
 * on `txnid`, so duplicates are harmless.
 */
const PaymentVerify = z.object({
  txnid: z.string().min(1).max(25),
  /** Which callback asked, for logs (`autopay`: the renewal sweep, right after a debit). */
  source: z.enum(['surl', 'furl', 'webhook', 'notify', 'spa', 'autopay']),
});

/** One refund row to take to PayU and follow to its end; the row says what is due (worker/jobs/paymentRefund.ts). */
const PaymentRefund = z.object({ refundId: z.uuid() });

/**
 * Build (or hand over from the warm pool) the machine of a newly activated subscription.
 * Sent in the transaction that activates the subscription; handled by the cloud-PC issue.
 */
const VmProvision = z.object({
  subscriptionId: z.uuid(),
  userId: z.uuid(),
});

/**
 * Cloud PCs. `vm-sync` without ids is the cron sweep (every live machine, batched
 * DescribeInstances, usage accrual); with an id it is the follow-up check of one machine in
 * transition, which schedules the next one until the machine settles.
 */
const VmSync = z.object({
  vmId: z.uuid().optional(),
  poolInstanceId: z.uuid().optional(),
  /** How many follow-ups came before this one (they stop after a bound). */
  followUp: z.number().int().min(0).max(100_000).optional(),
});

/** One machine to act on. The row's state says what is wanted; the handler checks it first. */
const VmAction = z.object({ vmId: z.uuid() });

/**
 * Game streaming: relay the PIN of one pairing row to its machine's Sunshine (`stream-pair`), or
 * unpair one device there (`stream-unpair`). The row holds everything else (the PIN sealed).
 */
const StreamPairing = z.object({ pairingId: z.uuid() });

/** Read Sunshine's client list on one machine (`stream-clients`), sent when its health report is accepted. */
const StreamClients = z.object({ vmId: z.uuid() });

/**
 * A machine's DNS name (`machine-name`): with an id, that machine's (its name could not be pointed
 * on the way to running); without, the minute sweep over names that need work.
 */
const MachineNameWork = z.object({ vmId: z.uuid().optional() });

/** One operator alert posted to ALERT_WEBHOOK_URL (Slack-compatible), composed when claimed. */
const AlertWebhook = z.object({
  alertId: z.uuid(),
  text: z.string().min(1).max(4000),
});

/** An AutoPay mandate the customer cancelled (or a newer one replaced): revoke it at PayU. */
const AutopayRevoke = z.object({ mandateId: z.uuid() });

/** Cron sweeps carry nothing: they select their own bounded batch. */
const Sweep = z.object({}).strip();

type QueueOptions = {
  /** pg-boss queue policy; `short` keeps at most one job waiting per singletonKey. */
  policy?: 'standard' | 'short';
  retryLimit: number;
  retryDelay: number;
  retryBackoff: boolean;
  retryDelayMax?: number;
  expireInSeconds: number;
  /** How long a job may wait (created or retrying) before it is dropped; POLICY_DEFAULTS otherwise. */
  retentionSeconds?: number;
  /** How long a finished job is kept; POLICY_DEFAULTS otherwise. */
  deleteAfterSeconds?: number;
};

function defineQueue<S extends z.ZodType>(schema: S, options: QueueOptions) {
  return { schema, options };
}

export const QUEUES = {
  'email-send': defineQueue(EmailSend, {
    // SMTP outages are usually minutes long: back off up to ten minutes, for about an hour.
    retryLimit: 10,
    retryDelay: 5,
    retryBackoff: true,
    retryDelayMax: 600,
    expireInSeconds: 60,
  }),
  // Sign-in, sign-up and reset codes: their own queue and workers, so a newsletter of thousands
  // queued on email-send cannot hold up someone waiting at the login screen. A code is useless
  // after ten minutes, so retries stop well before then.
  'email-code': defineQueue(EmailSend, {
    retryLimit: 6,
    retryDelay: 2,
    retryBackoff: true,
    retryDelayMax: 60,
    expireInSeconds: 30,
  }),
  // Operator alerts: their own queue, so an SMTP outage of hours does not lose them (a code's
  // short budget would give up after minutes). At least 2 h 10 min of retries: 10, 20, 40, 80,
  // 160, 320 s, then every 10 min (each delay up to twice that, by pg-boss's jitter).
  'email-alert': defineQueue(EmailSend, {
    retryLimit: 18,
    retryDelay: 10,
    retryBackoff: true,
    retryDelayMax: 600,
    expireInSeconds: 60,
  }),
  'account-recovery': defineQueue(AccountRecovery, {
    // A code or link is only useful for minutes: retry briefly, then the person asks again.
    retryLimit: 3,
    retryDelay: 2,
    retryBackoff: true,
    expireInSeconds: 60,
  }),
  'payment-verify': defineQueue(PaymentVerify, {
    // At most one check waiting per txnid (sent with singletonKey = txnid): a flood of callbacks
    // for one transaction queues one job. A pending answer hands the payment to the
    // reconciliation sweep; retries here are for PayU being unreachable.
    policy: 'short',
    retryLimit: 15,
    retryDelay: 10,
    retryBackoff: true,
    retryDelayMax: 600,
    // One verify call takes seconds; a worker that died holding the job hands it on within a minute.
    expireInSeconds: 60,
  }),
  // Every minute: asks PayU (verify_payment, batched) about every payment not yet final that is
  // due on its backoff schedule, and starts automatic refunds that fell due.
  'payment-reconcile': defineQueue(Sweep, {
    retryLimit: 1,
    retryDelay: 20,
    retryBackoff: false,
    expireInSeconds: 300,
  }),
  // Refunds: take one to PayU (its token makes a repeat harmless), then follow it with
  // check_action_status; the handler schedules its own follow-ups, retries are for outages.
  'payment-refund': defineQueue(PaymentRefund, {
    retryLimit: 12,
    retryDelay: 30,
    retryBackoff: true,
    retryDelayMax: 1800,
    expireInSeconds: 120,
  }),
  'vm-provision': defineQueue(VmProvision, {
    // EC2 capacity errors and throttling clear in minutes: keep trying for about two hours.
    // This is the launch budget too: the machine gives up on its 20th launch attempt.
    retryLimit: 19,
    retryDelay: 15,
    retryBackoff: true,
    retryDelayMax: 600,
    // Each run is one short step (claim or launch; vm-sync waits for readiness), so a worker that
    // died mid-step is noticed within two minutes, not pg-boss's default fifteen.
    expireInSeconds: 120,
  }),
  'vm-sync': defineQueue(VmSync, {
    // The next sweep or follow-up checks again anyway: a failed sync needs no long retry chain.
    retryLimit: 2,
    retryDelay: 5,
    retryBackoff: true,
    expireInSeconds: 300,
  }),
  'vm-start': defineQueue(VmAction, {
    // A stopped GPU machine can meet InsufficientInstanceCapacity: back off for a few minutes;
    // the machine goes back to stopped (operator alerted) on its 6th failed attempt.
    retryLimit: 5,
    retryDelay: 10,
    retryBackoff: true,
    retryDelayMax: 120,
    expireInSeconds: 120,
  }),
  'vm-stop': defineQueue(VmAction, {
    retryLimit: 10,
    retryDelay: 10,
    retryBackoff: true,
    retryDelayMax: 300,
    expireInSeconds: 120,
  }),
  'vm-terminate': defineQueue(VmAction, {
    // A machine we pay for until it is gone: keep trying for hours.
    retryLimit: 15,
    retryDelay: 30,
    retryBackoff: true,
    retryDelayMax: 900,
    expireInSeconds: 120,
  }),
  // Events EC2 schedules on machines' hardware (cron, every 5 minutes): each run reads them all
  // again and acts by their date, so a failed run needs only the next one.
  'vm-events': defineQueue(Sweep, {
    retryLimit: 1,
    retryDelay: 60,
    retryBackoff: false,
    expireInSeconds: 300,
  }),
  'pool-replenish': defineQueue(Sweep, {
    retryLimit: 5,
    retryDelay: 30,
    retryBackoff: true,
    retryDelayMax: 600,
    expireInSeconds: 600,
  }),
  'plan-expiry': defineQueue(Sweep, {
    retryLimit: 2,
    retryDelay: 30,
    retryBackoff: true,
    expireInSeconds: 300,
  }),
  'vm-reaper': defineQueue(Sweep, {
    retryLimit: 1,
    retryDelay: 30,
    retryBackoff: false,
    expireInSeconds: 300,
  }),
  // Hourly deletion of dead rows (rate-limit counters, expired sessions, codes and links).
  housekeeping: defineQueue(Sweep, {
    retryLimit: 2,
    retryDelay: 60,
    retryBackoff: true,
    expireInSeconds: 600,
  }),
  'vm-reconcile': defineQueue(Sweep, {
    retryLimit: 1,
    retryDelay: 60,
    retryBackoff: false,
    expireInSeconds: 600,
  }),
  // Operator alerts to a person (cron, every minute): claims alerts due a notification and
  // enqueues their mail and webhook post in the same transaction.
  'alert-notify': defineQueue(Sweep, {
    retryLimit: 2,
    retryDelay: 10,
    retryBackoff: true,
    expireInSeconds: 60,
  }),
  // A chat webhook that is down or rate-limiting us: keep trying for about an hour.
  'alert-webhook': defineQueue(AlertWebhook, {
    retryLimit: 10,
    retryDelay: 5,
    retryBackoff: true,
    retryDelayMax: 600,
    expireInSeconds: 60,
  }),
  // Usage page: CPU/GPU samples from CloudWatch (cron). Each pull re-reads a window that
  // overlaps the last one, so a failed run needs only one quick retry; the next run catches up.
  'metrics-pull': defineQueue(Sweep, {
    retryLimit: 1,
    retryDelay: 30,
    retryBackoff: false,
    expireInSeconds: 300,
  }),
  // A customer waits at the dashboard for the answer (the API waits up to 45 s): the handler
  // makes its own quick retry of Sunshine and records the outcome on the row; pg-boss retries
  // only a handler that crashed (the row says whether anything is left to do).
  'stream-pair': defineQueue(StreamPairing, {
    retryLimit: 2,
    retryDelay: 2,
    retryBackoff: false,
    expireInSeconds: 120,
  }),
  'stream-unpair': defineQueue(StreamPairing, {
    retryLimit: 3,
    retryDelay: 5,
    retryBackoff: true,
    expireInSeconds: 120,
  }),
  // Sunshine's client list on a machine, at each accepted health report (one waiting per machine):
  // the next report sends it again, so a failed read needs no retry chain.
  'stream-clients': defineQueue(StreamClients, {
    policy: 'short',
    retryLimit: 1,
    retryDelay: 10,
    retryBackoff: false,
    expireInSeconds: 120,
  }),
  // Machines' DNS names (cron, every minute; and one machine's when pointing it failed on its way
  // to running). Route 53 outages are usually minutes: backoff from 10 s up to 5 minutes, and the
  // minute sweep keeps trying past the retries; the name's 10-minute alert does not wait for them.
  'machine-name': defineQueue(MachineNameWork, {
    policy: 'short',
    retryLimit: 10,
    retryDelay: 10,
    retryBackoff: true,
    retryDelayMax: 300,
    expireInSeconds: 120,
  }),
  // Machines' health (cron, every minute): running machines silent for 15 minutes, forged
  // reports, old refusals. Each run looks at everything again, so a failed one needs only the next.
  'machine-health': defineQueue(Sweep, {
    retryLimit: 1,
    retryDelay: 20,
    retryBackoff: false,
    expireInSeconds: 120,
  }),
  // Idle auto-stop (cron, every minute): reads CloudWatch, warns, stops. Every run decides from
  // the whole window again, so a failed run only needs the next one.
  'vm-idle': defineQueue(Sweep, {
    retryLimit: 1,
    retryDelay: 20,
    retryBackoff: false,
    expireInSeconds: 120,
  }),
  // AutoPay (cron, every minute): pre-debit notices that fell due, debits that fell due, the
  // outcome of settled debits, debits PayU never answered, revokes whose job was lost. Each
  // step is a conditional transition, so a failed run needs only the next one.
  'autopay-renewal': defineQueue(Sweep, {
    retryLimit: 1,
    retryDelay: 20,
    retryBackoff: false,
    expireInSeconds: 300,
  }),
  // Revoking a cancelled mandate at PayU: retried for about an hour; the sweep sends a lost one again.
  'autopay-revoke': defineQueue(AutopayRevoke, {
    policy: 'short',
    retryLimit: 10,
    retryDelay: 10,
    retryBackoff: true,
    retryDelayMax: 600,
    expireInSeconds: 60,
  }),
} as const;

export type QueueName = keyof typeof QUEUES;

/**
 * How many times an operation is tried in all: the first run plus the queue's retries. Handlers
 * that count attempts on a row give up at this number, so one budget governs each operation.
 */
export function attemptBudget(name: QueueName): number {
  return QUEUES[name].options.retryLimit + 1;
}
export type Payload<Q extends QueueName> = z.infer<(typeof QUEUES)[Q]['schema']>;
export const QUEUE_NAMES = Object.keys(QUEUES) as QueueName[];
export const deadLetterQueue = (name: QueueName): string => `${name}-dlq`;

/** The first line of the error a failed job recorded (pg-boss keeps it as `{ message, … }`). */
export function recordedErrorLine(output: unknown): string {
  const message = (output as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message.split('\n')[0]! : JSON.stringify(output ?? null);
}

/** The pg-boss schema; kept apart from ours so `scripts/jobs` and migrations never collide. */
export const BOSS_SCHEMA = 'pgboss';

export type Boss = PgBoss;

/**
 * How often the worker's pg-boss looks for jobs past their expiry (and refreshes queue
 * counts). pg-boss's default of 60 s would add up to a minute to every expiry above.
 */
export const SUPERVISE_INTERVAL_SECONDS = 10;

/**
 * Creates pg-boss. The web process only sends (`role: 'web'`): no maintenance, no cron.
 * The worker supervises and schedules. Both make sure every queue and its dead-letter
 * queue exist, so whichever starts first does not lose jobs sent to a missing queue.
 */
export async function startBoss(databaseUrl: string, role: 'web' | 'worker' | 'script'): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: BOSS_SCHEMA,
    application_name: `legend-${role}`,
    max: role === 'worker' ? 10 : 4,
    supervise: role === 'worker',
    schedule: role === 'worker',
    superviseIntervalSeconds: SUPERVISE_INTERVAL_SECONDS,
    monitorIntervalSeconds: SUPERVISE_INTERVAL_SECONDS,
    migrate: true,
  });
  await boss.start();
  const { policyMismatch } = await ensureQueues(boss);
  if (policyMismatch.length > 0) {
    process.emitWarning(
      `pg-boss queues created with another policy than declared (recreate them empty to apply): ${policyMismatch.join(', ')}`,
    );
  }
  return boss;
}

/** What a queue (or dead-letter queue) is set to when its declaration leaves a setting out. */
const POLICY_DEFAULTS = { retentionSeconds: 14 * 24 * 3600, deleteAfterSeconds: 7 * 24 * 3600 };
const DEAD_LETTER_POLICY = {
  retryLimit: 0,
  retryDelay: 0,
  retryBackoff: false,
  retryDelayMax: null,
  expireInSeconds: 900,
  retentionSeconds: 30 * 24 * 3600,
  deleteAfterSeconds: 30 * 24 * 3600,
  deadLetter: null,
} as const;

/** The settings a queue must have in the database, as pg-boss's updateQueue takes them. */
export function declaredPolicy(name: QueueName) {
  const { options } = QUEUES[name];
  return {
    retryLimit: options.retryLimit,
    retryDelay: options.retryDelay,
    retryBackoff: options.retryBackoff,
    retryDelayMax: options.retryDelayMax ?? null,
    expireInSeconds: options.expireInSeconds,
    retentionSeconds: options.retentionSeconds ?? POLICY_DEFAULTS.retentionSeconds,
    deleteAfterSeconds: options.deleteAfterSeconds ?? POLICY_DEFAULTS.deleteAfterSeconds,
    deadLetter: deadLetterQueue(name) as string | null,
  };
}

type Policy = ReturnType<typeof declaredPolicy>;
const POLICY_KEYS = Object.keys(declaredPolicy('email-send')) as (keyof Policy)[];

/** The settings of `actual` that differ from `wanted` (missing ones count as null). */
function policyDrift(actual: Record<string, unknown>, wanted: Policy): (keyof Policy)[] {
  return POLICY_KEYS.filter((key) => (actual[key] ?? null) !== wanted[key]);
}

/**
 * Creates missing queues and makes existing ones match their declaration: a changed retry,
 * backoff, expiry, retention or dead-letter setting reaches a database that already has the
 * queue (pg-boss's createQueue leaves an existing queue alone). Returns what it changed.
 */
export async function ensureQueues(
  boss: PgBoss,
): Promise<{ created: string[]; updated: string[]; policyMismatch: string[] }> {
  const existing = new Map(
    (await boss.getQueues()).map((q) => [q.name, q as unknown as Record<string, unknown>]),
  );
  const created: string[] = [];
  const updated: string[] = [];
  const policyMismatch: string[] = [];
  const converge = async (name: string, wanted: Policy, policy: 'standard' | 'short') => {
    const queue = existing.get(name);
    if (!queue) {
      const { deadLetter, retryDelayMax, ...rest } = wanted;
      await boss.createQueue(name, {
        ...rest,
        policy,
        ...(deadLetter ? { deadLetter } : {}),
        ...(retryDelayMax !== null ? { retryDelayMax } : {}),
      });
      created.push(name);
      return;
    }
    if (policyDrift(queue, wanted).length > 0) {
      await boss.updateQueue(name, wanted);
      updated.push(name);
    }
    // pg-boss fixes a queue's policy at creation: a changed one needs the queue recreated empty.
    if ((queue.policy ?? 'standard') !== policy) policyMismatch.push(name);
  };
  for (const name of QUEUE_NAMES) {
    // The dead-letter queue first: a queue may only name one that exists.
    await converge(deadLetterQueue(name), { ...DEAD_LETTER_POLICY }, 'standard');
    await converge(name, declaredPolicy(name), QUEUES[name].options.policy ?? 'standard');
  }
  return { created, updated, policyMismatch };
}

export function parsePayload<Q extends QueueName>(name: Q, data: unknown): Payload<Q> {
  return QUEUES[name].schema.parse(data) as Payload<Q>;
}

/**
 * Validates and sends a job. With `db` (a slonik transaction) the job row is written in that
 * transaction, so it exists exactly when the row it acts on does.
 */
export async function sendJob<Q extends QueueName>(
  boss: PgBoss,
  name: Q,
  data: Payload<Q>,
  options: Omit<SendOptions, 'db'> & { db?: Db } = {},
): Promise<string | null> {
  const payload = parsePayload(name, data);
  const { db, ...sendOptions } = options;
  const queue = mailQueueFor(name, payload);
  return boss.send(queue, payload as object, db ? { ...sendOptions, db: slonikAdapter(db) } : sendOptions);
}

/**
 * Mails someone is waiting for at a screen (a code or a reset link). Sent as `email-send` like
 * any mail, they travel on `email-code`, which bulk mail cannot delay.
 */
export const CODE_MAIL_KINDS: ReadonlySet<string> = new Set([
  'register-code',
  'login-code',
  'password-reset',
]);

/**
 * The queue a job named `name` really goes to: `email-code` for the mails above, `email-alert`
 * for operator alerts (ahead of bulk mail too, and retried for hours).
 */
export function mailQueueFor(name: QueueName, payload: unknown): QueueName {
  if (name !== 'email-send') return name;
  const kind = (payload as { kind?: unknown }).kind;
  if (kind === 'operator-alert') return 'email-alert';
  return typeof kind === 'string' && CODE_MAIL_KINDS.has(kind) ? 'email-code' : name;
}

/** Lets pg-boss run its SQL on a slonik connection (and so inside a slonik transaction). */
function slonikAdapter(db: Db) {
  return {
    async executeSql(text: string, values: unknown[] = []) {
      const token = { type: Symbol.for('SLONIK_TOKEN_QUERY'), sql: text, values } as unknown as Parameters<
        Db['query']
      >[0];
      const result = await db.query(token);
      return { rows: [...result.rows] };
    },
  };
}

export type { Job };
