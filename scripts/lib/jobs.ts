import { z } from 'zod';
import type { PgBoss } from 'pg-boss';
import { sql, type Db } from '../../core/db/pool.ts';
import {
  BOSS_SCHEMA,
  QUEUES,
  QUEUE_NAMES,
  deadLetterQueue,
  recordedErrorLine,
  type QueueName,
} from '../../core/queue.ts';

/**
 * What the operator's `npm run jobs` does, as functions the tests call too. Listing reads
 * pg-boss's job table directly (read-only); every state change goes through pg-boss's API.
 */

const JobRow = z.object({
  id: z.uuid(),
  name: z.string(),
  state: z.string(),
  data: z.unknown(),
  output: z.unknown(),
  retry_count: z.number(),
  created_on: z.date(),
  completed_on: z.date().nullable(),
  source_name: z.string().nullable(),
  source_id: z.uuid().nullable(),
  source_output: z.unknown(),
  source_retry_count: z.number().nullable(),
});
export type JobRow = z.infer<typeof JobRow>;

const table = sql.identifier([BOSS_SCHEMA, 'job']);
const COLUMNS = sql.fragment`id, name, state::text AS state, data, output, retry_count, created_on, completed_on,
  source_name, source_id, source_output, source_retry_count`;

export function isQueueName(name: string): name is QueueName {
  return (QUEUE_NAMES as string[]).includes(name);
}

/** Failed jobs (retries exhausted) of one queue or all, newest first. */
export async function listFailed(db: Db, queue?: QueueName, limit = 100): Promise<readonly JobRow[]> {
  const names = queue ? [queue] : QUEUE_NAMES;
  return db.any(sql.type(JobRow)`
    SELECT ${COLUMNS} FROM ${table}
    WHERE state = 'failed' AND name = ANY(${sql.array(names, 'text')})
    ORDER BY completed_on DESC NULLS LAST
    LIMIT ${limit}`);
}

/**
 * Dead letters of one queue or all (`<queue>-dlq`), newest first: what exhausted its retries
 * and still waits for an operator, even after the failed original was cleaned away.
 */
export async function listDeadLetters(db: Db, queue?: QueueName, limit = 100): Promise<readonly JobRow[]> {
  const names = (queue ? [queue] : QUEUE_NAMES).map(deadLetterQueue);
  return db.any(sql.type(JobRow)`
    SELECT ${COLUMNS} FROM ${table}
    WHERE name = ANY(${sql.array(names, 'text')}) AND state IN ('created', 'retry')
    ORDER BY created_on DESC
    LIMIT ${limit}`);
}

export async function findJob(db: Db, id: string): Promise<JobRow | null> {
  return db.maybeOne(sql.type(JobRow)`SELECT ${COLUMNS} FROM ${table} WHERE id = ${id}`);
}

/** The error a failed job recorded, in one line. */
export function failureMessage(job: JobRow): string {
  // A dead letter carries its original's last error as source_output.
  return recordedErrorLine(job.name.endsWith('-dlq') ? job.source_output : job.output);
}

/** Whether a job's payload still satisfies its queue's schema (a replay of an invalid one fails again). */
export function payloadProblem(job: JobRow): string | null {
  const queue = job.name.replace(/-dlq$/, '');
  if (!isQueueName(queue)) return `unknown queue ${queue}`;
  const result = QUEUES[queue].schema.safeParse(job.data);
  return result.success
    ? null
    : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
}

export type ReplayResult = { id: string; queue: string; how: 'retried' | 'resent' };

/**
 * Puts a failed job back to work. A failed job is retried in place (same id, so anything
 * keyed on it stays idempotent) and its dead-letter copy removed; a dead-letter job whose
 * original is gone is sent again to its source queue.
 */
export async function replay(db: Db, boss: PgBoss, id: string): Promise<ReplayResult> {
  const job = await findJob(db, id);
  if (!job) throw new Error(`no job ${id}`);
  if (job.name.endsWith('-dlq')) {
    const original = job.source_id ? await findJob(db, job.source_id) : null;
    if (original && original.state === 'failed') return replay(db, boss, original.id);
    const queue = job.source_name ?? job.name.replace(/-dlq$/, '');
    if (!isQueueName(queue)) throw new Error(`job ${id} came from an unknown queue ${queue}`);
    const newId = await boss.send(queue, job.data as object);
    if (!newId) throw new Error(`pg-boss refused to resend job ${id}`);
    await boss.deleteJob(job.name, job.id);
    return { id: newId, queue, how: 'resent' };
  }
  if (job.state !== 'failed') throw new Error(`job ${id} is ${job.state}, not failed: nothing to replay`);
  await boss.retry(job.name, job.id);
  await db.query(sql.unsafe`
    DELETE FROM ${table} WHERE name = ${deadLetterQueue(job.name as QueueName)} AND source_id = ${job.id}`);
  return { id: job.id, queue: job.name, how: 'retried' };
}

/**
 * Replays every failed job of a queue, then every dead letter left whose original is gone
 * (replaying a failed job already removes its dead letter).
 */
export async function replayAll(db: Db, boss: PgBoss, queue: QueueName): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  for (const list of [listFailed, listDeadLetters]) {
    for (;;) {
      const batch = await list(db, queue, 500);
      if (batch.length === 0) break;
      for (const job of batch) results.push(await replay(db, boss, job.id));
    }
  }
  return results;
}
