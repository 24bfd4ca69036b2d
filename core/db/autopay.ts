import { z } from 'zod';
import { sql, type Db } from './pool.ts';
import {
  MANDATE_STATUSES,
  RENEWAL_STATES,
  type MandateMethod,
  type PlanAutopay,
  type RenewalState,
} from '../domain/autopay.ts';
import { PLAN_IDS } from '../domain/plans.ts';

/**
 * AutoPay mandates (one per checkout that opted in) and their renewals (one per plan renewed).
 * Every change is a conditional transition: two sweeps, an API call racing a sweep, a crash
 * and a late callback each change a row once. Rules about when and what live in
 * core/domain/autopay.ts; these are the rows.
 */

const ts = (at: Date) => at.toISOString();

export const Mandate = z.object({
  id: z.uuid(),
  user_id: z.uuid(),
  registration_payment_id: z.uuid(),
  plan_id: z.enum(PLAN_IDS),
  plan_name: z.string(),
  hours: z.number().int(),
  storage_gb: z.number().int(),
  instance_type: z.string(),
  amount_paise: z.number().int(),
  status: z.enum(MANDATE_STATUSES),
  method: z.enum(['upi', 'card']).nullable(),
  authpayuid: z.string().nullable(),
  end_date: z.string(),
  current_subscription_id: z.uuid().nullable(),
  next_debit_at: z.date().nullable(),
  problem: z.string().nullable(),
  paused_at: z.date().nullable(),
  cancelled_at: z.date().nullable(),
  revoke_requested_at: z.date().nullable(),
  revoked_at: z.date().nullable(),
  created_at: z.date(),
});
export type Mandate = z.infer<typeof Mandate>;

const MANDATE_COLUMNS = sql.fragment`id, user_id, registration_payment_id, plan_id, plan_name, hours, storage_gb,
  instance_type, amount_paise, status, method, authpayuid, end_date::text AS end_date, current_subscription_id,
  next_debit_at, problem, paused_at, cancelled_at, revoke_requested_at, revoked_at, created_at`;

export const Renewal = z.object({
  id: z.uuid(),
  mandate_id: z.uuid(),
  user_id: z.uuid(),
  renews_subscription_id: z.uuid(),
  period_key: z.string(),
  renewal_at: z.date(),
  debit_at: z.date(),
  amount_paise: z.number().int(),
  state: z.enum(RENEWAL_STATES),
  request_id: z.string(),
  notice_sent_at: z.date().nullable(),
  notice_attempts: z.number().int(),
  lease_until: z.date().nullable(),
  subscription_id: z.uuid().nullable(),
  payment_id: z.uuid().nullable(),
  attempts: z.number().int(),
  next_attempt_at: z.date().nullable(),
  debit_answered_at: z.date().nullable(),
  failure_reason: z.string().nullable(),
  problem: z.string().nullable(),
  created_at: z.date(),
  updated_at: z.date(),
});
export type Renewal = z.infer<typeof Renewal>;

const RENEWAL_COLUMNS = sql.fragment`id, mandate_id, user_id, renews_subscription_id, period_key, renewal_at, debit_at,
  amount_paise, state, request_id, notice_sent_at, notice_attempts, lease_until, subscription_id, payment_id, attempts,
  next_attempt_at, debit_answered_at, failure_reason, problem, created_at, updated_at`;

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
/** PayU's answer as stored for the record (whatever its shape). */
function json(value: unknown) {
  return sql.jsonb(JSON.parse(JSON.stringify(value ?? null)) as Json);
}

// ---------------------------------------------------------------------------------------
// Mandates

export type NewMandate = {
  userId: string;
  registrationPaymentId: string;
  planId: string;
  planName: string;
  hours: number;
  storageGb: number;
  instanceType: string;
  amountPaise: number;
  endDate: string;
};

