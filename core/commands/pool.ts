import type { Config } from '../config/config.ts';
import { holdFacts, latestPoolHolds, recordLaunchAttempt } from '../db/launches.ts';
import { raiseAlert } from '../db/operatorAlerts.ts';
import type { Db } from '../db/pool.ts';
import {
  countPoolClaimsSince,
  countPoolFilling,
  countPoolLive,
  insertPoolInstances,
  lockPoolPlan,
  type PoolInstance,
} from '../db/poolInstances.ts';
import { countMachinesInUse } from '../db/vms.ts';
import { poolHoldStatus } from '../domain/launchBudget.ts';
import { type Plan, type PlanId } from '../domain/plans.ts';
import { decidePoolTopUp } from '../domain/pool.ts';
import { HOUR_MS } from '../domain/time.ts';
import type { Logger } from '../observability/log.ts';

/**
 * What `pool-replenish` writes: a plan's new spare rows, as many as `decidePoolTopUp` says and none
 * while its pool is held (`poolHoldStatus`), counted and created under the plan's lock so two runs
 * never top up twice; and a launch refused (the hold, or the hour's budget), in the launch ledger
 * for /metrics and, for a spent budget, an operator alert.
 */

type PoolDeps = { db: Db; log: Logger; config: Pick<Config, 'vm' | 'ec2' | 'capacityLimits'> };

export async function topUpPool(
  deps: PoolDeps,
  plan: Plan,
  now: Date,
): Promise<{ rows: PoolInstance[]; held: string | null }> {
  const { db, config } = deps;
  const spec = {
    planId: plan.id,
    instanceType: plan.instanceType,
    storageGb: plan.storageGb,
    imageId: config.ec2.amiByPlan[plan.id],
  };
  return db.transaction(async (trx) => {
    await lockPoolPlan(trx, plan.id);
    const topUp = decidePoolTopUp({
      warmSize: config.vm.warmPoolSize[plan.id],
      hotMax: config.vm.hotPoolMax[plan.id],
      claimsLastHour: await countPoolClaimsSince(trx, plan.id, new Date(now.getTime() - HOUR_MS)),
      capacityRoom:
        (config.capacityLimits[plan.instanceType] ?? 0) -
        (await countMachinesInUse(trx, plan.instanceType, now)) -
        (await countPoolLive(trx, plan.instanceType)),
      warmFilling: await countPoolFilling(trx, plan.id, false),
      hotFilling: await countPoolFilling(trx, plan.id, true),
    });
    if (topUp.warm + topUp.hot === 0) return { rows: [], held: null };
    // A held pool gets no new rows either: they would only wait, counted as filling.
    const latest = (await latestPoolHolds(trx, plan.id)).get(plan.id) ?? null;
    const status = poolHoldStatus(latest && holdFacts(latest), latest?.ready_since ?? false, now);
    if (status.kind === 'held') return { rows: [], held: status.reason };
    deps.log.debug({ planId: plan.id, ...topUp }, 'pool-replenish: top-up');
    return {
      rows: [
        ...(await insertPoolInstances(trx, spec, topUp.warm)),
        ...(await insertPoolInstances(trx, spec, topUp.hot, true)),
      ],
      held: null,
    };
  });
}

/** A plan's spares were not launched: in the ledger (for /metrics), and a spent budget alerted. */
export async function refusePoolLaunch(
  deps: PoolDeps,
  refusal: { planId: PlanId; why: 'hold' | 'budget'; reason: string; freesAt: number | null },
  now: Date,
): Promise<void> {
  const { planId, why } = refusal;
  await recordLaunchAttempt(deps.db, {
    kind: 'pool',
    planId,
    outcome: 'refused',
    errorCode: why === 'hold' ? 'PoolHold' : 'LaunchBudgetSpent',
    at: now,
  });
  deps.log.warn({ planId, why, reason: refusal.reason }, 'pool-replenish: spares not launched');
  // A hold has its own alert (its cause and fix); a spent budget is told here.
  if (why === 'budget')
    await raiseAlert(deps.db, {
      kind: 'launch-budget',
      dedupeKey: `launch-budget:pool:${planId}`,
      message: `Warm pool of ${planId} launched ${deps.config.vm.launchBudget.pool[planId]} spares in the last hour (LAUNCH_BUDGET_PER_HOUR): no more until ${refusal.freesAt ? new Date(refusal.freesAt).toISOString() : 'the budget is raised'}. Spares keep failing or going: look at the pool's alerts (npm run alerts).`,
    });
}
