import { recordCapacityAvailable, recordCapacityShortage } from '../../core/db/ec2Fleet.ts';
import {
  beginPoolLaunch,
  countPoolClaimsSince,
  countPoolFilling,
  countPoolLive,
  insertPoolInstances,
  listPoolAwaitingLaunch,
  lockPoolPlan,
  markPoolFailed,
  recordPoolLaunch,
  setPoolProblem,
  type PoolInstance,
} from '../../core/db/poolInstances.ts';
import { countMachinesInUse } from '../../core/db/vms.ts';
import { PLANS } from '../../core/domain/plans.ts';
import { decidePoolTopUp } from '../../core/domain/pool.ts';
import { HOUR_MS } from '../../core/domain/time.ts';
import type { Ec2Instance } from '../../core/providers/ec2.ts';
import { attemptBudget, parsePayload, type Job } from '../../core/queue.ts';
import { scheduleVmCheck } from '../../core/commands/vmActions.ts';
import { poolTags } from '../../core/providers/vmEc2.ts';
import { subnetForAttempt } from '../../core/domain/lifecycle.ts';
import { describeEc2Error, isRetryableCapacity } from '../ec2Errors.ts';
import type { WorkerDeps } from '../deps.ts';
import { userDataFor } from '../machineSetup.ts';

/**
 * `pool-replenish` (cron, and after every claim): keeps at least WARM_POOL_SIZE instances per
 * plan launched, first-boot-done and stopped, so a purchase needs only a start — and, with
 * POOL_HOT, running spares, so a purchase needs no start at all; both follow the last hour's
 * demand. How many
 * of each is decided by core/domain/pool.ts; rows are counted and created under a per-plan lock
 * (two runs never top up twice); each row's launch carries the row id as ClientToken (a replayed
 * launch is the same instance). vm-sync takes each one through first boot, password capture and
 * the stop.
 */
export function poolReplenish(deps: WorkerDeps) {
  return async (jobs: Job<unknown>[]) => {
    for (const job of jobs) {
      parsePayload('pool-replenish', job.data);
      await replenishPool(deps);
    }
  };
}

export async function replenishPool(
  deps: WorkerDeps,
  now: Date = new Date(),
): Promise<{ created: number; launched: number }> {
  const { db, config } = deps;
  let created = 0;
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
    const rows = await db.transaction(async (trx) => {
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
      if (topUp.warm + topUp.hot > 0) deps.log.debug({ planId: plan.id, ...topUp }, 'pool-replenish: top-up');
      return [
        ...(await insertPoolInstances(trx, spec, topUp.warm)),
        ...(await insertPoolInstances(trx, spec, topUp.hot, true)),
      ];
    });
    created += rows.length;
  }
  let launched = 0;
  for (const row of await listPoolAwaitingLaunch(db)) {
    if (await launchPoolInstance(deps, row)) launched += 1;
  }
  if (created > 0 || launched > 0)
    deps.log.info({ created, launched }, 'pool-replenish: warm pool topped up');
  return { created, launched };
}

async function launchPoolInstance(deps: WorkerDeps, row: PoolInstance): Promise<boolean> {
  const { db, config } = deps;
  const subnetId = subnetForAttempt(config.ec2, row.launch_attempts, config.vm.launchAttemptsBeforeFallback);
  const begun = await beginPoolLaunch(db, row.id, subnetId);
  if (!begun) return false;
  // This machine's own secrets and where it reports (the same document on every retry).
  const userData = await userDataFor(deps, row.id);
  let instance: Ec2Instance | null = null;
  try {
    instance = await deps.vmEc2.launcher.launchInstance({
      clientToken: row.id,
      instanceType: row.instance_type,
      imageId: row.image_id,
      keyName: config.ec2.keyName,
      securityGroupIds: config.ec2.securityGroupIds,
      subnetId,
      volumeSizeGb: row.storage_gb,
      tags: poolTags(config.ec2, { id: row.id, planId: row.plan_id }),
      userData,
    });
  } catch (error) {
    if ((error as { name?: string }).name === 'IdempotentParameterMismatch')
      instance = (await deps.vmEc2.ec2.findByClientTokens([row.id])).get(row.id) ?? null;
    if (!instance) {
      const detail = describeEc2Error(error);
      const now = new Date();
      if (isRetryableCapacity(error)) await recordCapacityShortage(db, row.instance_type, detail, now);
      // The pool is a nicety: a failure waits for the next replenish, customers are not affected.
      if (begun.launch_attempts >= attemptBudget('vm-provision'))
        await markPoolFailed(db, row.id, detail, now);
      else await setPoolProblem(db, row.id, detail);
      deps.log.warn(
        { poolInstanceId: row.id, attempt: begun.launch_attempts, error: detail, err: error },
        'pool-replenish: launch failed',
      );
      return false;
    }
  }
  await recordPoolLaunch(db, row.id, instance, new Date());
  await recordCapacityAvailable(db, row.instance_type, new Date());
  await scheduleVmCheck(deps.boss, config, { poolInstanceId: row.id });
  return true;
}
