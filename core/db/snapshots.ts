import { z } from 'zod';
import { SNAPSHOT_STATES } from '../domain/keptDisk.ts';
import { GONE_STATES } from '../domain/machineStates.ts';
import { sql, type Db } from './pool.ts';

/**
 * Kept disks: the snapshot of an expired machine's root volume, kept for a window so a
 * customer who comes back gets their files. A row exists from the moment we decide to take it
 * (`creating`, EC2's id still null), so a step that dies after asking EC2 finds the row — and
 * the snapshot by our tag — instead of taking a second one.
 */

export const VmSnapshot = z.object({
  id: z.uuid(),
  user_id: z.uuid(),
  vm_id: z.uuid(),
  snapshot_id: z.string().nullable(),
  state: z.enum(SNAPSHOT_STATES),
  volume_gb: z.number().int(),
  instance_type: z.string(),
  created_at: z.date(),
  completed_at: z.date().nullable(),
  keep_until: z.date(),
  restored_vm_id: z.uuid().nullable(),
  deleted_at: z.date().nullable(),
  last_error: z.string().nullable(),
  updated_at: z.date(),
});
export type VmSnapshot = z.infer<typeof VmSnapshot>;

const COLUMNS = sql.fragment`id, user_id, vm_id, snapshot_id, state, volume_gb, instance_type, created_at,
  completed_at, keep_until, restored_vm_id, deleted_at, last_error, updated_at`;

const ts = (at: Date) => at.toISOString();

/** The snapshot in the making or kept for a machine, if any. */
export async function findLiveSnapshotOfVm(db: Db, vmId: string): Promise<VmSnapshot | null> {
  return db.maybeOne(sql.type(VmSnapshot)`
    SELECT ${COLUMNS} FROM vm_snapshots WHERE vm_id = ${vmId} AND state IN ('creating', 'completed')`);
}

/** Every copy ever taken of this machine's disk, oldest first (a safe copy stays safe, whatever its state now). */
export async function listSnapshotsOfVm(db: Db, vmId: string): Promise<VmSnapshot[]> {
  return [
    ...(await db.any(sql.type(VmSnapshot)`
      SELECT ${COLUMNS} FROM vm_snapshots WHERE vm_id = ${vmId} ORDER BY created_at, id`)),
  ];
}

export async function findSnapshot(db: Db, id: string): Promise<VmSnapshot | null> {
  return db.maybeOne(sql.type(VmSnapshot)`SELECT ${COLUMNS} FROM vm_snapshots WHERE id = ${id}`);
}

/** The customer's latest snapshot still kept (or in the making), for a renewal and the dashboard. */
export async function findKeptSnapshotOfUser(db: Db, userId: string): Promise<VmSnapshot | null> {
  return db.maybeOne(sql.type(VmSnapshot)`
    SELECT ${COLUMNS} FROM vm_snapshots
    WHERE user_id = ${userId} AND state IN ('creating', 'completed')
    ORDER BY created_at DESC LIMIT 1`);
}

/**
 * Whether the customer's machine being deleted keeps its disk but has no copy of it in the
 * making, nor one that ever completed (kept, given to a new machine, or since deleted): not
 * begun yet, or the last one failed. `keptCopyOf` (core/domain/machineEnding.ts) is the same rule.
 */
export async function diskCopyNotBegun(db: Db, userId: string): Promise<boolean> {
  return db.exists(sql.unsafe`
    SELECT 1 FROM vms v
    WHERE v.user_id = ${userId} AND v.state = 'terminating' AND v.keep_disk
      AND NOT EXISTS (SELECT 1 FROM vm_snapshots s
                      WHERE s.vm_id = v.id AND (s.state = 'creating' OR s.completed_at IS NOT NULL))`);
}

