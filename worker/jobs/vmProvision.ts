import { recordCapacityAvailable, recordCapacityShortage } from '../../core/db/ec2Fleet.ts';
import { raiseAlert } from '../../core/db/operatorAlerts.ts';
import { claimPoolInstance } from '../../core/db/poolInstances.ts';
import { lockUserPlans, findSubscription, type Subscription } from '../../core/db/subscriptions.ts';
import {
  assignPoolInstance,
  attachSubscription,
  beginLaunch,
  findLiveVmByUser,
  findVmBySubscription,
  insertVm,
  markVmError,
  recordLaunch,
  type Vm,
} from '../../core/db/vms.ts';
import { isPlanId } from '../../core/domain/plans.ts';
import { VM_MESSAGES } from '../../core/domain/vm.ts';
import { provisionFailedMail } from '../../core/emails/vms.ts';
import { classifyEc2Error, type Ec2Instance } from '../../core/providers/ec2.ts';
import { parsePayload, sendJob, type Job, type Payload } from '../../core/queue.ts';
import {
  requestStart,
  requestTerminate,
  scheduleVmCheck,
  subscriptionInForce,
} from '../../core/vmActions.ts';
import { subnetForAttempt, vmTags } from '../../core/vmEc2.ts';
import {
  describeEc2Error,
  findByClientTokens,
  isIdempotentMismatch,
  isRetryableCapacity,
  notify,
  RetryLater,
} from '../cloudPc.ts';
import type { WorkerDeps } from '../deps.ts';

/**
 * `vm-provision`: the machine of a newly activated subscription. Sent by payment-verify in the
 * activating transaction (and again by the reaper when a provisioning stalls).
 *
 * Guard: the subscription must be in force; its VM row is found or created under the user's
 * plan lock (one live machine per user). A renewal on the same kind of machine re-points the
 * existing VM (same instance, same disk) and starts it. A new VM takes a warm-pool instance
 * when one is ready (a start: about a minute), else launches one with ClientToken = VM id, so
 * however often this runs, EC2 creates one instance. Capacity and limit errors throw to retry
 * with backoff; the attempt count moves later attempts to the fallback subnets. Readiness (IP,
 * password) is vm-sync's business.
 */
export function vmProvision(deps: WorkerDeps) {
  return async (jobs: Job<unknown>[]) => {
    for (const job of jobs) {
      await provisionVm(deps, parsePayload('vm-provision', job.data), job.id);
    }
  };
}

export type ProvisionOutcome =
  'skipped' | 'renewed' | 'claimed-pool' | 'launched' | 'in-progress' | 'failed' | 'nothing-to-do';

type Decision =
  { kind: 'skip'; why: string } | { kind: 'vm'; vm: Vm; subscription: Subscription; renewal: boolean };

