import { recordCapacityAvailable, recordCapacityShortage } from '../../core/db/ec2Fleet.ts';
import { raiseAlert } from '../../core/db/operatorAlerts.ts';
import {
  findPoolInstance,
  listPoolForSync,
  markPoolFailed,
  markPoolFirstBoot,
  markPoolReady,
  markPoolSynced,
  recordPoolLaunch,
  type PoolInstance,
} from '../../core/db/poolInstances.ts';
import { findSubscription, findSubscriptionsByIds, type Subscription } from '../../core/db/subscriptions.ts';
import {
  accrueUsage,
  findVm,
  listVmsForSync,
  markVmError,
  markVmRunning,
  markVmStopped,
  markVmsSynced,
  markVmTerminated,
  recordLaunch,
  storeVmPassword,
  type Vm,
} from '../../core/db/vms.ts';
import { hourAlertsReached, isOutOfHours, remainingSeconds } from '../../core/domain/usage.ts';
import { VM_MESSAGES } from '../../core/domain/vm.ts';
import { hoursAlertMail, provisionFailedMail, provisionReadyLateMail } from '../../core/emails/vms.ts';
import { classifyEc2Error, type Ec2Instance } from '../../core/providers/ec2.ts';
import { parsePayload, sendJob, type Job, type Payload } from '../../core/queue.ts';
import { planCapSeconds, requestStop, scheduleVmCheck } from '../../core/vmActions.ts';
import {
  capturePassword,
  describeEc2Error,
  findByClientTokens,
  isRetryableCapacity,
  notify,
} from '../cloudPc.ts';
import type { WorkerDeps } from '../deps.ts';

/**
 * `vm-sync`: brings rows in line with what EC2 says, in one batched DescribeInstances.
 *
 * - Cron (no ids): every live machine and pool instance, least recently synced first, bounded.
 * - Follow-up (`vmId` / `poolInstanceId`): one machine in transition, rescheduled every
 *   `VM_POLL_SECONDS` until it settles (AWS's waiters would hold a worker for minutes).
 *
 * Readiness: a provisioning VM becomes `running` once EC2 says running with a public IP AND its
 * Windows password is decrypted and stored (sealed). Usage accrues only for `running` rows, up
 * to now, capped at the plan; at 80 % and 100 % the customer is mailed once; at 100 % the VM is
 * stopped. Every transition is conditional, so two syncs at once change things once.
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
/** A just-launched instance can be missing from DescribeInstances for a while (eventual consistency). */
const GRACE_MISSING_MS = 5 * 60_000;