/** A checkout that opted in: the mandate waits for PayU's verified answer about it. */
export async function insertPendingMandate(db: Db, m: NewMandate): Promise<Mandate> {
  return db.one(sql.type(Mandate)`
    INSERT INTO autopay_mandates (user_id, registration_payment_id, plan_id, plan_name, hours, storage_gb,
                                  instance_type, amount_paise, end_date)
    VALUES (${m.userId}, ${m.registrationPaymentId}, ${m.planId}, ${m.planName}, ${m.hours}, ${m.storageGb},
            ${m.instanceType}, ${m.amountPaise}, ${m.endDate}::date)
    RETURNING ${MANDATE_COLUMNS}`);
}

export async function findMandate(db: Db, id: string): Promise<Mandate | null> {
  return db.maybeOne(sql.type(Mandate)`SELECT ${MANDATE_COLUMNS} FROM autopay_mandates WHERE id = ${id}`);
}

export async function findMandateByRegistration(db: Db, paymentId: string): Promise<Mandate | null> {
  return db.maybeOne(sql.type(Mandate)`
    SELECT ${MANDATE_COLUMNS} FROM autopay_mandates WHERE registration_payment_id = ${paymentId}`);
}

/** The customer's mandate that can still debit (active or paused), if any. */
export async function findLiveMandateOfUser(db: Db, userId: string): Promise<Mandate | null> {
  return db.maybeOne(sql.type(Mandate)`
    SELECT ${MANDATE_COLUMNS} FROM autopay_mandates WHERE user_id = ${userId} AND status IN ('active', 'paused')`);
}

/** The customer's latest mandate the dashboard shows (any but an unpaid checkout's). */
export async function findLatestMandateOfUser(db: Db, userId: string): Promise<Mandate | null> {
  return db.maybeOne(sql.type(Mandate)`
    SELECT ${MANDATE_COLUMNS} FROM autopay_mandates WHERE user_id = ${userId} AND status <> 'pending'
    ORDER BY created_at DESC LIMIT 1`);
}

/** pending → active, once PayU verified the registration's payment. */
export async function activateMandate(
  db: Db,
  id: string,
  m: { method: MandateMethod; authpayuid: string; currentSubscriptionId: string; nextDebitAt: Date },
): Promise<Mandate | null> {
  return db.maybeOne(sql.type(Mandate)`
    UPDATE autopay_mandates
    SET status = 'active', method = ${m.method}, authpayuid = ${m.authpayuid},
        current_subscription_id = ${m.currentSubscriptionId}, next_debit_at = ${ts(m.nextDebitAt)}, updated_at = now()
    WHERE id = ${id} AND status = 'pending'
    RETURNING ${MANDATE_COLUMNS}`);
}

/** pending → failed: the registration was paid but gave no usable mandate. */
export async function failMandate(db: Db, id: string, problem: string): Promise<Mandate | null> {
  return db.maybeOne(sql.type(Mandate)`
    UPDATE autopay_mandates SET status = 'failed', problem = ${problem}, updated_at = now()
    WHERE id = ${id} AND status = 'pending'
    RETURNING ${MANDATE_COLUMNS}`);
}

/**
 * active | paused → cancelled, with the revoke at PayU asked for. Null when it was neither
 * (cancelled already: the caller answers as before).
 */
export async function cancelMandate(db: Db, id: string, now: Date, problem: string | null = null) {
  return db.maybeOne(sql.type(Mandate)`
    UPDATE autopay_mandates
    SET status = 'cancelled', cancelled_at = ${ts(now)}, revoke_requested_at = ${ts(now)}, next_debit_at = NULL,
        problem = coalesce(${problem}, problem), updated_at = now()
    WHERE id = ${id} AND status IN ('active', 'paused')
    RETURNING ${MANDATE_COLUMNS}`);
}

