import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { dashboardBody } from '../../api/presenters/vm.ts';
import { findDashboardState } from '../../core/db/dashboard.ts';
import { listAlerts } from '../../core/db/operatorAlerts.ts';
import { sql } from '../../core/db/pool.ts';
import { findVmBySubscription } from '../../core/db/vms.ts';
import { formatLongDate } from '../../core/domain/time.ts';
import { createLogger } from '../../core/observability/log.ts';
import { createCloudWatch } from '../../core/providers/cloudwatch.ts';
import { snapshotTags } from '../../core/providers/vmEc2.ts';
import { sweepScheduledEvents } from '../../worker/jobs/vmEvents.ts';
import { provisionVm } from '../../worker/jobs/vmProvision.ts';
import { startVm } from '../../worker/jobs/vmStart.ts';
import { stopVm } from '../../worker/jobs/vmStop.ts';
import { syncVms } from '../../worker/jobs/vmSync.ts';
import { terminateVm } from '../../worker/jobs/vmTerminate.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { idleHelpers } from '../support/idle.ts';
import { machineHelpers } from '../support/machines.ts';
import { startTestStack } from '../support/stack.ts';

/**
 * Machines that vanish or are about to, against the sandbox EC2 through the real SDK: a paid
 * machine whose instance was terminated outside us is replaced (from the latest kept copy of its
 * disk when there is one, the customer told plainly whether the files came back), and a machine
 * whose hardware EC2 schedules for retirement is moved by a stop and start before the event —
 * while nobody is connected (the idle rule's session counts), or at the deadline.
 */

const stack = await startTestStack();
const cloud = cloudPcHelpers(stack);
const deps = cloud.deps();
const cloudWatch = createCloudWatch({ ...stack.config.metrics.cloudWatch, maxAttempts: 1 });
afterAll(() => {
  cloud.destroy();
  cloudWatch.destroy();
});
const { runningMachine } = machineHelpers(stack, cloud, deps);
const { script, worldNow } = idleHelpers(stack, cloud, {
  db: stack.services.db,
  boss: stack.services.boss,
  log: createLogger({ level: 'silent', name: 'test' }),
  config: stack.config,
  cloudWatch,
});

const MINUTE = 60_000;
const DAY = 86_400_000;

async function mailsTo(email: string) {
  return (await cloud.jobs('email-send', { to: email })).map(
    (job) => job.data as { kind: string; subject: string; text: string },
  );
}

async function noticeOf(userId: string) {
  const shown = await findDashboardState(stack.services.pgPool, userId);
  return dashboardBody({ ...shown!, vmConfig: stack.config.vm, now: new Date() }).notice;
}

/** Terminated outside us (by hand, by AWS), then seen by the machine's next check. */
async function loseInstance(vmId: string, instanceId: string) {
  await deps.vmEc2.ec2.terminateInstance(instanceId);
  cloud.advance(2 * MINUTE);
  await syncVms(deps, { vmId });
}

