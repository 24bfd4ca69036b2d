import { z } from 'zod';
import { sql, type Db } from './pool.ts';

/**
 * Things an operator must look at, listed by `npm run alerts`. One open alert per problem
 * (`dedupeKey`): a repeat bumps its count and last-seen time instead of piling up rows.
 */

export const ALERT_KINDS = [
  'provision-delayed',
  'provision-failed',
  'capacity-limit',
  'start-failed',
  'password-undecryptable',
  'instance-lost',
  'unexpected-state',
  'orphan-instance',
  'orphan-terminated',
  // Payments: PayU took money that started nothing; a refund PayU refused or failed.
  'paid-not-activated',
  'refund-failed',
  // A refund of an invoiced payment whose credit note could not be issued (it would credit more than invoiced).
  'credit-note-not-issued',
  // Kept disks: a snapshot EC2 failed, or one of ours no row knows (deleted by the reconciler).
  'snapshot-failed',
  'orphan-snapshot',
  // A job exhausted its retries and waits in its dead-letter queue (core/db/deadLetters.ts).
  'job-dead-lettered',
  // Machines' own health: a fault a report shows (unlicensed driver, no display, a service
  // down), a running machine silent for 15 minutes, reports forged or replayed, and Sunshine
  // unreachable (or not itself) when the worker relays a pairing.
  'machine-unhealthy',
  'machine-silent',
  'health-forged',
  'stream-host-unreachable',
  // AutoPay: a PayU answer we cannot read, or a renewal that needs a person.
  'autopay-problem',
  // A machine's DNS name: not updated for 10 minutes (Route 53 failing), or found pointing at an
  // address we never wrote (someone edited the zone; corrected at the machine's start).
  'machine-name-failing',
  'machine-name-drift',
  // The cloud misbehaving: a step failing for 5 minutes (its action and error), a plan's warm pool
  // on hold (its cause and fix), a launch budget spent, a lost machine replaced, an EC2 event
  // scheduled on a machine's hardware.
  'step-failing',
  'pool-hold',
  'launch-budget',
  'instance-replaced',
  'scheduled-event',
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export const OperatorAlert = z.object({
  id: z.uuid(),
  kind: z.string(),
  dedupe_key: z.string(),
  message: z.string(),
  vm_id: z.uuid().nullable(),
  instance_id: z.string().nullable(),
  details: z.unknown().nullable(),
  occurrences: z.number().int(),
  created_at: z.date(),
  last_seen_at: z.date(),
  resolved_at: z.date().nullable(),
  notified_at: z.date().nullable(),
  notify_count: z.number().int(),
  acknowledged_at: z.date().nullable(),
});
export type OperatorAlert = z.infer<typeof OperatorAlert>;

const COLUMNS = sql.fragment`id, kind, dedupe_key, message, vm_id, instance_id, details, occurrences, created_at,
  last_seen_at, resolved_at, notified_at, notify_count, acknowledged_at`;

export type NewAlert = {
  kind: AlertKind;
  /** Defaults to `kind:vmId` or `kind:instanceId`. */
  dedupeKey?: string;
  message: string;
  vmId?: string | null;
  instanceId?: string | null;
  details?: Record<string, unknown>;
};

/**
 * Raises (or bumps) an alert. `isNew` is true when no open alert for the problem existed. The
 * `alert-notify` sweep then tells a person (claimAlertsToNotify): nothing more to do here.
 */
export async function raiseAlert(db: Db, alert: NewAlert): Promise<{ alert: OperatorAlert; isNew: boolean }> {
  const key = alert.dedupeKey ?? `${alert.kind}:${alert.vmId ?? alert.instanceId ?? 'global'}`;
  const row = await db.one(sql.type(OperatorAlert.extend({ inserted: z.boolean() }))`
    INSERT INTO operator_alerts (kind, dedupe_key, message, vm_id, instance_id, details)
    VALUES (${alert.kind}, ${key}, ${alert.message}, ${alert.vmId ?? null}, ${alert.instanceId ?? null},
            ${alert.details ? sql.jsonb(alert.details as never) : null})
    ON CONFLICT (dedupe_key) WHERE resolved_at IS NULL
    DO UPDATE SET occurrences = operator_alerts.occurrences + 1, last_seen_at = now(), message = EXCLUDED.message
    RETURNING ${COLUMNS}, (xmax = 0) AS inserted`);
  const { inserted, ...rest } = row;
  return { alert: rest, isNew: inserted };
}

export async function listAlerts(
  db: Db,
  options: { includeResolved?: boolean; limit?: number } = {},
): Promise<OperatorAlert[]> {
  return [
    ...(await db.any(sql.type(OperatorAlert)`
      SELECT ${COLUMNS} FROM operator_alerts
      WHERE ${options.includeResolved ? sql.fragment`TRUE` : sql.fragment`resolved_at IS NULL`}
      ORDER BY last_seen_at DESC
      LIMIT ${options.limit ?? 100}`)),
  ];
}

/**
 * Resolves the open alerts with these dedupe keys: the problem they name is seen to be over (a
 * machine reports again, a fault is gone). Answers how many were open.
 */
export async function resolveAlertsByKeys(db: Db, dedupeKeys: string[]): Promise<number> {
  if (dedupeKeys.length === 0) return 0;
  const rows = await db.any(sql.type(z.object({ id: z.uuid() }))`
    UPDATE operator_alerts SET resolved_at = now()
    WHERE dedupe_key = ANY(${sql.array(dedupeKeys, 'text')}) AND resolved_at IS NULL
    RETURNING id`);
  return rows.length;
}

/** The dedupe keys of the open alerts of one kind (a sweep resolves those whose problem is over). */
export async function listOpenAlertKeys(db: Db, kind: AlertKind): Promise<string[]> {
  return [
    ...(await db.anyFirst(sql.type(z.object({ dedupe_key: z.string() }))`
      SELECT dedupe_key FROM operator_alerts WHERE kind = ${kind} AND resolved_at IS NULL`)),
  ];
}

export async function resolveAlert(db: Db, id: string): Promise<OperatorAlert | null> {
  return db.maybeOne(sql.type(OperatorAlert)`
    UPDATE operator_alerts SET resolved_at = now() WHERE id = ${id} AND resolved_at IS NULL
    RETURNING ${COLUMNS}`);
}

/** Whether an operator resolved the alert raised for this problem (and none is open again). */
export async function isAlertResolved(db: Db, dedupeKey: string): Promise<boolean> {
  const row = await db.maybeOne(sql.type(z.object({ open: z.boolean() }))`
    SELECT bool_or(resolved_at IS NULL) AS open FROM operator_alerts WHERE dedupe_key = ${dedupeKey}
    HAVING count(*) > 0`);
  return row !== null && !row.open;
}

export async function findAlert(db: Db, id: string): Promise<OperatorAlert | null> {
  return db.maybeOne(sql.type(OperatorAlert)`SELECT ${COLUMNS} FROM operator_alerts WHERE id = ${id}`);
}

/** Someone is on it: no more reminders; it stays open until resolved. */
export async function acknowledgeAlert(db: Db, id: string): Promise<OperatorAlert | null> {
  return db.maybeOne(sql.type(OperatorAlert)`
    UPDATE operator_alerts SET acknowledged_at = now()
    WHERE id = ${id} AND resolved_at IS NULL AND acknowledged_at IS NULL
    RETURNING ${COLUMNS}`);
}

/**
 * Open, unacknowledged alerts a person must hear about now, marked as notified in the same
 * statement: those never notified, and those seen again since their last notification once
 * `renotifyMinutes` have passed (a problem that keeps happening is repeated, one that went
 * quiet is not). Run it in the transaction that enqueues the notifications, so a claim and
 * its sends commit together; SKIP LOCKED keeps two sweeps from claiming the same alert.
 */
export async function claimAlertsToNotify(
  db: Db,
  options: { renotifyMinutes: number; limit?: number },
): Promise<OperatorAlert[]> {
  return [
    ...(await db.any(sql.type(OperatorAlert)`
      UPDATE operator_alerts SET notified_at = now(), notify_count = notify_count + 1
      WHERE id IN (
        SELECT id FROM operator_alerts
        WHERE resolved_at IS NULL AND acknowledged_at IS NULL
          AND (notified_at IS NULL
               OR (last_seen_at > notified_at
                   AND notified_at < now() - make_interval(mins => ${options.renotifyMinutes})))
        ORDER BY last_seen_at
        LIMIT ${options.limit ?? 50}
        FOR UPDATE SKIP LOCKED)
      RETURNING ${COLUMNS}`)),
  ];
}
