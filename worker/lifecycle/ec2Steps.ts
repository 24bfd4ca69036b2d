import { recordCapacityAvailable, recordCapacityShortage } from '../../core/db/ec2Fleet.ts';
import { raiseAlert } from '../../core/db/operatorAlerts.ts';
import {
  countStartAttempt,
  recordResized,
  recordResizeReverted,
  recordVmError,
  storeVmPassword,
} from '../../core/db/vms.ts';
import { instanceGone, type CloudView } from '../../core/domain/machineDecision.ts';
import { annotateEc2Error, classifyEc2Error } from '../../core/providers/ec2.ts';
import { vmTags } from '../../core/providers/vmEc2.ts';
import { scheduleVmCheck } from '../../core/commands/vmActions.ts';
import { describeEc2Error, isRetryableCapacity, RetryLater } from '../ec2Errors.ts';
import { recordStepFailure } from './failures.ts';
import { capturePassword } from './password.ts';
import { withState, type Step } from './step.ts';

/**
 * The machine's EC2 steps, each one call (or a few of one kind) under the machine's lock. A
 * step reports what came of it (what EC2 now says, or how the call failed); the next decision
 * is the domain's. An error a step cannot describe as a fact is recorded on the row and thrown
 * (a job retries it; a sweep records and logs it).
 */

/** Our tags on a claimed warm-pool instance (it carries the pool's until then). */
export const tag: Step<'tag'> = async ({ deps, vm }) => {
  if (!vm.instance_id) return {};
  await deps.vmEc2.ec2.tagInstances(
    [vm.instance_id],
    vmTags(deps.config.ec2, { id: vm.id, userId: vm.user_id, planId: vm.plan_id }),
  );
  return { observeAgain: true };
};

/** StartInstances on a claimed warm-pool instance (no hours are at stake: it is not ready yet). */
export const startClaimed: Step<'start-claimed'> = async ({ deps, vm, cloud, now }) => {
  if (!vm.instance_id) return {};
  try {
    const change = await deps.vmEc2.launcher.startInstance(vm.instance_id);
    await recordCapacityAvailable(deps.db, vm.instance_type, now);
    await scheduleVmCheck(deps.boss, deps.config, { vmId: vm.id });
    return { cloud: withState(cloud, change.current) };
  } catch (error) {
    const detail = describeEc2Error(error);
    if (classifyEc2Error(error) === 'incorrect-state') {
      // Already on its way (an earlier attempt got through) or still stopping: looked at again shortly.
      deps.log.info(
        { vmId: vm.id, instanceId: vm.instance_id, error: detail },
        'lifecycle: warm-pool instance not startable yet; checking again shortly',
      );
      await scheduleVmCheck(deps.boss, deps.config, { vmId: vm.id });
      return { lastTry: 'not-startable-yet' };
    }
    if (isRetryableCapacity(error)) await recordCapacityShortage(deps.db, vm.instance_type, detail, now);
    await recordVmError(deps.db, vm.id, `starting warm-pool instance: ${detail}`, now);
    await recordStepFailure(deps, { kind: 'vm', id: vm.id, instanceId: vm.instance_id }, error, now);
    return { lastTry: 'start-failed' };
  }
};

/**
 * StartInstances for a machine the customer (or a renewal) moved to `starting`. A capacity
 * error counts an attempt (the decision then retries, or gives up once the budget is spent).
 */
export const start: Step<'start'> = async ({ deps, vm, cloud, log, now }) => {
  if (!vm.instance_id) return {};
  try {
    const change = await deps.vmEc2.launcher.startInstance(vm.instance_id);
    await scheduleVmCheck(deps.boss, deps.config, { vmId: vm.id });
    log.info('lifecycle: start requested');
    return { cloud: withState(cloud, change.current) };
  } catch (error) {
    const kind = classifyEc2Error(error);
    const detail = describeEc2Error(error);
    // A fact for the domain, which answers `lost`.
    if (kind === 'not-found') {
      await recordVmError(deps.db, vm.id, `start: ${detail}`, now);
      return { cloud: null, lastTry: 'instance-not-found' };
    }
    // Still stopping (a quick STOP then START): not a failed attempt.
    if (kind === 'incorrect-state') return { lastTry: 'not-startable-yet' };
    if (isRetryableCapacity(error)) await recordCapacityShortage(deps.db, vm.instance_type, detail, now);
    await recordVmError(deps.db, vm.id, `start: ${detail}`, now);
    const counted = await countStartAttempt(deps.db, vm.id);
    log.info({ attempt: counted?.start_attempts }, 'lifecycle: start attempt counted');
    await recordStepFailure(deps, { kind: 'vm', id: vm.id, instanceId: vm.instance_id }, error, now);
    return { lastTry: 'start-failed' };
  }
};