/** active | paused → revoked: cancelled outside (the UPI app, the bank); nothing to revoke. */
export async function markMandateRevokedOutside(db: Db, id: string, problem: string) {
  return db.maybeOne(sql.type(Mandate)`
    UPDATE autopay_mandates
    SET status = 'revoked', problem = ${problem}, next_debit_at = NULL, revoked_at = coalesce(revoked_at, now()),
        updated_at = now()
    WHERE id = ${id} AND status IN ('active', 'paused')
    RETURNING ${MANDATE_COLUMNS}`);
}

export async function pauseMandate(db: Db, id: string, now: Date) {
  return db.maybeOne(sql.type(Mandate)`
    UPDATE autopay_mandates SET status = 'paused', paused_at = ${ts(now)}, updated_at = now()
    WHERE id = ${id} AND status = 'active'
    RETURNING ${MANDATE_COLUMNS}`);
}

export async function resumeMandate(db: Db, id: string) {
  return db.maybeOne(sql.type(Mandate)`
    UPDATE autopay_mandates SET status = 'active', paused_at = NULL, updated_at = now()
    WHERE id = ${id} AND status = 'paused'
    RETURNING ${MANDATE_COLUMNS}`);
}

/** Which plan the next renewal follows and when its debit is due (null: none scheduled). */
export async function setMandateSchedule(
  db: Db,
  id: string,
  s: { currentSubscriptionId?: string; nextDebitAt: Date | null },
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE autopay_mandates
    SET current_subscription_id = coalesce(${s.currentSubscriptionId ?? null}::uuid, current_subscription_id),
        next_debit_at = ${s.nextDebitAt ? ts(s.nextDebitAt) : null}, updated_at = now()
    WHERE id = ${id} AND status IN ('active', 'paused')`);
}

/** Other live mandates of the customer (a newer one replaces them): cancelled, revoke asked for. */
export async function cancelOtherMandates(db: Db, userId: string, keepId: string, now: Date) {
  return db.anyFirst(sql.type(z.object({ id: z.uuid() }))`
    UPDATE autopay_mandates
    SET status = 'cancelled', cancelled_at = ${ts(now)}, revoke_requested_at = ${ts(now)}, next_debit_at = NULL,
        updated_at = now()
    WHERE user_id = ${userId} AND id <> ${keepId} AND status IN ('active', 'paused')
    RETURNING id`);
}

/** PayU acknowledged the revoke (or had nothing left to revoke). */
export async function markMandateRevoked(db: Db, id: string, answer: unknown): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE autopay_mandates SET revoked_at = now(), revoke_answer = ${json(answer)}, updated_at = now()
    WHERE id = ${id} AND revoked_at IS NULL`);
}

/** Cancelled mandates PayU has not yet confirmed revoked (their job was lost, or PayU refused). */
export async function listRevokesOpen(db: Db, olderThan: Date, limit: number): Promise<readonly Mandate[]> {
  return db.any(sql.type(Mandate)`
    SELECT ${MANDATE_COLUMNS} FROM autopay_mandates
    WHERE revoke_requested_at IS NOT NULL AND revoked_at IS NULL AND authpayuid IS NOT NULL
      AND updated_at < ${ts(olderThan)}
    ORDER BY revoke_requested_at LIMIT ${limit}`);
}

/** Touches a mandate so the look for lost revokes waits before taking it again. */
export async function touchMandate(db: Db, id: string): Promise<void> {
  await db.query(sql.unsafe`UPDATE autopay_mandates SET updated_at = now() WHERE id = ${id}`);
}

/**
 * Mandates (active, or paused) whose next debit is due by `noticeCutoff` (now + the notice lead)
 * and whose current plan has no renewal yet: an active one's notice falls due, a paused one's
 * renewal is recorded as skipped.
 */
