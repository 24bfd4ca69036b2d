import { lockUserPlans, findSubscription, type Subscription } from '../../core/db/subscriptions.ts';
import { findKeptSnapshotOfUser, markSnapshotRestored } from '../../core/db/snapshots.ts';
import {
  attachSubscription,
  findLiveVmByUser,
  findVmBySubscription,
  insertVm,
  recordPlanChange,
  type Vm,
} from '../../core/db/vms.ts';
import { machineForPlan, planInForce } from '../../core/domain/lifecycle.ts';
import { parsePayload, type Job, type Payload } from '../../core/queue.ts';
import { requestStart, scheduleVmCheck } from '../../core/commands/vmActions.ts';
import { RetryLater } from '../cloudPc.ts';
import type { WorkerDeps } from '../deps.ts';
import { advanceMachine, planFacts } from '../lifecycle.ts';

/**
 * `vm-provision`: the machine of a newly activated plan. Sent by payment-verify in the
 * activating transaction (and again by the reaper when a provisioning stalls).
 *
 * Which machine serves the plan is decided under the user's plan lock (`machineForPlan`: one
 * live machine per user): the one it has, the customer's machine kept (a renewal: same
 * instance, same disk, started — changed to the new plan's type and disk first when the plan is
 * of another kind), or a new one (from the customer's kept snapshot when there is one, so their
 * files come back). A new machine is then taken
 * forward by the lifecycle executor: a warm-pool instance claimed and started, or a launch with
 * ClientToken = the machine's id, so however often this runs EC2 creates one instance. Capacity
 * errors throw to retry with backoff; the queue's attempt budget is the launch budget.
 */
export function vmProvision(deps: WorkerDeps) {
  // A batch's machines are provisioned at once, each job settled on its own (the worker
  // registers this queue with `perJobResults`): a burst of purchases is not paced by the
  // polling interval, and a capacity error retries only its own job (and spends its budget).
  return async (jobs: Job<unknown>[]): Promise<JobResult[]> =>
    Promise.all(
      jobs.map(async (job): Promise<JobResult> => {
        try {
          await provisionVm(deps, parsePayload('vm-provision', job.data), job.id);
          return { id: job.id, status: 'completed' };
        } catch (error) {
          // Recorded on the job by pg-boss and retried with the queue's backoff.
          const err = error as Error;
          deps.log.warn({ jobId: job.id, err }, 'vm-provision: failed; will retry');
          return { id: job.id, status: 'failed', output: { message: err.message, name: err.name } };
        }
      }),
    );
}

type JobResult = { id: string; status: 'completed' | 'failed'; output?: object };

export type ProvisionOutcome =
  'skipped' | 'renewed' | 'claimed-pool' | 'launched' | 'in-progress' | 'failed' | 'nothing-to-do';

type Chosen =
  { kind: 'skip'; why: string } | { kind: 'vm'; vm: Vm; subscription: Subscription; renewal: boolean };

export async function provisionVm(
  deps: WorkerDeps,
  { subscriptionId, userId }: Payload<'vm-provision'>,
  jobId?: string,
): Promise<ProvisionOutcome> {
  const { db, boss } = deps;
  const log = deps.log.child({ jobId, subscriptionId, queue: 'vm-provision' });
  const now = new Date();

  const chosen = await db.transaction(async (trx): Promise<Chosen> => {
    await lockUserPlans(trx, userId);
    const subscription = await findSubscription(trx, subscriptionId);
    if (!subscription || subscription.user_id !== userId)
      return { kind: 'skip', why: 'no such subscription' };
    const planMachine = await findVmBySubscription(trx, subscriptionId);
    const live = await findLiveVmByUser(trx, userId);
    const kept = live ? null : await findKeptSnapshotOfUser(trx, userId);
    const plan = planFacts(subscription);
    if (!plan) return { kind: 'skip', why: 'no such subscription' };
    const choice = machineForPlan({
      plan: {
        ...plan,
        planId: subscription.plan_id,
        instanceType: subscription.instance_type,
        storageGb: subscription.storage_gb,
      },
      planMachine,
      live: live && { planId: live.plan_id, instanceType: live.instance_type, storageGb: live.storage_gb },
      kept: kept && { id: kept.id, state: kept.state, keepUntil: kept.keep_until },
      now,
    });
    switch (choice.kind) {
      case 'skip':
        return { kind: 'skip', why: choice.reason };
      case 'existing': {
        const vm = planMachine as Vm;
        return { kind: 'vm', vm, subscription, renewal: vm.subscription_attached_at > vm.requested_at };
      }
      case 'keep-live': {
        const current = live as Vm;
        const attached = (await attachSubscription(trx, current.id, subscription.id, now)) ?? current;
        const changed = choice.change ? await recordPlanChange(trx, attached.id, choice.change) : null;
        return { kind: 'vm', vm: changed ?? attached, subscription, renewal: true };
      }
      case 'new': {
        const vm = await insertVm(
          trx,
          {
            userId,
            subscriptionId,
            planId: subscription.plan_id,
            instanceType: subscription.instance_type,
            storageGb: Math.max(subscription.storage_gb, choice.restoreFrom ? (kept?.volume_gb ?? 0) : 0),
            restoreSnapshotId: choice.restoreFrom,
          },
          now,
        );
        if (choice.restoreFrom) await markSnapshotRestored(trx, choice.restoreFrom, vm.id);
        return { kind: 'vm', vm, subscription, renewal: false };
      }
    }
  });

  if (chosen.kind === 'skip') {
    log.info({ why: chosen.why }, 'vm-provision: nothing to provision');
    return 'skipped';
  }
  const { vm, subscription } = chosen;
  const vmLog = log.child({ vmId: vm.id });

  switch (vm.state) {
    case 'requested':
    case 'provisioning': {
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
    case 'stopped':
    case 'stopping': {
      // A renewal: the customer paid and waits for the machine, as after a first purchase —
      // unless they started or stopped it themselves since.
      const attachedAt = vm.subscription_attached_at.getTime();
      const untouched =
        chosen.renewal &&
        vm.ready_at !== null &&
        vm.ready_at.getTime() < attachedAt &&
        !(vm.start_requested_at && vm.start_requested_at.getTime() > attachedAt) &&
        !(vm.stop_requested_at && vm.stop_requested_at.getTime() > attachedAt);
      if (!untouched || !planInForce(planFacts(subscription), now)) return 'nothing-to-do';
      if (vm.state === 'stopping')
        throw new RetryLater('the renewed machine is still stopping; starting it once stopped');
      // A pending plan change is made by the start: starting → change the stopped instance → start.
      await requestStart(db, boss, vm.id, 'renewal', now);
      vmLog.info('vm-provision: renewal keeps the same machine and disk; starting it');
      return 'renewed';
    }
    case 'running':
    case 'starting': {
      if (vm.resize_to_type === null && vm.resize_to_gb === null) return 'renewed';
      // Another kind of plan on a running machine: the lifecycle stops it, changes it and starts it.
      await advanceMachine(deps, vm, { mode: 'job', subscription });
      vmLog.info('vm-provision: plan change keeps the same machine and disk; restarting it changed');
      return 'renewed';
    }
    default:
      vmLog.info({ state: vm.state }, 'vm-provision: machine already provisioned');
      return chosen.renewal ? 'renewed' : 'nothing-to-do';
  }
}
