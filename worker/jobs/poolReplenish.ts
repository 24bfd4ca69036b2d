import {
  countPoolInFlight,
  holdFacts,
  latestPoolHolds,
  poolLaunchTimes,
  recordLaunchAttempt,
} from '../../core/db/launches.ts';
import { raiseAlert } from '../../core/db/operatorAlerts.ts';
import {
  countPoolClaimsSince,
  countPoolFilling,
  countPoolLive,
  insertPoolInstances,
  listPoolAwaitingLaunch,
  lockPoolPlan,
} from '../../core/db/poolInstances.ts';
import { countMachinesInUse } from '../../core/db/vms.ts';
import {
  LAUNCH_BUDGET_WINDOW_MS,
  launchBudgetLeft,
  poolHoldStatus,
  poolLaunchAllowance,
  type PoolHoldStatus,
} from '../../core/domain/launchBudget.ts';
import { PLANS, type PlanId } from '../../core/domain/plans.ts';
import { decidePoolTopUp } from '../../core/domain/pool.ts';
import { HOUR_MS } from '../../core/domain/time.ts';
import { parsePayload, type Job } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';
import { accountBackoff } from '../lifecycle/failures.ts';
import { stepSpare } from '../lifecycle/pool.ts';

/**
 * `pool-replenish` (cron, and after every claim): keeps at least WARM_POOL_SIZE instances per
 * plan launched, first-boot-done and stopped, so a purchase needs only a start — and, with
 * POOL_HOT, running spares, so a purchase needs no start at all; both follow the last hour's
 * demand. How many of each is decided by core/domain/pool.ts; whether any may be launched now
 * (the plan's hold, its launch budget) by core/domain/launchBudget.ts, from rows. Rows are
 * counted and created under a per-plan lock (two runs never top up twice); each the allowance lets
 * go is handed to the spare's interpreter (worker/lifecycle/pool.ts) in job mode, which launches
 * it through the lifecycle's one launcher with the row id as ClientToken (a replayed launch is the
 * same instance) and decides what a failure means. vm-sync takes each one through first boot,
 * password capture and the stop.
 */
export function poolReplenish(deps: WorkerDeps) {
  return async (jobs: Job<unknown>[]) => {
    for (const job of jobs) {
      parsePayload('pool-replenish', job.data);
      await replenishPool(deps);
    }
  };
}

export type ReplenishReport = {
  created: number;
  launched: number;
  /** Plans whose spares were not launched, and why: on hold, or the hour's budget spent. */
  refused: Array<{ planId: string; why: 'hold' | 'budget' }>;
};

/** Where a plan's pool stands now: its hold and its budget, read from rows. */
async function poolGate(
  deps: WorkerDeps,
  planId: PlanId,
  now: Date,
): Promise<{ status: PoolHoldStatus; budget: { left: number; freesAt: number | null }; inFlight: number }> {
  const latest = (await latestPoolHolds(deps.db, planId)).get(planId) ?? null;
  const status = poolHoldStatus(latest && holdFacts(latest), latest?.ready_since ?? false, now);
  const times = await poolLaunchTimes(deps.db, planId, new Date(now.getTime() - LAUNCH_BUDGET_WINDOW_MS));
  return {
    status,
    budget: launchBudgetLeft(deps.config.vm.launchBudget.pool[planId], times, now),
    inFlight: await countPoolInFlight(deps.db, planId),
  };
}

export async function replenishPool(deps: WorkerDeps, now: Date = new Date()): Promise<ReplenishReport> {
  const { db, config } = deps;
  const report: ReplenishReport = { created: 0, launched: 0, refused: [] };
  // AWS throttles the account: no launch until its backoff is over.
  if (await accountBackoff(deps, now)) return report;
  for (const plan of PLANS) {
    const warm = config.vm.warmPoolSize[plan.id];
    const hotMax = config.vm.hotPoolMax[plan.id];
    if (!warm && !hotMax) continue;
    const spec = {
      planId: plan.id,
      instanceType: plan.instanceType,
      storageGb: plan.storageGb,
      imageId: config.ec2.amiByPlan[plan.id],
    };
    const created = await db.transaction(async (trx) => {
      await lockPoolPlan(trx, plan.id);
      const topUp = decidePoolTopUp({
        warmSize: warm,
        hotMax,
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
    report.created += created.rows.length;
    if (created.held)
      await refused(deps, plan.id, 'hold', created.held, { budget: { freesAt: null } }, now, report);
  }

  const awaiting = await listPoolAwaitingLaunch(db);
  for (const planId of [...new Set(awaiting.map((row) => row.plan_id as PlanId))]) {
    const rows = awaiting.filter((row) => row.plan_id === planId);
    const gate = await poolGate(deps, planId, now);
    const allowance = poolLaunchAllowance({ wanted: rows.length, ...gate });
    if (allowance.refused)
      await refused(deps, planId, allowance.refused, allowance.reason, gate, now, report);
    for (const row of rows.slice(0, allowance.allowed)) {
      if ((await stepSpare(deps, row, undefined, now, 'job'))?.launched) report.launched += 1;
    }
  }
  if (report.created > 0 || report.launched > 0)
    deps.log.info(
      { created: report.created, launched: report.launched },
      'pool-replenish: warm pool topped up',
    );
  return report;
}

/** A plan's spares were not launched: in the ledger (for /metrics), and a spent budget alerted. */
async function refused(
  deps: WorkerDeps,
  planId: PlanId,
  why: 'hold' | 'budget',
  reason: string,
  gate: { budget: { freesAt: number | null } },
  now: Date,
  report: ReplenishReport,
): Promise<void> {
  report.refused.push({ planId, why });
  await recordLaunchAttempt(deps.db, {
    kind: 'pool',
    planId,
    outcome: 'refused',
    errorCode: why === 'hold' ? 'PoolHold' : 'LaunchBudgetSpent',
    at: now,
  });
  deps.log.warn({ planId, why, reason }, 'pool-replenish: spares not launched');
  // A hold has its own alert (its cause and fix); a spent budget is told here.
  if (why === 'budget')
    await raiseAlert(deps.db, {
      kind: 'launch-budget',
      dedupeKey: `launch-budget:pool:${planId}`,
      message: `Warm pool of ${planId} launched ${deps.config.vm.launchBudget.pool[planId]} spares in the last hour (LAUNCH_BUDGET_PER_HOUR): no more until ${gate.budget.freesAt ? new Date(gate.budget.freesAt).toISOString() : 'the budget is raised'}. Spares keep failing or going: look at the pool's alerts (npm run alerts).`,
    });
}
