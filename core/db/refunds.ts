import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { REFUND_STALLED_MS, REFUND_STATUSES } from '../domain/refund.ts';
import { sql, type Db } from './pool.ts';

/**
 * Refunds through PayU. The row, with its token, is written before PayU is called; a retry
 * after a crash reuses the same token, which PayU refuses to apply twice (INTEGRATIONS.md).
 */

export const REFUND_SOURCES = ['auto', 'customer', 'operator'] as const;
export type RefundSource = (typeof REFUND_SOURCES)[number];

export const Refund = z.object({
  id: z.uuid(),
  payment_id: z.uuid(),
  token: z.string(),
  amount_paise: z.number().int(),
  status: z.enum(REFUND_STATUSES),
  quote: z.unknown(),
  payu_request_id: z.string().nullable(),
  error_code: z.number().int().nullable(),
  message: z.string().nullable(),
  source: z.enum(REFUND_SOURCES),
  payu_status: z.string().nullable(),
  status_checks: z.number().int(),
  completed_at: z.date().nullable(),
  created_at: z.date(),
  updated_at: z.date(),
  /**
   * PayU refused it and the operator alert about it (`refund-failed:<id>`) is still open: the
   * customer is not offered the refund again until an operator has looked and resolved it.
   */
  under_review: z.boolean(),
});
export type Refund = z.infer<typeof Refund>;

/** The alert a refused or failed refund raises; resolving it is the operator's "I have looked". */
export const refundFailedAlertKey = (refundId: string) => `refund-failed:${refundId}`;

const COLUMNS = sql.fragment`id, payment_id, token, amount_paise, status, quote, payu_request_id, error_code,
  message, source, payu_status, status_checks, completed_at, created_at, updated_at,
  (status = 'failed' AND EXISTS (
    SELECT 1 FROM operator_alerts oa
    WHERE oa.dedupe_key = 'refund-failed:' || refunds.id::text AND oa.resolved_at IS NULL)) AS under_review`;

/** PayU's limit on a refund token; ours is derived from the refund's id so it never repeats. */
export const REFUND_TOKEN_LENGTH = 23;

/** "rf" + the first 21 hex digits of the refund id: unique, ≤ 23 characters, stable across retries. */
export function refundToken(refundId: string): string {
  return `rf${refundId.replaceAll('-', '')}`.slice(0, REFUND_TOKEN_LENGTH);
}

/**
 * Records a refund unless the payment already has one in flight or done: the row of the
 * refund that stands, and whether this call created it. One refund per payment whoever asks.
 */
export async function insertRefundOnce(
  db: Db,
  r: { paymentId: string; amountPaise: number; quote: Record<string, number>; source: RefundSource },
): Promise<{ refund: Refund; created: boolean }> {
  const id = randomUUID();
  const inserted = await db.maybeOne(sql.type(Refund)`
    INSERT INTO refunds (id, payment_id, token, amount_paise, quote, source)
    VALUES (${id}, ${r.paymentId}, ${refundToken(id)}, ${r.amountPaise}, ${sql.jsonb(r.quote)}, ${r.source})
    ON CONFLICT (payment_id) WHERE status IN ('requested', 'accepted', 'refunded') DO NOTHING
    RETURNING ${COLUMNS}`);
  if (inserted) return { refund: inserted, created: true };
  const existing = await findOpenRefund(db, r.paymentId);
  if (!existing) throw new Error(`refund of payment ${r.paymentId} neither inserted nor found`);
  return { refund: existing, created: false };
}

export async function findRefund(db: Db, id: string): Promise<Refund | null> {
  return db.maybeOne(sql.type(Refund)`SELECT ${COLUMNS} FROM refunds WHERE id = ${id}`);
}

/** The payment's refund that is in flight or done, if any. */
export async function findOpenRefund(db: Db, paymentId: string): Promise<Refund | null> {
  return db.maybeOne(sql.type(Refund)`
    SELECT ${COLUMNS} FROM refunds WHERE payment_id = ${paymentId} AND status IN ('requested', 'accepted', 'refunded')`);
}

/** Every refund of a user's payments, newest first (the history page). */
export async function listRefundsForUser(db: Db, userId: string): Promise<Refund[]> {
  return [
    ...(await db.any(sql.type(Refund)`
      SELECT ${COLUMNS} FROM refunds
      WHERE payment_id IN (SELECT id FROM payments WHERE user_id = ${userId})
      ORDER BY created_at DESC`)),
  ];
}

/** accepted → refunded | failed by PayU's final word (check_action_status); counts every check. */
export async function recordRefundStatus(
  db: Db,
  id: string,
  outcome: { payuStatus: string; final: 'refunded' | 'failed' | null },
): Promise<Refund | null> {
  return db.maybeOne(sql.type(Refund)`
    UPDATE refunds
    SET payu_status = ${outcome.payuStatus.slice(0, 60)}, status_checks = status_checks + 1,
        status = ${outcome.final ?? sql.fragment`status`},
        completed_at = ${outcome.final ? sql.fragment`now()` : sql.fragment`completed_at`}, updated_at = now()
    WHERE id = ${id} AND status = 'accepted'
    RETURNING ${COLUMNS}`);
}

export async function listRefundsForPayment(db: Db, paymentId: string): Promise<readonly Refund[]> {
  return db.any(sql.type(Refund)`
    SELECT ${COLUMNS} FROM refunds WHERE payment_id = ${paymentId} ORDER BY created_at`);
}

/** requested → accepted | failed, with PayU's answer. Null when it was no longer requested. */
export async function settleRefund(
  db: Db,
  id: string,
  outcome: {
    status: 'accepted' | 'failed';
    requestId: string | null;
    errorCode: number | null;
    message: string;
  },
): Promise<Refund | null> {
  return db.maybeOne(sql.type(Refund)`
    UPDATE refunds
    SET status = ${outcome.status}, payu_request_id = ${outcome.requestId}, error_code = ${outcome.errorCode},
        message = ${outcome.message.slice(0, 500)}, updated_at = now()
    WHERE id = ${id} AND status = 'requested'
    RETURNING ${COLUMNS}`);
}

/** Open refunds nothing moved for REFUND_STALLED_MS (the database's clock), oldest first. */
export async function listStalledRefunds(db: Db, limit = 50): Promise<Refund[]> {
  return [
    ...(await db.any(sql.type(Refund)`
      SELECT ${COLUMNS} FROM refunds
      WHERE status IN ('requested', 'accepted')
        AND updated_at < now() - make_interval(secs => ${REFUND_STALLED_MS / 1000})
      ORDER BY updated_at
      LIMIT ${limit}`)),
  ];
}

/** Marks a refund as just looked at, so the stalled sweep waits another REFUND_STALLED_MS. */
export async function touchRefund(db: Db, id: string): Promise<void> {
  await db.query(sql.unsafe`UPDATE refunds SET updated_at = now() WHERE id = ${id}`);
}
