import { refusePoolLaunch, topUpPool } from '../../core/commands/pool.ts';
import { countPoolInFlight, holdFacts, latestPoolHolds, poolLaunchTimes } from '../../core/db/launches.ts';
import { listPoolAwaitingLaunch } from '../../core/db/poolInstances.ts';
import {
  LAUNCH_BUDGET_WINDOW_MS,
  launchBudgetLeft,
  poolHoldStatus,
  poolLaunchAllowance,
  type PoolHoldStatus,
} from '../../core/domain/launchBudget.ts';
import { PLANS, type PlanId } from '../../core/domain/plans.ts';
import type { WorkerDeps } from '../deps.ts';
import { sweepJob } from '../job.ts';
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
  return sweepJob('pool-replenish', () => replenishPool(deps));
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
    if (!config.vm.warmPoolSize[plan.id] && !config.vm.hotPoolMax[plan.id]) continue;
    const created = await topUpPool(deps, plan, now);
    report.created += created.rows.length;
    if (created.held)
      await refused(deps, report, { planId: plan.id, why: 'hold', reason: created.held, freesAt: null }, now);
  }

  const awaiting = await listPoolAwaitingLaunch(db);
  for (const planId of [...new Set(awaiting.map((row) => row.plan_id as PlanId))]) {
    const rows = awaiting.filter((row) => row.plan_id === planId);
    const gate = await poolGate(deps, planId, now);
    const allowance = poolLaunchAllowance({ wanted: rows.length, ...gate });
    if (allowance.refused)
      await refused(
        deps,
        report,
        { planId, why: allowance.refused, reason: allowance.reason, freesAt: gate.budget.freesAt },
        now,
      );
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

async function refused(
  deps: WorkerDeps,
  report: ReplenishReport,
  refusal: Parameters<typeof refusePoolLaunch>[1],
  now: Date,
): Promise<void> {
  report.refused.push({ planId: refusal.planId, why: refusal.why });
  await refusePoolLaunch(deps, refusal, now);
}
