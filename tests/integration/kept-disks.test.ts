import { afterAll, describe, expect, it } from 'vitest';
import { releaseUserResources } from '../../core/commands/accountDeletion.ts';
import { dashboardBody } from '../../api/presenters/vm.ts';
import { findDashboardState } from '../../core/db/dashboard.ts';
import { listAlerts } from '../../core/db/operatorAlerts.ts';
import { checkoutMachineNote } from '../../core/domain/planMachine.ts';
import { VM_MESSAGES } from '../../core/domain/vm.ts';
import { sql } from '../../core/db/pool.ts';
import { findKeptSnapshotOfUser, findLiveSnapshotOfVm, findSnapshot } from '../../core/db/snapshots.ts';
import { supersedeTrial } from '../../core/db/subscriptions.ts';
import { findVmBySubscription } from '../../core/db/vms.ts';
import { TAGS } from '../../core/providers/vmEc2.ts';
import { attemptBudget } from '../../core/queue.ts';
import { sweepSnapshots } from '../../worker/lifecycle/keptDisks.ts';
import { provisionVm } from '../../worker/jobs/vmProvision.ts';
import { reapVms } from '../../worker/jobs/vmReaper.ts';
import { startVm } from '../../worker/jobs/vmStart.ts';
import { stopVm } from '../../worker/jobs/vmStop.ts';
import { syncVms } from '../../worker/jobs/vmSync.ts';
import { terminateVm } from '../../worker/jobs/vmTerminate.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { machineHelpers } from '../support/machines.ts';
import { startTestStack } from '../support/stack.ts';

/**
 * The customer's machine and files survive: a plan of another kind changes the same instance
 * (type, a bigger disk) instead of replacing it; an expired machine's disk is kept as a snapshot
 * and a renewal inside the window brings it back; the window's end and account deletion delete
 * it. Real Postgres, the sandbox EC2 through the real SDK, the job handlers as the worker calls them.
 */

const stack = await startTestStack();
const cloud = cloudPcHelpers(stack);
const deps = cloud.deps();
afterAll(() => cloud.destroy());

const MINUTE = 60_000;
const DAY = 86_400_000;

const machines = machineHelpers(stack, cloud, deps);
const readyMachine = (planId: 'legend' | 'pro-legend' | 'ultra-legend' = 'legend') =>
  machines.runningMachine({ planId });
const { expireAndPassGrace } = machines;

/** The customer's plan gives way to a new one: a running trial superseded, or a plan that ended. */
async function endPlan(planId: string, how: 'trial-superseded' | 'expired') {
  if (how === 'trial-superseded') {
    await cloud.exec(sql.unsafe`UPDATE subscriptions SET is_trial = true, hours = 1 WHERE id = ${planId}`);
    await supersedeTrial(cloud.db, planId);
  } else {
    await cloud.exec(
      sql.unsafe`UPDATE subscriptions SET status = 'expired', expires_at = now() - interval '1 minute' WHERE id = ${planId}`,
    );
  }
}

/** Runs the machine's jobs and checks the way the worker would, until it is running again. */
async function driveToRunning(vmId: string) {
  for (let round = 0; round < 10; round += 1) {
    const row = await cloud.vm(vmId);
    if (row.state === 'running' && row.resize_to_type === null && row.resize_to_gb === null) return row;
    if (row.state === 'stopping') await stopVm(deps, { vmId });
    if (row.state === 'starting') await startVm(deps, { vmId });
    cloud.advance(3 * MINUTE);
    await syncVms(deps, { vmId });
  }
  return cloud.vm(vmId);
}