/** A new row for a snapshot about to be asked for; null when one is already in the making or kept. */
export async function beginSnapshot(
  db: Db,
  input: { userId: string; vmId: string; volumeGb: number; instanceType: string; keepDays: number },
  now: Date,
): Promise<VmSnapshot | null> {
  return db.maybeOne(sql.type(VmSnapshot)`
    INSERT INTO vm_snapshots (user_id, vm_id, volume_gb, instance_type, created_at, keep_until)
    VALUES (${input.userId}, ${input.vmId}, ${input.volumeGb}, ${input.instanceType}, ${ts(now)},
            ${ts(now)}::timestamptz + make_interval(days => ${input.keepDays}))
    ON CONFLICT (vm_id) WHERE state IN ('creating', 'completed') DO NOTHING
    RETURNING ${COLUMNS}`);
}

export async function recordSnapshotId(db: Db, id: string, snapshotId: string): Promise<VmSnapshot | null> {
  return db.maybeOne(sql.type(VmSnapshot)`
    UPDATE vm_snapshots SET snapshot_id = ${snapshotId}, updated_at = now()
    WHERE id = ${id} AND state = 'creating' AND (snapshot_id IS NULL OR snapshot_id = ${snapshotId})
    RETURNING ${COLUMNS}`);
}

/** creating → completed; the window runs from now, the moment the customer's files are safe. */
export async function markSnapshotCompleted(
  db: Db,
  id: string,
  keepDays: number,
  now: Date,
): Promise<VmSnapshot | null> {
  return db.maybeOne(sql.type(VmSnapshot)`
    UPDATE vm_snapshots SET state = 'completed', completed_at = ${ts(now)},
      keep_until = ${ts(now)}::timestamptz + make_interval(days => ${keepDays}), updated_at = now()
    WHERE id = ${id} AND state = 'creating'
    RETURNING ${COLUMNS}`);
}

export async function markSnapshotFailed(db: Db, id: string, why: string): Promise<VmSnapshot | null> {
  return db.maybeOne(sql.type(VmSnapshot)`
    UPDATE vm_snapshots SET state = 'failed', last_error = ${why}, updated_at = now()
    WHERE id = ${id} AND state = 'creating'
    RETURNING ${COLUMNS}`);
}

/**
 * completed → restored: a renewal made a machine from it (in the renewal's transaction, or when
 * a copy the renewal waited for completes). Again for the same machine: the row as it is.
 */
export async function markSnapshotRestored(db: Db, id: string, vmId: string): Promise<VmSnapshot | null> {
  return db.maybeOne(sql.type(VmSnapshot)`
    UPDATE vm_snapshots SET state = 'restored', restored_vm_id = ${vmId}, updated_at = now()
    WHERE id = ${id} AND (state = 'completed' OR (state = 'restored' AND restored_vm_id = ${vmId}))
    RETURNING ${COLUMNS}`);
}

/**
 * A machine made from a copy was lost before it was ever ready: the copy is back in its window,
 * so the machine that replaces it is made from it (the sweep does the same for failed restores).
 */
export async function releaseRestoreOf(db: Db, vmId: string): Promise<number> {
  const rows = await db.anyFirst(sql.type(z.object({ id: z.uuid() }))`
    UPDATE vm_snapshots s SET state = 'completed', restored_vm_id = NULL, updated_at = now()
    FROM vms v
    WHERE s.state = 'restored' AND s.restored_vm_id = ${vmId} AND v.id = s.restored_vm_id AND v.ready_at IS NULL
    RETURNING s.id`);
  return rows.length;
}

/**
 * Copies handed to machines that are gone (`isGone`: the domain's list) without ever having been
 * ready go back to the customer's kept window: a later purchase can bring the files back from them.
 */
export async function releaseFailedRestores(db: Db): Promise<number> {
  const rows = await db.anyFirst(sql.type(z.object({ id: z.uuid() }))`
    UPDATE vm_snapshots s SET state = 'completed', restored_vm_id = NULL, updated_at = now()
    FROM vms v
    WHERE s.state = 'restored' AND v.id = s.restored_vm_id AND v.ready_at IS NULL
      AND v.state IN (${sql.join(
        GONE_STATES.map((state) => sql.literalValue(state)),
        sql.fragment`, `,
      )})
    RETURNING s.id`);
  return rows.length;
}

