import { z } from 'zod';
import { sql, type Db } from './pool.ts';
import { firstCheckAt, PAYMENT_STATES, RECONCILE_CHECK_MINUTES } from '../domain/payments.ts';

/**
 * Payments: one PayU checkout attempt each, keyed on our `txnid`. `initiated → pending →
 * success | failure | abandoned`, and only PayU's verify_payment answer (or the sweep's
 * horizon) moves it (ARCHITECTURE deviation 1). Every transition is conditional, so duplicate
 * callbacks, the sweep and racing jobs change a row once.
 */

export const Payment = z.object({
  id: z.uuid(),
  txnid: z.string(),
  user_id: z.uuid(),
  subscription_id: z.uuid(),
  amount_paise: z.number().int(),
  amount: z.string(),
  productinfo: z.string(),
  status: z.enum(PAYMENT_STATES),
  mihpayid: z.string().nullable(),
  verified_at: z.date().nullable(),
  callback_count: z.number().int(),
  last_callback_at: z.date().nullable(),
  last_callback_status: z.string().nullable(),
  problem: z.string().nullable(),
  next_check_at: z.date().nullable(),
  check_count: z.number().int(),
  last_checked_at: z.date().nullable(),
  failure_reason: z.string().nullable(),
  problem_at: z.date().nullable(),
  auto_refund_at: z.date().nullable(),
  created_at: z.date(),
  updated_at: z.date(),
});
export type Payment = z.infer<typeof Payment>;

const COLUMNS = sql.fragment`id, txnid, user_id, subscription_id, amount_paise, amount, productinfo, status,
  mihpayid, verified_at, callback_count, last_callback_at, last_callback_status, problem, next_check_at, check_count,
  last_checked_at, failure_reason, problem_at, auto_refund_at, created_at, updated_at`;

export type NewPayment = {
  txnid: string;
  userId: string;
  subscriptionId: string;
  amountPaise: number;
  amount: string;
  productinfo: string;
};

/** A new attempt, its first reconciliation check scheduled (core/domain/payments.ts). */
export async function insertPayment(db: Db, p: NewPayment, now = new Date()): Promise<Payment> {
  return db.one(sql.type(Payment)`
    INSERT INTO payments (txnid, user_id, subscription_id, amount_paise, amount, productinfo, created_at, next_check_at)
    VALUES (${p.txnid}, ${p.userId}, ${p.subscriptionId}, ${p.amountPaise}, ${p.amount}, ${p.productinfo},
            ${now.toISOString()}, ${firstCheckAt(now).toISOString()})
    RETURNING ${COLUMNS}`);
}

/** Attempts of a user still open (initiated or pending) created since `since`: the checkout cap. */
export async function countOpenPaymentsSince(db: Db, userId: string, since: Date): Promise<number> {
  return db.oneFirst(sql.type(z.object({ count: z.number().int() }))`
    SELECT count(*)::int AS count FROM payments
    WHERE user_id = ${userId} AND status IN ('initiated', 'pending') AND created_at >= ${since.toISOString()}`);
}

/**
 * The sweep's batch: open attempts due for a check by `cutoff`, claimed with SKIP LOCKED and
 * moved to their next check in the same statement, so two sweeps never ask about one attempt at
 * once and a crashed sweep's attempts come back at their next step. `nextCheck` maps an
 * attempt's creation time and its check count (after this check) to the next check, or null.
 */
export async function claimDuePayments(
  db: Db,
  cutoff: Date,
  limit: number,
  nextCheck: (createdAt: Date, checksDone: number) => Date,
): Promise<Payment[]> {
  return db.transaction(async (trx) => {
    const due = await trx.any(sql.type(Payment)`
      SELECT ${COLUMNS} FROM payments
      WHERE status IN ('initiated', 'pending') AND next_check_at <= ${cutoff.toISOString()}
      ORDER BY next_check_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED`);
    const claimed: Payment[] = [];
    for (const payment of due) {
      const checks = payment.check_count + 1;
      const next = nextCheck(payment.created_at, checks);
      claimed.push(
        await trx.one(sql.type(Payment)`
          UPDATE payments
          SET check_count = ${checks}, last_checked_at = now(), next_check_at = ${next.toISOString()},
              updated_at = now()
          WHERE id = ${payment.id}
          RETURNING ${COLUMNS}`),
      );
    }
    return claimed;
  });
}

/** initiated → pending: PayU knows the attempt and has not decided (bank delays). */
export async function markPaymentPending(db: Db, txnid: string): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE payments SET status = 'pending', updated_at = now() WHERE txnid = ${txnid} AND status = 'initiated'`);
}

/**
 * A callback said something happened but PayU has not decided yet: ask again by `at` rather
 * than at the schedule's next (possibly distant) step.
 */
export async function checkPaymentBy(db: Db, txnid: string, at: Date): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE payments SET next_check_at = least(next_check_at, ${at.toISOString()}), updated_at = now()
    WHERE txnid = ${txnid} AND status IN ('initiated', 'pending') AND next_check_at IS NOT NULL`);
}

/**
 * An open attempt whose schedule ran out without a final answer from PayU (`reconcileScheduleOver`:
 * its checks reached the schedule's length).
 */
