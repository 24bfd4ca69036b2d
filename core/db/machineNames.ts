import { randomBytes } from 'node:crypto';
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import { z } from 'zod';
import {
  connectAddress,
  machineLabel,
  machineNameView,
  NAME_SINK_ADDRESS,
  NAME_SINK_STATES,
  type NameFacts,
} from '../domain/machineName.ts';
import { sql, type Db } from './pool.ts';

/**
 * The machines' DNS names (sql/0055_machine_names.sql, 0090): one label per customer machine,
 * never given to another customer, passed on to the same customer's next machine once the one
 * holding it is gone (`claimName`, core/domain/machineName.ts), and what we last wrote to its
 * record. Every write is conditional on what the caller saw, the machine holding the label
 * included, so two workers at once leave the row as one would, and a gone machine's late step
 * never touches the name its successor took over.
 */

export const MachineName = z.object({
  label: z.string(),
  user_id: z.uuid(),
  vm_id: z.uuid(),
  points_to: z.string().nullable(),
  written_at: z.date().nullable(),
  failing_since: z.date().nullable(),
  last_error: z.string().nullable(),
  alerted_at: z.date().nullable(),
  released_at: z.date().nullable(),
  created_at: z.date(),
  updated_at: z.date(),
});
export type MachineName = z.infer<typeof MachineName>;

const COLUMNS = sql.fragment`label, user_id, vm_id, points_to, written_at, failing_since, last_error, alerted_at,
  released_at, created_at, updated_at`;

const ts = (at: Date) => at.toISOString();

export function nameFacts(row: MachineName): NameFacts {
  return {
    label: row.label,
    pointsTo: row.points_to,
    failingSince: row.failing_since,
    alertedAt: row.alerted_at,
    released: row.released_at !== null,
  };
}

export async function findMachineName(db: Db, vmId: string): Promise<MachineName | null> {
  return db.maybeOne(sql.type(MachineName)`SELECT ${COLUMNS} FROM machine_names WHERE vm_id = ${vmId}`);
}

/**
 * The machine's name, given now if it has none: a fresh random label (drawn again in the
 * one-in-a-trillion case that it was ever given before).
 */
export async function ensureMachineName(db: Db, vm: { id: string; user_id: string }): Promise<MachineName> {
  for (let attempt = 0; ; attempt++) {
    const existing = await findMachineName(db, vm.id);
    if (existing) return existing;
    try {
      const row = await db.maybeOne(sql.type(MachineName)`
        INSERT INTO machine_names (label, user_id, vm_id)
        VALUES (${machineLabel(randomBytes(8))}, ${vm.user_id}, ${vm.id})
        ON CONFLICT (vm_id) DO NOTHING
        RETURNING ${COLUMNS}`);
      if (row) return row;
    } catch (error) {
      // The label was given before (to anyone): another one.
      if (!(error instanceof UniqueIntegrityConstraintViolationError) || attempt >= 5) throw error;
    }
  }
}

/** A name as its machine holds it: every write names both, and misses once the label has passed on. */
type Held = Pick<MachineName, 'label' | 'vm_id'>;

/** The record now points at `ip` (written, or found so): whatever failed before is over. */
export async function recordNamePointed(db: Db, name: Held, ip: string, now: Date): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE machine_names SET points_to = ${ip}, written_at = ${ts(now)}, failing_since = NULL,
      last_error = NULL, alerted_at = NULL, updated_at = ${ts(now)}
    WHERE label = ${name.label} AND vm_id = ${name.vm_id} AND released_at IS NULL`);
}

/** Writing (or deleting) the record failed: since when, and why (the first failure's time is kept). */
export async function recordNameFailed(db: Db, name: Held, error: string, now: Date): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE machine_names SET failing_since = coalesce(failing_since, ${ts(now)}), last_error = ${error},
      updated_at = ${ts(now)}
    WHERE label = ${name.label} AND vm_id = ${name.vm_id}`);
}

/** An operator was told; answers whether this call was the one that told (once per failing spell). */
export async function recordNameAlerted(db: Db, name: Held, now: Date): Promise<boolean> {
  const row = await db.maybeOne(sql.type(z.object({ label: z.string() }))`
    UPDATE machine_names SET alerted_at = ${ts(now)}, updated_at = ${ts(now)}
    WHERE label = ${name.label} AND vm_id = ${name.vm_id} AND alerted_at IS NULL AND failing_since IS NOT NULL
    RETURNING label`);
  return row !== null;
}

/**
 * The record is gone with its machine: the label is released, pointed nowhere until the same
 * customer's next machine takes it over (`takeOverName`); never anyone else's.
 */
