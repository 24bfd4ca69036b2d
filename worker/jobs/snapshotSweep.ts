import { raiseAlert } from '../../core/db/operatorAlerts.ts';
import { sql } from '../../core/db/pool.ts';
import {
  findSnapshot,
  knownSnapshotIds,
  listSnapshotsDue,
  markSnapshotDeleted,
  recordSnapshotError,
} from '../../core/db/snapshots.ts';
import { diskDeletedMail } from '../../core/emails/vms.ts';
import { TAGS } from '../../core/providers/vmEc2.ts';
import { describeEc2Error } from '../ec2Errors.ts';
import { notify } from '../../core/commands/notices.ts';
import type { WorkerDeps } from '../deps.ts';

/** Deletions per run: bounded, so a backlog drains over runs instead of stalling one. */
const BATCH = 100;

export type SnapshotSweepReport = { expired: number; restored: number; orphans: number; failed: number };

/**
 * Kept disks (run with vm-reconcile): snapshots past their window are deleted and the customer
 * told; a snapshot a renewal restored is deleted once the new machine is ready (its disk holds
 * the files now); a restore whose machine failed puts the snapshot back in the window, so a
 * retry can restore it. Snapshots tagged as this deployment's that no row knows are deleted
 * after ORPHAN_GRACE_MINUTES, with an operator alert. Every EC2 failure is recorded on the row
 * and alerted, and tried again next run.
 */
export async function sweepSnapshots(deps: WorkerDeps, now: Date = new Date()): Promise<SnapshotSweepReport> {
  const { db, config } = deps;
  const ec2 = deps.vmEc2.ec2;
  const report: SnapshotSweepReport = { expired: 0, restored: 0, orphans: 0, failed: 0 };

  await db.query(sql.unsafe`
    UPDATE vm_snapshots s SET state = 'completed', restored_vm_id = NULL, updated_at = now()
    FROM vms v
    WHERE s.state = 'restored' AND v.id = s.restored_vm_id AND v.ready_at IS NULL
      AND v.state IN ('error', 'terminating', 'terminated')`);

  for (const row of await listSnapshotsDue(db, now, BATCH)) {
    try {
      if (row.snapshot_id) await ec2.deleteSnapshot(row.snapshot_id);
    } catch (error) {
      const detail = describeEc2Error(error);
      await recordSnapshotError(db, row.id, `delete: ${detail}`);
      await raiseAlert(db, {
        kind: 'snapshot-failed',
        dedupeKey: `snapshot-delete-failed:${row.id}`,
        message: `Could not delete snapshot ${row.snapshot_id} (kept disk of machine ${row.vm_id}): ${detail}. Tried again next run.`,
        vmId: row.vm_id,
      });
      report.failed += 1;
      continue;
    }
    const deleted = await markSnapshotDeleted(db, row.id, now);
    if (!deleted) continue;
    if (row.state === 'restored') {
      report.restored += 1;
      continue;
    }
    report.expired += 1;
    await notify(
      db,
      deps.boss,
      { kind: 'disk-deleted', subjectId: row.id, userId: row.user_id, vmId: row.vm_id },
      (person) => diskDeletedMail(person, now, config.publicUrl),
    );
  }

  const ours = await ec2.describeSnapshots({ tags: { [TAGS.deployment]: config.ec2.deploymentTag } });
  const known = await knownSnapshotIds(
    db,
    ours.map((s) => s.snapshotId),
  );
  for (const snapshot of ours) {
    if (known.has(snapshot.snapshotId)) continue;
    // Made, but its answer not recorded yet: the lifecycle adopts it by this tag.
    const rowId = snapshot.tags[TAGS.snapshot];
    const row = rowId && /^[0-9a-f-]{36}$/i.test(rowId) ? await findSnapshot(db, rowId) : null;
    if (row && row.state === 'creating') continue;
    const age = now.getTime() - (snapshot.startTime?.getTime() ?? now.getTime());
    if (age < config.vm.orphanGraceMinutes * 60_000) continue;
    try {
      await ec2.deleteSnapshot(snapshot.snapshotId);
    } catch (error) {
      const detail = describeEc2Error(error);
      await raiseAlert(db, {
        kind: 'orphan-snapshot',
        dedupeKey: `orphan-snapshot-delete-failed:${snapshot.snapshotId}`,
        message: `Could not delete unowned snapshot ${snapshot.snapshotId}: ${detail}. Tried again next run.`,
        details: { tags: snapshot.tags },
      });
      report.failed += 1;
      continue;
    }
    await raiseAlert(db, {
      kind: 'orphan-snapshot',
      message: `Deleted snapshot ${snapshot.snapshotId}: tagged as ours, but no kept disk owns it.`,
      details: { tags: snapshot.tags },
    });
    report.orphans += 1;
  }
  if (Object.values(report).some((n) => n > 0)) deps.log.info(report, 'snapshots: sweep done');
  return report;
}
