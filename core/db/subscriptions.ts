import { z } from 'zod';
import { sql, type Db, type FragmentSqlToken } from './pool.ts';
import { PLAN_IDS, type PlanId } from '../domain/plans.ts';

/**
 * Subscriptions: a plan bought (or being bought). `pending_payment → active → expired |
 * cancelled`; only a verified PayU payment activates one. "Active" in queries always means
 * status active AND not past expiry: the expiry sweep may not have run yet.
 */

export const SUBSCRIPTION_STATUSES = ['pending_payment', 'active', 'expired', 'cancelled'] as const;

export const Subscription = z.object({
  id: z.uuid(),
  user_id: z.uuid(),
  plan_id: z.enum(PLAN_IDS),
  plan_name: z.string(),
  is_trial: z.boolean(),
  hours: z.number().int(),
  storage_gb: z.number().int(),
  instance_type: z.string(),
  price_paise: z.number().int(),
  status: z.enum(SUBSCRIPTION_STATUSES),
  trial_phone: z.string().nullable(),
  purchased_at: z.date().nullable(),
  expires_at: z.date().nullable(),
  cancelled_at: z.date().nullable(),
  created_at: z.date(),
  updated_at: z.date(),
});
export type Subscription = z.infer<typeof Subscription>;

const COLUMNS = sql.fragment`id, user_id, plan_id, plan_name, is_trial, hours, storage_gb, instance_type,
  price_paise, status, trial_phone, purchased_at, expires_at, cancelled_at, created_at, updated_at`;

export type NewSubscription = {
  userId: string;
  planId: PlanId;
  planName: string;
  isTrial: boolean;
  hours: number;
  storageGb: number;
  instanceType: string;
  pricePaise: number;
  trialPhone: string | null;
};

/** Records a plan choice awaiting payment (spec §7 POST /vm/select-vm). */
export async function insertPendingSubscription(db: Db, s: NewSubscription): Promise<Subscription> {
  return db.one(sql.type(Subscription)`
    INSERT INTO subscriptions (user_id, plan_id, plan_name, is_trial, hours, storage_gb, instance_type,
                               price_paise, trial_phone)
    VALUES (${s.userId}, ${s.planId}, ${s.planName}, ${s.isTrial}, ${s.hours}, ${s.storageGb},
            ${s.instanceType}, ${s.pricePaise}, ${s.trialPhone})
    RETURNING ${COLUMNS}`);
}

export async function findSubscription(db: Db, id: string): Promise<Subscription | null> {
  return db.maybeOne(sql.type(Subscription)`SELECT ${COLUMNS} FROM subscriptions WHERE id = ${id}`);
}

/** Subscriptions by id, for a sweep that needs the plan of many machines at once. */
export async function findSubscriptionsByIds(db: Db, ids: string[]): Promise<Map<string, Subscription>> {
  if (ids.length === 0) return new Map();
  const rows = await db.any(sql.type(Subscription)`
    SELECT ${COLUMNS} FROM subscriptions WHERE id = ANY(${sql.array(ids, 'uuid')})`);
  return new Map(rows.map((row) => [row.id, row]));
}

/** The user's latest plan choice still waiting for payment: what /payment confirms. */
export async function findLatestPendingSubscription(db: Db, userId: string): Promise<Subscription | null> {
  return db.maybeOne(sql.type(Subscription)`
    SELECT ${COLUMNS} FROM subscriptions
    WHERE user_id = ${userId} AND status = 'pending_payment'
    ORDER BY created_at DESC, id DESC
    LIMIT 1`);
}

/**
 * The user's plan as the product shows it (spec §3 selectedPlan, expiryDate…): the most
 * recently purchased subscription, active or lapsed. Null for someone who never bought one.
 */
export async function findCurrentSubscription(db: Db, userId: string): Promise<Subscription | null> {
  return db.maybeOne(sql.type(Subscription)`SELECT ${COLUMNS} ${currentSubscriptionOf(userId)}`);
}

/**
 * FROM … LIMIT 1 of the user's current subscription; also a part of the dashboard's one query,
 * which passes the user's id as a column of its own (`sql.fragment\`u.id\``).
 */
export function currentSubscriptionOf(userId: string | FragmentSqlToken) {
  return sql.fragment`FROM subscriptions
    WHERE user_id = ${userId} AND purchased_at IS NOT NULL AND status IN ('active', 'expired')
    ORDER BY purchased_at DESC, id DESC
    LIMIT 1`;
}

/** The user's unexpired active subscription, if any (at most one by the unique index). */
export async function findActiveSubscription(
  db: Db,
  userId: string,
  now: Date,
): Promise<Subscription | null> {
  return db.maybeOne(sql.type(Subscription)`
    SELECT ${COLUMNS} FROM subscriptions
    WHERE user_id = ${userId} AND status = 'active' AND expires_at > ${now.toISOString()}
    LIMIT 1`);
}

/**
 * Whether a user has a plan, in the spec's sense (§3: selectedPlan is non-empty): they have
 * bought one, active or lapsed. Drives the header's "Renew Plan" / Dashboard and the
 * session check's `hasPlan`.
 */
