import { expect } from 'vitest';
import { sql } from '../../core/db/pool.ts';
import { findVmBySubscription } from '../../core/db/vms.ts';
import type { PlanId } from '../../core/domain/plans.ts';
import type { WorkerDeps } from '../../worker/deps.ts';
import { runPlanExpiry } from '../../worker/jobs/planExpiry.ts';
import { provisionVm } from '../../worker/jobs/vmProvision.ts';
import { stopVm } from '../../worker/jobs/vmStop.ts';
import { syncVms } from '../../worker/jobs/vmSync.ts';
import { createUser } from './accounts.ts';
import type { cloudPcHelpers } from './cloudPc.ts';
import type { TestStack } from './stack.ts';

const MINUTE = 60_000;
const DAY = 86_400_000;

/**
 * A customer's machine taken through its life by the job handlers, as the worker would: bought
 * and running, then its plan ended and the machine stopped (kept through the grace period).
 */
export function machineHelpers(stack: TestStack, cloud: ReturnType<typeof cloudPcHelpers>, deps: WorkerDeps) {
  /** A new customer with a paid plan whose machine is running. */
  async function runningMachine(options: { planId?: PlanId; hours?: 30 | 45 | 65 | 90 } = {}) {
    const user = await createUser(stack);
    const plan = await cloud.activePlan(user.id, options);
    await provisionVm(deps, { subscriptionId: plan.id, userId: user.id });
    const vm = await findVmBySubscription(cloud.db, plan.id);
    if (!vm) throw new Error('no vm');
    cloud.advance(10 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).state).toBe('running');
    return { user, plan, vm: await cloud.vm(vm.id) };
  }

  /** The plan ends a minute ago: plan-expiry stops the machine, which is kept (stopped). */
  async function expireToStopped(vmId: string, planId: string) {
    await cloud.exec(
      sql.unsafe`UPDATE subscriptions SET expires_at = now() - interval '1 minute' WHERE id = ${planId}`,
    );
    await runPlanExpiry(deps);
    await stopVm(deps, { vmId });
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId });
    expect((await cloud.vm(vmId)).state).toBe('stopped');
  }

  /** …and its grace period over: plan-expiry sends it to be deleted, its disk kept first. */
  async function expireAndPassGrace(vmId: string, planId: string) {
    await expireToStopped(vmId, planId);
    const pastGrace = new Date(Date.now() + (stack.config.vm.graceDays + 1) * DAY);
    expect((await runPlanExpiry(deps, pastGrace)).terminated).toBe(1);
  }

  return { runningMachine, expireToStopped, expireAndPassGrace };
}