describe('a paid machine whose instance is lost', () => {
  it('is replaced by a new machine for the same plan, its hours kept; the customer told the files did not come back', async () => {
    const { user, plan, vm } = await runningMachine();
    await cloud.exec(sql.unsafe`UPDATE vms SET usage_seconds = 3600 WHERE id = ${vm.id}`);
    await loseInstance(vm.id, vm.instance_id!);

    expect(await cloud.vm(vm.id)).toMatchObject({ state: 'terminating', state_reason: 'replaced' });
    const [told] = (await mailsTo(user.email)).filter((m) => m.kind === 'vm-replaced');
    expect(told?.subject).toBe('Your cloud PC is being replaced; your files could not be saved');
    expect(told?.text).toMatch(/Your files did not come back: there was no saved copy of its disk/);
    const alert = (await listAlerts(cloud.db)).find(
      (a) => a.vm_id === vm.id && a.kind === 'instance-replaced',
    );
    expect(alert?.message).toMatch(/without the files \(no kept copy of its disk\)/);

    // The provisioning sent with it makes the new machine: a launch, the hours already used kept.
    expect(await cloud.jobs('vm-provision', { subscriptionId: plan.id })).not.toHaveLength(0);
    await expect(provisionVm(deps, { subscriptionId: plan.id, userId: user.id })).resolves.toBe('launched');
    const replacement = (await findVmBySubscription(cloud.db, plan.id))!;
    expect(replacement.id).not.toBe(vm.id);
    expect(replacement).toMatchObject({ restore_snapshot_id: null, usage_seconds: 3600 });
    cloud.advance(10 * MINUTE);
    await syncVms(deps, { vmId: replacement.id });
    expect((await cloud.vm(replacement.id)).state).toBe('running');
    // The lost row ends without another mail.
    await terminateVm(deps, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).state).toBe('terminated');
    expect((await mailsTo(user.email)).filter((m) => m.kind === 'vm-replaced')).toHaveLength(1);
  });

  it('is made again from the latest kept copy of its disk, and the customer is told the files came back and from when', async () => {
    const { user, plan, vm } = await runningMachine();
    const volumeId = cloud.instancesOf(vm.id)[0]!.volumeId;
    const row = await cloud.db.one(sql.type(z.object({ id: z.string() }))`
      INSERT INTO vm_snapshots (user_id, vm_id, volume_gb, instance_type, created_at, keep_until)
      VALUES (${user.id}, ${vm.id}, ${vm.storage_gb}, ${vm.instance_type}, now(), now() + interval '30 days')
      RETURNING id`);
    const snapshot = await deps.vmEc2.ec2.createSnapshot(
      volumeId,
      'kept copy',
      snapshotTags(stack.config.ec2, { id: row.id, vmId: vm.id, userId: user.id }),
    );
    await cloud.exec(sql.unsafe`
      UPDATE vm_snapshots SET snapshot_id = ${snapshot.snapshotId}, state = 'completed', completed_at = now()
      WHERE id = ${row.id}`);
    cloud.advance(10 * MINUTE);

    await loseInstance(vm.id, vm.instance_id!);
    const [told] = (await mailsTo(user.email)).filter((m) => m.kind === 'vm-replaced');
    expect(told?.subject).toBe('Your cloud PC is being replaced; your files come back');
    expect(told?.text).toContain(`starts from the copy of your disk saved on ${formatLongDate(new Date())}`);

    await expect(provisionVm(deps, { subscriptionId: plan.id, userId: user.id })).resolves.toBe('launched');
    const replacement = (await findVmBySubscription(cloud.db, plan.id))!;
    expect(replacement.restore_snapshot_id).toBe(row.id);
    expect(cloud.instancesOf(replacement.id)[0]).toMatchObject({ restoredFromSnapshot: snapshot.snapshotId });
  });
});

