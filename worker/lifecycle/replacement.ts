import { raiseAlert } from '../../core/db/operatorAlerts.ts';
import { findKeptSnapshotOfUser, releaseRestoreOf } from '../../core/db/snapshots.ts';
import { findSubscription } from '../../core/db/subscriptions.ts';
import { countReplacedMachines, type Vm } from '../../core/db/vms.ts';
import { snapshotWillRestore } from '../../core/domain/keptDisk.ts';
import { type LostWhile } from '../../core/domain/machineDecision.ts';
import { planInForce } from '../../core/domain/planTime.ts';
import { replacementFor } from '../../core/domain/machineEvents.ts';
import { vmReplacedMail } from '../../core/emails/vms.ts';
import { requestTerminate } from '../../core/commands/vmActions.ts';
import { sendJob } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';
import { notify } from '../../core/commands/notices.ts';
import { planFacts } from './inputs.ts';

/**
 * A paid machine whose instance is lost is replaced, as `replacementFor` (core/domain/machineEvents.ts)
 * decides: the lost row is retired (anything its launch left is terminated) and its plan
 * provisioned again in one transaction — a new machine, from the latest kept copy of the
 * customer's disk if there is one, with the hours already used. The customer is told plainly
 * whether the files come back; an operator alert records it. Answers false when it is left to an operator.
 */
export async function replaceLostMachine(
  deps: WorkerDeps,
  vm: Vm,
  during: LostWhile,
  why: string,
  now: Date,
): Promise<boolean> {
  const { db, boss, config } = deps;
  const subscription = await findSubscription(db, vm.subscription_id);
  const choice = replacementFor({
    plan: subscription && {
      inForce: planInForce(planFacts(subscription), now),
      isTrial: subscription.is_trial,
    },
    replacedSoFar: await countReplacedMachines(db, vm.subscription_id),
  });
  if (choice.kind === 'leave') {
    deps.log.warn({ vmId: vm.id, why: choice.reason }, 'lifecycle: lost machine not replaced');
    return false;
  }
  // A copy this machine was being made from goes back to the customer for the replacement.
  await releaseRestoreOf(db, vm.id);
  const kept = await findKeptSnapshotOfUser(db, vm.user_id);
  const restores =
    kept !== null && snapshotWillRestore({ state: kept.state, keepUntil: kept.keep_until }, now);
  await db.transaction(async (trx) => {
    await requestTerminate(trx, boss, vm.id, 'replaced', now);
    await sendJob(
      boss,
      'vm-provision',
      { subscriptionId: vm.subscription_id, userId: vm.user_id },
      { db: trx },
    );
  });
  // A machine still being set up was never the customer's to lose: it goes on "being set up".
  if (during === 'use')
    await notify(
      db,
      boss,
      { kind: 'vm-replaced', subjectId: vm.id, userId: vm.user_id, vmId: vm.id },
      (person) =>
        vmReplacedMail(person, restores ? (kept.completed_at ?? kept.created_at) : null, config.publicUrl),
    );
  await raiseAlert(db, {
    kind: 'instance-replaced',
    message: `Machine ${vm.id} (${vm.plan_id}) lost its instance ${vm.instance_id ?? '(none recorded)'}: ${why}. A new machine is being made for its plan ${restores ? `from the kept copy ${kept.snapshot_id ?? kept.id}` : 'without the files (no kept copy of its disk)'}; the customer was told.`,
    vmId: vm.id,
    instanceId: vm.instance_id,
    details: { during, restoredFrom: restores ? kept.id : null },
  });
  deps.log.warn({ vmId: vm.id, restores, during }, 'lifecycle: lost machine replaced');
  return true;
}