/** Expired past grace, its disk snapshotted and the instance terminated. */
async function keptAfterExpiry() {
  const made = await readyMachine();
  await expireAndPassGrace(made.vm.id, made.plan.id);
  const terminating = await cloud.vm(made.vm.id);
  expect(terminating).toMatchObject({ state: 'terminating', keep_disk: true });

  // The first run takes the snapshot and waits for it; the instance is untouched meanwhile.
  await terminateVm(deps, { vmId: made.vm.id });
  const pending = await findLiveSnapshotOfVm(cloud.db, made.vm.id);
  expect(pending).toMatchObject({ state: 'creating' });
  expect(pending?.snapshot_id).toMatch(/^snap-/);
  expect(cloud.instancesOf(made.vm.id, { live: true })).toHaveLength(1);
  expect((await cloud.vm(made.vm.id)).state).toBe('terminating');

  // The copy completes and the deletion is asked; until EC2 confirms it, the PC is "being
  // deleted; your files are saved", and nobody is told it was deleted.
  cloud.advance(5 * MINUTE);
  await syncVms(deps, { vmId: made.vm.id });
  expect((await cloud.vm(made.vm.id)).state).toBe('terminating');
  expect(cloud.instancesOf(made.vm.id)[0]?.state).toBe('shutting-down');
  expect(await cloud.mailKinds(made.user.email)).not.toContain('disk-kept');
  const shown = await findDashboardState(stack.services.pgPool, made.user.id);
  expect(dashboardBody({ ...shown!, vmConfig: stack.config.vm, now: new Date() }).keptDisk).toMatchObject({
    saving: false,
    deleting: true,
  });

  cloud.advance(MINUTE);
  await syncVms(deps, { vmId: made.vm.id });
  expect((await cloud.vm(made.vm.id)).state).toBe('terminated');
  expect(cloud.instancesOf(made.vm.id, { live: true })).toHaveLength(0);
  const kept = await findSnapshot(cloud.db, pending!.id);
  expect(kept).toMatchObject({ state: 'completed', volume_gb: 115 });
  return { ...made, snapshot: kept! };
}

describe('a plan of another kind keeps the machine and its disk', () => {
  it('a LEGEND trial → paid PRO LEGEND while running: the same instance is stopped, changed to g4dn.2xlarge, its disk grown, and started', async () => {
    const { user, vm, plan } = await readyMachine('legend');
    await endPlan(plan.id, 'trial-superseded');
    const instanceId = vm.instance_id;
    const volumeId = cloud.instancesOf(vm.id)[0]?.volumeId;

    const upgrade = await cloud.activePlan(user.id, { planId: 'pro-legend', hours: 45 });
    await expect(provisionVm(deps, { subscriptionId: upgrade.id, userId: user.id })).resolves.toBe('renewed');
    // A replay changes nothing more.
    await provisionVm(deps, { subscriptionId: upgrade.id, userId: user.id });
    expect(await cloud.vm(vm.id)).toMatchObject({
      state: 'stopping',
      state_reason: 'plan-change',
      subscription_id: upgrade.id,
      plan_id: 'pro-legend',
      resize_to_type: 'g4dn.2xlarge',
      resize_to_gb: 225,
    });

    // The dashboard (its one poll statement) says why the machine is not running.
    const state = await findDashboardState(stack.services.pgPool, user.id);
    const body = dashboardBody({ ...state!, vmConfig: stack.config.vm, now: new Date() });
    expect(body.notice).toBe(VM_MESSAGES.planChange);

    const after = await driveToRunning(vm.id);
    expect(after).toMatchObject({
      state: 'running',
      instance_id: instanceId,
      instance_type: 'g4dn.2xlarge',
      storage_gb: 225,
      resized_from_type: null,
    });
    const instances = cloud.instancesOf(vm.id);
    expect(instances).toHaveLength(1);
    expect(instances[0]).toMatchObject({
      instanceId,
      instanceType: 'g4dn.2xlarge',
      volumeId,
      volumeSizeGb: 225,
      state: 'running',
    });
  });

  it('a plan with less disk keeps the bigger disk (files are never cut), and a stopped machine is changed as the renewal starts it', async () => {
    const { user, vm, plan } = await readyMachine('pro-legend');
    await cloud.exec(sql.unsafe`UPDATE vms SET storage_gb = 300 WHERE id = ${vm.id}`);
    await deps.vmEc2.ec2.growVolume(cloud.instancesOf(vm.id)[0]!.volumeId, 300);
    const { requestStop } = await import('../../core/commands/vmActions.ts');
    await requestStop(cloud.db, stack.services.boss, vm.id, 'user', new Date());
    await stopVm(deps, { vmId: vm.id });
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).state).toBe('stopped');
    await endPlan(plan.id, 'expired');

    const change = await cloud.activePlan(user.id, { planId: 'ultra-legend' });
    await provisionVm(deps, { subscriptionId: change.id, userId: user.id });
    // A renewal starts the kept machine, as for a plan of the same kind; the start makes the change.
    expect(await cloud.vm(vm.id)).toMatchObject({
      state: 'starting',
      resize_to_type: 'g5.xlarge',
      resize_to_gb: null,
    });
    const after = await driveToRunning(vm.id);
    expect(after).toMatchObject({ instance_type: 'g5.xlarge', storage_gb: 300, plan_id: 'ultra-legend' });
    expect(cloud.instancesOf(vm.id)[0]).toMatchObject({ instanceType: 'g5.xlarge', volumeSizeGb: 300 });
  });

  it('no capacity for the new type: the old machine is put back intact, the customer told, an operator alerted', async () => {
    const { user, vm, plan } = await readyMachine('legend');
    await endPlan(plan.id, 'trial-superseded');
    const upgrade = await cloud.activePlan(user.id, { planId: 'pro-legend' });
    await provisionVm(deps, { subscriptionId: upgrade.id, userId: user.id });
    await stopVm(deps, { vmId: vm.id });
    stack.sandboxEc2.control({
      faults: [
        {
          action: 'StartInstances',
          code: 'InsufficientInstanceCapacity',
          status: 500,
          instanceId: vm.instance_id!,
          times: 50,
        },
      ],
    });
    try {
      cloud.advance(2 * MINUTE);
      // The stop is seen, the change made and a start asked for.
      await syncVms(deps, { vmId: vm.id });
      expect(await cloud.vm(vm.id)).toMatchObject({
        state: 'starting',
        instance_type: 'g4dn.2xlarge',
        resized_from_type: 'g4dn.xlarge',
      });
      const budget = attemptBudget('vm-start');
      for (let attempt = 1; attempt < budget; attempt += 1) {
        await expect(startVm(deps, { vmId: vm.id })).rejects.toThrow(/InsufficientInstanceCapacity/);
      }
      await expect(startVm(deps, { vmId: vm.id })).resolves.toBe('gave-up');
      const row = await cloud.vm(vm.id);
      expect(row).toMatchObject({
        state: 'stopped',
        state_reason: 'start-failed',
        instance_id: vm.instance_id,
        instance_type: 'g4dn.xlarge',
        resize_to_type: 'g4dn.2xlarge',
        resized_from_type: null,
      });
      expect(row.problem).toMatch(/could not be started/);
      expect(cloud.instancesOf(vm.id)).toHaveLength(1);
      expect(cloud.instancesOf(vm.id)[0]).toMatchObject({ instanceType: 'g4dn.xlarge', state: 'stopped' });
      expect((await listAlerts(cloud.db)).some((a) => a.vm_id === vm.id && a.kind === 'start-failed')).toBe(
        true,
      );
      // Left stopped: nothing starts it again by itself.
      await syncVms(deps, { vmId: vm.id });
      expect((await cloud.vm(vm.id)).state).toBe('stopped');
    } finally {
      stack.sandboxEc2.control({ clearFaults: true });
    }
  });
});

