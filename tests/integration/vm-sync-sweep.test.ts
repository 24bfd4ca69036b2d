import { afterAll, describe, expect, it } from 'vitest';
import { sql } from '../../core/db/pool.ts';
import { syncVms } from '../../worker/jobs/vmSync.ts';
import { sweepFleet } from '../../worker/lifecycle/sweep.ts';
import { stopVm } from '../../worker/jobs/vmStop.ts';
import { requestStop } from '../../core/commands/vmActions.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { machineHelpers } from '../support/machines.ts';
import { startTestStack } from '../support/stack.ts';
import { listNoticesOfUser } from '../support/rows.ts';

/**
 * The minute sweep at fleet size works from one paged listing of the deployment's instances and
 * writes only what changed: machines that match EC2 are not written at all, running ones whose
 * only change is time are counted in one batched statement, and a machine whose instance changed
 * still converges through the lifecycle executor. Real Postgres, the sandbox EC2 via the SDK.
 */

const stack = await startTestStack();
const cloud = cloudPcHelpers(stack);
const deps = cloud.deps();
afterAll(() => cloud.destroy());

const MINUTE = 60_000;

const running = () => machineHelpers(stack, cloud, deps).runningMachine({ hours: 30 });

describe('vm-sync sweep over the fleet', () => {
  it('leaves matching machines unwritten, counts running ones in a batch, and converges a changed one', async () => {
    const counted = await running();
    const shutDown = await running();
    const stopped = await running();
    await requestStop(cloud.db, stack.services.boss, stopped.vm.id, 'user', new Date());
    await stopVm(deps, { vmId: stopped.vm.id });
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: stopped.vm.id });
    expect((await cloud.vm(stopped.vm.id)).state).toBe('stopped');

    // Shut down from inside Windows: only EC2 knows.
    await deps.vmEc2.ec2.stopInstance(shutDown.vm.instance_id!);
    cloud.advance(2 * MINUTE);
    await cloud.exec(sql.unsafe`
      UPDATE vms SET usage_counted_at = now() - interval '10 minutes' WHERE id = ${counted.vm.id}`);
    const before = {
      counted: await cloud.vm(counted.vm.id),
      stopped: await cloud.vm(stopped.vm.id),
    };

    const stats = await sweepFleet(deps);

    const after = {
      counted: await cloud.vm(counted.vm.id),
      shutDown: await cloud.vm(shutDown.vm.id),
      stopped: await cloud.vm(stopped.vm.id),
    };
    // Unchanged: not written at all.
    expect(after.stopped.updated_at).toEqual(before.stopped.updated_at);
    expect(after.stopped.synced_at).toEqual(before.stopped.synced_at);
    // Running: about ten minutes counted, by the batched write.
    expect(after.counted.state).toBe('running');
    expect(after.counted.usage_seconds - before.counted.usage_seconds).toBeGreaterThanOrEqual(600);
    expect(after.counted.usage_counted_at!.getTime()).toBeGreaterThan(
      before.counted.usage_counted_at!.getTime(),
    );
    expect(after.counted.synced_at).not.toBeNull();
    // Changed in EC2: the executor took it to stopped, as the customer's own shut-down.
    expect(after.shutDown).toMatchObject({ state: 'stopped', state_reason: 'shut-down' });

    expect(stats.instances).toBeGreaterThanOrEqual(3);
    expect(stats.accrued).toBeGreaterThanOrEqual(1);
    expect(stats.stepped).toBeGreaterThanOrEqual(1);
    expect(stats.unchanged).toBeGreaterThanOrEqual(1);
    expect(stats.describedById).toBe(0);

    // Nothing changed since: the next pass steps no machine of these three.
    const again = await sweepFleet(deps);
    expect((await cloud.vm(shutDown.vm.id)).updated_at).toEqual(after.shutDown.updated_at);
    expect((await cloud.vm(stopped.vm.id)).updated_at).toEqual(after.stopped.updated_at);
    expect(again.machines).toBe(stats.machines);
  });

  it('sends an hour notice through the executor once, then counts the machine in the batch', async () => {
    const { vm, user } = await running();
    const planSeconds = 30 * 3600;
    await cloud.exec(sql.unsafe`
      UPDATE vms SET usage_seconds = ${planSeconds * 0.8 + 60}, usage_counted_at = now() - interval '5 seconds'
      WHERE id = ${vm.id}`);
    await sweepFleet(deps);
    expect(await cloud.mailKinds(user.email)).toEqual(['vm-hours-80']);
    const first = await cloud.vm(vm.id);

    await cloud.exec(sql.unsafe`
      UPDATE vms SET usage_counted_at = now() - interval '1 minute' WHERE id = ${vm.id}`);
    await sweepFleet(deps);
    const second = await cloud.vm(vm.id);
    expect(second.usage_seconds - first.usage_seconds).toBeGreaterThanOrEqual(55);
    expect(await cloud.mailKinds(user.email)).toEqual(['vm-hours-80']);
    expect((await listNoticesOfUser(cloud.db, user.id)).map((n) => n.kind)).toEqual(['hours-80']);
  });

  it('asks EC2 by id for an instance the tag listing does not show, and finds it gone', async () => {
    const { vm } = await running();
    // Our deployment tag overwritten by hand, then the instance terminated outside us.
    await deps.vmEc2.ec2.tagInstances([vm.instance_id!], { 'legend:deployment': 'someone-else' });
    await deps.vmEc2.ec2.terminateInstance(vm.instance_id!);
    cloud.advance(2 * MINUTE);
    const stats = await sweepFleet(deps);
    expect(stats.describedById).toBeGreaterThanOrEqual(1);
    // Lost: retired, its paid plan given a new machine (replacement has its own tests).
    expect(await cloud.vm(vm.id)).toMatchObject({ state: 'terminating', state_reason: 'replaced' });
  });
});
