import type { Config } from '../config/config.ts';
import { holdFacts, insertPoolHold, latestPoolHolds, setPoolHoldAlert } from '../db/launches.ts';
import { findAlert, raiseAlert, resolveAlertsByKeys } from '../db/operatorAlerts.ts';
import type { Db } from '../db/pool.ts';
import { findVm } from '../db/vms.ts';
import {
  healthHoldCause,
  nextPoolHold,
  poolHoldAlertMessage,
  type PoolHoldCause,
} from '../domain/launchBudget.ts';
import { alertingProblems, HEALTH_PROBLEM_WORDS, type MachineHealthReport } from '../domain/machineHealth.ts';
import { getPlan, type PlanId } from '../domain/plans.ts';
import type { Logger } from '../observability/log.ts';

type HoldDeps = { db: Db; log: Logger; config: Pick<Config, 'ec2'> };

/**
 * Putting a plan's warm pool on hold, and lifting the word of it: the hold's row (its backoff
 * from `nextPoolHold`), one operator alert per plan naming the cause and the fix, resolved once a
 * spare of the plan is ready again. Whether a pool is held now is `poolHoldStatus`, read from
 * these rows by `pool-replenish`. Shared by the worker (a spare that failed) and the web process
 * (a fresh machine reporting a fault of its image).
 */

export const poolHoldAlertKey = (planId: string) => `pool-hold:${planId}`;

/** The environment variable naming a plan's own image. */
function planImageVar(planId: string): string {
  return `EC2_AMI_${planId.toUpperCase().replaceAll('-', '_')}`;
}

export async function holdPool(
  deps: HoldDeps,
  failed: { planId: string; poolInstanceId: string | null; instanceId: string | null; vmId?: string | null },
  cause: PoolHoldCause,
  detail: string,
  now: Date,
): Promise<void> {
  const { db, log, config } = deps;
  const latest = (await latestPoolHolds(db, failed.planId)).get(failed.planId) ?? null;
  const next = nextPoolHold(latest && holdFacts(latest), latest?.ready_since ?? false, cause, now);
  const hold = await insertPoolHold(db, {
    planId: failed.planId,
    cause,
    detail,
    level: next.level,
    begunAt: now,
    until: new Date(next.until),
    poolInstanceId: failed.poolInstanceId,
    vmId: failed.vmId ?? null,
  });
  // The same failed spare seen again: its hold exists already.
  if (!hold) return;
  const key = poolHoldAlertKey(failed.planId);
  // An operator acknowledged the last hold and it failed again: a new alert, so a person hears of it.
  const previousAlert = latest?.alert_id ? await findAlert(db, latest.alert_id) : null;
  if (previousAlert?.acknowledged_at && !previousAlert.resolved_at) await resolveAlertsByKeys(db, [key]);
  const { alert } = await raiseAlert(db, {
    kind: 'pool-hold',
    dedupeKey: key,
    message: poolHoldAlertMessage({
      planName: getPlan(failed.planId as PlanId).displayName,
      cause,
      detail,
      until: next.until,
      level: next.level,
      keyName: config.ec2.keyName,
      planEnv: planImageVar(failed.planId),
    }),
    instanceId: failed.instanceId,
    details: { planId: failed.planId, cause, level: next.level, until: new Date(next.until).toISOString() },
  });
  await setPoolHoldAlert(db, hold.id, alert.id);
  log.warn(
    { planId: failed.planId, cause, level: next.level, until: new Date(next.until).toISOString() },
    'pool: on hold, no spare is launched until then',
  );
}

/** A spare of the plan is ready: whatever held the pool is over, and so is its alert. */
export async function poolRecovered(deps: Pick<HoldDeps, 'db' | 'log'>, planId: string): Promise<void> {
  if ((await resolveAlertsByKeys(deps.db, [poolHoldAlertKey(planId)])) > 0)
    deps.log.info({ planId }, 'pool: a spare is ready again; the hold alert is resolved');
}

/**
 * A machine fresh from its plan's image reports a fault of the image (`healthHoldCause`): the
 * spares of that plan carry the same image, so its pool is held until the image is fixed.
 */
export async function holdPoolForImageFault(
  deps: HoldDeps,
  report: { vmId: string; instanceId: string; report: MachineHealthReport },
  now: Date,
): Promise<void> {
  const vm = await findVm(deps.db, report.vmId);
  if (!vm) return;
  const problems = alertingProblems(report.report, vm.instance_type);
  if (problems.length === 0) return;
  const cause = healthHoldCause(problems, { readyAt: vm.ready_at }, now);
  if (!cause) return;
  const words = problems.map((p) => HEALTH_PROBLEM_WORDS[p].operator).join(' ');
  await holdPool(
    deps,
    { planId: vm.plan_id, poolInstanceId: null, instanceId: report.instanceId, vmId: vm.id },
    cause,
    `Machine ${report.instanceId}, made from the plan's image ${vm.image_id ?? ''} less than an hour ago, reports: ${words}`,
    now,
  );
}
