import { provisionStep } from '../../core/domain/planMachine.ts';
import type { Payload } from '../../core/queue.ts';
import { requestStart, scheduleVmCheck } from '../../core/commands/vmActions.ts';
import { choosePlanMachine } from '../../core/commands/planMachine.ts';
import type { WorkerDeps } from '../deps.ts';
import { eachJobSettled } from '../job.ts';
import { RetryLater } from '../ec2Errors.ts';
import { advanceMachine } from '../lifecycle/advance.ts';
import { planFacts } from '../lifecycle/inputs.ts';

/**
 * `vm-provision`: the machine of a newly activated plan. Sent by payment-verify in the
 * activating transaction (and again by the reaper when a provisioning stalls).
 *
 * Which machine serves the plan is decided under the user's plan lock (`machineForPlan`: one
 * live machine per user): the one it has, the customer's machine kept (a renewal: same
 * instance, same disk, started — changed to the new plan's type and disk first when the plan is
 * of another kind), or a new one (from the customer's kept snapshot when there is one, so their
 * files come back; while the customer's last machine is being deleted and its disk's copy is not
 * begun yet, the job is tried again until it is). A new machine is then taken
 * forward by the lifecycle executor: a warm-pool instance claimed and started, or a launch with
 * ClientToken = the machine's id, so however often this runs EC2 creates one instance. Capacity
 * errors throw to retry with backoff; the queue's attempt budget is the launch budget.
 */
export function vmProvision(deps: WorkerDeps) {
  // A batch's machines are provisioned at once, each job settled on its own (the worker
  // registers this queue with `perJobResults`): a burst of purchases is not paced by the
  // polling interval, and a capacity error retries only its own job (and spends its budget).
  return eachJobSettled('vm-provision', deps.log, (payload, job) => provisionVm(deps, payload, job.id));
}

export type ProvisionOutcome =
  'skipped' | 'renewed' | 'claimed-pool' | 'launched' | 'in-progress' | 'failed' | 'nothing-to-do';

export async function provisionVm(
  deps: WorkerDeps,
  { subscriptionId, userId }: Payload<'vm-provision'>,
  jobId?: string,
): Promise<ProvisionOutcome> {
  const { db, boss } = deps;
  const log = deps.log.child({ jobId, subscriptionId, queue: 'vm-provision' });
  const now = new Date();
  const chosen = await choosePlanMachine(db, { subscriptionId, userId }, now);
  if (chosen.kind === 'skip') {
    log.info({ why: chosen.why }, 'vm-provision: nothing to provision');
    return 'skipped';
  }
  // Tried again with the queue's backoff; past its budget, the reaper sends it again.
  if (chosen.kind === 'wait') throw new RetryLater(chosen.why);
  const { vm, subscription, renewal } = chosen;
  const vmLog = log.child({ vmId: vm.id });
  const step = provisionStep({
    machine: {
      state: vm.state,
      readyAt: vm.ready_at,
      startRequestedAt: vm.start_requested_at,
      stopRequestedAt: vm.stop_requested_at,
      subscriptionAttachedAt: vm.subscription_attached_at,
      resizePending: vm.resize_to_type !== null || vm.resize_to_gb !== null,
    },
    renewal,
    plan: planFacts(subscription),
    now,
  });
  switch (step.kind) {
    case 'advance': {
      const { steps } = await advanceMachine(deps, vm, { mode: 'job', subscription });
      const outcomes = steps.map((s) => s.outcome);
      if (outcomes.includes('failed')) return 'failed';
      if (outcomes.includes('claimed-pool')) return 'claimed-pool';
      if (outcomes.includes('launched')) return 'launched';
      // Sent again for a machine already under way (the reaper, a replay): its follow-up
      // checks may have died with the worker that scheduled them.
      if (steps.length === 0) await scheduleVmCheck(boss, deps.config, { vmId: vm.id });
      return 'in-progress';
    }
    case 'retry-later':
      throw new RetryLater(step.reason);
    case 'start':
      // A pending plan change is made by the start: starting → change the stopped instance → start.
      await requestStart(db, boss, vm.id, 'renewal', now);
      vmLog.info(`vm-provision: ${step.reason}`);
      return 'renewed';
    case 'change-running':
      // The lifecycle stops it, changes it and starts it.
      await advanceMachine(deps, vm, { mode: 'job', subscription });
      vmLog.info(`vm-provision: ${step.reason}`);
      return 'renewed';
    case 'renewed':
      return 'renewed';
    case 'nothing':
      vmLog.info({ state: vm.state }, `vm-provision: ${step.reason}`);
      return 'nothing-to-do';
  }
}
