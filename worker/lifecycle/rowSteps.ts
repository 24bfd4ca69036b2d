import { recordCapacityAvailable } from '../../core/db/ec2Fleet.ts';
import { raiseAlert } from '../../core/db/operatorAlerts.ts';
import type { Subscription } from '../../core/db/subscriptions.ts';
import {
  accrueUsage,
  markVmError,
  markVmRunning,
  markVmStopped,
  markVmTerminated,
  markWaitingForRemoteDesktop,
  setRestoreSnapshot,
  type Vm,
} from '../../core/db/vms.ts';
import type { LostWhile } from '../../core/domain/machineDecision.ts';
import type { HourAlertPercent } from '../../core/domain/usage.ts';
import { VM_MESSAGES } from '../../core/domain/vm.ts';
import { hoursAlertMail, provisionFailedMail, provisionReadyLateMail } from '../../core/emails/vms.ts';
import { requestStart, requestStop, scheduleVmCheck } from '../../core/commands/vmActions.ts';
import type { WorkerDeps } from '../deps.ts';
import { notify } from '../../core/commands/notices.ts';
import { mailEnding } from './endings.ts';
import { replaceLostMachine } from './replacement.ts';
import type { Step } from './step.ts';

/**
 * The row steps: conditional transitions with the notices, alerts and jobs that go with them.
 * No cloud call. Each writes only if the row is still as the decision saw it.
 */

export const markReady: Step<'mark-ready'> = async ({ deps, vm, log, now }, decision) => {
  if (!(await markVmRunning(deps.db, vm.id, decision.publicIp, now))) return {};
  await recordCapacityAvailable(deps.db, vm.instance_type, now);
  log.info({ waitedMs: now.getTime() - vm.requested_at.getTime() }, 'lifecycle: machine ready');
  if (vm.delayed_at) {
    await notify(
      deps.db,
      deps.boss,
      { kind: 'provision-ready-late', subjectId: vm.id, userId: vm.user_id, vmId: vm.id },
      (person) => provisionReadyLateMail(person, deps.config.publicUrl),
    );
  }
  return {};
};

export const markRunning: Step<'mark-running'> = async ({ deps, vm, log, now }, decision) => {
  if (!(await markVmRunning(deps.db, vm.id, decision.publicIp, now))) return {};
  await recordCapacityAvailable(deps.db, vm.instance_type, now);
  log.info('lifecycle: started');
  return {};
};

export const markStopped: Step<'mark-stopped'> = async ({ deps, vm, log, now }, decision) => {
  // Shut down from inside Windows: usage is not counted past the last count.
  const shutDown = decision.stoppedBy === 'shut-down';
  const stopped = await markVmStopped(
    deps.db,
    vm.id,
    shutDown ? 'shut-down' : 'stopped',
    shutDown ? 'shut-down' : null,
    now,
  );
  if (stopped) log.info({ by: decision.stoppedBy }, 'lifecycle: stopped');
  return {};
};

/** EC2 confirms the instance is gone: only now is the machine deleted, and its ending mailed. */
export const markTerminated: Step<'mark-terminated'> = async ({ deps, vm, log, now }) => {
  const ended = await markVmTerminated(deps.db, vm.id, now);
  if (!ended) return {};
  log.info('lifecycle: terminated');
  await mailEnding(deps, ended);
  return {};
};

export const accrue: Step<'accrue'> = async ({ deps, vm, subscription, now }, decision) => {
  const counted = await accrueUsage(deps.db, vm.id, now, decision.capSeconds);
  if (counted && subscription) await hourNotices(deps, vm, subscription, decision.alerts);
  return {};
};

export const stopRequest: Step<'request-stop'> = async ({ deps, vm, subscription, log, now }, decision) => {
  if (subscription) await hourNotices(deps, vm, subscription, decision.alerts);
  if (await requestStop(deps.db, deps.boss, vm.id, decision.why, now))
    log.info({ why: decision.why }, 'lifecycle: stopping the machine');
  return {};
};

/** Changed for the new plan: the start the renewal wants, as for a customer's START. */
export const startRequest: Step<'request-start'> = async ({ deps, vm, log, now }) => {
  if (await requestStart(deps.db, deps.boss, vm.id, 'plan-change', now))
    log.info('lifecycle: changed for the new plan; starting it');
  return {};
};