export async function listMandatesDue(
  db: Db,
  status: 'active' | 'paused',
  noticeCutoff: Date,
  limit: number,
): Promise<readonly Mandate[]> {
  return db.any(sql.type(Mandate)`
    SELECT ${MANDATE_COLUMNS} FROM autopay_mandates m
    WHERE m.status = ${status} AND m.next_debit_at <= ${ts(noticeCutoff)} AND m.current_subscription_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM autopay_renewals r WHERE r.renews_subscription_id = m.current_subscription_id)
    ORDER BY m.next_debit_at LIMIT ${limit}`);
}

// ---------------------------------------------------------------------------------------
// Renewals

export type NewRenewal = {
  mandateId: string;
  userId: string;
  renewsSubscriptionId: string;
  periodKey: string;
  renewalAt: Date;
  debitAt: Date;
  amountPaise: number;
  state: 'noticing' | 'skipped';
  requestId: string;
};

/**
 * The period's row, made the mandate's latest in the same statement; null when another sweep
 * made it first (one per subscription renewed).
 */
export async function insertRenewal(db: Db, r: NewRenewal): Promise<Renewal | null> {
  return db.maybeOne(sql.type(Renewal)`
    WITH made AS (
      INSERT INTO autopay_renewals (mandate_id, user_id, renews_subscription_id, period_key, renewal_at, debit_at,
                                    amount_paise, state, request_id)
      VALUES (${r.mandateId}, ${r.userId}, ${r.renewsSubscriptionId}, ${r.periodKey}, ${ts(r.renewalAt)},
              ${ts(r.debitAt)}, ${r.amountPaise}, ${r.state}, ${r.requestId})
      -- No arbiter named: the request id is unique too (it is derived from the plan renewed), and
      -- two sweeps racing can collide on either index first; both mean "another sweep made it".
      ON CONFLICT DO NOTHING
      RETURNING ${RENEWAL_COLUMNS}),
    latest AS (
      UPDATE autopay_mandates m SET latest_renewal_id = made.id, updated_at = now() FROM made WHERE m.id = made.mandate_id)
    SELECT * FROM made`);
}

export async function findRenewal(db: Db, id: string): Promise<Renewal | null> {
  return db.maybeOne(sql.type(Renewal)`SELECT ${RENEWAL_COLUMNS} FROM autopay_renewals WHERE id = ${id}`);
}

/** The mandate's latest renewal. */
export async function findLatestRenewal(db: Db, mandateId: string): Promise<Renewal | null> {
  return db.maybeOne(sql.type(Renewal)`
    SELECT ${RENEWAL_COLUMNS} FROM autopay_renewals WHERE mandate_id = ${mandateId}
    ORDER BY created_at DESC LIMIT 1`);
}

/**
 * Holds a renewal in one of `states` for a sweep about to talk to PayU about it; null when it
 * left those states or another sweep holds it.
 */
export async function leaseRenewal(
  db: Db,
  id: string,
  states: readonly RenewalState[],
  now: Date,
  until: Date,
): Promise<Renewal | null> {
  return db.maybeOne(sql.type(Renewal)`
    UPDATE autopay_renewals SET lease_until = ${ts(until)}, updated_at = now()
    WHERE id = ${id} AND state = ANY(${sql.array([...states], 'text')})
      AND (lease_until IS NULL OR lease_until <= ${ts(now)})
    RETURNING ${RENEWAL_COLUMNS}`);
}

/** Renewals waiting for their notice (a first try, or PayU refused and the wait is over). */
export async function listRenewalsNoticing(db: Db, now: Date, limit: number): Promise<readonly Renewal[]> {
  return db.any(sql.type(Renewal)`
    SELECT ${RENEWAL_COLUMNS} FROM autopay_renewals
    WHERE state = 'noticing' AND (lease_until IS NULL OR lease_until <= ${ts(now)})
    ORDER BY updated_at LIMIT ${limit}`);
}

