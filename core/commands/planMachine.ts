import type { Db } from '../db/pool.ts';
import { diskCopyNotBegun, findKeptSnapshotOfUser, markSnapshotRestored } from '../db/snapshots.ts';
import { findSubscription, lockUserPlans, type Subscription } from '../db/subscriptions.ts';
import {
  attachSubscription,
  findLiveVmByUser,
  findVmBySubscription,
  insertVm,
  recordPlanChange,
  type Vm,
} from '../db/vms.ts';
import { machineForPlan } from '../domain/planMachine.ts';

export type PlanMachine =
  | { kind: 'skip'; why: string }
  | { kind: 'wait'; why: string }
  | { kind: 'vm'; vm: Vm; subscription: Subscription; renewal: boolean };

/**
 * The machine that serves a newly activated plan, as `machineForPlan` (core/domain/lifecycle.ts)
 * decides under the user's plan lock (one live machine per user): the one it has, the
 * customer's live machine kept (a renewal: same instance and disk, with the plan change to make
 * recorded), or a new one (from the customer's kept snapshot when there is one).
 */
export async function choosePlanMachine(
  db: Db,
  { subscriptionId, userId }: { subscriptionId: string; userId: string },
  now: Date,
): Promise<PlanMachine> {
  return db.transaction(async (trx): Promise<PlanMachine> => {
    await lockUserPlans(trx, userId);
    const subscription = await findSubscription(trx, subscriptionId);
    if (!subscription || subscription.user_id !== userId)
      return { kind: 'skip', why: 'no such subscription' };
    const planMachine = await findVmBySubscription(trx, subscriptionId);
    const live = await findLiveVmByUser(trx, userId);
    const kept = live ? null : await findKeptSnapshotOfUser(trx, userId);
    const copyNotBegun = live ? false : await diskCopyNotBegun(trx, userId);
    const choice = machineForPlan({
      plan: {
        status: subscription.status,
        expiresAt: subscription.expires_at,
        hours: subscription.hours,
        cancelledAt: subscription.cancelled_at,
        planId: subscription.plan_id,
        instanceType: subscription.instance_type,
        storageGb: subscription.storage_gb,
      },
      planMachine,
      live: live && { planId: live.plan_id, instanceType: live.instance_type, storageGb: live.storage_gb },
      kept: kept && { id: kept.id, state: kept.state, keepUntil: kept.keep_until },
      copyNotBegun,
      now,
    });
    switch (choice.kind) {
      case 'skip':
        return { kind: 'skip', why: choice.reason };
      case 'wait':
        return { kind: 'wait', why: choice.reason };
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
            // A machine of this plan came before (lost, or retired by an operator): its hours stay used.
            usageSeconds: planMachine?.usage_seconds ?? 0,
          },
          now,
        );
        if (choice.restoreFrom) await markSnapshotRestored(trx, choice.restoreFrom, vm.id);
        return { kind: 'vm', vm, subscription, renewal: false };
      }
    }
  });
}