describe('an expired machine keeps its disk as a snapshot', () => {
  it('snapshot (tagged as ours, with the owner) before the instance goes; dates mailed; a renewal restores the files', async () => {
    const { user, vm, snapshot } = await keptAfterExpiry();
    const ec2Snapshot = stack.sandboxEc2.state().snapshots.find((s) => s.snapshotId === snapshot.snapshot_id);
    expect(ec2Snapshot).toMatchObject({
      state: 'completed',
      sourceInstanceId: vm.instance_id,
      tags: {
        [TAGS.app]: 'legend-cloud',
        [TAGS.owner]: user.id,
        [TAGS.vm]: vm.id,
        [TAGS.snapshot]: snapshot.id,
      },
    });
    const keptDays = (snapshot.keep_until.getTime() - snapshot.completed_at!.getTime()) / DAY;
    expect(keptDays).toBeCloseTo(stack.config.vm.snapshotKeepDays, 5);
    const mails = await cloud.mailKinds(user.email);
    expect(mails).toContain('disk-kept');
    expect(mails).not.toContain('vm-terminated');

    const renewal = await cloud.activePlan(user.id, { planId: 'pro-legend' });
    await expect(provisionVm(deps, { subscriptionId: renewal.id, userId: user.id })).resolves.toBe(
      'launched',
    );
    const restored = await findVmBySubscription(cloud.db, renewal.id);
    expect(restored).toMatchObject({ restore_snapshot_id: snapshot.id, source: 'launch', storage_gb: 225 });
    const [instance] = cloud.instancesOf(restored!.id);
    expect(instance).toMatchObject({
      restoredFromSnapshot: snapshot.snapshot_id,
      instanceType: 'g4dn.2xlarge',
      volumeSizeGb: 225,
    });
    expect(await findSnapshot(cloud.db, snapshot.id)).toMatchObject({
      state: 'restored',
      restored_vm_id: restored!.id,
    });

    // Once the restored machine is ready, the copy is no longer needed: deleted, without a mail.
    cloud.advance(10 * MINUTE);
    await syncVms(deps, { vmId: restored!.id });
    expect((await cloud.vm(restored!.id)).state).toBe('running');
    expect((await sweepSnapshots(deps)).restored).toBeGreaterThanOrEqual(1);
    expect(await findSnapshot(cloud.db, snapshot.id)).toMatchObject({ state: 'deleted' });
    expect(stack.sandboxEc2.state().snapshots.some((s) => s.snapshotId === snapshot.snapshot_id)).toBe(false);
    expect(await cloud.mailKinds(user.email)).not.toContain('disk-deleted');
  });

  it('a renewal while the copy is still being saved waits for it, then brings the files back', async () => {
    const made = await readyMachine();
    await expireAndPassGrace(made.vm.id, made.plan.id);
    await terminateVm(deps, { vmId: made.vm.id });
    const saving = await findLiveSnapshotOfVm(cloud.db, made.vm.id);
    expect(saving).toMatchObject({ state: 'creating' });
    expect(
      checkoutMachineNote({
        plan: { planId: 'legend', name: 'LEGEND', instanceType: 'g4dn.xlarge', storageGb: 115 },
        live: null,
        kept: { state: saving!.state, keepUntil: saving!.keep_until, completedAt: saving!.completed_at },
        now: new Date(),
      }),
    ).toMatch(/being saved right now/);

    // Paid minutes after the expiry: no fresh machine, and no warm-pool spare either.
    const renewal = await cloud.activePlan(made.user.id, { planId: 'legend' });
    await expect(provisionVm(deps, { subscriptionId: renewal.id, userId: made.user.id })).resolves.toBe(
      'in-progress',
    );
    const waiting = await findVmBySubscription(cloud.db, renewal.id);
    expect(waiting).toMatchObject({
      state: 'requested',
      restore_snapshot_id: saving!.id,
      launch_attempts: 0,
    });
    expect(cloud.instancesOf(waiting!.id)).toHaveLength(0);
    const shown = await findDashboardState(stack.services.pgPool, made.user.id);
    const body = dashboardBody({ ...shown!, vmConfig: stack.config.vm, now: new Date() });
    expect(body).toMatchObject({
      vmLastState: 'provisioning',
      notice: VM_MESSAGES.restoringFiles,
      waitingForDiskCopy: true,
    });
    // The reaper's re-drive (or a replayed job) keeps it waiting, launching nothing.
    await expect(provisionVm(deps, { subscriptionId: renewal.id, userId: made.user.id })).resolves.toBe(
      'in-progress',
    );
    expect(cloud.instancesOf(waiting!.id)).toHaveLength(0);
    // Waiting for the copy is what the checkout promised, not a delay: past the provisioning
    // deadline the customer gets no "taking longer" mail and operators no alert.
    const pastDeadline = new Date(Date.now() + (stack.config.vm.provisionDeadlineMinutes + 5) * MINUTE);
    await expect(reapVms(deps, pastDeadline)).resolves.toMatchObject({ late: 0 });
    expect((await cloud.vm(waiting!.id)).delayed_at).toBeNull();
    expect(await cloud.mailKinds(made.user.email)).not.toContain('vm-provision-delayed');
    expect((await listAlerts(cloud.db)).some((a) => a.vm_id === waiting!.id)).toBe(false);

    // The copy completes: it is the new machine's, which is sent to be made from it; the old
    // instance goes; no "your files are kept" mail, since they are already on their way back.
    cloud.advance(5 * MINUTE);
    await syncVms(deps, { vmId: made.vm.id });
    cloud.advance(MINUTE);
    await syncVms(deps, { vmId: made.vm.id });
    expect((await cloud.vm(made.vm.id)).state).toBe('terminated');
    expect(await findSnapshot(cloud.db, saving!.id)).toMatchObject({
      state: 'restored',
      restored_vm_id: waiting!.id,
    });
    expect(await cloud.jobs('vm-provision', { subscriptionId: renewal.id })).not.toHaveLength(0);
    // One ending mail, and it says the files are on the new PC, never "not renewed".
    const endings = (await cloud.mailKinds(made.user.email)).filter((k) =>
      ['disk-kept', 'disk-restored', 'vm-terminated'].includes(k),
    );
    expect(endings).toEqual(['disk-restored']);

    await expect(provisionVm(deps, { subscriptionId: renewal.id, userId: made.user.id })).resolves.toBe(
      'launched',
    );
    const [instance] = cloud.instancesOf(waiting!.id);
    expect(instance).toMatchObject({ restoredFromSnapshot: saving!.snapshot_id, volumeSizeGb: 115 });
    // The old machine, checked again, takes no second copy.
    await syncVms(deps, { vmId: made.vm.id });
    expect(await findLiveSnapshotOfVm(cloud.db, made.vm.id)).toBeNull();
    cloud.advance(10 * MINUTE);
    await syncVms(deps, { vmId: waiting!.id });
    expect((await cloud.vm(waiting!.id)).state).toBe('running');
  });

  it('past the window the snapshot is deleted and the customer told; a later purchase starts fresh', async () => {
    const { user, snapshot } = await keptAfterExpiry();
    const beforeEnd = new Date(snapshot.keep_until.getTime() - MINUTE);
    await sweepSnapshots(deps, beforeEnd);
    expect(await findSnapshot(cloud.db, snapshot.id)).toMatchObject({ state: 'completed' });

    const afterEnd = new Date(snapshot.keep_until.getTime() + MINUTE);
    const report = await sweepSnapshots(deps, afterEnd);
    expect(report.expired).toBeGreaterThanOrEqual(1);
    await sweepSnapshots(deps, afterEnd);
    expect(await findSnapshot(cloud.db, snapshot.id)).toMatchObject({ state: 'deleted' });
    expect(stack.sandboxEc2.state().snapshots.some((s) => s.snapshotId === snapshot.snapshot_id)).toBe(false);
    expect((await cloud.mailKinds(user.email)).filter((k) => k === 'disk-deleted')).toHaveLength(1);
    expect(await findKeptSnapshotOfUser(cloud.db, user.id)).toBeNull();
  });

  it('a snapshot tagged as ours that no row knows is deleted after the orphan grace, with an alert', async () => {
    const { vm } = await readyMachine();
    const volumeId = cloud.instancesOf(vm.id)[0]!.volumeId;
    const stray = await deps.vmEc2.ec2.createSnapshot(volumeId, 'left by hand', {
      [TAGS.app]: 'legend-cloud',
      [TAGS.deployment]: stack.config.ec2.deploymentTag,
    });
    const madeAt = stray.startTime!.getTime();
    expect((await sweepSnapshots(deps, new Date(madeAt + MINUTE))).orphans).toBe(0);
    // The sandbox's clock runs ahead of ours in these tests: age is measured from EC2's own start time.
    const later = new Date(madeAt + (stack.config.vm.orphanGraceMinutes + 1) * MINUTE);
    expect((await sweepSnapshots(deps, later)).orphans).toBe(1);
    expect(stack.sandboxEc2.state().snapshots.some((s) => s.snapshotId === stray.snapshotId)).toBe(false);
    expect((await listAlerts(cloud.db)).some((a) => a.kind === 'orphan-snapshot')).toBe(true);
  });

  it('account deletion leaves no instance, volume or snapshot of that customer', async () => {
    const { user, snapshot } = await keptAfterExpiry();
    // Bought again: a machine is being made from the kept disk when the account is deleted.
    const renewal = await cloud.activePlan(user.id);
    await provisionVm(deps, { subscriptionId: renewal.id, userId: user.id });
    const restoring = await findVmBySubscription(cloud.db, renewal.id);
    expect(restoring?.restore_snapshot_id).toBe(snapshot.id);

    await cloud.db.transaction(async (trx) => {
      // As DELETE /api/user does: the account is marked deleted in the same transaction.
      await trx.query(sql.unsafe`UPDATE users SET deleted_at = now() WHERE id = ${user.id}`);
      await releaseUserResources(trx, stack.services.boss, user.id);
    });
    expect(await cloud.jobs('vm-reconcile')).not.toHaveLength(0);
    await terminateVm(deps, { vmId: restoring!.id });
    await sweepSnapshots(deps);

    const owned = (tags: Record<string, string>) => tags[TAGS.owner] === user.id;
    const state = stack.sandboxEc2.state();
    // A root volume is deleted with its instance (DeleteOnTermination): no live instance, no volume.
    expect(
      state.instances.filter((i) => owned(i.tags) && i.state !== 'terminated' && i.state !== 'shutting-down'),
    ).toHaveLength(0);
    expect(state.snapshots.filter((s) => owned(s.tags))).toHaveLength(0);
    expect(await findSnapshot(cloud.db, snapshot.id)).toMatchObject({ state: 'deleted' });
    // The customer is gone: no mail about it.
    expect(await cloud.mailKinds(user.email)).not.toContain('disk-deleted');
  });
});