/** StopInstances (the customer's STOP, hours used up, plan ended, a plan change). */
export const stop: Step<'stop'> = async ({ deps, vm, cloud, log, now }) => {
  if (!vm.instance_id) return {};
  try {
    const change = await deps.vmEc2.ec2.stopInstance(vm.instance_id);
    await scheduleVmCheck(deps.boss, deps.config, { vmId: vm.id });
    log.info({ reason: vm.state_reason }, 'lifecycle: stop requested');
    return { cloud: withState(cloud, change.current) };
  } catch (error) {
    // A fact for the domain, which answers `lost`.
    if (classifyEc2Error(error) === 'not-found') {
      await recordVmError(deps.db, vm.id, `stop: ${describeEc2Error(error)}`, now);
      return { cloud: null, lastTry: 'instance-not-found' };
    }
    // On the row for operators (the reaper's alert quotes it if the stop stalls); retried.
    await recordVmError(deps.db, vm.id, `stop: ${describeEc2Error(error)}`, now);
    throw new RetryLater(`stopping ${vm.instance_id}: ${describeEc2Error(error)}`, { cause: error });
  }
};

/** The instance runs while we hold the machine stopped (started outside us): an alert, and it is stopped. */
export const alertUnexpected: Step<'alert-unexpected'> = async ({ deps, vm, cloud, now }, decision) => {
  if (!vm.instance_id) return {};
  await raiseAlert(deps.db, {
    kind: 'unexpected-state',
    message: `Instance ${vm.instance_id} runs but its machine is stopped; stopping it. ${decision.reason}.`,
    vmId: vm.id,
    instanceId: vm.instance_id,
  });
  try {
    const change = await deps.vmEc2.ec2.stopInstance(vm.instance_id);
    return { cloud: withState(cloud, change.current) };
  } catch (error) {
    // Still pending: it can be stopped once running; the next sweep tries again.
    if (classifyEc2Error(error) !== 'incorrect-state') throw error;
    await recordVmError(deps.db, vm.id, `stop of an unexpected start: ${describeEc2Error(error)}`, now);
    return { lastTry: 'stop-refused' };
  }
};

/**
 * TerminateInstances on the recorded instance and whatever a launch made under the machine's
 * ClientToken. The machine is deleted once EC2 says its instance is terminated (a later look):
 * until then it is "being deleted". One that never recorded an instance has nothing to look at.
 */
export const terminate: Step<'terminate'> = async ({ deps, vm, cloud, log, now }) => {
  const ec2 = deps.vmEc2.ec2;
  const ids = new Set<string>(vm.instance_id ? [vm.instance_id] : []);
  if (vm.launch_attempts > 0) {
    const launched = (await ec2.findByClientTokens([vm.id])).get(vm.id);
    if (launched && !instanceGone(launched.state)) ids.add(launched.instanceId);
  }
  let recorded: CloudView | undefined = cloud;
  for (const instanceId of ids) {
    try {
      const change = await ec2.terminateInstance(instanceId);
      if (instanceId === vm.instance_id) recorded = withState(cloud, change.current);
    } catch (error) {
      if (classifyEc2Error(error) !== 'not-found') {
        await recordVmError(deps.db, vm.id, `terminate: ${describeEc2Error(error)}`, now);
        throw new RetryLater(`terminating ${instanceId}: ${describeEc2Error(error)}`, { cause: error });
      }
      if (instanceId === vm.instance_id) recorded = null;
    }
  }
  log.info({ instances: [...ids], reason: vm.state_reason }, 'lifecycle: termination asked');
  // Without a recorded instance there is nothing to look at again: the domain reads `null` as deleted.
  if (!vm.instance_id) return { cloud: null };
  await scheduleVmCheck(deps.boss, deps.config, { vmId: vm.id });
  return { cloud: recorded };
};

