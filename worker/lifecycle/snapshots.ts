import { raiseAlert } from '../../core/db/operatorAlerts.ts';
import {
  beginSnapshot,
  findLiveSnapshotOfVm,
  markSnapshotCompleted,
  markSnapshotFailed,
  markSnapshotRestored,
  recordSnapshotError,
  recordSnapshotId,
} from '../../core/db/snapshots.ts';
import { findVmRestoringFromVm, recordVmError, setRestoreSnapshot } from '../../core/db/vms.ts';
import { snapshotTags, TAGS } from '../../core/providers/vmEc2.ts';
import { sendJob } from '../../core/queue.ts';
import { describeEc2Error, RetryLater } from '../ec2Errors.ts';
import type { Step } from './step.ts';

/**
 * The kept disk of an expired machine: snapshotted before its instance goes, then handed to the
 * customer's new machine (a renewal that waited for it) or kept with the dates mailed.
 */

/**
 * CreateSnapshot of the root volume, tagged as ours with the owner. The row comes first; a
 * retried step finds the snapshot an earlier attempt made by the row's tag instead of taking a
 * second one (CreateSnapshot has no idempotency token).
 */
export const snapshot: Step<'snapshot'> = async ({ deps, vm, log, now }) => {
  const { db, config } = deps;
  const ec2 = deps.vmEc2.ec2;
  const [instance] = vm.instance_id ? await ec2.describeInstances({ instanceIds: [vm.instance_id] }) : [];
  if (!instance?.rootVolumeId) return { observeAgain: true };
  const row =
    (await findLiveSnapshotOfVm(db, vm.id)) ??
    (await beginSnapshot(
      db,
      {
        userId: vm.user_id,
        vmId: vm.id,
        volumeGb: vm.storage_gb,
        instanceType: vm.instance_type,
        keepDays: config.vm.snapshotKeepDays,
      },
      now,
    ));
  // Someone else began one meanwhile: looked at again.
  if (!row) return {};
  if (!row.snapshot_id) {
    const tags = snapshotTags(config.ec2, { id: row.id, vmId: vm.id, userId: vm.user_id });
    try {
      const [earlier] = await ec2.describeSnapshots({ tags: { [TAGS.snapshot]: row.id } });
      const made =
        earlier ?? (await ec2.createSnapshot(instance.rootVolumeId, `Legend Cloud: disk of ${vm.id}`, tags));
      await recordSnapshotId(db, row.id, made.snapshotId);
      log.info({ snapshotId: made.snapshotId }, 'lifecycle: snapshot of the kept disk begun');
    } catch (error) {
      const detail = describeEc2Error(error);
      await recordSnapshotError(db, row.id, detail);
      await recordVmError(db, vm.id, `snapshot: ${detail}`, now);
      throw new RetryLater(`snapshot of ${instance.rootVolumeId}: ${detail}`, { cause: error });
    }
  }
  return { snapshot: { row: 'creating', cloud: 'pending' } };
};

/** The customer renewed while the copy was being saved: their new machine is made from it. */
export const handOverDisk: Step<'hand-over-disk'> = async ({ deps, vm, log, now }) => {
  const row = await findLiveSnapshotOfVm(deps.db, vm.id);
  const completed =
    row && (await markSnapshotCompleted(deps.db, row.id, deps.config.vm.snapshotKeepDays, now));
  const waiting = completed && (await findVmRestoringFromVm(deps.db, vm.id));
  if (waiting) {
    await deps.db.transaction(async (trx) => {
      await setRestoreSnapshot(trx, waiting.id, completed.id);
      await markSnapshotRestored(trx, completed.id, waiting.id);
      await sendJob(
        deps.boss,
        'vm-provision',
        { subscriptionId: waiting.subscription_id, userId: waiting.user_id },
        { db: trx },
      );
    });
    log.info(
      { snapshotId: completed.snapshot_id, newVmId: waiting.id },
      "lifecycle: disk copy complete; the customer's new machine is made from it",
    );
  }
  return { snapshot: { row: 'completed' } };
};

/**
 * Nobody waits for the copy: it is kept. The customer is told (with its dates) once the instance
 * is deleted, not now: until EC2 confirms it, the PC is "being deleted; your files are saved".
 */
export const keepDisk: Step<'keep-disk'> = async ({ deps, vm, log, now }) => {
  const row = await findLiveSnapshotOfVm(deps.db, vm.id);
  const completed =
    row && (await markSnapshotCompleted(deps.db, row.id, deps.config.vm.snapshotKeepDays, now));
  if (completed)
    log.info({ snapshotId: completed.snapshot_id, keepUntil: completed.keep_until }, 'lifecycle: disk kept');
  return { snapshot: { row: 'completed' } };
};

/** EC2 lost the copy or reports it in error: recorded, an operator told; another is taken. */
export const snapshotFailed: Step<'snapshot-failed'> = async ({ deps, vm, log }, decision) => {
  const row = await findLiveSnapshotOfVm(deps.db, vm.id);
  if (row && (await markSnapshotFailed(deps.db, row.id, decision.reason))) {
    await raiseAlert(deps.db, {
      kind: 'snapshot-failed',
      message: `Snapshot ${row.snapshot_id} of machine ${vm.id}: ${decision.reason}; taking another before deleting the instance.`,
      vmId: vm.id,
      instanceId: vm.instance_id,
    });
    log.error(
      { snapshotId: row.snapshot_id, why: decision.reason },
      'lifecycle: a snapshot of a kept disk failed',
    );
  }
  return { snapshot: { row: 'none' } };
};