/** noticing → noticed: PayU accepted the notice naming `debitAt`. */
export async function markNoticed(
  db: Db,
  id: string,
  n: { at: Date; debitAt: Date; answer: unknown },
): Promise<Renewal | null> {
  return db.maybeOne(sql.type(Renewal)`
    UPDATE autopay_renewals
    SET state = 'noticed', notice_sent_at = ${ts(n.at)}, debit_at = ${ts(n.debitAt)}, notice_answer = ${json(n.answer)},
        notice_attempts = notice_attempts + 1, lease_until = NULL, problem = NULL, updated_at = now()
    WHERE id = ${id} AND state = 'noticing'
    RETURNING ${RENEWAL_COLUMNS}`);
}

/** The notice was not accepted (refused, unreadable, unreachable): held until `retryAt`, with why. */
export async function markNoticeNotAccepted(
  db: Db,
  id: string,
  n: { retryAt: Date; answer: unknown; problem: string },
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE autopay_renewals
    SET notice_attempts = notice_attempts + 1, lease_until = ${ts(n.retryAt)}, notice_answer = ${json(n.answer)},
        problem = ${n.problem.slice(0, 500)}, updated_at = now()
    WHERE id = ${id} AND state = 'noticing'`);
}

/** Renewals whose debit may be due: noticed and dated, or retrying and due again. */
export async function listRenewalsDueDebit(db: Db, now: Date, limit: number): Promise<readonly Renewal[]> {
  return db.any(sql.type(Renewal)`
    SELECT ${RENEWAL_COLUMNS} FROM autopay_renewals r
    WHERE ((r.state = 'noticed' AND r.debit_at <= ${ts(now)}) OR (r.state = 'retrying' AND r.next_attempt_at <= ${ts(now)}))
      AND EXISTS (SELECT 1 FROM autopay_mandates m WHERE m.id = r.mandate_id AND m.status = 'active')
    ORDER BY r.debit_at LIMIT ${limit}`);
}

/**
 * noticed | retrying → debiting, one more attempt, only while the mandate is active: whichever
 * of two sweeps (or a sweep and a cancel) commits first wins. Null when another got there.
 */
export async function claimDebit(db: Db, id: string): Promise<Renewal | null> {
  return db.maybeOne(sql.type(Renewal)`
    UPDATE autopay_renewals r
    SET state = 'debiting', attempts = attempts + 1, next_attempt_at = NULL, debit_answered_at = NULL,
        lease_until = NULL, updated_at = now()
    WHERE r.id = ${id} AND r.state IN ('noticed', 'retrying')
      AND EXISTS (SELECT 1 FROM autopay_mandates m WHERE m.id = r.mandate_id AND m.status = 'active')
    RETURNING ${RENEWAL_COLUMNS}`);
}

/** The attempt's payment (and, on the first, the pending subscription it buys). */
export async function setRenewalAttempt(
  db: Db,
  id: string,
  a: { subscriptionId: string; paymentId: string },
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE autopay_renewals SET subscription_id = ${a.subscriptionId}, payment_id = ${a.paymentId}, updated_at = now()
    WHERE id = ${id}`);
}

