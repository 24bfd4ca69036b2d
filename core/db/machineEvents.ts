import { z } from 'zod';
import { sql, type Db } from './pool.ts';

/**
 * Events EC2 scheduled on machines' hardware, as the `vm-events` sweep last read them
 * (sql/0063_machine_events.sql): seen, moved away from (a stop and start asked), or over.
 */

const ts = (at: Date) => at.toISOString();

export const MachineEvent = z.object({
  vm_id: z.uuid(),
  event_id: z.string(),
  instance_id: z.string(),
  code: z.string(),
  description: z.string().nullable(),
  not_before: z.date(),
  not_after: z.date().nullable(),
  seen_at: z.date(),
  moved_at: z.date().nullable(),
  done_at: z.date().nullable(),
});
export type MachineEvent = z.infer<typeof MachineEvent>;

const COLUMNS = sql.fragment`vm_id, event_id, instance_id, code, description, not_before, not_after, seen_at,
  moved_at, done_at`;

/** Records an event as seen (once; its times as EC2 says them now). True when it is new. */
export async function recordMachineEvent(
  db: Db,
  event: {
    vmId: string;
    eventId: string;
    instanceId: string;
    code: string;
    description: string | null;
    notBefore: Date;
    notAfter: Date | null;
  },
  now: Date,
): Promise<boolean> {
  const row = await db.one(sql.type(z.object({ inserted: z.boolean() }))`
    INSERT INTO machine_events (vm_id, event_id, instance_id, code, description, not_before, not_after, seen_at)
    VALUES (${event.vmId}, ${event.eventId}, ${event.instanceId}, ${event.code}, ${event.description},
      ${ts(event.notBefore)}, ${event.notAfter ? ts(event.notAfter) : null}, ${ts(now)})
    ON CONFLICT (vm_id, event_id) DO UPDATE SET not_before = EXCLUDED.not_before,
      not_after = EXCLUDED.not_after, description = EXCLUDED.description, done_at = NULL
    RETURNING (xmax = 0) AS inserted`);
  return row.inserted;
}

/** Events not yet over, per machine, soonest first. */
export async function listOpenMachineEvents(db: Db): Promise<MachineEvent[]> {
  return [
    ...(await db.any(sql.type(MachineEvent)`
      SELECT ${COLUMNS} FROM machine_events WHERE done_at IS NULL ORDER BY not_before, vm_id`)),
  ];
}

/** EC2 no longer lists these: the machine moved away, or the event passed. */
export async function markMachineEventsDone(
  db: Db,
  keys: Array<{ vmId: string; eventId: string }>,
  now: Date,
): Promise<void> {
  for (const key of keys)
    await db.query(sql.unsafe`
      UPDATE machine_events SET done_at = ${ts(now)}
      WHERE vm_id = ${key.vmId} AND event_id = ${key.eventId} AND done_at IS NULL`);
}

export async function markMachineEventMoved(db: Db, vmId: string, eventId: string, now: Date): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE machine_events SET moved_at = coalesce(moved_at, ${ts(now)}) WHERE vm_id = ${vmId} AND event_id = ${eventId}`);
}

/** The dashboard's line about a running machine's event (no write when it already says so). */
export async function setEventNotice(db: Db, vmId: string, notice: string | null): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE vms SET problem = ${notice}
    WHERE id = ${vmId} AND state = 'running' AND problem IS DISTINCT FROM ${notice}`);
}
