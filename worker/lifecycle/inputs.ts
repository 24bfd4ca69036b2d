import type { PoolInstance } from '../../core/db/poolInstances.ts';
import { planLaunchTimes } from '../../core/db/launches.ts';
import { findLiveSnapshotOfVm, findSnapshot, listSnapshotsOfVm } from '../../core/db/snapshots.ts';
import type { Subscription } from '../../core/db/subscriptions.ts';
import { findVmRestoringFromVm, type Vm } from '../../core/db/vms.ts';
import { findMachineName } from '../../core/db/machineNames.ts';
import type { NameView } from '../../core/domain/machineName.ts';
import {
  DEFAULT_MISSING_GRACE_MS,
  type CloudView,
  type LifecycleLimits,
  type MachineFacts,
  type RestoreView,
  type SnapshotView,
  looksWanted,
} from '../../core/domain/machineDecision.ts';
import { type PlanFacts } from '../../core/domain/planTime.ts';
import { type PoolFacts } from '../../core/domain/poolInstance.ts';
import { LAUNCH_BUDGET_WINDOW_MS, launchBudgetLeft } from '../../core/domain/launchBudget.ts';
import { copyProgress, snapshotCloud } from '../../core/domain/keptDisk.ts';
import { keptCopyOf } from '../../core/domain/machineEnding.ts';
import type { Ec2Instance } from '../../core/providers/ec2.ts';
import { TAGS } from '../../core/providers/vmEc2.ts';
import { attemptBudget } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';

/**
 * The lifecycle's inputs, read from rows and the cloud as the decisions take them. Gathering
 * writes nothing: every change is a step the domain decided.
 */

export function limitsOf(vm?: { snapshotDeadlineHours: number }): LifecycleLimits {
  return {
    missingGraceMs: DEFAULT_MISSING_GRACE_MS,
    maxStartAttempts: attemptBudget('vm-start'),
    maxLaunchAttempts: attemptBudget('vm-provision'),
    snapshotDeadlineMs: vm && vm.snapshotDeadlineHours * 3_600_000,
  };
}

export function machineFacts(vm: Vm): MachineFacts {
  return {
    id: vm.id,
    state: vm.state,
    source: vm.source,
    instanceId: vm.instance_id,
    launchAttempts: vm.launch_attempts,
    startAttempts: vm.start_attempts,
    passwordStored: vm.password_encrypted !== null,
    usageSeconds: vm.usage_seconds,
    usageCountedAt: vm.usage_counted_at,
    launchedAt: vm.launched_at,
    startRequestedAt: vm.start_requested_at,
    stoppedAt: vm.stopped_at,
    stateReason: vm.state_reason,
    resizeTo:
      vm.resize_to_type !== null || vm.resize_to_gb !== null
        ? { instanceType: vm.resize_to_type, storageGb: vm.resize_to_gb }
        : null,
    resizedFrom: vm.resized_from_type,
    keepDisk: vm.keep_disk,
    restoresDisk: vm.restore_snapshot_id !== null,
  };
}

export function planFacts(subscription: Subscription | null): PlanFacts | null {
  if (!subscription) return null;
  return {
    status: subscription.status,
    expiresAt: subscription.expires_at,
    hours: subscription.hours,
    cancelledAt: subscription.cancelled_at,
  };
}

export function poolFacts(row: PoolInstance): PoolFacts {
  return {
    state: row.state,
    hot: row.hot,
    instanceId: row.instance_id,
    launchAttempts: row.launch_attempts,
    launchedAt: row.launched_at,
  };
}

/** EC2's view of an instance as the decisions read it; a missing instance is `null`. */
export function cloudView(instance: Ec2Instance | null | undefined): CloudView {
  if (!instance) return null;
  return {
    state: instance.state,
    publicIp: instance.publicIp,
    vmTag: instance.tags[TAGS.vm] ?? null,
    rootVolumeId: instance.rootVolumeId,
  };
}