/** PayU's answer to si_transaction, for the record (a hint; the verification decides). */
export async function recordDebitAnswer(
  db: Db,
  id: string,
  answer: unknown,
  problem: string | null,
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE autopay_renewals
    SET debit_answer = ${json(answer)}, debit_answered_at = now(), lease_until = NULL, problem = ${problem},
        updated_at = now()
    WHERE id = ${id}`);
}

/** Debits PayU never answered (the sweep died in the call): sent again with the same txnid. */
export async function listDebitsUnanswered(db: Db, before: Date, now: Date, limit: number) {
  return db.any(sql.type(Renewal)`
    SELECT ${RENEWAL_COLUMNS} FROM autopay_renewals
    WHERE state = 'debiting' AND debit_answered_at IS NULL AND updated_at < ${ts(before)}
      AND (lease_until IS NULL OR lease_until <= ${ts(now)})
    ORDER BY updated_at LIMIT ${limit}`);
}

export const SettledDebit = Renewal.extend({ payment_status: z.string(), txnid: z.string() });
export type SettledDebit = z.infer<typeof SettledDebit>;

/** Debits whose payment PayU has settled (or the reconciliation gave up on). */
export async function listDebitsSettled(db: Db, limit: number): Promise<readonly SettledDebit[]> {
  return db.any(sql.type(SettledDebit)`
    SELECT ${sql.join(
      Object.keys(Renewal.shape).map((c) => sql.identifier(['r', c])),
      sql.fragment`, `,
    )}, p.status AS payment_status, p.txnid
    FROM autopay_renewals r JOIN payments p ON p.id = r.payment_id
    WHERE r.state = 'debiting' AND p.status IN ('success', 'failure', 'abandoned')
    ORDER BY r.updated_at LIMIT ${limit}`);
}

/**
 * debiting → `to` for the attempt whose payment is `paymentId` (a later attempt's row is left
 * alone). Null when another sweep moved it first.
 */
export async function finishAttempt(
  db: Db,
  id: string,
  paymentId: string,
  to: 'renewed' | 'retrying' | 'failed',
  f: { nextAttemptAt?: Date | null; failureReason?: string | null; problem?: string | null } = {},
): Promise<Renewal | null> {
  return db.maybeOne(sql.type(Renewal)`
    UPDATE autopay_renewals
    SET state = ${to}, next_attempt_at = ${f.nextAttemptAt ? ts(f.nextAttemptAt) : null},
        failure_reason = coalesce(${f.failureReason ?? null}, failure_reason),
        problem = coalesce(${f.problem ?? null}, problem), lease_until = NULL, updated_at = now()
    WHERE id = ${id} AND state = 'debiting' AND payment_id = ${paymentId}
    RETURNING ${RENEWAL_COLUMNS}`);
}

/** A renewal moved between states that need no PayU call (pause, resume, cancel, Pay now…). */
export async function moveRenewal(
  db: Db,
  id: string,
  from: readonly RenewalState[],
  to: RenewalState,
): Promise<Renewal | null> {
  return db.maybeOne(sql.type(Renewal)`
    UPDATE autopay_renewals SET state = ${to}, lease_until = NULL, updated_at = now()
    WHERE id = ${id} AND state = ANY(${sql.array([...from], 'text')})
    RETURNING ${RENEWAL_COLUMNS}`);
}

/** The open renewals of a mandate that a pause, a resume or a cancel acts on. */
export async function listRenewalsOfMandate(
  db: Db,
  mandateId: string,
  states: readonly RenewalState[],
): Promise<readonly Renewal[]> {
  return db.any(sql.type(Renewal)`
    SELECT ${RENEWAL_COLUMNS} FROM autopay_renewals
    WHERE mandate_id = ${mandateId} AND state = ANY(${sql.array([...states], 'text')})`);
}

/**
 * active → expired for a plan whose renewal was paid a little before its end: the renewal takes
 * over from now (its own period runs from the old end, so nothing is lost).
 */
export async function endRenewedPlan(db: Db, subscriptionId: string, now: Date): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE subscriptions SET status = 'expired', expires_at = least(expires_at, ${ts(now)}), updated_at = now()
    WHERE id = ${subscriptionId} AND status = 'active'`);
}

// ---------------------------------------------------------------------------------------
// Which pending subscriptions renew which, and which payments are SI debits

