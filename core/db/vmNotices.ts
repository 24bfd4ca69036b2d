import { z } from 'zod';
import { sql, type Db } from './pool.ts';
import { Subscription } from './subscriptions.ts';

/**
 * Customer mails about a plan or machine that must go out once: hour alerts, expiry reminders,
 * plan expired, machine deleted, provisioning late or failed. Recording the notice and
 * enqueuing its mail happen in one transaction, so a re-run sweep finds it recorded and sends
 * nothing.
 */

export const NOTICE_KINDS = [
  'hours-80',
  'hours-100',
  'expiry-3d',
  'expiry-1d',
  'plan-expired',
  'vm-terminated',
  'provision-delayed',
  'provision-ready-late',
  'provision-failed',
  'disk-kept',
  'disk-deleted',
  'disk-restored',
  'vm-replaced',
] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

/** The event a notice is about: one per kind and subject. */
export function noticeKey(kind: NoticeKind, subjectId: string): string {
  return `${kind}:${subjectId}`;
}

/** True when this call recorded it (send the mail now); false when it was already sent. */
export async function recordNotice(
  db: Db,
  notice: {
    kind: NoticeKind;
    subjectId: string;
    userId: string;
    subscriptionId?: string | null;
    vmId?: string | null;
  },
): Promise<boolean> {
  const inserted = await db.maybeOneFirst(sql.type(z.object({ key: z.string() }))`
    INSERT INTO vm_notices (key, kind, user_id, subscription_id, vm_id)
    VALUES (${noticeKey(notice.kind, notice.subjectId)}, ${notice.kind}, ${notice.userId},
            ${notice.subscriptionId ?? null}, ${notice.vmId ?? null})
    ON CONFLICT (key) DO NOTHING
    RETURNING key`);
  return inserted !== null;
}

/**
 * The one ending mail of a machine: true when this call recorded it, false when the machine's
 * ending was already mailed (of whatever kind).
 */
export async function recordEnding(
  db: Db,
  ending: { vmId: string; kind: string; noticeKey: string },
): Promise<boolean> {
  const inserted = await db.maybeOneFirst(sql.type(z.object({ vm_id: z.uuid() }))`
    INSERT INTO vm_endings (vm_id, kind, notice_key) VALUES (${ending.vmId}, ${ending.kind}, ${ending.noticeKey})
    ON CONFLICT (vm_id) DO NOTHING
    RETURNING vm_id`);
  return inserted !== null;
}

/** Which of these notice keys (`noticeKey`) were already recorded: one read for a sweep's page. */
export async function findNoticeKeys(db: Db, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db.any(sql.type(z.object({ key: z.string() }))`
    SELECT key FROM vm_notices WHERE key = ANY(${sql.array(keys, 'text')})`);
  return new Set(rows.map((r) => r.key));
}

/**
 * Active plans (not trials) expiring within `withinDays` whose last reminder (1 day) has not
 * gone out yet: the expiry sweep's bounded batch.
 */
export async function listSubscriptionsDueReminder(
  db: Db,
  now: Date,
  withinDays: number,
  limit = 500,
): Promise<Subscription[]> {
  const until = new Date(now.getTime() + withinDays * 86_400_000).toISOString();
  return [
    ...(await db.any(sql.type(Subscription)`
      SELECT s.id, s.user_id, s.plan_id, s.plan_name, s.is_trial, s.hours, s.storage_gb, s.instance_type,
        s.price_paise, s.status, s.trial_phone, s.purchased_at, s.expires_at, s.cancelled_at, s.created_at,
        s.updated_at
      FROM subscriptions s
      WHERE s.status = 'active' AND s.expires_at > ${now.toISOString()} AND s.expires_at <= ${until}
        -- A trial lasts a day: reminders "3 days before" would arrive with the purchase.
        AND NOT s.is_trial
        AND NOT EXISTS (SELECT 1 FROM vm_notices n WHERE n.key = 'expiry-1d:' || s.id::text)
      ORDER BY s.expires_at
      LIMIT ${limit}`)),
  ];
}

/**
 * Plans that ended (expired, within the grace period) and whose customer has not been told their
 * machine was stopped and until when it is kept; not when another plan of theirs is in force (a
 * trial replaced by a purchase, a renewal).
 */
export async function listSubscriptionsDueExpiredNotice(
  db: Db,
  now: Date,
  graceDays: number,
  limit = 500,
): Promise<Subscription[]> {
  const since = new Date(now.getTime() - graceDays * 86_400_000).toISOString();
  return [
    ...(await db.any(sql.type(Subscription)`
      SELECT s.id, s.user_id, s.plan_id, s.plan_name, s.is_trial, s.hours, s.storage_gb, s.instance_type,
        s.price_paise, s.status, s.trial_phone, s.purchased_at, s.expires_at, s.cancelled_at, s.created_at,
        s.updated_at
      FROM subscriptions s
      WHERE (s.status = 'expired' OR (s.status = 'active' AND s.expires_at <= ${now.toISOString()}))
        AND s.expires_at > ${since}
        AND NOT EXISTS (SELECT 1 FROM vm_notices n WHERE n.key = 'plan-expired:' || s.id::text)
        AND NOT EXISTS (SELECT 1 FROM subscriptions o WHERE o.user_id = s.user_id AND o.status = 'active'
                          AND o.expires_at > ${now.toISOString()})
        AND EXISTS (SELECT 1 FROM vms v WHERE v.subscription_id = s.id
                      AND v.state NOT IN ('terminating', 'terminated', 'error'))
      ORDER BY s.expires_at
      LIMIT ${limit}`)),
  ];
}