export async function hasPurchasedPlan(db: Db, userId: string): Promise<boolean> {
  return db.oneFirst(sql.type(z.object({ exists: z.boolean() }))`
    SELECT EXISTS (
      SELECT 1 FROM subscriptions
      WHERE user_id = ${userId} AND purchased_at IS NOT NULL AND status IN ('active', 'expired')
    ) AS exists`);
}

/** Whether this user, or anyone with this phone number, has already had a trial. */
export async function hasUsedTrial(db: Db, userId: string, phone: string | null): Promise<boolean> {
  return db.oneFirst(sql.type(z.object({ exists: z.boolean() }))`
    SELECT EXISTS (
      SELECT 1 FROM subscriptions
      WHERE is_trial AND purchased_at IS NOT NULL
        AND (user_id = ${userId} OR (${phone}::text IS NOT NULL AND trial_phone = ${phone}))
    ) AS exists`);
}

/** Who used the trial: this account, or (only) another account with this phone number; null when neither. */
export async function trialUsedBy(
  db: Db,
  userId: string,
  phone: string | null,
): Promise<'account' | 'phone' | null> {
  const row = await db.one(sql.type(z.object({ account: z.boolean(), phone: z.boolean() }))`
    SELECT
      EXISTS (SELECT 1 FROM subscriptions WHERE is_trial AND purchased_at IS NOT NULL AND user_id = ${userId})
        AS account,
      EXISTS (SELECT 1 FROM subscriptions WHERE is_trial AND purchased_at IS NOT NULL
                AND ${phone}::text IS NOT NULL AND trial_phone = ${phone}) AS phone`);
  return row.account ? 'account' : row.phone ? 'phone' : null;
}

/**
 * Marks the user's lapsed subscriptions expired, so a renewal can become the one active
 * subscription. The expiry sweep does the same for everyone; this is the same rule, early.
 */
export async function expireLapsedSubscriptions(db: Db, userId: string, now: Date): Promise<number> {
  const result = await db.query(sql.unsafe`
    UPDATE subscriptions SET status = 'expired', updated_at = now()
    WHERE user_id = ${userId} AND status = 'active' AND expires_at <= ${now.toISOString()}`);
  return result.rowCount;
}

/**
 * pending_payment → active, with the purchase and expiry dates. Null when the subscription was
 * not pending (already activated by a duplicate callback, or cancelled): the caller does nothing.
 */
export async function activateSubscription(
  db: Db,
  id: string,
  purchasedAt: Date,
  expiresAt: Date,
): Promise<Subscription | null> {
  return db.maybeOne(sql.type(Subscription)`
    UPDATE subscriptions
    SET status = 'active', purchased_at = ${purchasedAt.toISOString()},
        expires_at = ${expiresAt.toISOString()}, updated_at = now()
    WHERE id = ${id} AND status = 'pending_payment'
    RETURNING ${COLUMNS}`);
}

/** active → cancelled (after a refund). Null when it was not active. */
export async function cancelSubscription(db: Db, id: string, now: Date): Promise<Subscription | null> {
  return db.maybeOne(sql.type(Subscription)`
    UPDATE subscriptions SET status = 'cancelled', cancelled_at = ${now.toISOString()}, updated_at = now()
    WHERE id = ${id} AND status IN ('active', 'pending_payment')
    RETURNING ${COLUMNS}`);
}

/**
 * Serialises plan changes of one user until the transaction ends (activation, renewal), so two
 * payments settling at once cannot both see "no active plan".
 */
export async function lockUserPlans(db: Db, userId: string): Promise<void> {
  await db.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${`plans:${userId}`}, 0))`);
}

/** The same for trials of one phone number, which two accounts may share. */
export async function lockTrialPhone(db: Db, phone: string): Promise<void> {
  await db.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${`trial-phone:${phone}`}, 0))`);
}

/** active → expired for a running trial a purchased plan replaces. */
export async function supersedeTrial(db: Db, id: string): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE subscriptions SET status = 'expired', expires_at = least(expires_at, now()), updated_at = now()
    WHERE id = ${id} AND is_trial AND status = 'active'`);
}

/**
 * active → expired for plans past their expiry, oldest first, a bounded batch (the plan-expiry
 * sweep). SKIP LOCKED: rows a payment is activating right now are left for the next run.
 */
export async function expireDueSubscriptions(db: Db, now: Date, limit = 500): Promise<Subscription[]> {
  return [
    ...(await db.any(sql.type(Subscription)`
      UPDATE subscriptions SET status = 'expired', updated_at = now()
      -- = ANY(ARRAY(…)), not IN (…): the planner then looks the batch up by primary key instead
      -- of hash-joining it against every subscription ever sold.
      WHERE id = ANY(ARRAY(
        SELECT id FROM subscriptions
        WHERE status = 'active' AND expires_at <= ${now.toISOString()}
        ORDER BY expires_at
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED))
      RETURNING ${COLUMNS}`)),
  ];
}

/** Whether a subscription of the user carries the phone a trial was taken with (kept at deletion). */
export async function hasTrialPhoneOnRecord(db: Db, userId: string): Promise<boolean> {
  return db.oneFirst(sql.type(z.object({ kept: z.boolean() }))`
    SELECT EXISTS (SELECT 1 FROM subscriptions WHERE user_id = ${userId} AND trial_phone IS NOT NULL) AS kept`);
}
