import { recordCapacityShortage } from '../../core/db/ec2Fleet.ts';
import { raiseAlert } from '../../core/db/operatorAlerts.ts';
import { findSubscription } from '../../core/db/subscriptions.ts';
import { countStartAttempt, findVm, markVmError, markVmStopped } from '../../core/db/vms.ts';
import { isOutOfHours } from '../../core/domain/usage.ts';
import { VM_MESSAGES } from '../../core/domain/vm.ts';
import { classifyEc2Error } from '../../core/providers/ec2.ts';
import { parsePayload, type Job, type Payload } from '../../core/queue.ts';
import { scheduleVmCheck, subscriptionInForce } from '../../core/vmActions.ts';
import { describeEc2Error, isRetryableCapacity, RetryLater } from '../cloudPc.ts';
import type { WorkerDeps } from '../deps.ts';

/**
 * `vm-start`: StartInstances for a VM the customer (or a renewal) moved to `starting`.
 * Guard: the row is `starting`, the plan in force with hours left. A stopped GPU machine may
 * meet InsufficientInstanceCapacity: retried with backoff, and after VM_MAX_START_ATTEMPTS the
 * VM goes back to `stopped` with a plain message and an operator alert. No hours are counted:
 * usage starts only when vm-sync sees it running.
 */
export function vmStart(deps: WorkerDeps) {
  return async (jobs: Job<unknown>[]) => {
    for (const job of jobs) await startVm(deps, parsePayload('vm-start', job.data));
  };
}

export type StartOutcome = 'requested' | 'nothing-to-do' | 'refused' | 'gave-up';

export async function startVm(deps: WorkerDeps, { vmId }: Payload<'vm-start'>): Promise<StartOutcome> {
  const { db, config } = deps;
  const now = new Date();
  const vm = await findVm(db, vmId);
  if (!vm || vm.state !== 'starting' || !vm.instance_id) return 'nothing-to-do';
  const log = deps.log.child({ vmId, instanceId: vm.instance_id, queue: 'vm-start' });

  const subscription = await findSubscription(db, vm.subscription_id);
  if (
    !subscriptionInForce(subscription, now) ||
    !subscription ||
    isOutOfHours(subscription.hours, vm.usage_seconds)
  ) {
    // The plan ran out between the click and now: refuse, as the API would have.
    const message =
      subscription && subscriptionInForce(subscription, now)
        ? VM_MESSAGES.outOfHours
        : VM_MESSAGES.planExpired;
    await markVmStopped(db, vm.id, ['starting'], 'refused', now, message);
    return 'refused';
  }

  const counted = await countStartAttempt(db, vm.id);
  if (!counted) return 'nothing-to-do';
  try {
    await deps.vmEc2.launcher.startInstance(vm.instance_id);
  } catch (error) {
    const kind = classifyEc2Error(error);
    const detail = describeEc2Error(error);
    if (kind === 'not-found') {
      await markVmError(db, vm.id, ['starting'], VM_MESSAGES.lost, now);
      await raiseAlert(db, {
        kind: 'instance-lost',
        message: `Start: ${detail}`,
        vmId,
        instanceId: vm.instance_id,
      });
      return 'gave-up';
    }
    if (isRetryableCapacity(error)) await recordCapacityShortage(db, vm.instance_type, detail, now);
    // Still stopping (a quick STOP then START): try again shortly, it is not a failure.
    const counts = kind !== 'incorrect-state';
    if (counts && counted.start_attempts >= config.vm.maxStartAttempts) {
      const back = await markVmStopped(
        db,
        vm.id,
        ['starting'],
        'start-failed',
        new Date(),
        VM_MESSAGES.startGaveUp,
      );
      if (back) {
        await raiseAlert(db, {
          kind: 'start-failed',
          message: `Could not start after ${counted.start_attempts} attempts: ${detail}`,
          vmId,
          instanceId: vm.instance_id,
        });
      }
      log.error({ attempts: counted.start_attempts, error: detail }, 'vm-start: gave up');
      return 'gave-up';
    }
    log.warn({ attempt: counted.start_attempts, error: detail }, 'vm-start: start failed; retrying');
    throw new RetryLater(`start attempt ${counted.start_attempts}: ${detail}`);
  }
  await scheduleVmCheck(deps.boss, config, { vmId });
  log.info('vm-start: start requested');
  return 'requested';
}
