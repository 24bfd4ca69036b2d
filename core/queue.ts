import { PgBoss, type Job, type SendOptions } from 'pg-boss';
import { z } from 'zod';
import type { Db } from './db/pool.ts';

/**
 * The one contract between the web process and the worker: every queue's name, payload
 * schema and retry policy. Web sends; the worker works; both re-parse payloads here.
 */

const EmailSend = z.object({
  to: z.email(),
  subject: z.string().min(1).max(200),
  text: z.string().min(1),
  html: z.string().optional(),
  replyTo: z.email().optional(),
  /** Why the mail exists, for logs and the operator's job listing; never personal data. */
  kind: z.string().min(1).max(60),
  /**
   * Secrets the mail carries (a one-time code, a reset link), encrypted with core/crypto.ts so
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
  /** Which callback asked, for logs. */
  source: z.enum(['surl', 'furl', 'webhook', 'notify', 'spa']),
});

/**
 * Build (or hand over from the warm pool) the machine of a newly activated subscription.
 * Sent in the transaction that activates the subscription; handled by the cloud-PC issue.
 */
const VmProvision = z.object({
  subscriptionId: z.uuid(),
  userId: z.uuid(),
});

/**
 * Cloud PCs (issue 5). `vm-sync` without ids is the cron sweep (every live machine, batched
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

/** Cron sweeps carry nothing: they select their own bounded batch. */
const Sweep = z.object({}).strip();

type QueueOptions = {
  retryLimit: number;
  retryDelay: number;
  retryBackoff: boolean;
  retryDelayMax?: number;
  expireInSeconds: number;
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
  'account-recovery': defineQueue(AccountRecovery, {
    // A code or link is only useful for minutes: retry briefly, then the person asks again.
    retryLimit: 3,
    retryDelay: 2,
    retryBackoff: true,
    expireInSeconds: 60,
  }),
  'payment-verify': defineQueue(PaymentVerify, {
    // PayU may answer "pending" for a while (bank delays) or be briefly unreachable: back off
    // to ten minutes, for about two hours, then the operator looks at the dead letter.
    retryLimit: 15,
    retryDelay: 10,
    retryBackoff: true,
    retryDelayMax: 600,
    expireInSeconds: 120,
  }),
  'vm-provision': defineQueue(VmProvision, {
    // EC2 capacity errors and throttling clear in minutes: keep trying for about an hour.
    retryLimit: 10,
    retryDelay: 15,
    retryBackoff: true,
    retryDelayMax: 600,
    expireInSeconds: 900,
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
    // the handler gives up (machine back to stopped, operator alerted) after its attempt limit.
    retryLimit: 8,
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
  // Usage page: CPU/GPU samples from CloudWatch (cron). Each pull re-reads a window that
  // overlaps the last one, so a failed run needs only one quick retry; the next run catches up.
  'metrics-pull': defineQueue(Sweep, {
    retryLimit: 1,
    retryDelay: 30,
    retryBackoff: false,
    expireInSeconds: 300,
  }),
} as const;

export type QueueName = keyof typeof QUEUES;
export type Payload<Q extends QueueName> = z.infer<(typeof QUEUES)[Q]['schema']>;
export const QUEUE_NAMES = Object.keys(QUEUES) as QueueName[];
export const deadLetterQueue = (name: QueueName): string => `${name}-dlq`;

/** The pg-boss schema; kept apart from ours so `scripts/jobs` and migrations never collide. */
export const BOSS_SCHEMA = 'pgboss';

export type Boss = PgBoss;

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
    migrate: true,
  });
  await boss.start();
  await ensureQueues(boss);
  return boss;
}

export async function ensureQueues(boss: PgBoss): Promise<void> {
  const existing = new Set((await boss.getQueues()).map((q) => q.name));
  for (const name of QUEUE_NAMES) {
    const { options } = QUEUES[name];
    const dlq = deadLetterQueue(name);
    if (!existing.has(dlq)) {
      await boss.createQueue(dlq, {
        retryLimit: 0,
        retentionSeconds: 30 * 24 * 3600,
        deleteAfterSeconds: 30 * 24 * 3600,
      });
    }
    if (!existing.has(name)) {
      await boss.createQueue(name, { ...options, deadLetter: dlq });
    }
  }
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
  return boss.send(name, payload as object, db ? { ...sendOptions, db: slonikAdapter(db) } : sendOptions);
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