export async function provisionVm(
  deps: WorkerDeps,
  { subscriptionId, userId }: Payload<'vm-provision'>,
  jobId?: string,
): Promise<ProvisionOutcome> {
  const { db, boss } = deps;
  const log = deps.log.child({ jobId, subscriptionId, queue: 'vm-provision' });
  const now = new Date();

  const decision = await db.transaction(async (trx): Promise<Decision> => {
    await lockUserPlans(trx, userId);
    const subscription = await findSubscription(trx, subscriptionId);
    if (!subscription || subscription.user_id !== userId)
      return { kind: 'skip', why: 'no such subscription' };
    const existing = await findVmBySubscription(trx, subscriptionId);
    if (
      existing &&
      existing.state !== 'error' &&
      existing.state !== 'terminating' &&
      existing.state !== 'terminated'
    ) {
      return {
        kind: 'vm',
        vm: existing,
        subscription,
        renewal: existing.subscription_attached_at > existing.requested_at,
      };
    }
    if (!subscriptionInForce(subscription, now))
      return { kind: 'skip', why: `subscription is ${subscription.status}` };
    const live = await findLiveVmByUser(trx, userId);
    if (live) {
      if (
        live.plan_id === subscription.plan_id &&
        live.instance_type === subscription.instance_type &&
        live.storage_gb === subscription.storage_gb
      ) {
        const attached = await attachSubscription(trx, live.id, subscription.id, now);
        return { kind: 'vm', vm: attached ?? live, subscription, renewal: true };
      }
      // Another kind of machine (say a LEGEND trial, then PRO LEGEND bought): the old one goes.
      await requestTerminate(trx, boss, live.id, 'replaced-by-new-plan', now);
    }
    const vm = await insertVm(
      trx,
      {
        userId,
        subscriptionId,
        planId: subscription.plan_id,
        instanceType: subscription.instance_type,
        storageGb: subscription.storage_gb,
      },
      now,
    );
    return { kind: 'vm', vm, subscription, renewal: false };
  });

  if (decision.kind === 'skip') {
    log.info({ why: decision.why }, 'vm-provision: nothing to provision');
    return 'skipped';
  }
  const { vm, subscription } = decision;
  const vmLog = log.child({ vmId: vm.id });

  switch (vm.state) {
    case 'requested': {
      const claimed = await claimFromPool(deps, vm, now);
      if (claimed) {
        vmLog.info(
          { instanceId: claimed.instance_id },
          'vm-provision: warm-pool instance claimed; starting it',
        );
        await startClaimedInstance(deps, claimed);
        return 'claimed-pool';
      }
      return launch(deps, vm, vmLog);
    }
    case 'provisioning':
      if (!vm.instance_id) return launch(deps, vm, vmLog);
      // A claimed pool instance whose start may not have gone out (a crash, a capacity error).
      if (vm.source === 'pool') await startClaimedInstance(deps, vm);
      else await scheduleVmCheck(boss, deps.config, { vmId: vm.id });
      return 'in-progress';
    case 'stopped':
    case 'stopping': {
      // A renewal: the customer paid and waits for the machine, as after a first purchase.
      const attachedAt = vm.subscription_attached_at.getTime();
      const untouched =
        decision.renewal &&
        vm.ready_at !== null &&
        vm.ready_at.getTime() < attachedAt &&
        !(vm.start_requested_at && vm.start_requested_at.getTime() > attachedAt) &&
        !(vm.stop_requested_at && vm.stop_requested_at.getTime() > attachedAt);
      if (!untouched || !subscriptionInForce(subscription, now)) return 'nothing-to-do';
      if (vm.state === 'stopping')
        throw new RetryLater('the renewed machine is still stopping; starting it once stopped');
      await requestStart(db, boss, vm.id, 'renewal', now);
      vmLog.info('vm-provision: renewal keeps the same machine and disk; starting it');
      return 'renewed';
    }
    default:
      vmLog.info({ state: vm.state }, 'vm-provision: machine already provisioned');
      return decision.renewal ? 'renewed' : 'nothing-to-do';
  }
}

class ClaimLost extends Error {}

/**
 * Takes a ready warm-pool instance for the VM: the claim (SKIP LOCKED) and the VM's transition
 * in one transaction, with a pool top-up enqueued. Null when the pool has none for this machine.
 */
async function claimFromPool(deps: WorkerDeps, vm: Vm, now: Date): Promise<Vm | null> {
  try {
    return await deps.db.transaction(async (trx) => {
      const pool = await claimPoolInstance(
        trx,
        { planId: vm.plan_id, instanceType: vm.instance_type, storageGb: vm.storage_gb },
        vm.id,
        now,
      );
      if (!pool?.instance_id || !pool.password_encrypted) return null;
      const assigned = await assignPoolInstance(
        trx,
        vm.id,
        {
          instanceId: pool.instance_id,
          imageId: pool.image_id,
          subnetId: pool.subnet_id,
          availabilityZone: pool.availability_zone,
          passwordEncrypted: pool.password_encrypted,
        },
        now,
      );
      // The VM moved on meanwhile (another run claimed or launched): give the instance back.
      if (!assigned) throw new ClaimLost();
      await sendJob(deps.boss, 'pool-replenish', {}, { db: trx });
      return assigned;
    });
  } catch (error) {
    if (error instanceof ClaimLost) return null;
    throw error;
  }
}

/** StartInstances on a claimed pool instance, then the follow-up check. Capacity → retry. */
async function startClaimedInstance(deps: WorkerDeps, vm: Vm): Promise<void> {
  if (!vm.instance_id) return;
  try {
    // The pool launched it under the pool's tags; from now on it is this customer's machine.
    await deps.vmEc2.ec2.tagInstances(
      [vm.instance_id],
      vmTags(deps.config.ec2, { id: vm.id, userId: vm.user_id, planId: vm.plan_id }),
    );
  } catch (error) {
    deps.log.warn(
      { vmId: vm.id, error: describeEc2Error(error) },
      'vm-provision: tagging the claimed instance failed',
    );
  }
  try {
    await deps.vmEc2.launcher.startInstance(vm.instance_id);
    await recordCapacityAvailable(deps.db, vm.instance_type, new Date());
  } catch (error) {
    const kind = classifyEc2Error(error);
    // Already starting or running (a replay), or still stopping: the sync takes it from here.
    if (kind !== 'incorrect-state') {
      if (isRetryableCapacity(error)) {
        await recordCapacityShortage(deps.db, vm.instance_type, describeEc2Error(error), new Date());
      }
      throw new RetryLater(`starting warm-pool instance ${vm.instance_id}: ${describeEc2Error(error)}`);
    }
  }
  await scheduleVmCheck(deps.boss, deps.config, { vmId: vm.id });
}

