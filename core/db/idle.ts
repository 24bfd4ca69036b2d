import { z } from 'zod';
import { DEFAULT_IDLE_STOP_MINUTES, type IdleStopMinutes, type IdleStopRecord } from '../domain/idle.ts';
import { sql, type Db } from './pool.ts';

/**
 * Idle auto-stop rows: the customer's window per machine, the last "Keep it running", the
 * warning of the current idle episode, and the record of each auto-stop. A machine without a
 * `vm_idle` row has the default window.
 */

const ts = (at: Date) => at.toISOString();
const DEFAULT = DEFAULT_IDLE_STOP_MINUTES;

/** The stored 0 is off. */
function toMinutes(stored: number | null): IdleStopMinutes | null {
  if (stored === null) return DEFAULT;
  return stored === 0 ? null : (stored as IdleStopMinutes);
}

const IdleCandidateRow = z.object({
  vm_id: z.uuid(),
  user_id: z.uuid(),
  subscription_id: z.uuid(),
  instance_id: z.string(),
  started_at: z.date(),
  minutes: z.number().int().nullable(),
  kept_at: z.date().nullable(),
  warned_at: z.date().nullable(),
});
export type IdleCandidate = Omit<z.infer<typeof IdleCandidateRow>, 'minutes'> & {
  minutes: IdleStopMinutes | null;
};

/** Running machines whose auto-stop is on, longest running first, bounded. */
export async function listIdleCandidates(db: Db, limit: number): Promise<IdleCandidate[]> {
  const rows = await db.any(sql.type(IdleCandidateRow)`
    SELECT v.id AS vm_id, v.user_id, v.subscription_id, v.instance_id, v.started_at,
      i.minutes, i.kept_at, i.warned_at
    FROM vms v LEFT JOIN vm_idle i ON i.vm_id = v.id
    WHERE v.state = 'running' AND v.instance_id IS NOT NULL AND v.started_at IS NOT NULL
      AND coalesce(i.minutes, ${DEFAULT}) <> 0
    ORDER BY v.started_at
    LIMIT ${limit}`);
  return rows.map((row) => ({ ...row, minutes: toMinutes(row.minutes) }));
}

const IdleStateRow = z.object({
  minutes: z.number().int(),
  kept_at: z.date().nullable(),
  warned_at: z.date().nullable(),
  stop_at: z.date().nullable(),
});
export type IdleState = {
  minutes: IdleStopMinutes | null;
  keptAt: Date | null;
  warnedAt: Date | null;
  stopAt: Date | null;
};

export async function findIdleState(db: Db, vmId: string): Promise<IdleState> {
  const row = await db.maybeOne(sql.type(IdleStateRow)`
    SELECT minutes, kept_at, warned_at, stop_at FROM vm_idle WHERE vm_id = ${vmId}`);
  if (!row) return { minutes: DEFAULT, keptAt: null, warnedAt: null, stopAt: null };
  return {
    minutes: toMinutes(row.minutes),
    keptAt: row.kept_at,
    warnedAt: row.warned_at,
    stopAt: row.stop_at,
  };
}

export async function setIdleMinutes(db: Db, vmId: string, minutes: IdleStopMinutes | null): Promise<void> {
  // A new choice starts a new window and withdraws a pending warning.
  await db.query(sql.unsafe`
    INSERT INTO vm_idle (vm_id, minutes, kept_at) VALUES (${vmId}, ${minutes ?? 0}, now())
    ON CONFLICT (vm_id) DO UPDATE SET minutes = excluded.minutes, kept_at = now(),
      warned_at = NULL, stop_at = NULL, updated_at = now()`);
}

/** "Keep it running": the window starts again now and the warning is withdrawn. */
export async function keepRunning(db: Db, vmId: string, now: Date): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO vm_idle (vm_id, minutes, kept_at) VALUES (${vmId}, ${DEFAULT}, ${ts(now)})
    ON CONFLICT (vm_id) DO UPDATE SET kept_at = excluded.kept_at, warned_at = NULL, stop_at = NULL,
      updated_at = now()`);
}

/**
 * Records the warning of this idle episode. True only for the call that recorded it (send the
 * mail then); a later sweep in the same episode only moves the stop time.
 */
export async function recordIdleWarning(db: Db, vmId: string, stopAt: Date, now: Date): Promise<boolean> {
  const first = await db.maybeOneFirst(sql.type(z.object({ vm_id: z.uuid() }))`
    INSERT INTO vm_idle (vm_id, minutes, warned_at, stop_at) VALUES (${vmId}, ${DEFAULT}, ${ts(now)}, ${ts(stopAt)})
    ON CONFLICT (vm_id) DO UPDATE SET warned_at = ${ts(now)}, stop_at = ${ts(stopAt)}, updated_at = now()
      WHERE vm_idle.warned_at IS NULL
    RETURNING vm_id`);
  if (first) return true;
  await db.query(sql.unsafe`UPDATE vm_idle SET stop_at = ${ts(stopAt)} WHERE vm_id = ${vmId}`);
  return false;
}

/** The episode ended (the machine was used, or stopped): the next one warns again. */
export async function clearIdleWarning(db: Db, vmId: string): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE vm_idle SET warned_at = NULL, stop_at = NULL, updated_at = now()
    WHERE vm_id = ${vmId} AND warned_at IS NOT NULL`);
}

export async function recordIdleStop(
  db: Db,
  stop: {
    vmId: string;
    userId: string;
    subscriptionId: string;
    idleSince: Date;
    stoppedAt: Date;
    planEndsAt: Date | null;
    remainingSeconds: number;
  },
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO vm_idle_stops (vm_id, user_id, subscription_id, idle_since, stopped_at, plan_ends_at, remaining_seconds)
    VALUES (${stop.vmId}, ${stop.userId}, ${stop.subscriptionId}, ${ts(stop.idleSince)}, ${ts(stop.stoppedAt)},
      ${stop.planEndsAt ? ts(stop.planEndsAt) : null}, ${Math.max(0, stop.remainingSeconds)})`);
}

const IdleStopRow = z.object({
  stopped_at: z.date(),
  next_start_at: z.date().nullable(),
  plan_ends_at: z.date().nullable(),
  remaining_seconds: z.number(),
});

/** A customer's auto-stops within a subscription, with the machine's next start after each. */
export async function listIdleStops(
  db: Db,
  userId: string,
  subscriptionId: string,
): Promise<IdleStopRecord[]> {
  const rows = await db.any(sql.type(IdleStopRow)`
    SELECT s.stopped_at, s.plan_ends_at, s.remaining_seconds,
      (SELECT min(r.started_at) FROM vm_run_segments r
        WHERE r.vm_id = s.vm_id AND r.started_at > s.stopped_at) AS next_start_at
    FROM vm_idle_stops s
    WHERE s.user_id = ${userId} AND s.subscription_id = ${subscriptionId}
    ORDER BY s.stopped_at`);
  return rows.map((row) => ({
    stoppedAt: row.stopped_at,
    nextStartAt: row.next_start_at,
    planEndsAt: row.plan_ends_at,
    remainingSeconds: row.remaining_seconds,
  }));
}
