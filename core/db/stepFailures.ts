import { z } from 'zod';
import { ACCOUNT_SUBJECT, type StepFailureFacts } from '../domain/stepBackoff.ts';
import { sql, type Db } from './pool.ts';

/**
 * The current run of failures of each subject: a machine (`vm:<id>`), a spare (`pool:<id>`), or
 * the whole account while AWS throttles it (sql/0061_step_failures.sql). The backoff they pace
 * is core/domain/stepBackoff.ts.
 */

const ts = (at: Date) => at.toISOString();

export const vmSubject = (vmId: string) => `vm:${vmId}`;
export const poolSubject = (poolInstanceId: string) => `pool:${poolInstanceId}`;

export const StepFailure = z.object({
  subject: z.string(),
  vm_id: z.uuid().nullable(),
  pool_instance_id: z.uuid().nullable(),
  action: z.string(),
  code: z.string(),
  detail: z.string(),
  count: z.number().int(),
  first_at: z.date(),
  last_at: z.date(),
  next_at: z.date(),
  alerted_at: z.date().nullable(),
});
export type StepFailure = z.infer<typeof StepFailure>;

const COLUMNS = sql.fragment`subject, vm_id, pool_instance_id, action, code, detail, count, first_at, last_at,
  next_at, alerted_at`;

export function failureFacts(row: StepFailure): StepFailureFacts {
  return {
    action: row.action,
    code: row.code,
    count: row.count,
    firstAt: row.first_at,
    nextAt: row.next_at,
    alertedAt: row.alerted_at,
  };
}

export async function findStepFailure(db: Db, subject: string): Promise<StepFailure | null> {
  return db.maybeOne(sql.type(StepFailure)`SELECT ${COLUMNS} FROM step_failures WHERE subject = ${subject}`);
}

/** The failures of many subjects at once (a sweep's page). */
export async function findStepFailures(db: Db, subjects: string[]): Promise<Map<string, StepFailure>> {
  if (subjects.length === 0) return new Map();
  const rows = await db.any(sql.type(StepFailure)`
    SELECT ${COLUMNS} FROM step_failures WHERE subject = ANY(${sql.array(subjects, 'text')})`);
  return new Map(rows.map((row) => [row.subject, row]));
}

/**
 * Writes a subject's run of failures as the domain computed it (`nextStepFailure`): a new run
 * resets the count, the first moment and the alert.
 */
export async function saveStepFailure(
  db: Db,
  failure: {
    subject: string;
    vmId?: string | null;
    poolInstanceId?: string | null;
    action: string;
    code: string;
    detail: string;
    count: number;
    firstAt: Date;
    nextAt: Date;
    sameRun: boolean;
  },
  now: Date,
): Promise<StepFailure> {
  return db.one(sql.type(StepFailure)`
    INSERT INTO step_failures (subject, vm_id, pool_instance_id, action, code, detail, count, first_at, last_at,
      next_at, alerted_at)
    VALUES (${failure.subject}, ${failure.vmId ?? null}, ${failure.poolInstanceId ?? null}, ${failure.action},
      ${failure.code}, ${failure.detail.slice(0, 1000)}, ${failure.count}, ${ts(failure.firstAt)}, ${ts(now)},
      ${ts(failure.nextAt)}, NULL)
    ON CONFLICT (subject) DO UPDATE SET action = EXCLUDED.action, code = EXCLUDED.code,
      detail = EXCLUDED.detail, count = EXCLUDED.count, first_at = EXCLUDED.first_at,
      last_at = EXCLUDED.last_at, next_at = EXCLUDED.next_at,
      alerted_at = CASE WHEN ${failure.sameRun} THEN step_failures.alerted_at ELSE NULL END
    RETURNING ${COLUMNS}`);
}

export async function markStepFailureAlerted(db: Db, subject: string, now: Date): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE step_failures SET alerted_at = ${ts(now)} WHERE subject = ${subject} AND alerted_at IS NULL`);
}

/**
 * The subject's step went through: its run of failures is over (only when the failing action is
 * one of `actions`, when given). The run it ended, if any.
 */
export async function clearStepFailure(
  db: Db,
  subject: string,
  actions: string[] | null = null,
): Promise<StepFailure | null> {
  return db.maybeOne(sql.type(StepFailure)`
    DELETE FROM step_failures WHERE subject = ${subject}
      ${actions === null ? sql.fragment`` : sql.fragment`AND action = ANY(${sql.array(actions, 'text')})`}
    RETURNING ${COLUMNS}`);
}

export async function findAccountBackoff(db: Db): Promise<StepFailure | null> {
  return findStepFailure(db, ACCOUNT_SUBJECT);
}

/** For /metrics: every subject still failing (the domain says which wait now, and why). */
export async function listStepFailures(db: Db, limit = 10_000): Promise<StepFailure[]> {
  return [
    ...(await db.any(sql.type(StepFailure)`
      SELECT ${COLUMNS} FROM step_failures ORDER BY next_at LIMIT ${limit}`)),
  ];
}