/**
 * A plan change on the stopped instance: its new type (EC2 allows it only while stopped) and a
 * bigger disk (grown in place; Windows extends the partition on the next boot).
 */
export const resize: Step<'resize'> = async ({ deps, vm, log, now }) => {
  const ec2 = deps.vmEc2.ec2;
  if (!vm.instance_id) return {};
  const toType = vm.resize_to_type ?? vm.instance_type;
  const toGb = Math.max(vm.storage_gb, vm.resize_to_gb ?? 0);
  try {
    if (toType !== vm.instance_type) await ec2.modifyInstanceType(vm.instance_id, toType);
    if (toGb > vm.storage_gb) {
      const [instance] = await ec2.describeInstances({ instanceIds: [vm.instance_id] });
      if (!instance?.rootVolumeId) throw new RetryLater(`no root volume listed for ${vm.instance_id} yet`);
      await ec2.growVolume(instance.rootVolumeId, toGb);
    }
  } catch (error) {
    if (error instanceof RetryLater) throw error;
    const detail = describeEc2Error(error);
    await recordVmError(deps.db, vm.id, `plan change to ${toType}/${toGb} GB: ${detail}`, now);
    // Not stopped yet after all (a quick START): the next look decides again.
    if (classifyEc2Error(error) === 'incorrect-state') return { observeAgain: true };
    throw new RetryLater(`plan change to ${toType}: ${detail}`, { cause: error });
  }
  await recordResized(deps.db, vm.id, {
    instanceType: toType,
    storageGb: toGb,
    fromType: toType !== vm.instance_type ? vm.instance_type : null,
  });
  log.info(
    { from: vm.instance_type, to: toType, storageGb: toGb },
    'lifecycle: plan change applied to the same instance and disk',
  );
  return {};
};

/** No machine of the new type could be started: the old type back, the change pending again. */
export const revertResize: Step<'revert-resize'> = async ({ deps, vm, log, now }) => {
  if (!vm.instance_id || !vm.resized_from_type) return {};
  try {
    await deps.vmEc2.ec2.modifyInstanceType(vm.instance_id, vm.resized_from_type);
  } catch (error) {
    const detail = `putting back ${vm.resized_from_type}: ${describeEc2Error(error)}`;
    await recordVmError(deps.db, vm.id, detail, now);
    throw new RetryLater(detail, { cause: error });
  }
  await recordResizeReverted(deps.db, vm.id);
  log.warn(
    { from: vm.instance_type, back: vm.resized_from_type },
    'lifecycle: no capacity for the new type; the machine is back as it was',
  );
  return {};
};

/** The Windows password, once the first boot is done; never garbage shown as a password. */
export const capture: Step<'capture-password'> = async ({ deps, vm, now }) => {
  if (!vm.instance_id) return {};
  const captured = await capturePassword(deps, deps.vmEc2.ec2, vm.instance_id);
  switch (captured.status) {
    case 'not-ready':
      return { lastTry: 'password-not-ready' };
    case 'undecryptable': {
      // Stays provisioning; an operator is told which check failed, and the capture backs off.
      await raiseAlert(deps.db, {
        kind: 'password-undecryptable',
        message: captured.message,
        vmId: vm.id,
        instanceId: vm.instance_id,
      });
      await recordVmError(deps.db, vm.id, captured.message, now);
      const failure = Object.assign(new Error(captured.message), { name: 'PasswordUndecryptable' });
      annotateEc2Error(failure, 'GetPasswordDataCommand', { InstanceId: vm.instance_id });
      await recordStepFailure(deps, { kind: 'vm', id: vm.id, instanceId: vm.instance_id }, failure, now);
      return { lastTry: 'password-undecryptable' };
    }
    case 'sealed':
      await storeVmPassword(deps.db, vm.id, captured.sealed, now);
      return {};
  }
};
