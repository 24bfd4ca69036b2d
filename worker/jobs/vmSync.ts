import {
  findPoolInstance,
  listPoolForSync,
  markPoolSynced,
  setPoolProblem,
  type PoolInstance,
} from '../../core/db/poolInstances.ts';
import { findSubscription, findSubscriptionsByIds } from '../../core/db/subscriptions.ts';
import { findVm, listVmsForSync, markVmsSynced, recordVmError, type Vm } from '../../core/db/vms.ts';
import { isTransitional } from '../../core/domain/lifecycle.ts';
import { remainingSeconds } from '../../core/domain/usage.ts';
import { parsePayload, sendJob, type Job, type Payload } from '../../core/queue.ts';
import { scheduleVmCheck } from '../../core/commands/vmActions.ts';
import { describeEc2Error } from '../cloudPc.ts';
import type { WorkerDeps } from '../deps.ts';
import { advanceMachine, advancePoolInstance, observeInstances } from '../lifecycle.ts';

/**
 * `vm-sync`: brings machines in line with what EC2 says, through the lifecycle executor.
 *
 * - Cron (no ids): every live machine and pool instance, least recently synced first, bounded,
 *   with one batched DescribeInstances for the batch.
 * - Follow-up (`vmId` / `poolInstanceId`): one machine in transition, rescheduled every
 *   `VM_POLL_SECONDS` until it settles (AWS's waiters would hold a worker for minutes).
 *
 * A machine whose step fails is recorded (`last_error`) and logged, and the sweep goes on.
 */
export function vmSync(deps: WorkerDeps) {
  return async (jobs: Job<unknown>[]) => {
    for (const job of jobs) {
      await syncVms(deps, parsePayload('vm-sync', job.data));
    }
  };
}

const SWEEP_VMS = 1000;
const SWEEP_POOL = 500;

export async function syncVms(deps: WorkerDeps, target: Payload<'vm-sync'> = {}): Promise<void> {
  const { db } = deps;
  const targeted = Boolean(target.vmId || target.poolInstanceId);
  const vms: Vm[] = target.vmId
    ? [await findVm(db, target.vmId)].filter((v): v is Vm => v !== null)
    : targeted
      ? []
      : await listVmsForSync(db, SWEEP_VMS);
  const pool: PoolInstance[] = target.poolInstanceId
    ? [await findPoolInstance(db, target.poolInstanceId)].filter((p): p is PoolInstance => p !== null)
    : targeted
      ? []
      : await listPoolForSync(db, SWEEP_POOL);

  const instances = await observeInstances(
    deps,
    [...vms, ...pool].map((row) => row.instance_id).filter((id): id is string => id !== null),
  );
  // The plans of the batch: one query, not one per machine.
  const subscriptions = await findSubscriptionsByIds(
    db,
    vms.map((v) => v.subscription_id),
  );
  const now = new Date();
  for (const vm of vms) {
    try {
      await advanceMachine(deps, vm, {
        mode: 'sweep',
        subscription: subscriptions.get(vm.subscription_id) ?? null,
        instance: vm.instance_id ? (instances.get(vm.instance_id) ?? null) : undefined,
      });
    } catch (error) {
      const detail = describeEc2Error(error);
      await recordVmError(db, vm.id, `sync: ${detail}`, new Date());
      deps.log.error({ vmId: vm.id, error: detail }, 'vm-sync: could not sync a machine');
    }
  }
  for (const row of pool) {
    try {
      await advancePoolInstance(
        deps,
        row,
        row.instance_id ? (instances.get(row.instance_id) ?? null) : undefined,
      );
    } catch (error) {
      // Recorded on the row for operators; the next sweep tries again.
      const detail = describeEc2Error(error);
      await setPoolProblem(db, row.id, `sync: ${detail}`);
      deps.log.error({ poolInstanceId: row.id, error: detail }, 'vm-sync: could not sync a pool instance');
    }
  }
  await markVmsSynced(
    db,
    vms.map((v) => v.id),
    now,
  );
  await markPoolSynced(
    db,
    pool.map((p) => p.id),
    now,
  );

  if (targeted) await followUp(deps, target);
}

/** The next check of a machine still in transition; a running one is checked when its hours run out. */
async function followUp(deps: WorkerDeps, target: Payload<'vm-sync'>): Promise<void> {
  const { config, boss, db } = deps;
  const count = (target.followUp ?? 0) + 1;
  const limit = Math.ceil((config.vm.provisionDeadlineMinutes * 60 * 2) / config.vm.pollSeconds);
  if (target.vmId) {
    const vm = await findVm(db, target.vmId);
    if (!vm) return;
    if (isTransitional(vm.state)) {
      // Past the bound the minute sweep carries on; this only keeps transitions snappy.
      if (count <= limit) await scheduleVmCheck(boss, config, { vmId: vm.id }, { followUp: count });
    } else if (vm.state === 'running') {
      await scheduleHoursCheck(deps, vm);
    }
  } else if (target.poolInstanceId) {
    const row = await findPoolInstance(db, target.poolInstanceId);
    if (row && (row.state === 'launching' || row.state === 'stopping') && count <= limit) {
      await scheduleVmCheck(boss, config, { poolInstanceId: row.id }, { followUp: count });
    }
  }
}

/**
 * A check at the moment the plan's hours run out, so the 100 % stop is on time rather than up
 * to a sweep late. (It carries no follow-up count: it is not part of a transition's chain.)
 */
async function scheduleHoursCheck(deps: WorkerDeps, vm: Vm): Promise<void> {
  const subscription = await findSubscription(deps.db, vm.subscription_id);
  if (!subscription) return;
  const left = remainingSeconds(subscription.hours, vm.usage_seconds);
  // Within a day: further out, the minute sweep gets there first anyway.
  if (left > 0 && left < 86_400) {
    // One such check per machine at a time, however many follow-ups see it running.
    await sendJob(
      deps.boss,
      'vm-sync',
      { vmId: vm.id },
      {
        startAfter: new Date(Date.now() + (left + 1) * 1000),
        singletonKey: `hours:${vm.id}`,
        singletonSeconds: 60,
      },
    );
  }
}
