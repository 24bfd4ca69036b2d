import { recordCapacityAvailable, recordCapacityShortage } from '../../core/db/ec2Fleet.ts';
import { raiseAlert } from '../../core/db/operatorAlerts.ts';
import { findSnapshot, markSnapshotRestored } from '../../core/db/snapshots.ts';
import { beginLaunch, recordLaunch, recordVmError } from '../../core/db/vms.ts';
import { subnetForAttempt } from '../../core/domain/lifecycle.ts';
import { imageForPlan } from '../../core/domain/plans.ts';
import { classifyEc2Error, type Ec2Instance } from '../../core/providers/ec2.ts';
import { vmTags } from '../../core/providers/vmEc2.ts';
import { scheduleVmCheck } from '../../core/commands/vmActions.ts';
import { describeEc2Error, isRetryableCapacity } from '../ec2Errors.ts';
import { userDataFor } from '../machineSetup.ts';
import { cloudView } from './inputs.ts';
import type { Step, StepContext, StepReport } from './step.ts';

/**
 * Making a machine's instance: RunInstances, or finding the one an earlier attempt made. Each
 * reports what came of it; whether to try again or give up is the domain's (the launch budget).
 */

/** RunInstances with ClientToken = the machine's id, in the attempt's subnet, from the plan's image (or the kept copy). */
export const launch: Step<'launch'> = async (ctx) => {
  const { deps, vm, log, now } = ctx;
  const { config, db } = deps;
  const restore = vm.restore_snapshot_id ? await findSnapshot(db, vm.restore_snapshot_id) : null;
  // A copy the renewal waited for is the new machine's from now on (the sweep deletes it once
  // the machine is ready); usually marked already, when the copy completed.
  if (restore?.state === 'completed') await markSnapshotRestored(db, restore.id, vm.id);
  const subnetId = subnetForAttempt(config.ec2, vm.launch_attempts, config.vm.launchAttemptsBeforeFallback);
  const imageId = imageForPlan(vm.plan_id, config.ec2.amiByPlan);
  const begun = await beginLaunch(db, vm.id, { subnetId, imageId }, now);
  // Moved on meanwhile: the next decision reads the row as it now is.
  if (!begun) return {};
  // This machine's own secrets and where it reports (the same document on every retry).
  const userData = await userDataFor(deps, vm.id);
  let instance: Ec2Instance | null = null;
  try {
    instance = await deps.vmEc2.launcher.launchInstance({
      clientToken: vm.id,
      instanceType: vm.instance_type,
      imageId,
      keyName: config.ec2.keyName,
      securityGroupIds: config.ec2.securityGroupIds,
      subnetId,
      volumeSizeGb: Math.max(vm.storage_gb, restore?.volume_gb ?? 0),
      snapshotId: restore?.snapshot_id ?? null,
      tags: vmTags(config.ec2, { id: vm.id, userId: vm.user_id, planId: vm.plan_id }),
      userData,
    });
  } catch (error) {
    if ((error as { name?: string }).name === 'IdempotentParameterMismatch') {
      // An earlier attempt did launch (its answer was lost) in another subnet: adopt that one.
      instance = (await deps.vmEc2.ec2.findByClientTokens([vm.id])).get(vm.id) ?? null;
    }
    if (!instance) return launchFailed(ctx, begun.launch_attempts, subnetId, error);
  }
  await recordLaunch(db, vm.id, instance, new Date());
  await recordCapacityAvailable(db, vm.instance_type, new Date());
  log.info(
    { instanceId: instance.instanceId, subnetId, attempt: begun.launch_attempts },
    'lifecycle: launched',
  );
  await scheduleVmCheck(deps.boss, config, { vmId: vm.id });
  return { cloud: cloudView(instance), outcome: 'launched' };
};

/** A failed RunInstances: on the row, the capacity record and (an account limit) an operator alert. */
async function launchFailed(
  ctx: StepContext,
  attempt: number,
  subnetId: string,
  error: unknown,
): Promise<StepReport> {
  const { deps, vm, log, now } = ctx;
  const detail = describeEc2Error(error);
  await recordVmError(deps.db, vm.id, `launch attempt ${attempt}: ${detail}`, now);
  if (isRetryableCapacity(error)) await recordCapacityShortage(deps.db, vm.instance_type, detail, now);
  if (classifyEc2Error(error) === 'limit') {
    await raiseAlert(deps.db, {
      kind: 'capacity-limit',
      dedupeKey: `capacity-limit:${vm.instance_type}`,
      message: `EC2 account limit reached launching ${vm.instance_type}: raise the quota. ${detail}`,
      vmId: vm.id,
    });
  }
  log.warn({ attempt, subnetId, error: detail }, 'lifecycle: launch failed');
  return { lastTry: 'launch-failed' };
}

/** The instance an earlier launch made under the machine's ClientToken, if any. */
export const adopt: Step<'adopt'> = async ({ deps, vm, log, now }) => {
  const found = (await deps.vmEc2.ec2.findByClientTokens([vm.id])).get(vm.id);
  if (!found || found.state === 'terminated' || found.state === 'shutting-down')
    return { lastTry: 'nothing-adopted' };
  await recordLaunch(deps.db, vm.id, found, now);
  log.info({ instanceId: found.instanceId }, 'lifecycle: adopted an instance launched earlier');
  await scheduleVmCheck(deps.boss, deps.config, { vmId: vm.id });
  return { cloud: cloudView(found), outcome: 'launched' };
};
