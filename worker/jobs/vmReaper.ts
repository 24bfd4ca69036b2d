import { raiseAlert } from '../../core/db/operatorAlerts.ts';
import { findStepFailure, vmSubject } from '../../core/db/stepFailures.ts';
import {
  listDelayedProvisioning,
  listLateProvisioning,
  listPaidWithoutMachine,
  listStuckVms,
  markVmDelayed,
  setDelayProblem,
  touchVm,
  type Vm,
} from '../../core/db/vms.ts';
import {
  PROVISION_DELAY_WORDS,
  provisionDelayCause,
  provisionDelayOperatorWords,
  type LateMachineFacts,
} from '../../core/domain/provisionDelay.ts';
import { provisionDelayedMail } from '../../core/emails/vms.ts';
import { parsePayload, sendJob, type Job } from '../../core/queue.ts';
import { notify } from '../../core/commands/notices.ts';
import type { WorkerDeps } from '../deps.ts';

/**
 * `vm-reaper` (cron, every minute): transitions that started and went silent.
 *
 * - Provisioning past PROVISION_DEADLINE_MINUTES: the customer is mailed once, the dashboard
 *   says so (delayed_at), an operator alert is recorded, each naming the real cause (no capacity,
 *   the image, the password, a permission: core/domain/provisionDelay.ts). Work goes on; while it
 *   is late, the dashboard's line follows the cause.
 * - A plan paid more than PROVISION_DEADLINE_MINUTES ago that no machine serves (`planAwaitsMachine`:
 *   the job died or dead-lettered before writing the row, or, for a renewal, before moving the
 *   live machine onto it): its provisioning is sent again, once per plan at a time.
 * - A VM requested, starting, stopping or terminating (or provisioning with no instance) whose
 *   row has not moved for VM_STUCK_SECONDS: its job died or exhausted its retries; the job is
 *   sent again (each is idempotent) and the row touched, so the next run waits again. A start,
 *   stop or termination stalled that long is also an operator alert (`unexpected-state`): the
 *   customer waits on a spinner, and a machine that does not stop bills; provisioning has its
 *   own (`provision-delayed`, above).
 */
export function vmReaper(deps: WorkerDeps) {
  return async (jobs: Job<unknown>[]) => {
    for (const job of jobs) {
      parsePayload('vm-reaper', job.data);
      await reapVms(deps);
    }
  };
}

/** What the rows say of a late machine: its instance, its password, its failing step. */
async function lateFacts(deps: WorkerDeps, vm: Vm): Promise<LateMachineFacts> {
  const failure = await findStepFailure(deps.db, vmSubject(vm.id));
  return {
    hasInstance: vm.instance_id !== null,
    passwordStored: vm.password_encrypted !== null,
    failure: failure && { action: failure.action, code: failure.code },
  };
}

export async function reapVms(
  deps: WorkerDeps,
  now: Date = new Date(),
): Promise<{ late: number; retried: number; resent: number }> {
  const { db, boss, config } = deps;
  let late = 0;
  let resent = 0;
  for (const paid of await listPaidWithoutMachine(db, now, config.vm.provisionDeadlineMinutes)) {
    const id = await sendJob(
      boss,
      'vm-provision',
      { subscriptionId: paid.subscription_id, userId: paid.user_id },
      { singletonKey: `provision:${paid.subscription_id}`, singletonSeconds: 300 },
    );
    if (!id) continue;
    resent += 1;
    const what = paid.live_vm_id
      ? "was never moved onto the customer's machine (its job died or dead-lettered first)"
      : 'had no machine (its job died before creating it)';
    await raiseAlert(db, {
      kind: 'provision-delayed',
      dedupeKey: `provision-no-machine:${paid.subscription_id}`,
      message: `A plan paid over ${config.vm.provisionDeadlineMinutes} minutes ago ${what}; provisioning sent again.`,
      vmId: paid.live_vm_id,
    });
    deps.log.warn(
      { subscriptionId: paid.subscription_id, liveVmId: paid.live_vm_id },
      'vm-reaper: paid plan no machine serves; provisioning sent again',
    );
  }
  for (const vm of await listLateProvisioning(db, now, config.vm.provisionDeadlineMinutes)) {
    const facts = await lateFacts(deps, vm);
    const cause = provisionDelayCause(facts);
    const why = PROVISION_DELAY_WORDS[cause];
    const marked = await markVmDelayed(db, vm.id, now, why);
    if (!marked) continue;
    late += 1;
    await notify(
      db,
      boss,
      { kind: 'provision-delayed', subjectId: vm.id, userId: vm.user_id, vmId: vm.id },
      (person) => provisionDelayedMail(person, config.publicUrl, why),
    );
    await raiseAlert(db, {
      kind: 'provision-delayed',
      message: provisionDelayOperatorWords(cause, {
        ...facts,
        minutes: config.vm.provisionDeadlineMinutes,
        instanceType: vm.instance_type,
        launchAttempts: vm.launch_attempts,
      }),
      vmId: vm.id,
      instanceId: vm.instance_id,
      details: { cause, subnetId: vm.subnet_id },
    });
  }
  // Still late: what holds it up may have changed (a launch went through, the password is stuck).
  for (const vm of await listDelayedProvisioning(db)) {
    await setDelayProblem(db, vm.id, PROVISION_DELAY_WORDS[provisionDelayCause(await lateFacts(deps, vm))]);
  }

  let retried = 0;
  for (const vm of await listStuckVms(db, now, config.vm.stuckSeconds)) {
    await db.transaction(async (trx) => {
      switch (vm.state) {
        case 'requested':
        case 'provisioning':
          await sendJob(
            boss,
            'vm-provision',
            { subscriptionId: vm.subscription_id, userId: vm.user_id },
            { db: trx },
          );
          break;
        case 'starting':
          await sendJob(boss, 'vm-start', { vmId: vm.id }, { db: trx });
          break;
        case 'stopping':
          await sendJob(boss, 'vm-stop', { vmId: vm.id }, { db: trx });
          break;
        case 'terminating':
          await sendJob(boss, 'vm-terminate', { vmId: vm.id }, { db: trx });
          break;
        default:
          return;
      }
      await touchVm(trx, vm.id);
      retried += 1;
    });
    deps.log.warn(
      { vmId: vm.id, state: vm.state, since: vm.updated_at },
      'vm-reaper: transition stalled; job sent again',
    );
    if (vm.state === 'starting' || vm.state === 'stopping' || vm.state === 'terminating') {
      const minutes = Math.round((now.getTime() - vm.state_changed_at.getTime()) / 60_000);
      await raiseAlert(db, {
        kind: 'unexpected-state',
        dedupeKey: `stalled:${vm.id}:${vm.state}`,
        message:
          `Machine ${vm.instance_id ?? vm.id} has been ${vm.state} for ${minutes} minutes; its job was sent again.` +
          (vm.last_error ? ` Last error: ${vm.last_error}` : ''),
        vmId: vm.id,
        instanceId: vm.instance_id,
      });
    }
  }
  return { late, retried, resent };
}