async function launch(deps: WorkerDeps, vm: Vm, log: WorkerDeps['log']): Promise<ProvisionOutcome> {
  const { config, db } = deps;
  const now = new Date();
  const subnetId = subnetForAttempt(config.ec2, vm.launch_attempts, config.vm.launchAttemptsBeforeFallback);
  const imageId = isPlanId(vm.plan_id) ? config.ec2.amiByPlan[vm.plan_id] : config.ec2.amiByPlan.legend;
  const begun = await beginLaunch(db, vm.id, { subnetId, imageId }, now);
  if (!begun) {
    // Another run launched (or the sync adopted) it meanwhile: make sure someone follows it.
    await scheduleVmCheck(deps.boss, config, { vmId: vm.id });
    return 'nothing-to-do';
  }

  let instance: Ec2Instance | null = null;
  try {
    instance = await deps.vmEc2.launcher.launchInstance({
      clientToken: vm.id,
      instanceType: vm.instance_type,
      imageId,
      keyName: config.ec2.keyName,
      securityGroupIds: config.ec2.securityGroupIds,
      subnetId,
      volumeSizeGb: vm.storage_gb,
      tags: vmTags(config.ec2, { id: vm.id, userId: vm.user_id, planId: vm.plan_id }),
    });
  } catch (error) {
    if (isIdempotentMismatch(error)) {
      // An earlier attempt did launch (its answer was lost) in another subnet: adopt that one.
      instance = (await findByClientTokens(deps.vmEc2.ec2, [vm.id])).get(vm.id) ?? null;
    }
    if (!instance) return launchFailed(deps, begun, error, log);
  }

  await recordLaunch(db, vm.id, instance, new Date());
  await recordCapacityAvailable(db, vm.instance_type, new Date());
  log.info(
    { instanceId: instance.instanceId, subnetId, attempt: begun.launch_attempts },
    'vm-provision: launched',
  );
  await scheduleVmCheck(deps.boss, config, { vmId: vm.id });
  return 'launched';
}

async function launchFailed(
  deps: WorkerDeps,
  vm: Vm,
  error: unknown,
  log: WorkerDeps['log'],
): Promise<ProvisionOutcome> {
  const { db, config, boss } = deps;
  const now = new Date();
  const detail = describeEc2Error(error);
  const kind = classifyEc2Error(error);
  if (isRetryableCapacity(error)) await recordCapacityShortage(db, vm.instance_type, detail, now);
  if (kind === 'limit') {
    await raiseAlert(db, {
      kind: 'capacity-limit',
      dedupeKey: `capacity-limit:${vm.instance_type}`,
      message: `EC2 account limit reached launching ${vm.instance_type}: raise the quota. ${detail}`,
      vmId: vm.id,
    });
  }
  if (vm.launch_attempts >= config.vm.maxLaunchAttempts) {
    const failed = await markVmError(db, vm.id, ['requested', 'provisioning'], VM_MESSAGES.failed, now);
    if (failed) {
      await raiseAlert(db, {
        kind: 'provision-failed',
        message: `Gave up provisioning after ${vm.launch_attempts} launch attempts. Last: ${detail}`,
        vmId: vm.id,
      });
      await notify(
        db,
        boss,
        { kind: 'provision-failed', subjectId: vm.id, userId: vm.user_id, vmId: vm.id },
        (person) => provisionFailedMail(person, config.supportEmail, config.publicUrl),
      );
    }
    log.error({ attempts: vm.launch_attempts, error: detail }, 'vm-provision: gave up');
    return 'failed';
  }
  log.warn(
    { attempt: vm.launch_attempts, subnetId: vm.subnet_id, error: detail },
    'vm-provision: launch failed; retrying',
  );
  throw new RetryLater(`launch attempt ${vm.launch_attempts} in ${vm.subnet_id}: ${detail}`);
}