export async function markSnapshotDeleted(db: Db, id: string, now: Date): Promise<VmSnapshot | null> {
  return db.maybeOne(sql.type(VmSnapshot)`
    UPDATE vm_snapshots SET state = 'deleted', deleted_at = ${ts(now)}, updated_at = now()
    WHERE id = ${id} AND state <> 'deleted'
    RETURNING ${COLUMNS}`);
}

export async function recordSnapshotError(db: Db, id: string, why: string): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE vm_snapshots SET last_error = ${why}, updated_at = now() WHERE id = ${id}`);
}

const DueSnapshot = VmSnapshot.extend({ restored_vm_ready: z.boolean(), own_vm_terminated: z.boolean() });
export type DueSnapshot = z.infer<typeof DueSnapshot>;

/**
 * Snapshots to delete now, oldest first, at most `limit`, with the facts `copyDue`
 * (core/domain/keptDisk.ts) reads: kept ones past their window, restored ones once the machine
 * made from them is ready (its disk holds the files now), and ones still being made when their
 * machine went without keeping them (account deletion). This is `copyDue` in SQL; a test proves
 * they agree.
 */
export async function listSnapshotsDue(db: Db, now: Date, limit: number): Promise<DueSnapshot[]> {
  const rows = await db.any(sql.type(DueSnapshot)`
    SELECT ${COLUMNS},
      EXISTS (SELECT 1 FROM vms v WHERE v.id = s.restored_vm_id AND v.ready_at IS NOT NULL) AS restored_vm_ready,
      EXISTS (SELECT 1 FROM vms v WHERE v.id = s.vm_id AND v.state = 'terminated') AS own_vm_terminated
    FROM vm_snapshots s
    WHERE (s.state = 'completed' AND s.keep_until <= ${ts(now)})
       OR (s.state = 'restored' AND EXISTS (
             SELECT 1 FROM vms v WHERE v.id = s.restored_vm_id AND v.ready_at IS NOT NULL))
       OR (s.state = 'creating' AND s.keep_until <= ${ts(now)} AND EXISTS (
             SELECT 1 FROM vms v WHERE v.id = s.vm_id AND v.state = 'terminated'))
    ORDER BY s.keep_until
    LIMIT ${limit}`);
  return [...rows];
}

/**
 * An account is deleted: none of its disks is kept. Machines still terminating stop waiting for
 * a snapshot, and every snapshot's window ends now, so the next sweep deletes them in EC2.
 */
export async function endKeptDisksOfUser(db: Db, userId: string, now: Date): Promise<number> {
  await db.query(sql.unsafe`
    UPDATE vms SET keep_disk = false, updated_at = now() WHERE user_id = ${userId} AND keep_disk`);
  const ended = await db.anyFirst(sql.type(z.object({ id: z.uuid() }))`
    UPDATE vm_snapshots SET keep_until = least(keep_until, ${ts(now)}::timestamptz), updated_at = now()
    WHERE user_id = ${userId} AND state IN ('creating', 'completed', 'restored')
    RETURNING id`);
  return ended.length;
}

/** Which of these EC2 snapshot ids we know of (not deleted): the rest are orphans. */
export async function knownSnapshotIds(db: Db, snapshotIds: string[]): Promise<Set<string>> {
  if (snapshotIds.length === 0) return new Set();
  const rows = await db.anyFirst(sql.type(z.object({ snapshot_id: z.string() }))`
    SELECT snapshot_id FROM vm_snapshots
    WHERE snapshot_id = ANY(${sql.array(snapshotIds, 'text')}) AND state <> 'deleted'`);
  return new Set(rows);
}
