import { recordCapacityAvailable, recordCapacityShortage } from '../../core/db/ec2Fleet.ts';
import { recordLaunchAttempt } from '../../core/db/launches.ts';
import { raiseAlert } from '../../core/db/operatorAlerts.ts';
import { beginPoolLaunch, recordPoolLaunch, type PoolInstance } from '../../core/db/poolInstances.ts';
import { findSnapshot, markSnapshotRestored } from '../../core/db/snapshots.ts';
import { beginLaunch, recordLaunch, recordVmError } from '../../core/db/vms.ts';
import { instanceGone } from '../../core/domain/machineDecision.ts';
import { subnetForAttempt } from '../../core/domain/machineProvisioning.ts';
import { imageForPlan } from '../../core/domain/plans.ts';
import { classifyEc2Error, ec2ErrorCode, type Ec2Instance } from '../../core/providers/ec2.ts';
import { poolTags, vmTags } from '../../core/providers/vmEc2.ts';
import { scheduleVmCheck } from '../../core/commands/vmActions.ts';
import { sendJob } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';
import { describeEc2Error, isRetryableCapacity } from '../ec2Errors.ts';
import { userDataFor } from '../machineSetup.ts';
import { clearFailures, recordStepFailure } from './failures.ts';
import { cloudView } from './inputs.ts';
import type { Step, StepContext, StepReport } from './step.ts';

/**
 * Making an instance: the one RunInstances of the product, for a customer's machine and for a
 * warm-pool spare alike. Every call is a row of the launch ledger (launched or refused by EC2),
 * which the launch budgets count (core/domain/launchBudget.ts). Whether to try again, give up
 * or wait for the budget is the domain's.
 */

export type LaunchRequest = {
  kind: 'machine' | 'pool';
  /** The ClientToken: the machine's or the spare's row id, so a retried launch is the same instance. */
  rowId: string;
  planId: string;
  instanceType: string;
  imageId: string;
  subnetId: string;
  volumeSizeGb: number;
  snapshotId?: string | null | undefined;
  tags: Record<string, string>;
  subscriptionId?: string | null | undefined;
};

export type LaunchResult = { kind: 'launched'; instance: Ec2Instance } | { kind: 'failed'; error: unknown };

/** RunInstances (one attempt; the caller owns retries and subnets), recorded in the ledger either way. */
export async function runLaunch(deps: WorkerDeps, request: LaunchRequest, now: Date): Promise<LaunchResult> {
  const { db, config } = deps;
  // The machine's own secrets and where it reports (the same document on every retry).
  const userData = await userDataFor(deps, request.rowId);
  let instance: Ec2Instance | null = null;
  let failure: unknown = null;
  try {
    instance = await deps.vmEc2.launcher.launchInstance({
      clientToken: request.rowId,
      instanceType: request.instanceType,
      imageId: request.imageId,
      keyName: config.ec2.keyName,
      securityGroupIds: config.ec2.securityGroupIds,
      subnetId: request.subnetId,
      volumeSizeGb: request.volumeSizeGb,
      snapshotId: request.snapshotId ?? null,
      tags: request.tags,
      userData,
    });
  } catch (error) {
    failure = error;
    // An earlier attempt did launch (its answer was lost) in another subnet: that one is ours.
    if ((error as { name?: string }).name === 'IdempotentParameterMismatch')
      instance = (await deps.vmEc2.ec2.findByClientTokens([request.rowId])).get(request.rowId) ?? null;
  }
  const ledger = {
    kind: request.kind,
    planId: request.planId,
    subscriptionId: request.subscriptionId ?? null,
    vmId: request.kind === 'machine' ? request.rowId : null,
    poolInstanceId: request.kind === 'pool' ? request.rowId : null,
    at: now,
  } as const;
  if (!instance) {
    const detail = describeEc2Error(failure);
    await recordLaunchAttempt(db, { ...ledger, outcome: 'failed', errorCode: ec2ErrorCode(failure) });
    if (isRetryableCapacity(failure)) await recordCapacityShortage(db, request.instanceType, detail, now);
    return { kind: 'failed', error: failure };
  }
  // Adopted after a mismatch: the earlier attempt lost its answer, so it is counted here (billed all the same).
  await recordLaunchAttempt(db, { ...ledger, outcome: 'launched', instanceId: instance.instanceId });
  await recordCapacityAvailable(db, request.instanceType, now);
  return { kind: 'launched', instance };
}

/** A customer's machine: RunInstances with ClientToken = the machine's id, in the attempt's subnet, from the plan's image (or the kept copy). */
export const launch: Step<'launch'> = async (ctx) => {
  const { deps, vm, log, now } = ctx;
  const { config, db } = deps;
  const restore = vm.restore_snapshot_id ? await findSnapshot(db, vm.restore_snapshot_id) : null;
  // A copy the renewal waited for is the new machine's from now on (the sweep deletes it once
  // the machine is ready); usually marked already, when the copy completed.
  if (restore) await markSnapshotRestored(db, restore.id, vm.id);
  const subnetId = subnetForAttempt(config.ec2, vm.launch_attempts, config.vm.launchAttemptsBeforeFallback);
  const imageId = imageForPlan(vm.plan_id, config.ec2.amiByPlan);
  const begun = await beginLaunch(db, vm.id, { subnetId, imageId }, now);
  // Moved on meanwhile: the next decision reads the row as it now is.
  if (!begun) return {};
  const result = await runLaunch(
    deps,
    {
      kind: 'machine',
      rowId: vm.id,
      planId: vm.plan_id,
      instanceType: vm.instance_type,
      imageId,
      subnetId,
      volumeSizeGb: Math.max(vm.storage_gb, restore?.volume_gb ?? 0),
      snapshotId: restore?.snapshot_id ?? null,
      tags: vmTags(config.ec2, { id: vm.id, userId: vm.user_id, planId: vm.plan_id }),
      subscriptionId: vm.subscription_id,
    },
    now,
  );
  if (result.kind === 'failed') return launchFailed(ctx, begun.launch_attempts, subnetId, result.error);
  const { instance } = result;
  await recordLaunch(db, vm.id, instance, new Date());
  log.info(
    { instanceId: instance.instanceId, subnetId, attempt: begun.launch_attempts },
    'lifecycle: launched',
  );
  await scheduleVmCheck(deps.boss, config, { vmId: vm.id });
  return { cloud: cloudView(instance), outcome: 'launched' };
};

