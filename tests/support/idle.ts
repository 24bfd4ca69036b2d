import { expect } from 'vitest';
import { findVmBySubscription } from '../../core/db/vms.ts';
import { IDLE_METRICS } from '../../core/providers/cloudwatch.ts';
import { sweepIdleMachines, type IdleSweepDeps } from '../../worker/jobs/vmIdle.ts';
import { provisionVm } from '../../worker/jobs/vmProvision.ts';
import { syncVms } from '../../worker/jobs/vmSync.ts';
import { createUser, logIn, newClient } from './accounts.ts';
import type { cloudPcHelpers } from './cloudPc.ts';
import type { TestStack } from './stack.ts';

/**
 * Idle auto-stop test helpers: machines really running in the sandbox EC2, their CloudWatch
 * series scripted through the sandbox's control API, and the `vm-idle` sweep run at the
 * sandbox world's time.
 */
export function idleHelpers(
  stack: TestStack,
  cloud: ReturnType<typeof cloudPcHelpers>,
  sweepDeps: IdleSweepDeps,
) {
  const MINUTE = 60_000;
  const worldNow = () => new Date(stack.sandboxEc2.state().now);
  type Series = {
    cpu: number | null;
    gpu: number | null;
    rdp: number | null;
    dcv: number | null;
    networkOutBytes: number | null;
  };
  const QUIET: Series = { cpu: 2, gpu: 1, rdp: 0, dcv: 0, networkOutBytes: 60_000 };

  /** Scripts every idle series of one instance, through the sandbox CloudWatch's control API. */
  async function script(
    instanceId: string,
    series: Partial<Series>,
    range: { from?: number; to?: number } = {},
  ) {
    const all = { ...QUIET, ...series };
    const response = await fetch(`${stack.url}/sandbox/cloudwatch/_control`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        series: (Object.keys(all) as Array<keyof Series>).map((kind) => ({
          instanceId,
          namespace: IDLE_METRICS[kind].namespace,
          metricName: IDLE_METRICS[kind].metricName,
          value: all[kind],
          ...range,
        })),
      }),
    });
    expect(response.status).toBe(200);
  }

  /** A customer whose machine runs in the sandbox EC2, provisioned and synced by the jobs. */
  async function runningMachine() {
    const deps = cloud.deps();
    const user = await createUser(stack);
    const client = newClient(stack);
    await logIn(client, user.email);
    const plan = await cloud.activePlan(user.id, {
      hours: 45,
      purchasedAt: new Date(Date.now() - 5 * 86_400_000),
    });
    await provisionVm(deps, { subscriptionId: plan.id, userId: user.id });
    const launched = await findVmBySubscription(stack.services.db, plan.id);
    if (!launched) throw new Error('no vm');
    cloud.advance(10 * MINUTE);
    await syncVms(deps, { vmId: launched.id });
    const vm = await cloud.vm(launched.id);
    expect(vm.state).toBe('running');
    const instance = cloud.instancesOf(vm.id, { live: true })[0]!;
    // Evidence can start no earlier than both our record of the start and EC2's.
    const since = Math.max(vm.started_at!.getTime(), Date.parse(instance.launchTime));
    return { user, client, vm, instanceId: vm.instance_id!, since };
  }

  /** Moves the world until `minutes` after `since` and sweeps at that moment. */
  async function sweepAt(since: number, minutes: number) {
    const target = since + minutes * MINUTE;
    const ahead = target - worldNow().getTime();
    if (ahead > 0) cloud.advance(ahead);
    return sweepIdleMachines(sweepDeps, worldNow());
  }

  return { script, runningMachine, sweepAt, worldNow };
}
