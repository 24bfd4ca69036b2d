import { afterAll, describe, expect, it } from 'vitest';
import { listAlerts } from '../../core/db/operatorAlerts.ts';
import { sql } from '../../core/db/pool.ts';
import { diskCopyNotBegun, findLiveSnapshotOfVm, findSnapshot } from '../../core/db/snapshots.ts';
import { findSubscription } from '../../core/db/subscriptions.ts';
import { findVmBySubscription, listPaidWithoutMachine } from '../../core/db/vms.ts';
import { planAwaitsMachine } from '../../core/domain/planMachine.ts';
import { provisionVm } from '../../worker/jobs/vmProvision.ts';
import { reapVms } from '../../worker/jobs/vmReaper.ts';
import { syncVms } from '../../worker/jobs/vmSync.ts';
import { terminateVm } from '../../worker/jobs/vmTerminate.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { machineHelpers } from '../support/machines.ts';
import { startTestStack } from '../support/stack.ts';

/**
 * Work that stalls without anyone saying so: a renewal whose provisioning dead-lettered before it
 * moved the customer's machine onto the new plan, a kept disk's copy that EC2 never finishes, and
 * a renewal that arrives as the expired machine is being deleted, before its disk's copy is begun.
 * Real Postgres, the sandbox EC2 through the real SDK, the handlers as the worker calls them.
 */

const stack = await startTestStack();
const cloud = cloudPcHelpers(stack);
const deps = cloud.deps();
afterAll(() => cloud.destroy());

const MINUTE = 60_000;

const {
  runningMachine: readyMachine,
  expireToStopped: expire,
  expireAndPassGrace,
} = machineHelpers(stack, cloud, deps);