export async function abandonPayment(db: Db, txnid: string): Promise<Payment | null> {
  return db.maybeOne(sql.type(Payment)`
    UPDATE payments SET status = 'abandoned', next_check_at = NULL, updated_at = now()
    WHERE txnid = ${txnid} AND status IN ('initiated', 'pending')
      AND check_count >= ${RECONCILE_CHECK_MINUTES.length}
    RETURNING ${COLUMNS}`);
}

export async function findPaymentById(db: Db, id: string): Promise<Payment | null> {
  return db.maybeOne(sql.type(Payment)`SELECT ${COLUMNS} FROM payments WHERE id = ${id}`);
}

export async function findPaymentByTxnid(db: Db, txnid: string): Promise<Payment | null> {
  return db.maybeOne(sql.type(Payment)`SELECT ${COLUMNS} FROM payments WHERE txnid = ${txnid}`);
}

/** Notes that a (hash-checked) callback arrived, for support: how many and what it claimed. */
export async function recordCallback(db: Db, txnid: string, claimedStatus: string): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE payments
    SET callback_count = callback_count + 1, last_callback_at = now(),
        last_callback_status = ${claimedStatus.slice(0, 40)}, updated_at = now()
    WHERE txnid = ${txnid}`);
}

/**
 * initiated | pending | abandoned → success | failure, with what PayU answered. Null when the
 * payment was already final (another job got there first). An abandoned attempt that PayU
 * later reports paid is still settled: the money was taken.
 */
export async function settlePayment(
  db: Db,
  txnid: string,
  status: 'success' | 'failure',
  verified: { mihpayid: string | null; answer: unknown; at: Date; failureReason?: string | null },
): Promise<Payment | null> {
  return db.maybeOne(sql.type(Payment)`
    UPDATE payments
    SET status = ${status}, mihpayid = ${verified.mihpayid}, verify_answer = ${sql.jsonb(toJson(verified.answer))},
        verified_at = ${verified.at.toISOString()}, next_check_at = NULL,
        failure_reason = ${status === 'failure' ? (verified.failureReason ?? '').slice(0, 300) || null : null},
        updated_at = now()
    WHERE txnid = ${txnid} AND status IN ('initiated', 'pending', 'abandoned')
    RETURNING ${COLUMNS}`);
}

/**
 * Flags a payment the operator must look at (paid but not activated, amount disagreement…).
 * With `autoRefundAt` the worker refunds it in full then, unless an operator resolved it first.
 */
export async function setPaymentProblem(
  db: Db,
  id: string,
  problem: string,
  autoRefundAt: Date | null = null,
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE payments
    SET problem = ${problem.slice(0, 500)}, problem_at = coalesce(problem_at, now()),
        auto_refund_at = coalesce(auto_refund_at, ${autoRefundAt?.toISOString() ?? null}), updated_at = now()
    WHERE id = ${id}`);
}

/** Paid-but-not-activated payments whose automatic refund is due, without a refund yet. */
export async function listAutoRefundsDue(db: Db, now: Date, limit: number): Promise<Payment[]> {
  return [
    ...(await db.any(sql.type(Payment)`
      SELECT ${COLUMNS} FROM payments p
      WHERE p.status = 'success' AND p.auto_refund_at <= ${now.toISOString()}
        -- Any refund, failed ones included: a failed automatic refund is the operator's (alerted).
        AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.payment_id = p.id)
      ORDER BY p.auto_refund_at
      LIMIT ${limit}`)),
  ];
}

/** Stops the automatic refund (an operator resolved the problem another way). */
export async function cancelAutoRefund(db: Db, id: string): Promise<void> {
  await db.query(sql.unsafe`UPDATE payments SET auto_refund_at = NULL, updated_at = now() WHERE id = ${id}`);
}

/** Successful payments of a user, newest first. */
export async function listPaymentsForUser(db: Db, userId: string, limit = 100): Promise<readonly Payment[]> {
  return db.any(sql.type(Payment)`
    SELECT ${COLUMNS} FROM payments WHERE user_id = ${userId} ORDER BY created_at DESC LIMIT ${limit}`);
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

function toJson(value: unknown): Json {
  return JSON.parse(JSON.stringify(value ?? null)) as Json;
}

/**
 * At account deletion: the payments stay (tax law, refunds, reconciliation) but PayU's answer
 * recorded on each loses the fields that describe the person (`fields`, top-level keys of the
 * transaction's entry). Amounts, status and PayU's ids stay. Answers how many were touched.
 */
export async function minimisePaymentsOfUser(
  db: Db,
  userId: string,
  fields: readonly string[],
): Promise<number> {
  const result = await db.query(sql.unsafe`
    UPDATE payments SET verify_answer = verify_answer - ${sql.array([...fields], 'text')}, updated_at = now()
    WHERE user_id = ${userId} AND jsonb_typeof(verify_answer) = 'object'`);
  return result.rowCount;
}

/** PayU could not be asked: these open payments are asked again at `at` rather than at their next step. */
export async function checkPaymentsAgainSoon(db: Db, paymentIds: string[], at: Date): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE payments SET next_check_at = ${at.toISOString()}, check_count = greatest(check_count - 1, 0), updated_at = now()
    WHERE id = ANY(${sql.array(paymentIds, 'uuid')}) AND status IN ('initiated', 'pending')`);
}
