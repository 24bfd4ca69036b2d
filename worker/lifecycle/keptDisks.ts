import {
  copyDeleted,
  copyDeleteFailed,
  orphanSnapshotDeleted,
  takeBackFailedRestores,
} from '../../core/commands/keptDisks.ts';
import { findSnapshot, knownSnapshotIds, listSnapshotsDue } from '../../core/db/snapshots.ts';
import { copyDue, orphanSnapshotAdoptable } from '../../core/domain/keptDisk.ts';
import { orphanAction } from '../../core/domain/orphans.ts';
import { TAGS } from '../../core/providers/vmEc2.ts';
import type { WorkerDeps } from '../deps.ts';
import { describeEc2Error } from '../ec2Errors.ts';

/** Deletions per run: bounded, so a backlog drains over runs instead of stalling one. */
const BATCH = 100;

export type SnapshotSweepReport = { expired: number; restored: number; orphans: number; failed: number };

/**
 * Kept disks (run with vm-reconcile): a copy whose window is over is deleted and the customer
 * told; a copy a renewal restored is deleted once the new machine is ready (its disk holds the
 * files now); a restore whose machine failed puts the copy back in the window, so a retry can
 * restore it (`copyDue`, core/domain/keptDisk.ts). Snapshots tagged as this deployment's that no
 * row knows are deleted after ORPHAN_GRACE_MINUTES, with an operator alert (`orphanAction`).
 * Every EC2 failure is recorded and alerted, and tried again next run.
 */
export async function sweepSnapshots(deps: WorkerDeps, now: Date = new Date()): Promise<SnapshotSweepReport> {
  const { db, config } = deps;
  const ec2 = deps.vmEc2.ec2;
  const report: SnapshotSweepReport = { expired: 0, restored: 0, orphans: 0, failed: 0 };

  await takeBackFailedRestores(db);

  for (const copy of await listSnapshotsDue(db, now, BATCH)) {
    const why = copyDue(
      {
        state: copy.state,
        keepUntil: copy.keep_until,
        restoredMachineReady: copy.restored_vm_ready,
        ownMachineTerminated: copy.own_vm_terminated,
      },
      now,
    );
    if (!why) continue;
    try {
      if (copy.snapshot_id) await ec2.deleteSnapshot(copy.snapshot_id);
    } catch (error) {
      await copyDeleteFailed(db, copy, describeEc2Error(error));
      report.failed += 1;
      continue;
    }
    if (await copyDeleted(deps, copy, why, now)) report[why] += 1;
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
    if (row && orphanSnapshotAdoptable(row.state)) continue;
    if (orphanAction(snapshot.startTime ?? now, now, config.vm.orphanGraceMinutes) === 'wait') continue;
    try {
      await ec2.deleteSnapshot(snapshot.snapshotId);
    } catch (error) {
      await orphanSnapshotDeleted(db, snapshot, describeEc2Error(error));
      report.failed += 1;
      continue;
    }
    await orphanSnapshotDeleted(db, snapshot, null);
    report.orphans += 1;
  }
  if (Object.values(report).some((n) => n > 0)) deps.log.info(report, 'snapshots: sweep done');
  return report;
}