/** A failed RunInstances: on the row, the failure's run (backoff, alert) and, for an account limit, an operator alert. */
async function launchFailed(
  ctx: StepContext,
  attempt: number,
  subnetId: string,
  error: unknown,
): Promise<StepReport> {
  const { deps, vm, now } = ctx;
  const detail = describeEc2Error(error);
  await recordVmError(deps.db, vm.id, `launch attempt ${attempt} in ${subnetId}: ${detail}`, now);
  await recordStepFailure(deps, { kind: 'vm', id: vm.id }, error, now);
  if (classifyEc2Error(error) === 'limit') {
    await raiseAlert(deps.db, {
      kind: 'capacity-limit',
      dedupeKey: `capacity-limit:${vm.instance_type}`,
      message: `EC2 account limit reached launching ${vm.instance_type}: raise the quota. ${detail}`,
      vmId: vm.id,
    });
  }
  return { lastTry: 'launch-failed' };
}

/**
 * A warm-pool spare: RunInstances with ClientToken = the spare's row id, in the attempt's subnet,
 * from the plan's image. Null when the row moved on meanwhile; a failure is reported, never
 * judged here (`decidePoolInstance` holds the pool, leaves it to the next replenish or gives up).
 */
export async function launchSpare(
  deps: WorkerDeps,
  row: PoolInstance,
  now: Date,
): Promise<LaunchResult | null> {
  const { db, config } = deps;
  const subnetId = subnetForAttempt(config.ec2, row.launch_attempts, config.vm.launchAttemptsBeforeFallback);
  const begun = await beginPoolLaunch(db, row.id, subnetId);
  if (!begun) return null;
  const result = await runLaunch(
    deps,
    {
      kind: 'pool',
      rowId: row.id,
      planId: row.plan_id,
      instanceType: row.instance_type,
      imageId: row.image_id,
      subnetId,
      volumeSizeGb: row.storage_gb,
      tags: poolTags(config.ec2, { id: row.id, planId: row.plan_id }),
    },
    now,
  );
  if (result.kind === 'failed') return result;
  await clearFailures(deps, { kind: 'pool', id: row.id }, 'all');
  await recordPoolLaunch(db, row.id, result.instance, now);
  await scheduleVmCheck(deps.boss, config, { poolInstanceId: row.id });
  return result;
}

/** The instance an earlier launch made under the machine's ClientToken, if any. */
export const adopt: Step<'adopt'> = async ({ deps, vm, log, now }) => {
  const found = (await deps.vmEc2.ec2.findByClientTokens([vm.id])).get(vm.id);
  if (!found || instanceGone(found.state)) return { lastTry: 'nothing-adopted' };
  await recordLaunch(deps.db, vm.id, found, now);
  // Its launch lost its answer, so the ledger did not count it: it is billed all the same.
  await recordLaunchAttempt(deps.db, {
    kind: 'machine',
    planId: vm.plan_id,
    subscriptionId: vm.subscription_id,
    vmId: vm.id,
    outcome: 'launched',
    instanceId: found.instanceId,
    at: now,
  });
  log.info({ instanceId: found.instanceId }, 'lifecycle: adopted an instance launched earlier');
  await scheduleVmCheck(deps.boss, deps.config, { vmId: vm.id });
  return { cloud: cloudView(found), outcome: 'launched' };
};

/**
 * The plan's launch budget is spent: the refusal is in the ledger and an operator alert, and the
 * provisioning is sent again for the moment the hour frees a launch.
 */
export const waitLaunchBudget: Step<'wait-launch-budget'> = async ({ deps, vm, log, now }, decision) => {
  await recordLaunchAttempt(deps.db, {
    kind: 'machine',
    planId: vm.plan_id,
    subscriptionId: vm.subscription_id,
    vmId: vm.id,
    outcome: 'refused',
    errorCode: 'LaunchBudgetSpent',
    at: now,
  });
  await raiseAlert(deps.db, {
    kind: 'launch-budget',
    dedupeKey: `launch-budget:${vm.subscription_id}`,
    message: `Machine ${vm.id} (${vm.plan_id}) needs a launch, but its plan already launched ${deps.config.vm.launchBudget.machine} instances in the last hour (LAUNCH_BUDGET_PER_HOUR): it waits${decision.until ? ` until ${new Date(decision.until).toISOString()}` : ''}. Look at why its instances keep going (npm run alerts).`,
    vmId: vm.id,
  });
  const startAfter = new Date(decision.until ?? now.getTime() + 5 * 60_000);
  await sendJob(
    deps.boss,
    'vm-provision',
    { subscriptionId: vm.subscription_id, userId: vm.user_id },
    { startAfter, singletonKey: `launch-budget:${vm.id}`, singletonSeconds: 60 },
  );
  log.warn({ until: startAfter.toISOString() }, `lifecycle: ${decision.reason}`);
  return { outcome: 'waiting' };
};