/** One DescribeInstances (paged, by filter) for a batch of instances. */
export async function observeInstances(
  deps: WorkerDeps,
  instanceIds: string[],
): Promise<Map<string, Ec2Instance>> {
  const found = new Map<string, Ec2Instance>();
  if (instanceIds.length === 0) return found;
  for (const instance of await deps.vmEc2.ec2.describeInstances({ instanceIds })) {
    found.set(instance.instanceId, instance);
  }
  return found;
}

/** The copy a new machine is to be made from, for a requested machine that brings one back. */
export async function readRestore(deps: WorkerDeps, vm: Vm): Promise<RestoreView | undefined> {
  if (!looksOf(vm).restore || !vm.restore_snapshot_id) return undefined;
  const copy = await findSnapshot(deps.db, vm.restore_snapshot_id);
  if (!copy) return { copy: null };
  // The copy the old machine takes again, should this one have failed (`restoreProgress` reads it then).
  const retake = await findLiveSnapshotOfVm(deps.db, copy.vm_id);
  return { copy: copy.state, retake: retake && { id: retake.id, state: retake.state } };
}

/** The looks the machine's decision reads (`looksWanted`). */
function looksOf(vm: Vm) {
  return looksWanted({
    state: vm.state,
    hasInstance: vm.instance_id !== null,
    restoresDisk: vm.restore_snapshot_id !== null,
  });
}

/**
 * What a machine that needs a launch has left of its plan's launch budget (the plan's launches in
 * the last hour, its replacements' included); undefined for a machine that needs none.
 */
export async function readLaunchBudget(
  deps: WorkerDeps,
  vm: Vm,
  now: Date,
): Promise<{ left: number; freesAt: number | null } | undefined> {
  if (!looksOf(vm).launchBudget) return undefined;
  const since = new Date(now.getTime() - LAUNCH_BUDGET_WINDOW_MS);
  return launchBudgetLeft(
    deps.config.vm.launchBudget.machine,
    await planLaunchTimes(deps.db, vm.subscription_id, since),
    now,
  );
}

/**
 * Where the kept copy of a terminating machine's disk stands: a copy that once completed is safe
 * whatever its row became since (restored into a renewal, deleted by the sweep), so the machine
 * is never copied again; else our row of the copy being taken, then EC2's word on it.
 */
export async function readSnapshot(deps: WorkerDeps, vm: Vm): Promise<SnapshotView> {
  const copies = (await listSnapshotsOfVm(deps.db, vm.id)).map((c) => ({
    state: c.state,
    completedAt: c.completed_at,
    restoredVmId: c.restored_vm_id,
    snapshotId: c.snapshot_id,
    begunAt: c.created_at,
  }));
  const progress = copyProgress(keptCopyOf(copies), copies);
  if (progress.row !== 'creating') return { row: progress.row };
  const { snapshotId, begunAt } = progress.copy;
  const [found] = await deps.vmEc2.ec2.describeSnapshots({ snapshotIds: [snapshotId] });
  const cloud = snapshotCloud(found?.state);
  if (cloud !== 'completed') return { row: 'creating', cloud, begunAt };
  return { row: 'creating', cloud, newMachineWaits: (await findVmRestoringFromVm(deps.db, vm.id)) !== null };
}

/** Whether Remote Desktop answers on the machine's public address. */
export async function probeRemoteDesktop(deps: WorkerDeps, host: string | null): Promise<'open' | 'closed'> {
  if (!host) return 'closed';
  return deps.remoteDesktop.probe(host, deps.config.vm.rdpPort);
}

/**
 * The machine's name as the lifecycle needs it: only on the way to running (starting,
 * provisioning) or to giving its address back (stopping, stopped, terminating: `looksWanted`),
 * and only when a zone is configured; undefined otherwise.
 */
export async function readName(deps: WorkerDeps, vm: Vm): Promise<NameView | undefined> {
  if (!deps.config.machineNames || !looksOf(vm).name) return undefined;
  const row = await findMachineName(deps.db, vm.id);
  return { pointsTo: row && row.released_at === null ? row.points_to : null };
}