/** The plan ran out between the click and now: refused, as the API would have. */
export const refuseStart: Step<'refuse-start'> = async ({ deps, vm, now }, decision) => {
  const message = decision.why === 'out-of-hours' ? VM_MESSAGES.outOfHours : VM_MESSAGES.planExpired;
  await markVmStopped(deps.db, vm.id, 'refuse-start', 'refused', now, message);
  return {};
};

export const giveUpStart: Step<'give-up-start'> = async ({ deps, vm, log, now }, decision) => {
  if (!(await markVmStopped(deps.db, vm.id, 'give-up-start', 'start-failed', now, VM_MESSAGES.startGaveUp)))
    return {};
  await raiseAlert(deps.db, {
    kind: 'start-failed',
    message: `Could not start after ${vm.start_attempts} attempts: ${vm.last_error ?? decision.reason}`,
    vmId: vm.id,
    instanceId: vm.instance_id,
  });
  log.error({ attempts: vm.start_attempts }, 'lifecycle: gave up starting');
  return {};
};

/** The launch budget is spent: the machine fails, an operator is alerted and the customer told. */
export const giveUpLaunch: Step<'give-up-launch'> = async ({ deps, vm, log, now }, decision) => {
  const { db, boss, config } = deps;
  const failed = await markVmError(db, vm.id, 'give-up-launch', VM_MESSAGES.failed, now);
  if (failed) {
    await raiseAlert(db, {
      kind: 'provision-failed',
      message: `Gave up provisioning after ${vm.launch_attempts} launch attempts. Last: ${vm.last_error ?? decision.reason}`,
      vmId: vm.id,
    });
    await notify(
      db,
      boss,
      { kind: 'provision-failed', subjectId: vm.id, userId: vm.user_id, vmId: vm.id },
      (person) => provisionFailedMail(person, config.supportEmail, config.publicUrl),
    );
  }
  log.error({ attempts: vm.launch_attempts, error: vm.last_error }, 'lifecycle: gave up launching');
  return { outcome: 'failed' };
};

export const lost: Step<'lost'> = async ({ deps, vm }, decision) => {
  await lose(deps, vm, decision.reason, decision.during);
  return decision.during === 'provisioning' ? { outcome: 'failed' } : {};
};

/** The copy a new machine waits for failed: it is made from the copy the old machine takes again. */
export const repointRestore: Step<'repoint-restore'> = async ({ deps, vm }, decision) => {
  await setRestoreSnapshot(deps.db, vm.id, decision.snapshotId);
  return {};
};

/** Something is under way in EC2 that takes longer than one run: looked at again shortly. */
export const checkLater: Step<'check-later'> = async ({ deps, vm }) => {
  await scheduleVmCheck(deps.boss, deps.config, { vmId: vm.id });
  return {};
};

/** Remote Desktop does not answer yet: the dashboard says so. */
export const noteRemoteDesktopWait: Step<'note-remote-desktop-wait'> = async ({ deps, vm, now }) => {
  await markWaitingForRemoteDesktop(deps.db, vm.id, now);
  return {};
};

async function hourNotices(
  deps: WorkerDeps,
  vm: Vm,
  subscription: Subscription,
  alerts: HourAlertPercent[],
): Promise<void> {
  for (const percent of alerts) {
    await notify(
      deps.db,
      deps.boss,
      {
        kind: `hours-${percent}`,
        subjectId: subscription.id,
        userId: vm.user_id,
        subscriptionId: subscription.id,
        vmId: vm.id,
      },
      (person) => hoursAlertMail(person, subscription, percent, deps.config.publicUrl),
    );
  }
}

/**
 * The machine's instance is gone: the row ends in `error`; a paid plan's machine is replaced (the
 * customer told whether the files came back), otherwise an operator is alerted (and the customer
 * told, if it was never ready).
 */
async function lose(deps: WorkerDeps, vm: Vm, why: string, during: LostWhile): Promise<Vm | null> {
  const problem = during === 'provisioning' ? VM_MESSAGES.failed : VM_MESSAGES.lost;
  const failed = await markVmError(deps.db, vm.id, 'lose', problem, new Date());
  if (!failed) return null;
  deps.log.error({ vmId: vm.id, instanceId: vm.instance_id, why }, 'lifecycle: machine lost its instance');
  if (await replaceLostMachine(deps, failed, during, why, new Date())) return failed;
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
  return failed;
}