export async function linkRenewalSubscription(
  db: Db,
  l: { subscriptionId: string; renewsSubscriptionId: string; renewalId: string },
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO subscription_renewals (subscription_id, renews_subscription_id, renewal_id)
    VALUES (${l.subscriptionId}, ${l.renewsSubscriptionId}, ${l.renewalId})
    ON CONFLICT (subscription_id) DO NOTHING`);
}

export const RenewalLink = z.object({
  renewal_id: z.uuid(),
  renews_subscription_id: z.uuid(),
  previous_expires_at: z.date().nullable(),
});
export type RenewalLink = z.infer<typeof RenewalLink>;

/** What a pending subscription renews (null for an ordinary purchase). */
export async function findRenewalLink(db: Db, subscriptionId: string): Promise<RenewalLink | null> {
  return db.maybeOne(sql.type(RenewalLink)`
    SELECT l.renewal_id, l.renews_subscription_id, s.expires_at AS previous_expires_at
    FROM subscription_renewals l JOIN subscriptions s ON s.id = l.renews_subscription_id
    WHERE l.subscription_id = ${subscriptionId}`);
}

export async function insertDebit(db: Db, d: { paymentId: string; renewalId: string; attempt: number }) {
  await db.query(sql.unsafe`
    INSERT INTO autopay_debits (payment_id, renewal_id, attempt) VALUES (${d.paymentId}, ${d.renewalId}, ${d.attempt})`);
}

/** Of these payments, the ones that are SI debits (verified with verify_si_payment). */
export async function siDebitPaymentIds(db: Db, paymentIds: readonly string[]): Promise<Set<string>> {
  if (paymentIds.length === 0) return new Set();
  const rows = await db.anyFirst(sql.type(z.object({ payment_id: z.uuid() }))`
    SELECT payment_id FROM autopay_debits WHERE payment_id = ANY(${sql.array([...paymentIds], 'uuid')})`);
  return new Set(rows);
}

/**
 * Which of these payments AutoPay made (a debit from the standing instruction) or set up (the
 * checkout that registered it), for the history's marks. One statement however many.
 */
export async function autopayRolesOfPayments(
  db: Db,
  paymentIds: readonly string[],
): Promise<Map<string, 'debit' | 'setup'>> {
  if (paymentIds.length === 0) return new Map();
  const ids = sql.array([...paymentIds], 'uuid');
  const rows = await db.any(sql.type(z.object({ payment_id: z.uuid(), role: z.enum(['debit', 'setup']) }))`
    SELECT payment_id, 'debit' AS role FROM autopay_debits WHERE payment_id = ANY(${ids})
    UNION ALL
    SELECT registration_payment_id, 'setup' FROM autopay_mandates
    WHERE registration_payment_id = ANY(${ids}) AND status <> 'pending' AND status <> 'failed'`);
  return new Map(rows.map((r) => [r.payment_id, r.role]));
}

/**
 * What AutoPay holds for each of these plans (`expiryRemindersWanted` reads it): the customer's
 * live mandate (active or paused) and the renewal of the plan, if begun. One statement a sweep.
 */
export async function autopayOfPlans(
  db: Db,
  subscriptionIds: readonly string[],
): Promise<Map<string, PlanAutopay>> {
  if (subscriptionIds.length === 0) return new Map();
  const rows = await db.any(sql.type(
    z.object({
      subscription_id: z.uuid(),
      mandate_status: z.enum(MANDATE_STATUSES).nullable(),
      current_subscription_id: z.uuid().nullable(),
      renewal_state: z.enum(RENEWAL_STATES).nullable(),
    }),
  )`
    SELECT s.id AS subscription_id, m.status AS mandate_status, m.current_subscription_id,
      r.state AS renewal_state
    FROM subscriptions s
    LEFT JOIN autopay_mandates m ON m.user_id = s.user_id AND m.status IN ('active', 'paused')
    LEFT JOIN autopay_renewals r ON r.renews_subscription_id = s.id
    WHERE s.id = ANY(${sql.array([...subscriptionIds], 'uuid')})`);
  return new Map(
    rows.map((row) => [
      row.subscription_id,
      {
        mandate: row.mandate_status
          ? { status: row.mandate_status, currentSubscriptionId: row.current_subscription_id }
          : null,
        renewal: row.renewal_state ? { state: row.renewal_state } : null,
      },
    ]),
  );
}
