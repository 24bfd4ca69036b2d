import type { PoolInstance } from '../../core/db/poolInstances.ts';
import { findLiveSnapshotOfVm, findSnapshot, snapshotOfVmRestored } from '../../core/db/snapshots.ts';
import type { Subscription } from '../../core/db/subscriptions.ts';
import { findVmRestoringFromVm, type Vm } from '../../core/db/vms.ts';
import { findMachineName } from '../../core/db/machineNames.ts';
import type { NameView } from '../../core/domain/machineName.ts';
import {
  DEFAULT_MISSING_GRACE_MS,
  type CloudView,
  type LifecycleLimits,
  type MachineFacts,
  type PlanFacts,
  type PoolFacts,
  type RestoreView,
  type SnapshotView,
} from '../../core/domain/lifecycle.ts';
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
    usageCountedAt: vm.state === 'running' ? vm.usage_counted_at : null,
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
  if (vm.state !== 'requested' || !vm.restore_snapshot_id) return undefined;
  const copy = await findSnapshot(deps.db, vm.restore_snapshot_id);
  if (!copy) return { copy: null };
  if (copy.state !== 'failed') return { copy: copy.state };
  const retake = await findLiveSnapshotOfVm(deps.db, copy.vm_id);
  return { copy: copy.state, retake: retake && { id: retake.id, state: retake.state } };
}

/** Where the kept copy of a terminating machine's disk stands: our row, then EC2's word on a sent one. */
export async function readSnapshot(deps: WorkerDeps, vm: Vm): Promise<SnapshotView> {
  const row = await findLiveSnapshotOfVm(deps.db, vm.id);
  // Already given to the customer's new machine: the copy is safe, the instance can go.
  if (!row) return { row: (await snapshotOfVmRestored(deps.db, vm.id)) ? 'restored' : 'none' };
  if (row.state === 'completed') return { row: 'completed' };
  if (!row.snapshot_id) return { row: 'unsent' };
  const begunAt = row.created_at;
  const [found] = await deps.vmEc2.ec2.describeSnapshots({ snapshotIds: [row.snapshot_id] });
  const cloud = !found
    ? 'missing'
    : found.state === 'error' || found.state === 'completed'
      ? found.state
      : 'pending';
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
 * provisioning), and only when a zone is configured; undefined otherwise.
 */
export async function readName(deps: WorkerDeps, vm: Vm): Promise<NameView | undefined> {
  if (!deps.config.machineNames || (vm.state !== 'starting' && vm.state !== 'provisioning')) return undefined;
  const row = await findMachineName(deps.db, vm.id);
  return { pointsTo: row && row.released_at === null ? row.points_to : null };
}
