import { z } from 'zod';
import { sql, type Db } from './pool.ts';

/**
 * Payments: one PayU checkout attempt each, keyed on our `txnid`. `initiated → success |
 * failure`, and only PayU's verify_payment answer moves it (ARCHITECTURE deviation 1). Every
 * transition is conditional, so duplicate callbacks and racing jobs change a row once.
 */

export const PAYMENT_STATUSES = ['initiated', 'success', 'failure'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const Payment = z.object({
  id: z.uuid(),
  txnid: z.string(),
  user_id: z.uuid(),
  subscription_id: z.uuid(),
  amount_paise: z.number().int(),
  amount: z.string(),
  productinfo: z.string(),
  status: z.enum(PAYMENT_STATUSES),
  mihpayid: z.string().nullable(),
  verified_at: z.date().nullable(),
  callback_count: z.number().int(),
  last_callback_at: z.date().nullable(),
  last_callback_status: z.string().nullable(),
  problem: z.string().nullable(),
  created_at: z.date(),
  updated_at: z.date(),
});
export type Payment = z.infer<typeof Payment>;

const COLUMNS = sql.fragment`id, txnid, user_id, subscription_id, amount_paise, amount, productinfo, status,
  mihpayid, verified_at, callback_count, last_callback_at, last_callback_status, problem, created_at, updated_at`;

export type NewPayment = {
  txnid: string;
  userId: string;
  subscriptionId: string;
  amountPaise: number;
  amount: string;
  productinfo: string;
};

export async function insertPayment(db: Db, p: NewPayment): Promise<Payment> {
  return db.one(sql.type(Payment)`
    INSERT INTO payments (txnid, user_id, subscription_id, amount_paise, amount, productinfo)
    VALUES (${p.txnid}, ${p.userId}, ${p.subscriptionId}, ${p.amountPaise}, ${p.amount}, ${p.productinfo})
    RETURNING ${COLUMNS}`);
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
 * initiated → success | failure, with what PayU answered. Null when the payment was no longer
 * initiated (another job got there first).
 */
export async function settlePayment(
  db: Db,
  txnid: string,
  status: 'success' | 'failure',
  verified: { mihpayid: string | null; answer: unknown; at: Date },
): Promise<Payment | null> {
  return db.maybeOne(sql.type(Payment)`
    UPDATE payments
    SET status = ${status}, mihpayid = ${verified.mihpayid}, verify_answer = ${sql.jsonb(toJson(verified.answer))},
        verified_at = ${verified.at.toISOString()}, updated_at = now()
    WHERE txnid = ${txnid} AND status = 'initiated'
    RETURNING ${COLUMNS}`);
}

/** Flags a payment the operator must look at (paid but not activated, amount disagreement…). */
export async function setPaymentProblem(db: Db, id: string, problem: string): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE payments SET problem = ${problem.slice(0, 500)}, updated_at = now() WHERE id = ${id}`);
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
