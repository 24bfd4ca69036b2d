import {
  resendProvisioning,
  resendStalled,
  tellLateSetup,
  updateDelayCause,
} from '../../core/commands/reaper.ts';
import { findSnapshot } from '../../core/db/snapshots.ts';
import { findStepFailure, vmSubject } from '../../core/db/stepFailures.ts';
import {
  listDelayedProvisioning,
  listLateProvisioning,
  listPaidWithoutMachine,
  listStuckVms,
  type Vm,
} from '../../core/db/vms.ts';
import { jobOf } from '../../core/domain/machineTransitions.ts';
import { planAwaitsMachine, provisioningLate } from '../../core/domain/planMachine.ts';
import {
  PROVISION_DELAY_WORDS,
  provisionDelayCause,
  type LateMachineFacts,
} from '../../core/domain/provisionDelay.ts';
import type { WorkerDeps } from '../deps.ts';
import { sweepJob } from '../job.ts';

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
  return sweepJob('vm-reaper', () => reapVms(deps));
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
  const { db, config } = deps;
  let late = 0;
  let resent = 0;
  const deadline = config.vm.provisionDeadlineMinutes;
  // Selected by `planAwaitsMachine`'s SQL twin, which lists only plans no machine row is attached to.
  for (const paid of await listPaidWithoutMachine(db, now, deadline)) {
    const plan = {
      status: paid.status,
      expiresAt: paid.expires_at,
      hours: paid.hours,
      cancelledAt: paid.cancelled_at,
      purchasedAt: paid.purchased_at,
    };
    // Carries out `planAwaitsMachine`: the plan still waits for the machine that serves it.
    if (!planAwaitsMachine(plan, false, now, deadline)) continue;
    if (await resendProvisioning(deps, paid)) resent += 1;
  }
  // Selected by `provisioningLate`'s SQL twin.
  for (const vm of await listLateProvisioning(db, now, deadline)) {
    const copy = vm.restore_snapshot_id ? await findSnapshot(db, vm.restore_snapshot_id) : null;
    const restore = copy && { state: copy.state, completedAt: copy.completed_at };
    // Carries out `provisioningLate`: the machine is late (never while its copy is being made).
    if (!provisioningLate({ state: vm.state, requestedAt: vm.requested_at }, restore, now, deadline))
      continue;
    const facts = await lateFacts(deps, vm);
    const cause = provisionDelayCause(facts);
    if (await tellLateSetup(deps, vm, { cause, words: PROVISION_DELAY_WORDS[cause], facts }, now)) late += 1;
  }
  // Still late: what holds it up may have changed (a launch went through, the password is stuck).
  for (const vm of await listDelayedProvisioning(db)) {
    await updateDelayCause(db, vm.id, PROVISION_DELAY_WORDS[provisionDelayCause(await lateFacts(deps, vm))]);
  }

  let retried = 0;
  // Selected by `jobOf`'s SQL twin: rows a job carries forward that have not moved.
  for (const vm of await listStuckVms(db, now, config.vm.stuckSeconds)) {
    const job = jobOf({ state: vm.state, hasInstance: vm.instance_id !== null });
    if (!job) continue;
    await resendStalled(deps, vm, job, now);
    retried += 1;
  }
  return { late, retried, resent };
}
