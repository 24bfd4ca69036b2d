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
});

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