const TRANSITIONAL = new Set(['requested', 'provisioning', 'starting', 'stopping', 'terminating']);

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

  await adoptLostLaunches(deps, vms, pool);

  const ids = [...vms, ...pool].map((row) => row.instance_id).filter((id): id is string => id !== null);
  const instances = new Map<string, Ec2Instance>();
  if (ids.length > 0) {
    for (const instance of await deps.vmEc2.ec2.describeInstances({ instanceIds: ids })) {
      instances.set(instance.instanceId, instance);
    }
  }

  // The plans of running machines, for usage accrual: one query for the batch, not one per row.
  const subscriptions = await findSubscriptionsByIds(
    db,
    vms.filter((v) => v.state === 'running').map((v) => v.subscription_id),
  );
  const now = new Date();
  for (const vm of vms) {
    try {
      const instance = vm.instance_id ? instances.get(vm.instance_id) : undefined;
      await syncVm(deps, vm, instance, subscriptions.get(vm.subscription_id) ?? null);
    } catch (error) {
      deps.log.error({ vmId: vm.id, error: describeEc2Error(error) }, 'vm-sync: could not sync a machine');
    }
  }
  for (const row of pool) {
    try {
      await syncPoolInstance(deps, row, row.instance_id ? instances.get(row.instance_id) : undefined);
    } catch (error) {
      deps.log.error(
        { poolInstanceId: row.id, error: describeEc2Error(error) },
        'vm-sync: could not sync a pool instance',
      );
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
    if (TRANSITIONAL.has(vm.state)) {
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

/**
 * Rows still waiting for their RunInstances answer (a lost response, a worker that died after
 * the call): EC2 knows the instance by its ClientToken, our row id.
 */
async function adoptLostLaunches(deps: WorkerDeps, vms: Vm[], pool: PoolInstance[]): Promise<void> {
  const waitingVms = vms.filter((v) => v.state === 'provisioning' && !v.instance_id && v.launch_attempts > 0);
  const waitingPool = pool.filter((p) => p.state === 'launching' && !p.instance_id && p.launch_attempts > 0);
  if (waitingVms.length + waitingPool.length === 0) return;
  const found = await findByClientTokens(deps.vmEc2.ec2, [
    ...waitingVms.map((v) => v.id),
    ...waitingPool.map((p) => p.id),
  ]);
  const now = new Date();
  for (const vm of waitingVms) {
    const instance = found.get(vm.id);
    if (!instance) continue;
    const recorded = await recordLaunch(deps.db, vm.id, instance, now);
    if (recorded) {
      deps.log.info(
        { vmId: vm.id, instanceId: instance.instanceId },
        'vm-sync: adopted an instance launched earlier',
      );
      Object.assign(vm, recorded);
      // Its follow-up checks died with the launch that lost the answer: start them again.
      await scheduleVmCheck(deps.boss, deps.config, { vmId: vm.id });
    }
  }
  for (const row of waitingPool) {
    const instance = found.get(row.id);
    if (!instance) continue;
    const recorded = await recordPoolLaunch(deps.db, row.id, instance, now);
    if (recorded) {
      Object.assign(row, recorded);
      await scheduleVmCheck(deps.boss, deps.config, { poolInstanceId: row.id });
    }
  }
}

function missingTooLong(since: Date | null, now: Date): boolean {
  return since === null || now.getTime() - since.getTime() > GRACE_MISSING_MS;
}

/** `subscription` is the VM's plan when it is running (what usage is accrued against). */
export async function syncVm(
  deps: WorkerDeps,
  vm: Vm,
  instance: Ec2Instance | undefined,
  subscription: Subscription | null,
): Promise<void> {
  const now = new Date();
  const log = deps.log.child({ vmId: vm.id, instanceId: vm.instance_id, state: vm.state });
  if (!vm.instance_id) return;
  const gone = !instance || instance.state === 'terminated' || instance.state === 'shutting-down';

  switch (vm.state) {
    case 'provisioning':
      if (!instance) {
        if (missingTooLong(vm.launched_at, now))
          await lost(deps, vm, 'the instance is not known to EC2', 'provisioning');
        return;
      }
      if (gone) return lost(deps, vm, `the instance is ${instance.state}`, 'provisioning');
      if (instance.state === 'stopped' && vm.source === 'pool') {
        // A claimed pool instance whose StartInstances never went out (or met no capacity).
        await startAgain(deps, vm, log);
        return;
      }
      if (instance.state !== 'running') return;
      return becomeReady(deps, vm, instance, log);

    case 'starting':
      if (gone && missingTooLong(vm.start_requested_at, now)) return lost(deps, vm, 'the instance is gone');
      if (instance?.state === 'running' && instance.publicIp) {
        const running = await markVmRunning(deps.db, vm.id, instance.publicIp, now);
        if (running) {
          await recordCapacityAvailable(deps.db, vm.instance_type, now);
          log.info('vm-sync: started');
        }
      }
      return;

    case 'running':
      if (gone) return lost(deps, vm, `the instance is ${instance?.state ?? 'missing'}`);
      if (instance.state === 'stopping' || instance.state === 'stopped') {
        // Shut down from inside Windows. Usage is not counted past the last count.
        const stopped = await markVmStopped(deps.db, vm.id, ['running'], 'shut-down', now);
        if (stopped) log.info('vm-sync: machine was shut down from inside');
        return;
      }
      if (instance.state === 'running' && subscription) await accrue(deps, vm, subscription, log);
      return;

    case 'stopping':
      if (gone) return lost(deps, vm, 'the instance is gone');
      if (instance.state === 'stopped') {
        const stopped = await markVmStopped(deps.db, vm.id, ['stopping'], null, now);
        if (stopped) log.info('vm-sync: stopped');
      }
      return;

    case 'stopped':
      if (gone && missingTooLong(vm.stopped_at, now)) return lost(deps, vm, 'the instance is gone');
      if (instance && (instance.state === 'running' || instance.state === 'pending')) {
        // Started outside the product (console, API): nobody asked us, nobody is being charged.
        await raiseAlert(deps.db, {
          kind: 'unexpected-state',
          message: `Instance ${vm.instance_id} is ${instance.state} but its VM is stopped; stopping it.`,
          vmId: vm.id,
          instanceId: vm.instance_id,
        });
        if (instance.state === 'running')
          await deps.vmEc2.ec2.stopInstance(vm.instance_id).catch(() => undefined);
      }
      return;

    case 'terminating':
      if (!instance || gone) {
        const done = await markVmTerminated(deps.db, vm.id, now);
        if (done) log.info('vm-sync: terminated');
      }
      return;

    default:
      return;
  }
}

/** Password (first boot done) and public IP both there: the machine is ready for its customer. */
async function becomeReady(
  deps: WorkerDeps,
  vm: Vm,
  instance: Ec2Instance,
  log: WorkerDeps['log'],
): Promise<void> {
  const now = new Date();
  let current = vm;
  if (!current.password_encrypted) {
    const captured = await capturePassword(deps, deps.vmEc2.ec2, instance.instanceId);
    if (captured.status === 'not-ready') return;
    if (captured.status === 'undecryptable') {
      // Never show garbage as a password: stay provisioning, tell an operator.
      await raiseAlert(deps.db, {
        kind: 'password-undecryptable',
        message: captured.message,
        vmId: vm.id,
        instanceId: instance.instanceId,
      });
      log.error({ reason: captured.message }, 'vm-sync: the Windows password could not be decrypted');
      return;
    }
    current =
      (await storeVmPassword(deps.db, vm.id, captured.sealed, now)) ?? (await findVm(deps.db, vm.id)) ?? vm;
  }
  if (!current.password_encrypted || !instance.publicIp) return;
  const running = await markVmRunning(deps.db, vm.id, instance.publicIp, now);
  if (!running) return;
  await recordCapacityAvailable(deps.db, vm.instance_type, now);
  log.info({ waitedMs: now.getTime() - vm.requested_at.getTime() }, 'vm-sync: machine ready');
  if (vm.delayed_at) {
    await notify(
      deps.db,
      deps.boss,
      { kind: 'provision-ready-late', subjectId: vm.id, userId: vm.user_id, vmId: vm.id },
      (person) => provisionReadyLateMail(person, deps.config.publicUrl),
    );
  }
}

/** Usage up to now, hour alerts, and the stop when the hours are used up. */
async function accrue(
  deps: WorkerDeps,
  vm: Vm,
  subscription: Subscription,
  log: WorkerDeps['log'],
): Promise<void> {
  const { db, boss, config } = deps;
  const now = new Date();
  const counted = await accrueUsage(db, vm.id, now, planCapSeconds(subscription));
  if (!counted) return;
  for (const percent of hourAlertsReached(subscription.hours, counted.usage_seconds)) {
    await notify(
      db,
      boss,
      {
        kind: `hours-${percent}`,
        subjectId: subscription.id,
        userId: vm.user_id,
        subscriptionId: subscription.id,
        vmId: vm.id,
      },
      (person) => hoursAlertMail(person, subscription, percent, config.publicUrl),
    );
  }
  if (isOutOfHours(subscription.hours, counted.usage_seconds)) {
    const stopping = await requestStop(db, boss, vm.id, 'out-of-hours', now);
    if (stopping) log.info('vm-sync: plan hours used up; stopping the machine');
  }
}

async function startAgain(deps: WorkerDeps, vm: Vm, log: WorkerDeps['log']): Promise<void> {
  if (!vm.instance_id) return;
  try {
    await deps.vmEc2.launcher.startInstance(vm.instance_id);
  } catch (error) {
    if (isRetryableCapacity(error)) {
      await recordCapacityShortage(deps.db, vm.instance_type, describeEc2Error(error), new Date());
    }
    if (classifyEc2Error(error) !== 'incorrect-state')
      log.warn({ error: describeEc2Error(error) }, 'vm-sync: start failed');
  }
}

/** The VM's instance is gone: the row ends in `error`, an operator is alerted (and the customer, if it was never ready). */
async function lost(
  deps: WorkerDeps,
  vm: Vm,
  why: string,
  during: 'provisioning' | 'use' = 'use',
): Promise<void> {
  const problem = during === 'provisioning' ? VM_MESSAGES.failed : VM_MESSAGES.lost;
  const failed = await markVmError(
    deps.db,
    vm.id,
    ['provisioning', 'starting', 'running', 'stopping', 'stopped'],
    problem,
    new Date(),
  );
  if (!failed) return;
  if (during === 'provisioning') {
    await notify(
      deps.db,
      deps.boss,
      { kind: 'provision-failed', subjectId: vm.id, userId: vm.user_id, vmId: vm.id },
      (person) => provisionFailedMail(person, deps.config.supportEmail, deps.config.publicUrl),
    );
  }
  await raiseAlert(deps.db, {
    kind: 'instance-lost',
    message: `VM ${vm.id} (${vm.state}) lost its instance ${vm.instance_id}: ${why}.`,
    vmId: vm.id,
    instanceId: vm.instance_id,
  });
  deps.log.error({ vmId: vm.id, instanceId: vm.instance_id, why }, 'vm-sync: machine lost its instance');
}

export async function syncPoolInstance(
  deps: WorkerDeps,
  row: PoolInstance,
  instance: Ec2Instance | undefined,
): Promise<void> {
  const now = new Date();
  const { db } = deps;
  if (!row.instance_id) return;
  const gone = !instance || instance.state === 'terminated' || instance.state === 'shutting-down';
  if (gone) {
    if (instance || missingTooLong(row.launched_at, now)) {
      await markPoolFailed(db, row.id, `instance ${instance?.state ?? 'missing'}`, now);
    }
    return;
  }
  switch (row.state) {
    case 'launching': {
      if (instance.state !== 'running') return;
      const captured = await capturePassword(deps, deps.vmEc2.ec2, row.instance_id);
      if (captured.status === 'not-ready') return;
      if (captured.status === 'undecryptable') {
        await raiseAlert(db, {
          kind: 'password-undecryptable',
          dedupeKey: `password-undecryptable:pool:${row.plan_id}`,
          message: `Warm-pool instance ${row.instance_id}: ${captured.message} The instance is terminated.`,
          instanceId: row.instance_id,
        });
        if (await markPoolFailed(db, row.id, captured.message, now)) {
          await deps.vmEc2.ec2.terminateInstance(row.instance_id).catch(() => undefined);
        }
        return;
      }
      // First boot is done and the password kept: stop it until a customer claims it.
      if (await markPoolFirstBoot(db, row.id, captured.sealed, now)) {
        await deps.vmEc2.ec2.stopInstance(row.instance_id);
      }
      return;
    }
    case 'stopping':
      if (instance.state === 'stopped') await markPoolReady(db, row.id, now);
      else if (instance.state === 'running') await deps.vmEc2.ec2.stopInstance(row.instance_id);
      return;
    case 'ready':
      if (instance.state === 'running')
        await deps.vmEc2.ec2.stopInstance(row.instance_id).catch(() => undefined);
      return;
    default:
      return;
  }
}