describe('a renewal whose provisioning dead-lettered', () => {
  it("is sent again by the reaper, which moves the customer's machine onto it and starts it", async () => {
    const { user, plan, vm } = await readyMachine();
    await expire(vm.id, plan.id);
    // Renewed by hand; its vm-provision died (or dead-lettered) before moving the machine over.
    const renewal = await cloud.activePlan(user.id);
    expect((await cloud.vm(vm.id)).subscription_id).toBe(plan.id);
    const sent = async () => (await cloud.jobs('vm-provision', { subscriptionId: renewal.id })).length;
    const before = await sent();

    // Within the deadline its own job may still be at work: nothing.
    await reapVms(deps, new Date());
    expect(await sent()).toBe(before);

    const late = new Date(Date.now() + (stack.config.vm.provisionDeadlineMinutes + 1) * MINUTE);
    // The SQL and the domain's rule agree on it.
    const listed = await listPaidWithoutMachine(cloud.db, late, stack.config.vm.provisionDeadlineMinutes);
    expect(listed.find((p) => p.subscription_id === renewal.id)).toMatchObject({ live_vm_id: vm.id });
    const row = (await findSubscription(cloud.db, renewal.id))!;
    expect(
      planAwaitsMachine(
        { status: row.status, expiresAt: row.expires_at, hours: row.hours, purchasedAt: row.purchased_at },
        false,
        late,
        stack.config.vm.provisionDeadlineMinutes,
      ),
    ).toBe(true);

    await reapVms(deps, late);
    await reapVms(deps, late);
    expect(await sent()).toBe(before + 1);
    const alert = (await listAlerts(cloud.db)).find(
      (a) => a.dedupe_key === `provision-no-machine:${renewal.id}`,
    );
    expect(alert).toMatchObject({ kind: 'provision-delayed', vm_id: vm.id });
    expect(alert?.message).toMatch(/never moved onto the customer's machine/);

    // The job sent again does what the lost one should have: the same machine, renewed, started.
    await expect(provisionVm(deps, { subscriptionId: renewal.id, userId: user.id })).resolves.toBe('renewed');
    expect(await cloud.vm(vm.id)).toMatchObject({ subscription_id: renewal.id, state: 'starting' });
    expect(cloud.instancesOf(vm.id)).toHaveLength(1);
    // Served now: never sent again.
    await reapVms(deps, new Date(late.getTime() + 10 * MINUTE));
    expect(await sent()).toBe(before + 1);
  });
});

describe("a kept disk's copy that never completes", () => {
  it('past SNAPSHOT_DEADLINE_HOURS it is given up, an operator told, and another taken; the instance stays until one is safe', async () => {
    const { user, plan, vm } = await readyMachine();
    await expireAndPassGrace(vm.id, plan.id);
    await terminateVm(deps, { vmId: vm.id });
    const stuck = await findLiveSnapshotOfVm(cloud.db, vm.id);
    expect(stuck).toMatchObject({ state: 'creating' });
    expect(stuck?.snapshot_id).toMatch(/^snap-/);

    // EC2 keeps it pending. Within the deadline it is only looked at again.
    await syncVms(deps, { vmId: vm.id });
    expect(await findSnapshot(cloud.db, stuck!.id)).toMatchObject({ state: 'creating' });

    // Asked for longer ago than the deadline (default 6 hours), still pending.
    const hours = stack.config.vm.snapshotDeadlineHours;
    expect(hours).toBe(6);
    await cloud.exec(
      sql.unsafe`UPDATE vm_snapshots SET created_at = now() - make_interval(mins => ${hours * 60 + 1})
                 WHERE id = ${stuck!.id}`,
    );
    await syncVms(deps, { vmId: vm.id });
    expect(await findSnapshot(cloud.db, stuck!.id)).toMatchObject({ state: 'failed' });
    const alert = (await listAlerts(cloud.db)).find((a) => a.vm_id === vm.id && a.kind === 'snapshot-failed');
    expect(alert?.message).toMatch(
      /still not complete after 6 hours; taking another before deleting the instance/,
    );
    const retake = await findLiveSnapshotOfVm(cloud.db, vm.id);
    expect(retake).toMatchObject({ state: 'creating' });
    expect(retake!.id).not.toBe(stuck!.id);
    expect(retake!.snapshot_id).toMatch(/^snap-/);
    expect(retake!.snapshot_id).not.toBe(stuck!.snapshot_id);
    // The files are still only on the instance: it is kept.
    expect(cloud.instancesOf(vm.id, { live: true })).toHaveLength(1);
    expect((await cloud.vm(vm.id)).state).toBe('terminating');

    // The retake completes: the disk is kept from it, the instance goes, the customer told once.
    cloud.advance(5 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    cloud.advance(MINUTE);
    await syncVms(deps, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).state).toBe('terminated');
    expect(await findSnapshot(cloud.db, retake!.id)).toMatchObject({ state: 'completed' });
    expect(cloud.instancesOf(vm.id, { live: true })).toHaveLength(0);
    expect((await cloud.mailKinds(user.email)).filter((k) => k === 'disk-kept')).toHaveLength(1);
  });
});

describe('a renewal as the expired machine is being deleted, before its copy is begun', () => {
  it('waits for the copy instead of launching a fresh machine, then brings the files back from it', async () => {
    const { user, plan, vm } = await readyMachine();
    await expireAndPassGrace(vm.id, plan.id);
    // Terminating with its disk kept; its job has not run yet, so no copy is begun.
    expect(await cloud.vm(vm.id)).toMatchObject({ state: 'terminating', keep_disk: true });
    expect(await findLiveSnapshotOfVm(cloud.db, vm.id)).toBeNull();
    expect(await diskCopyNotBegun(cloud.db, user.id)).toBe(true);

    const renewal = await cloud.activePlan(user.id);
    // Tried again with backoff: no machine row, no instance, no warm-pool spare claimed.
    await expect(provisionVm(deps, { subscriptionId: renewal.id, userId: user.id })).rejects.toThrow(
      /copy of its disk is not begun yet/,
    );
    expect(await findVmBySubscription(cloud.db, renewal.id)).toBeNull();

    // The deletion's job begins the copy; the renewal's next try waits for it.
    await terminateVm(deps, { vmId: vm.id });
    const saving = await findLiveSnapshotOfVm(cloud.db, vm.id);
    expect(saving).toMatchObject({ state: 'creating' });
    expect(await diskCopyNotBegun(cloud.db, user.id)).toBe(false);
    await expect(provisionVm(deps, { subscriptionId: renewal.id, userId: user.id })).resolves.toBe(
      'in-progress',
    );
    const waiting = await findVmBySubscription(cloud.db, renewal.id);
    expect(waiting).toMatchObject({ state: 'requested', restore_snapshot_id: saving!.id });
    expect(cloud.instancesOf(waiting!.id)).toHaveLength(0);

    // The copy completes and is handed over; the new machine is launched from it.
    cloud.advance(5 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    cloud.advance(MINUTE);
    await syncVms(deps, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).state).toBe('terminated');
    await expect(provisionVm(deps, { subscriptionId: renewal.id, userId: user.id })).resolves.toBe(
      'launched',
    );
    expect(cloud.instancesOf(waiting!.id)).toMatchObject([{ restoredFromSnapshot: saving!.snapshot_id }]);
  });
});
