import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { BlogSubscriber } from '../../core/db/blogSubscribers.ts';
import { FeedbackMessage } from '../../core/db/feedback.ts';
import { sql, type Db } from '../../core/db/pool.ts';
import { ProblemReport } from '../../core/db/problemReports.ts';
import { Refund, refundToken, type RefundSource } from '../../core/db/refunds.ts';
import { DCV_OUTCOMES } from '../../core/domain/desktop.ts';

/**
 * What tests read (and the one row they write) straight from the tables, where the product has
 * no reader of its own: counts, the rows a form left, the notices a customer got. Production
 * never needs these, so they live here rather than in core/db.
 */

const Count = z.object({ count: z.number() });

export async function findSubscriberByEmail(db: Db, email: string): Promise<BlogSubscriber | null> {
  return db.maybeOne(sql.type(BlogSubscriber)`SELECT * FROM blog_subscribers WHERE email = ${email}`);
}

export async function countSubscribers(db: Db): Promise<number> {
  return db.oneFirst(sql.type(Count)`SELECT count(*)::int AS count FROM blog_subscribers`);
}

const UseRow = z.object({
  token_id: z.uuid().nullable(),
  vm_id: z.uuid().nullable(),
  accepted: z.boolean(),
  outcome: z.enum(DCV_OUTCOMES),
  session_id: z.string(),
  client_address: z.string(),
  verifier_address: z.string(),
  at: z.date(),
});

/** The verifications recorded for a machine (by its token or its address), newest first. */
export async function listDesktopTokenUses(db: Db, vmId: string): Promise<Array<z.infer<typeof UseRow>>> {
  return [
    ...(await db.any(sql.type(UseRow)`
      SELECT u.token_id, u.vm_id, u.accepted, u.outcome, u.session_id, u.client_address,
             u.verifier_address, u.at
      FROM desktop_token_uses u LEFT JOIN desktop_tokens t ON t.id = u.token_id
      WHERE u.vm_id = ${vmId} OR t.vm_id = ${vmId}
      ORDER BY u.at DESC, u.id`)),
  ];
}

export async function findFeedbackMessage(db: Db, id: string): Promise<FeedbackMessage | null> {
  return db.maybeOne(sql.type(FeedbackMessage)`SELECT * FROM feedback_messages WHERE id = ${id}`);
}

export async function countFeedbackMessages(db: Db): Promise<number> {
  return db.oneFirst(sql.type(Count)`SELECT count(*)::int AS count FROM feedback_messages`);
}

export async function findProblemReport(db: Db, id: string): Promise<ProblemReport | null> {
  return db.maybeOne(sql.type(ProblemReport)`
    SELECT id, user_id, title, description, severity, phone_number, page_url, created_at, notified_at
    FROM problem_reports WHERE id = ${id}`);
}

export async function countProblemReports(db: Db): Promise<number> {
  return db.oneFirst(sql.type(Count)`SELECT count(*)::int AS count FROM problem_reports`);
}

/**
 * Records a refund about to be requested, its token derived from its id, as the product's
 * `insertRefundOnce` does (a new refund is never under review). Throws a unique violation when the payment already has a refund
 * requested or accepted.
 */
export async function insertRefund(
  db: Db,
  r: { paymentId: string; amountPaise: number; quote: Record<string, number>; source?: RefundSource },
): Promise<Refund> {
  const id = randomUUID();
  return db.one(sql.type(Refund)`
    INSERT INTO refunds (id, payment_id, token, amount_paise, quote, source)
    VALUES (${id}, ${r.paymentId}, ${refundToken(id)}, ${r.amountPaise}, ${sql.jsonb(r.quote)},
            ${r.source ?? 'operator'})
    RETURNING *, false AS under_review`);
}

export async function countLiveSessions(db: Db, userId: string): Promise<number> {
  return db.oneFirst(sql.type(Count)`
    SELECT count(*)::int AS count FROM sessions
    WHERE user_id = ${userId} AND revoked_at IS NULL AND expires_at > now()`);
}

/** How many CPU/GPU samples a machine has. */
export async function countSamples(db: Db, vmId: string): Promise<number> {
  return db.oneFirst(sql.type(Count)`
    SELECT count(*)::int AS count FROM vm_metric_samples WHERE vm_id = ${vmId}`);
}

const Notice = z.object({ key: z.string(), kind: z.string(), sent_at: z.date() });

export async function listNoticesOfUser(db: Db, userId: string): Promise<Array<z.infer<typeof Notice>>> {
  return [
    ...(await db.any(sql.type(Notice)`
      SELECT key, kind, sent_at FROM vm_notices WHERE user_id = ${userId} ORDER BY sent_at, key`)),
  ];
}

const RunSegment = z.object({
  vm_id: z.uuid(),
  subscription_id: z.uuid(),
  started_at: z.date(),
  ended_at: z.date().nullable(),
});

export async function listRunSegments(db: Db, vmId: string): Promise<Array<z.infer<typeof RunSegment>>> {
  return [
    ...(await db.any(sql.type(RunSegment)`
      SELECT vm_id, subscription_id, started_at, ended_at FROM vm_run_segments
      WHERE vm_id = ${vmId} ORDER BY started_at`)),
  ];
}