export async function releaseMachineName(db: Db, name: Held, now: Date): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE machine_names SET released_at = ${ts(now)}, points_to = NULL, failing_since = NULL,
      last_error = NULL, updated_at = ${ts(now)}
    WHERE label = ${name.label} AND vm_id = ${name.vm_id} AND released_at IS NULL`);
}

const PreviousNameRow = z.object({
  label: z.string(),
  user_id: z.uuid(),
  vm_id: z.uuid(),
  released: z.boolean(),
  holder_state: z.string(),
});
type PreviousNameRow = z.infer<typeof PreviousNameRow>;

/**
 * The name held by the customer's latest machine other than `vmId` (the one a renewal, a restore
 * or a replacement succeeds), with that machine's state; null when the customer never had one.
 */
export async function findPreviousName(
  db: Db,
  vm: { id: string; user_id: string },
): Promise<PreviousNameRow | null> {
  return db.maybeOne(sql.type(PreviousNameRow)`
    SELECT n.label, n.user_id, n.vm_id, n.released_at IS NOT NULL AS released, v.state AS holder_state
    FROM machine_names n JOIN vms v ON v.id = n.vm_id
    WHERE n.user_id = ${vm.user_id} AND n.vm_id <> ${vm.id}
    ORDER BY v.created_at DESC, n.created_at DESC
    LIMIT 1`);
}

/**
 * The customer's previous name passes to their new machine (`claimName` decided so): only from
 * the machine the caller saw holding it, only to a machine of the same customer (the database's
 * trigger refuses any other), only to one without a name. Whatever was failing was the old
 * machine's; `points_to` stays what our last write set, so a record still left from the old
 * machine is recognised as ours and overwritten. Null: it moved meanwhile; look again.
 */
export async function takeOverName(
  db: Db,
  from: Held,
  to: { id: string; user_id: string },
  now: Date,
): Promise<MachineName | null> {
  try {
    return await db.maybeOne(sql.type(MachineName)`
      UPDATE machine_names SET vm_id = ${to.id}, released_at = NULL, failing_since = NULL,
        last_error = NULL, alerted_at = NULL, updated_at = ${ts(now)}
      WHERE label = ${from.label} AND vm_id = ${from.vm_id} AND user_id = ${to.user_id}
        AND NOT EXISTS (SELECT 1 FROM machine_names WHERE vm_id = ${to.id})
      RETURNING ${COLUMNS}`);
  } catch (error) {
    // The new machine got a name meanwhile (another worker's claim): the caller finds it.
    if (error instanceof UniqueIntegrityConstraintViolationError) return null;
    throw error;
  }
}

/**
 * The names the sweep hands to the name job (at most `limit`): those whose machine is gone but
 * whose record is not yet deleted, those whose machine runs at an address the record does not
 * point at, those whose machine is giving its address back (NAME_SINK_STATES) and whose record
 * was not yet pointed at the sink, and those failing (the 10-minute alert is decided there). `decideName` is the rule;
 * this only narrows the candidates, never wider than it would act on.
 */
export async function listNamesNeedingWork(db: Db, limit: number): Promise<Array<{ vm_id: string }>> {
  const held = await db.any(sql.type(z.object({ vm_id: z.uuid() }))`
      SELECT n.vm_id FROM machine_names n JOIN vms v ON v.id = n.vm_id
      WHERE n.released_at IS NULL
        AND (v.state IN ('terminated', 'error')
          OR n.failing_since IS NOT NULL
          OR (v.state = 'running' AND v.public_ip IS NOT NULL AND v.public_ip IS DISTINCT FROM n.points_to)
          OR (v.state = ANY(${sql.array([...NAME_SINK_STATES], 'text')})
            AND n.points_to IS DISTINCT FROM ${NAME_SINK_ADDRESS}))
      ORDER BY n.updated_at
      LIMIT ${limit}`);
  // Running machines with no name whose customer has one: a name waiting for its previous
  // machine to be gone (`claimName`'s `wait`), taken over here once it is.
  const waiting = await db.any(sql.type(z.object({ vm_id: z.uuid() }))`
      SELECT v.id AS vm_id FROM vms v
      WHERE v.state = 'running' AND v.public_ip IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM machine_names mine WHERE mine.vm_id = v.id)
        AND EXISTS (SELECT 1 FROM machine_names theirs WHERE theirs.user_id = v.user_id)
      ORDER BY v.state_changed_at
      LIMIT ${limit}`);
  return [...held, ...waiting];
}

/**
 * What a customer connects to this machine by: its name once the record leads to it, else its
 * public address; null while it has none. `suffix` null: no zone, the address.
 */
export async function findConnectHost(
  db: Db,
  vm: { id: string; state: string; public_ip: string | null },
  suffix: string | null,
): Promise<string | null> {
  if (!vm.public_ip) return null;
  if (!suffix) return vm.public_ip;
  const row = await findMachineName(db, vm.id);
  const view = machineNameView(
    row && { label: row.label, pointsTo: row.points_to, released: row.released_at !== null },
    suffix,
    { state: vm.state, publicIp: vm.public_ip },
  );
  return connectAddress(view, vm.public_ip);
}
