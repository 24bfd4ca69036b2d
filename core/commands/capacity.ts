import { findCapacitySignal } from '../db/ec2Fleet.ts';
import { countPoolReady } from '../db/poolInstances.ts';
import type { Db } from '../db/pool.ts';
import { countMachinesInUse } from '../db/vms.ts';
import { getPlan, type PlanId } from '../domain/plans.ts';
import { PLAN_CHOICE_MESSAGES } from '../domain/subscription.ts';

/**
 * The capacity model behind GET /api/vm/check-capacity and the checks before money is taken:
 * may one more machine of this plan's instance type be handed out?
 *
 * 1. Our own limit: the configured machines per instance type (CAPACITY_LIMITS, what the
 *    account's quota and budget allow) minus the machines in use — live VMs, and plans just
 *    paid whose VM is not created yet.
 * 2. A ready warm-pool machine for the plan: the purchase is a start of a machine we hold. Yes.
 * 3. EC2's own word: if it answered InsufficientInstanceCapacity for this type in the last
 *    minutes and has not launched one since, taking money now would mean a long wait. No.
 */

export type CapacityAnswer = { ok: boolean; message: string };

export const CAPACITY_AVAILABLE_MESSAGE = 'Capacity available.';

/** How long an InsufficientInstanceCapacity answer counts against new purchases. */
export const SHORTAGE_MEMORY_MS = 15 * 60_000;

export async function checkCapacity(
  db: Db,
  planId: PlanId,
  options: { limits: Readonly<Record<string, number>>; now?: Date },
): Promise<CapacityAnswer> {
  const { instanceType } = getPlan(planId);
  const now = options.now ?? new Date();
  const limit = options.limits[instanceType] ?? 0;
  const no = { ok: false, message: PLAN_CHOICE_MESSAGES.capacityInsufficient };
  const yes = { ok: true, message: CAPACITY_AVAILABLE_MESSAGE };
  if ((await countMachinesInUse(db, instanceType, now)) >= limit) return no;
  if ((await countPoolReady(db, planId)) > 0) return yes;
  const signal = await findCapacitySignal(db, instanceType);
  const shortage = signal?.insufficient_at;
  if (
    shortage &&
    now.getTime() - shortage.getTime() < SHORTAGE_MEMORY_MS &&
    (!signal.available_at || signal.available_at.getTime() < shortage.getTime())
  ) {
    return no;
  }
  return yes;
}