describe('EC2 scheduled events on a machine’s hardware', () => {
  it('a running machine is warned with the date, then moved by a stop and start once nobody is connected, before the event', async () => {
    const { user, vm } = await runningMachine();
    const instanceId = vm.instance_id!;
    stack.sandboxEc2.control({ events: [{ instanceId, code: 'instance-retirement', inMs: 3 * DAY }] });
    const notBefore = Date.parse(
      stack.sandboxEc2.state().instances.find((i) => i.instanceId === instanceId)!.events[0]!.notBefore,
    );

    // Someone is connected: the dashboard says the date; nothing is moved yet.
    await script(instanceId, { rdp: 1 });
    cloud.advance(10 * MINUTE);
    await expect(sweepScheduledEvents(deps, worldNow())).resolves.toMatchObject({ warned: 1, moved: 0 });
    expect(await noticeOf(user.id)).toMatch(
      new RegExp(`retiring the hardware your PC runs on, on ${formatLongDate(notBefore)}`),
    );
    expect((await listAlerts(cloud.db)).some((a) => a.kind === 'scheduled-event' && a.vm_id === vm.id)).toBe(
      true,
    );
    expect((await cloud.vm(vm.id)).state).toBe('running');

    // Nobody connected any more: it is stopped and started on other hardware.
    await script(instanceId, { rdp: 0, dcv: 0 });
    cloud.advance(10 * MINUTE);
    await expect(sweepScheduledEvents(deps, worldNow())).resolves.toMatchObject({ moved: 1 });
    expect(await cloud.vm(vm.id)).toMatchObject({ state: 'stopping', state_reason: 'hardware-move' });
    await stopVm(deps, { vmId: vm.id });
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    // Stopped by us to move it: started again at once, as for a plan change.
    expect((await cloud.vm(vm.id)).state).toBe('starting');
    await startVm(deps, { vmId: vm.id });
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    const moved = await cloud.vm(vm.id);
    expect(moved.state).toBe('running');
    expect(moved.instance_id).toBe(instanceId);

    // Before the event: EC2 lists it no more, the machine never met it.
    expect(worldNow().getTime()).toBeLessThan(notBefore);
    const instance = stack.sandboxEc2.state().instances.find((i) => i.instanceId === instanceId)!;
    expect(instance).toMatchObject({ events: [], stoppedByEvent: null, state: 'running' });
    await expect(sweepScheduledEvents(deps, worldNow())).resolves.toMatchObject({ over: 1 });
    expect(await noticeOf(user.id)).toBeNull();
    const row = await cloud.db.one(sql.type(
      z.object({ moved_at: z.date().nullable(), done_at: z.date().nullable() }),
    )`
      SELECT moved_at, done_at FROM machine_events WHERE vm_id = ${vm.id}`);
    expect(row.moved_at).not.toBeNull();
    expect(row.done_at).not.toBeNull();
  });

  it('someone always connected: moved at the deadline, still before the event', async () => {
    const { vm } = await runningMachine();
    const instanceId = vm.instance_id!;
    await script(instanceId, { rdp: 1 });
    stack.sandboxEc2.control({ events: [{ instanceId, code: 'instance-stop', inMs: 45 * MINUTE }] });
    await expect(sweepScheduledEvents(deps, worldNow())).resolves.toMatchObject({ moved: 1 });
    await stopVm(deps, { vmId: vm.id });
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    await startVm(deps, { vmId: vm.id });
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).state).toBe('running');
    // Past the event's time now: it never stopped the machine, which had moved.
    cloud.advance(45 * MINUTE);
    const instance = stack.sandboxEc2.state().instances.find((i) => i.instanceId === instanceId)!;
    expect(instance).toMatchObject({ state: 'running', stoppedByEvent: null });
  });

  it('a stopped machine is left alone: its next START runs on other hardware', async () => {
    const { user, vm } = await runningMachine();
    const instanceId = vm.instance_id!;
    const { requestStop, requestStart } = await import('../../core/commands/vmActions.ts');
    await requestStop(cloud.db, stack.services.boss, vm.id, 'user', new Date());
    await stopVm(deps, { vmId: vm.id });
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).state).toBe('stopped');
    stack.sandboxEc2.control({ events: [{ instanceId, code: 'instance-retirement', inMs: 2 * DAY }] });
    await expect(sweepScheduledEvents(deps, worldNow())).resolves.toMatchObject({
      seen: 1,
      warned: 0,
      moved: 0,
    });
    expect(await cloud.vm(vm.id)).toMatchObject({ state: 'stopped', state_reason: 'user' });
    expect(await noticeOf(user.id)).toBeNull();
    // The customer starts it: other hardware, the event gone.
    await requestStart(cloud.db, stack.services.boss, vm.id, 'user', new Date());
    await startVm(deps, { vmId: vm.id });
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).state).toBe('running');
    await expect(sweepScheduledEvents(deps, worldNow())).resolves.toMatchObject({ over: 1 });
  });
});
