import { recordCapacityAvailable, recordCapacityShortage } from '../core/db/ec2Fleet.ts';
import { raiseAlert } from '../core/db/operatorAlerts.ts';
import {
  claimPoolInstance,
  findPoolInstance,
  markPoolFailed,
  markPoolFirstBoot,
  markPoolReady,
  recordPoolLaunch,
  type PoolInstance,
} from '../core/db/poolInstances.ts';
import { withTryLock } from '../core/db/locks.ts';
import {
  beginSnapshot,
  findLiveSnapshotOfVm,
  findSnapshot,
  markSnapshotCompleted,
  markSnapshotFailed,
  markSnapshotRestored,
  recordSnapshotError,
  recordSnapshotId,
  snapshotOfVmRestored,
} from '../core/db/snapshots.ts';
import { findSubscription, type Subscription } from '../core/db/subscriptions.ts';
import {
  accrueUsage,
  assignPoolInstance,
  beginLaunch,
  countStartAttempt,
  findVm,
  findVmRestoringFromVm,
  markVmError,
  markVmRunning,
  markVmStopped,
  markVmTerminated,
  markWaitingForRemoteDesktop,
  recordLaunch,
  recordResized,
  recordResizeReverted,
  recordVmError,
  setRestoreSnapshot,
  storeVmPassword,
  type Vm,
} from '../core/db/vms.ts';
import {
  decideMachine,
  decidePoolInstance,
  firstBootOverdue,
  POOL_FIRST_BOOT_DEADLINE_MS,
  DEFAULT_MISSING_GRACE_MS,
  isTransitional,
  type CloudView,
  type Decision,
  type LifecycleLimits,
  type MachineFacts,
  type PlanFacts,
  type PoolDecision,
  type SnapshotProgress,
} from '../core/domain/lifecycle.ts';
import { isPlanId } from '../core/domain/plans.ts';
import { mayClaimSpare } from '../core/domain/pool.ts';
import { planSeconds, type HourAlertPercent } from '../core/domain/usage.ts';
import { VM_MESSAGES } from '../core/domain/vm.ts';
import {
  diskKeptMail,
  hoursAlertMail,
  provisionFailedMail,
  provisionReadyLateMail,
} from '../core/emails/vms.ts';
import { classifyEc2Error, type Ec2Instance } from '../core/providers/ec2.ts';
import { attemptBudget, sendJob } from '../core/queue.ts';
import { requestStart, requestStop, scheduleVmCheck } from '../core/commands/vmActions.ts';
import { snapshotTags, subnetForAttempt, TAGS, vmTags } from '../core/providers/vmEc2.ts';
import { capturePassword, describeEc2Error, isRetryableCapacity, notify, RetryLater } from './cloudPc.ts';
import type { WorkerDeps } from './deps.ts';

/**
 * The one executor of the machine lifecycle. It gathers a machine's inputs (row, plan, what EC2
 * says), asks `decideMachine` (core/domain/lifecycle.ts) for the next step, and carries it out
 * through core/providers — repeating until the decision is to wait or nothing is left to do.
 * Every EC2 call is made under the machine's lock (a session advisory lock, freed at once if its
 * worker dies), after re-reading the row and deciding again, so a sweep and a job (or two
 * workers) never act on one machine at once. A failure is retried by
 * the job (RetryLater), or recorded on the row and logged by a sweep: never swallowed.
 *
 * `mode` says who runs it: a job owns its operation (launch, start) and its retry budget; a
 * sweep only converges what needs no budget (marks, accrual, stops, tags, deletions).
 */

export type Mode = 'job' | 'sweep';

/** What was carried out, in order, with what came of it. */
export type Step = {
  kind: Decision['kind'];
  reason: string;
  outcome?: 'claimed-pool' | 'launched' | 'failed';
};

export type Advance = { steps: Step[]; last: Decision; vm: Vm };

/** Steps one call may take: observe, tag, start … are a handful; a loop would be a bug. */
const MAX_STEPS = 8;

export function limitsOf(): LifecycleLimits {
  return { missingGraceMs: DEFAULT_MISSING_GRACE_MS, maxStartAttempts: attemptBudget('vm-start') };
}

export function machineFacts(vm: Vm): MachineFacts {
  return {
    id: vm.id,
    state: vm.state,
    source: vm.source,
    instanceId: vm.instance_id,
    launchAttempts: vm.launch_attempts,
    startAttempts: vm.start_attempts,
    passwordStored: vm.password_encrypted !== null,
    usageSeconds: vm.usage_seconds,
    usageCountedAt: vm.state === 'running' ? vm.usage_counted_at : null,
    launchedAt: vm.launched_at,
    startRequestedAt: vm.start_requested_at,
    stoppedAt: vm.stopped_at,
    stateReason: vm.state_reason,
    resizeTo:
      vm.resize_to_type !== null || vm.resize_to_gb !== null
        ? { instanceType: vm.resize_to_type, storageGb: vm.resize_to_gb }
        : null,
    resizedFrom: vm.resized_from_type,
    keepDisk: vm.keep_disk,
  };
}

export function planFacts(subscription: Subscription | null): PlanFacts | null {
  if (!subscription) return null;
  return {
    status: subscription.status,
    expiresAt: subscription.expires_at,
    hours: subscription.hours,
    cancelledAt: subscription.cancelled_at,
  };
}

/** EC2's view of an instance as the decisions read it; a missing instance is `null`. */
export function cloudView(instance: Ec2Instance | null | undefined): CloudView {
  if (!instance) return null;
  return {
    state: instance.state,
    publicIp: instance.publicIp,
    vmTag: instance.tags[TAGS.vm] ?? null,
    rootVolumeId: instance.rootVolumeId,
  };
}

/** One DescribeInstances (paged, by filter) for a batch of instances. */
export async function observeInstances(
  deps: WorkerDeps,
  instanceIds: string[],
): Promise<Map<string, Ec2Instance>> {
  const found = new Map<string, Ec2Instance>();
  if (instanceIds.length === 0) return found;
  for (const instance of await deps.vmEc2.ec2.describeInstances({ instanceIds })) {
    found.set(instance.instanceId, instance);
  }
  return found;
}

/** EC2 calls: made under the machine's lock, after deciding again on the freshly read row. */
const LOCKED = new Set<Decision['kind']>([
  'launch',
  'adopt',
  'start',
  'stop',
  'terminate',
  'tag',
  'capture-password',
  'alert-unexpected',
  'resize',
  'revert-resize',
  'snapshot',
]);

/**
 * Takes a machine as far as it can go now. `subscription` and `instance` may be handed in by a
 * sweep that read them for a whole batch (`instance: undefined` = not looked at yet, `null` =
 * EC2 does not know it).
 */
export async function advanceMachine(
  deps: WorkerDeps,
  start: Vm,
  options: { mode: Mode; subscription?: Subscription | null; instance?: Ec2Instance | null },
): Promise<Advance> {
  const log = deps.log.child({ vmId: start.id });
  let vm = start;
  let subscription =
    options.subscription !== undefined
      ? options.subscription
      : await findSubscription(deps.db, vm.subscription_id);
  let cloud: CloudView | undefined = options.instance === undefined ? undefined : cloudView(options.instance);
  let remoteDesktop: 'open' | 'closed' | undefined;
  let snapshot: SnapshotProgress | undefined;
  const restore =
    vm.state === 'requested' && vm.restore_snapshot_id ? await restoreProgress(deps, vm) : undefined;
  const steps: Step[] = [];
  const decide = (): Decision =>
    decideMachine({
      machine: machineFacts(vm),
      plan: planFacts(subscription),
      cloud,
      remoteDesktop,
      snapshot,
      restore,
      now: new Date(),
      limits: limitsOf(),
    });

  for (let i = 0; i < MAX_STEPS; i += 1) {
    const decision = decide();
    if (decision.kind === 'nothing' || decision.kind === 'wait') return { steps, last: decision, vm };
    if (options.mode === 'sweep' && !sweepMay(decision, vm)) {
      return { steps, last: { kind: 'wait', reason: `${decision.reason} (left to its job)` }, vm };
    }

    if (decision.kind === 'observe') {
      if (!vm.instance_id) return { steps, last: decision, vm };
      cloud = cloudView((await observeInstances(deps, [vm.instance_id])).get(vm.instance_id));
      continue;
    }
    if (decision.kind === 'observe-snapshot') {
      snapshot = await observeSnapshot(deps, vm, log);
      if (snapshot === 'pending') await scheduleVmCheck(deps.boss, deps.config, { vmId: vm.id });
      continue;
    }
    if (decision.kind === 'probe-remote-desktop') {
      remoteDesktop = await probeRemoteDesktop(deps, cloud?.publicIp ?? null);
      if (remoteDesktop === 'closed') await markWaitingForRemoteDesktop(deps.db, vm.id, new Date());
      continue;
    }

    if (LOCKED.has(decision.kind)) {
      const held = await withTryLock(deps.db, `machine:${vm.id}`, async () => {
        const fresh = await findVm(deps.db, vm.id);
        if (!fresh) return 'gone' as const;
        vm = fresh;
        if (fresh.subscription_id !== subscription?.id)
          subscription = await findSubscription(deps.db, fresh.subscription_id);
        const again = decide();
        if (!LOCKED.has(again.kind)) return 'decide-again' as const;
        const result = await act(deps, vm, again, options.mode, log);
        steps.push({
          kind: again.kind,
          reason: again.reason,
          ...(result.outcome ? { outcome: result.outcome } : {}),
        });
        vm = result.vm ?? (await findVm(deps.db, vm.id)) ?? vm;
        if (result.cloud !== undefined) cloud = result.cloud;
        if (result.observeAgain) cloud = undefined;
        if (result.snapshot !== undefined) snapshot = result.snapshot;
        return result.done ? again : ('go-on' as const);
      });
      if (!held)
        return { steps, last: { kind: 'wait', reason: 'another worker is acting on this machine' }, vm };
      if (held.value === 'gone')
        return { steps, last: { kind: 'nothing', reason: 'the machine row is gone' }, vm };
      if (typeof held.value === 'object') return { steps, last: held.value, vm };
      continue;
    }

    await record(deps, vm, subscription, decision, log);
    steps.push({
      kind: decision.kind,
      reason: decision.reason,
      ...(decision.kind === 'lost' && decision.during === 'provisioning'
        ? { outcome: 'failed' as const }
        : {}),
    });
    vm = (await findVm(deps.db, vm.id)) ?? vm;
    // Stopped for a plan change: the change and the start follow now, not at the next sweep.
    if (decision.kind === 'mark-stopped' && vm.state === 'stopped' && vm.state_reason === 'plan-change')
      continue;
    return { steps, last: decision, vm };
  }
  throw new Error(
    `lifecycle: machine ${vm.id} took more than ${MAX_STEPS} steps (${steps.map((s) => s.kind).join(', ')})`,
  );
}

/**
 * A sweep converges; it does not spend a job's retry budget. Launching and starting a customer's
 * stopped machine belong to their jobs (the reaper sends a job again when it stalls).
 */
function sweepMay(decision: Decision, vm: Vm): boolean {
  if (decision.kind === 'launch') return false;
  if (decision.kind === 'start') return vm.state === 'provisioning';
  return true;
}

async function probeRemoteDesktop(deps: WorkerDeps, host: string | null): Promise<'open' | 'closed'> {
  if (!host) return 'closed';
  return deps.remoteDesktop.probe(host, deps.config.vm.rdpPort);
}

type ActResult = {
  vm?: Vm | null;
  /** What EC2 now says, when the step tells us; `observeAgain` when it must be asked. */
  cloud?: CloudView;
  observeAgain?: boolean;
  snapshot?: SnapshotProgress;
  /** The chain ends here (the rest happens in EC2 and is seen by a later check). */
  done: boolean;
  outcome?: Step['outcome'];
};

/** The EC2 side of a decision, under the machine's lock. Failures throw (job: retried) after being recorded. */
async function act(
  deps: WorkerDeps,
  vm: Vm,
  decision: Decision,
  mode: Mode,
  log: WorkerDeps['log'],
): Promise<ActResult> {
  const { db, config } = deps;
  const ec2 = deps.vmEc2.ec2;
  const now = new Date();
  switch (decision.kind) {
    case 'launch':
      return launchMachine(deps, vm, log);
    case 'adopt': {
      const found = (await ec2.findByClientTokens([vm.id])).get(vm.id);
      if (found && found.state !== 'terminated' && found.state !== 'shutting-down') {
        const recorded = await recordLaunch(db, vm.id, found, now);
        log.info({ instanceId: found.instanceId }, 'lifecycle: adopted an instance launched earlier');
        await scheduleVmCheck(deps.boss, config, { vmId: vm.id });
        return { vm: recorded, cloud: cloudView(found), done: true, outcome: 'launched' };
      }
      // Nothing launched under our token: launch again (the same ClientToken, so at most one).
      if (mode === 'sweep') return { done: true };
      return launchMachine(deps, vm, log);
    }
    case 'tag': {
      if (!vm.instance_id) return { done: true };
      await ec2.tagInstances(
        [vm.instance_id],
        vmTags(config.ec2, { id: vm.id, userId: vm.user_id, planId: vm.plan_id }),
      );
      return { done: false, observeAgain: true };
    }
    case 'start':
      return vm.state === 'provisioning' ? startClaimed(deps, vm, mode) : startStopped(deps, vm, log);
    case 'stop': {
      if (!vm.instance_id) return { done: true };
      try {
        const change = await ec2.stopInstance(vm.instance_id);
        if (change.current === 'stopped' && vm.state === 'stopping') {
          return { vm: await markVmStopped(db, vm.id, ['stopping'], null, new Date()), done: true };
        }
      } catch (error) {
        if (classifyEc2Error(error) === 'not-found')
          return { vm: await lose(deps, vm, `stop: ${describeEc2Error(error)}`, 'use'), done: true };
        // On the row for operators (the reaper's alert quotes it if the stop stalls); retried.
        await recordVmError(db, vm.id, `stop: ${describeEc2Error(error)}`, new Date());
        throw new RetryLater(`stopping ${vm.instance_id}: ${describeEc2Error(error)}`);
      }
      await scheduleVmCheck(deps.boss, config, { vmId: vm.id });
      log.info({ reason: vm.state_reason }, 'lifecycle: stop requested');
      return { done: true };
    }
    case 'alert-unexpected': {
      if (!vm.instance_id) return { done: true };
      await raiseAlert(db, {
        kind: 'unexpected-state',
        message: `Instance ${vm.instance_id} runs but its machine is stopped; stopping it. ${decision.reason}.`,
        vmId: vm.id,
        instanceId: vm.instance_id,
      });
      try {
        await ec2.stopInstance(vm.instance_id);
      } catch (error) {
        // Still pending: it can be stopped once running; the next sweep tries again.
        if (classifyEc2Error(error) !== 'incorrect-state') throw error;
        await recordVmError(db, vm.id, `stop of an unexpected start: ${describeEc2Error(error)}`, now);
      }
      return { done: true };
    }
    case 'terminate': {
      const ids = new Set<string>(vm.instance_id ? [vm.instance_id] : []);
      if (vm.launch_attempts > 0) {
        const launched = (await ec2.findByClientTokens([vm.id])).get(vm.id);
        if (launched && launched.state !== 'terminated') ids.add(launched.instanceId);
      }
      for (const instanceId of ids) {
        try {
          await ec2.terminateInstance(instanceId);
        } catch (error) {
          if (classifyEc2Error(error) !== 'not-found') {
            await recordVmError(db, vm.id, `terminate: ${describeEc2Error(error)}`, new Date());
            throw new RetryLater(`terminating ${instanceId}: ${describeEc2Error(error)}`);
          }
        }
      }
      const done = await markVmTerminated(db, vm.id, new Date());
      log.info({ instances: [...ids], reason: vm.state_reason }, 'lifecycle: terminated');
      return { vm: done, done: true };
    }
    case 'resize':
      return resizeMachine(deps, vm, log);
    case 'revert-resize': {
      if (!vm.instance_id || !vm.resized_from_type) return { done: true };
      try {
        await ec2.modifyInstanceType(vm.instance_id, vm.resized_from_type);
      } catch (error) {
        await recordVmError(
          db,
          vm.id,
          `putting back ${vm.resized_from_type}: ${describeEc2Error(error)}`,
          now,
        );
        throw new RetryLater(`putting back ${vm.resized_from_type}: ${describeEc2Error(error)}`);
      }
      const reverted = await recordResizeReverted(db, vm.id);
      log.warn(
        { from: vm.instance_type, back: vm.resized_from_type },
        'lifecycle: no capacity for the new type; the machine is back as it was',
      );
      return { vm: reverted, done: false };
    }
    case 'snapshot':
      return snapshotMachine(deps, vm, log);
    case 'capture-password': {
      if (!vm.instance_id) return { done: true };
      const captured = await capturePassword(deps, ec2, vm.instance_id);
      if (captured.status === 'not-ready') return { done: true };
      if (captured.status === 'undecryptable') {
        // Never show garbage as a password: stay provisioning, tell an operator.
        await raiseAlert(db, {
          kind: 'password-undecryptable',
          message: captured.message,
          vmId: vm.id,
          instanceId: vm.instance_id,
        });
        await recordVmError(db, vm.id, captured.message, now);
        log.error({ reason: captured.message }, 'lifecycle: the Windows password could not be decrypted');
        return { done: true };
      }
      return { vm: await storeVmPassword(db, vm.id, captured.sealed, now), done: false };
    }
    default:
      throw new Error(`lifecycle: ${decision.kind} is not an EC2 step`);
  }
}

/**
 * Where the copy a new machine is to be made from stands. A copy that failed is followed to the
 * one the old machine takes again (the machine is pointed at it); until one is complete the
 * machine waits, and the old machine's instance (with the files) is not deleted meanwhile.
 */
async function restoreProgress(deps: WorkerDeps, vm: Vm): Promise<'pending' | 'ready'> {
  const row = vm.restore_snapshot_id ? await findSnapshot(deps.db, vm.restore_snapshot_id) : null;
  if (!row) return 'ready';
  if (row.state === 'creating') return 'pending';
  if (row.state !== 'failed') return 'ready';
  const again = await findLiveSnapshotOfVm(deps.db, row.vm_id);
  if (!again) return 'pending';
  await setRestoreSnapshot(deps.db, vm.id, again.id);
  return again.state === 'creating' ? 'pending' : 'ready';
}

/** A ready warm-pool instance when one fits, else RunInstances with ClientToken = the machine's id. */
async function launchMachine(deps: WorkerDeps, vm: Vm, log: WorkerDeps['log']): Promise<ActResult> {
  const { config, db } = deps;
  const restore = vm.restore_snapshot_id ? await findSnapshot(db, vm.restore_snapshot_id) : null;
  // A copy the renewal waited for is the new machine's from now on (the sweep deletes it once
  // the machine is ready); usually marked already, when the copy completed.
  if (restore?.state === 'completed') await markSnapshotRestored(db, restore.id, vm.id);
  // A machine that brings back a kept disk must be launched from it: never a warm-pool spare.
  if (vm.state === 'requested' && mayClaimSpare({ restoring: !!vm.restore_snapshot_id })) {
    const claimed = await claimFromPool(deps, vm);
    if (claimed) {
      log.info({ instanceId: claimed.instance_id }, 'lifecycle: warm-pool instance claimed');
      // Ownership is written; the tags and the start follow as their own steps, so a crash
      // between any two leaves a row the next run carries on from.
      return { vm: claimed, observeAgain: true, done: false, outcome: 'claimed-pool' };
    }
  }
  const now = new Date();
  const subnetId = subnetForAttempt(config.ec2, vm.launch_attempts, config.vm.launchAttemptsBeforeFallback);
  const imageId = isPlanId(vm.plan_id) ? config.ec2.amiByPlan[vm.plan_id] : config.ec2.amiByPlan.legend;
  const begun = await beginLaunch(db, vm.id, { subnetId, imageId }, now);
  if (!begun) return { done: true };

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
    });
  } catch (error) {
    if ((error as { name?: string }).name === 'IdempotentParameterMismatch') {
      // An earlier attempt did launch (its answer was lost) in another subnet: adopt that one.
      instance = (await deps.vmEc2.ec2.findByClientTokens([vm.id])).get(vm.id) ?? null;
    }
    if (!instance) return launchFailed(deps, begun, error, log);
  }
  const recorded = await recordLaunch(db, vm.id, instance, new Date());
  await recordCapacityAvailable(db, vm.instance_type, new Date());
  log.info(
    { instanceId: instance.instanceId, subnetId, attempt: begun.launch_attempts },
    'lifecycle: launched',
  );
  await scheduleVmCheck(deps.boss, config, { vmId: vm.id });
  return { vm: recorded, done: true, outcome: 'launched' };
}

class ClaimLost extends Error {}

/** The claim (SKIP LOCKED) and the machine's transition in one transaction, with a pool top-up enqueued. */
async function claimFromPool(deps: WorkerDeps, vm: Vm): Promise<Vm | null> {
  const now = new Date();
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
      // The machine moved on meanwhile: roll the claim back, the instance stays in the pool.
      if (!assigned) throw new ClaimLost();
      await sendJob(deps.boss, 'pool-replenish', {}, { db: trx });
      return assigned;
    });
  } catch (error) {
    if (error instanceof ClaimLost) return null;
    throw error;
  }
}

async function launchFailed(
  deps: WorkerDeps,
  vm: Vm,
  error: unknown,
  log: WorkerDeps['log'],
): Promise<ActResult> {
  const { db, config, boss } = deps;
  const now = new Date();
  const detail = describeEc2Error(error);
  const kind = classifyEc2Error(error);
  await recordVmError(db, vm.id, `launch attempt ${vm.launch_attempts}: ${detail}`, now);
  if (isRetryableCapacity(error)) await recordCapacityShortage(db, vm.instance_type, detail, now);
  if (kind === 'limit') {
    await raiseAlert(db, {
      kind: 'capacity-limit',
      dedupeKey: `capacity-limit:${vm.instance_type}`,
      message: `EC2 account limit reached launching ${vm.instance_type}: raise the quota. ${detail}`,
      vmId: vm.id,
    });
  }
  const budget = attemptBudget('vm-provision');
  if (vm.launch_attempts >= budget) {
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
    log.error({ attempts: vm.launch_attempts, error: detail }, 'lifecycle: gave up launching');
    return { vm: failed, done: true, outcome: 'failed' };
  }
  log.warn(
    { attempt: vm.launch_attempts, subnetId: vm.subnet_id, error: detail },
    'lifecycle: launch failed; retrying',
  );
  throw new RetryLater(`launch attempt ${vm.launch_attempts} in ${vm.subnet_id}: ${detail}`);
}

/**
 * A plan change on the stopped instance: its new type (EC2 allows it only while stopped) and a
 * bigger disk (grown in place; Windows extends the partition on the next boot). Then the start
 * the renewal wants: at once when already starting, else a `vm-start` as for a customer's START.
 */
async function resizeMachine(deps: WorkerDeps, vm: Vm, log: WorkerDeps['log']): Promise<ActResult> {
  const { db } = deps;
  const ec2 = deps.vmEc2.ec2;
  if (!vm.instance_id) return { done: true };
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
    await recordVmError(db, vm.id, `plan change to ${toType}/${toGb} GB: ${detail}`, new Date());
    // Not stopped yet after all (a quick START): the next look decides again.
    if (classifyEc2Error(error) === 'incorrect-state') return { done: false, observeAgain: true };
    throw new RetryLater(`plan change to ${toType}: ${detail}`);
  }
  const resized = await recordResized(db, vm.id, {
    instanceType: toType,
    storageGb: toGb,
    fromType: toType !== vm.instance_type ? vm.instance_type : null,
  });
  log.info(
    { from: vm.instance_type, to: toType, storageGb: toGb },
    'lifecycle: plan change applied to the same instance and disk',
  );
  if (resized?.state === 'stopped') {
    await requestStart(db, deps.boss, vm.id, 'plan-change', new Date());
    return { vm: resized, done: true };
  }
  return { vm: resized, done: false };
}

/** Where the snapshot of a terminating machine's disk stands, refreshed from EC2 while it is made. */
async function observeSnapshot(deps: WorkerDeps, vm: Vm, log: WorkerDeps['log']): Promise<SnapshotProgress> {
  const row = await findLiveSnapshotOfVm(deps.db, vm.id);
  // Already given to the customer's new machine: the copy is safe, the instance can go.
  if (!row) return (await snapshotOfVmRestored(deps.db, vm.id)) ? 'completed' : 'none';
  if (row.state === 'completed') return 'completed';
  if (!row.snapshot_id) return 'none';
  const [found] = await deps.vmEc2.ec2.describeSnapshots({ snapshotIds: [row.snapshot_id] });
  const now = new Date();
  if (!found || found.state === 'error') {
    const why = found ? 'EC2 reports the snapshot in error' : 'EC2 does not know the snapshot';
    if (await markSnapshotFailed(deps.db, row.id, why)) {
      await raiseAlert(deps.db, {
        kind: 'snapshot-failed',
        message: `Snapshot ${row.snapshot_id} of machine ${vm.id}: ${why}; taking another before deleting the instance.`,
        vmId: vm.id,
        instanceId: vm.instance_id,
      });
      log.error({ snapshotId: row.snapshot_id, why }, 'lifecycle: a snapshot of a kept disk failed');
    }
    return 'failed';
  }
  if (found.state !== 'completed') return 'pending';
  const completed = await markSnapshotCompleted(deps.db, row.id, deps.config.vm.snapshotKeepDays, now);
  if (!completed) return 'completed';
  // The customer renewed while the copy was being saved: their new machine waits for it.
  const waiting = await findVmRestoringFromVm(deps.db, vm.id);
  if (waiting) {
    await deps.db.transaction(async (trx) => {
      await setRestoreSnapshot(trx, waiting.id, completed.id);
      await markSnapshotRestored(trx, completed.id, waiting.id);
      await sendJob(
        deps.boss,
        'vm-provision',
        { subscriptionId: waiting.subscription_id, userId: waiting.user_id },
        { db: trx },
      );
    });
    log.info(
      { snapshotId: row.snapshot_id, newVmId: waiting.id },
      "lifecycle: disk copy complete; the customer's new machine is made from it",
    );
  } else {
    log.info({ snapshotId: row.snapshot_id, keepUntil: completed.keep_until }, 'lifecycle: disk kept');
    await notify(
      deps.db,
      deps.boss,
      { kind: 'disk-kept', subjectId: completed.id, userId: vm.user_id, vmId: vm.id },
      (person) => diskKeptMail(person, completed.created_at, completed.keep_until, deps.config.publicUrl),
    );
  }
  return 'completed';
}

/**
 * CreateSnapshot of the root volume, tagged as ours with the owner. The row comes first; a
 * retried step finds the snapshot an earlier attempt made by the row's tag instead of taking a
 * second one (CreateSnapshot has no idempotency token).
 */
async function snapshotMachine(deps: WorkerDeps, vm: Vm, log: WorkerDeps['log']): Promise<ActResult> {
  const { db, config } = deps;
  const ec2 = deps.vmEc2.ec2;
  const now = new Date();
  const [instance] = vm.instance_id ? await ec2.describeInstances({ instanceIds: [vm.instance_id] }) : [];
  if (!instance?.rootVolumeId) return { done: false, observeAgain: true };
  const row =
    (await findLiveSnapshotOfVm(db, vm.id)) ??
    (await beginSnapshot(
      db,
      {
        userId: vm.user_id,
        vmId: vm.id,
        volumeGb: vm.storage_gb,
        instanceType: vm.instance_type,
        keepDays: config.vm.snapshotKeepDays,
      },
      now,
    ));
  if (!row) return { done: false, snapshot: undefined };
  if (!row.snapshot_id) {
    const tags = snapshotTags(config.ec2, { id: row.id, vmId: vm.id, userId: vm.user_id });
    try {
      const [earlier] = await ec2.describeSnapshots({ tags: { [TAGS.snapshot]: row.id } });
      const made =
        earlier ?? (await ec2.createSnapshot(instance.rootVolumeId, `Legend Cloud: disk of ${vm.id}`, tags));
      await recordSnapshotId(db, row.id, made.snapshotId);
      log.info({ snapshotId: made.snapshotId }, 'lifecycle: snapshot of the kept disk begun');
    } catch (error) {
      const detail = describeEc2Error(error);
      await recordSnapshotError(db, row.id, detail);
      await recordVmError(db, vm.id, `snapshot: ${detail}`, now);
      throw new RetryLater(`snapshot of ${instance.rootVolumeId}: ${detail}`);
    }
  }
  await scheduleVmCheck(deps.boss, config, { vmId: vm.id });
  return { done: true, snapshot: 'pending' };
}

/** StartInstances on a claimed warm-pool instance (no hours are at stake: it is not ready yet). */
async function startClaimed(deps: WorkerDeps, vm: Vm, mode: Mode): Promise<ActResult> {
  if (!vm.instance_id) return { done: true };
  try {
    await deps.vmEc2.launcher.startInstance(vm.instance_id);
    await recordCapacityAvailable(deps.db, vm.instance_type, new Date());
  } catch (error) {
    if (classifyEc2Error(error) !== 'incorrect-state') {
      const detail = describeEc2Error(error);
      if (isRetryableCapacity(error))
        await recordCapacityShortage(deps.db, vm.instance_type, detail, new Date());
      await recordVmError(deps.db, vm.id, `starting warm-pool instance: ${detail}`, new Date());
      if (mode === 'sweep') return { done: true };
      throw new RetryLater(`starting warm-pool instance ${vm.instance_id}: ${detail}`);
    }
    // Already on its way (an earlier attempt got through) or still stopping: it is looked at
    // again shortly, and the next decision starts it if it has stopped by then.
    deps.log.info(
      { vmId: vm.id, instanceId: vm.instance_id, error: describeEc2Error(error) },
      'lifecycle: warm-pool instance not startable yet; checking again shortly',
    );
  }
  await scheduleVmCheck(deps.boss, deps.config, { vmId: vm.id });
  return { done: true };
}

/**
 * StartInstances for a machine the customer (or a renewal) moved to `starting`. Capacity errors
 * count an attempt and are retried by the job; the attempt that reaches the queue's budget gives
 * up at once (the decision says so), the machine back to stopped with a plain message.
 */
async function startStopped(deps: WorkerDeps, vm: Vm, log: WorkerDeps['log']): Promise<ActResult> {
  const { db, config } = deps;
  if (!vm.instance_id) return { done: true };
  try {
    await deps.vmEc2.launcher.startInstance(vm.instance_id);
  } catch (error) {
    const kind = classifyEc2Error(error);
    const detail = describeEc2Error(error);
    const now = new Date();
    if (kind === 'not-found') return { vm: await lose(deps, vm, `start: ${detail}`, 'use'), done: true };
    // Still stopping (a quick STOP then START): try again shortly; it is not a failed attempt.
    if (kind === 'incorrect-state') throw new RetryLater(`start: ${detail}`);
    if (isRetryableCapacity(error)) await recordCapacityShortage(db, vm.instance_type, detail, now);
    await recordVmError(db, vm.id, `start: ${detail}`, now);
    const counted = await countStartAttempt(db, vm.id);
    if (counted && counted.start_attempts >= limitsOf().maxStartAttempts) {
      // The budget is spent: the next decision is give-up-start; carry it out now.
      return { vm: counted, done: false };
    }
    log.warn({ attempt: counted?.start_attempts, error: detail }, 'lifecycle: start failed; retrying');
    throw new RetryLater(`start attempt ${counted?.start_attempts ?? '?'}: ${detail}`);
  }
  await scheduleVmCheck(deps.boss, config, { vmId: vm.id });
  log.info('lifecycle: start requested');
  return { done: true };
}

/** The row side of a decision: conditional transitions, accrual, notices and alerts. */
async function record(
  deps: WorkerDeps,
  vm: Vm,
  subscription: Subscription | null,
  decision: Decision,
  log: WorkerDeps['log'],
): Promise<void> {
  const { db, config } = deps;
  const now = new Date();
  switch (decision.kind) {
    case 'mark-ready':
    case 'mark-running': {
      const running = await markVmRunning(db, vm.id, decision.publicIp, now);
      if (!running) return;
      await recordCapacityAvailable(db, vm.instance_type, now);
      if (decision.kind === 'mark-running') {
        log.info('lifecycle: started');
        return;
      }
      log.info({ waitedMs: now.getTime() - vm.requested_at.getTime() }, 'lifecycle: machine ready');
      if (vm.delayed_at) {
        await notify(
          db,
          deps.boss,
          { kind: 'provision-ready-late', subjectId: vm.id, userId: vm.user_id, vmId: vm.id },
          (person) => provisionReadyLateMail(person, config.publicUrl),
        );
      }
      return;
    }
    case 'mark-stopped': {
      const from = vm.state === 'running' ? 'running' : 'stopping';
      // Shut down from inside Windows: usage is not counted past the last count.
      const stopped = await markVmStopped(
        db,
        vm.id,
        [from],
        decision.stoppedBy === 'shut-down' ? 'shut-down' : null,
        now,
      );
      if (stopped) log.info({ by: decision.stoppedBy }, 'lifecycle: stopped');
      return;
    }
    case 'mark-terminated':
      if (await markVmTerminated(db, vm.id, now)) log.info('lifecycle: terminated');
      return;
    case 'accrue': {
      if (!subscription) return;
      const counted = await accrueUsage(db, vm.id, now, planSeconds(subscription.hours));
      if (counted) await hourNotices(deps, vm, subscription, decision.alerts);
      return;
    }
    case 'request-stop': {
      if (subscription) await hourNotices(deps, vm, subscription, decision.alerts);
      const stopping = await requestStop(db, deps.boss, vm.id, decision.why, now);
      if (stopping) log.info({ why: decision.why }, 'lifecycle: stopping the machine');
      return;
    }
    case 'refuse-start':
      // The plan ran out between the click and now: refuse, as the API would have.
      await markVmStopped(
        db,
        vm.id,
        ['starting'],
        'refused',
        now,
        decision.why === 'out-of-hours' ? VM_MESSAGES.outOfHours : VM_MESSAGES.planExpired,
      );
      return;
    case 'give-up-start': {
      const back = await markVmStopped(db, vm.id, ['starting'], 'start-failed', now, VM_MESSAGES.startGaveUp);
      if (back) {
        await raiseAlert(db, {
          kind: 'start-failed',
          message: `Could not start after ${vm.start_attempts} attempts: ${vm.last_error ?? decision.reason}`,
          vmId: vm.id,
          instanceId: vm.instance_id,
        });
        log.error({ attempts: vm.start_attempts }, 'lifecycle: gave up starting');
      }
      return;
    }
    case 'lost':
      await lose(deps, vm, decision.reason, decision.during);
      return;
    default:
      throw new Error(`lifecycle: ${decision.kind} is not a row step`);
  }
}

async function hourNotices(
  deps: WorkerDeps,
  vm: Vm,
  subscription: Subscription,
  alerts: HourAlertPercent[],
): Promise<void> {
  for (const percent of alerts) {
    await notify(
      deps.db,
      deps.boss,
      {
        kind: `hours-${percent}`,
        subjectId: subscription.id,
        userId: vm.user_id,
        subscriptionId: subscription.id,
        vmId: vm.id,
      },
      (person) => hoursAlertMail(person, subscription, percent, deps.config.publicUrl),
    );
  }
}

/** The machine's instance is gone: the row ends in `error`, an operator is alerted (and the customer, if it was never ready). */
async function lose(
  deps: WorkerDeps,
  vm: Vm,
  why: string,
  during: 'provisioning' | 'use',
): Promise<Vm | null> {
  const problem = during === 'provisioning' ? VM_MESSAGES.failed : VM_MESSAGES.lost;
  const failed = await markVmError(
    deps.db,
    vm.id,
    ['provisioning', 'starting', 'running', 'stopping', 'stopped'],
    problem,
    new Date(),
  );
  if (!failed) return null;
  if (during === 'provisioning') {
    await notify(
      deps.db,
      deps.boss,
      { kind: 'provision-failed', subjectId: vm.id, userId: vm.user_id, vmId: vm.id },
      (person) => provisionFailedMail(person, deps.config.supportEmail, deps.config.publicUrl),
    );
  }
  await raiseAlert(deps.db, {
    kind: 'instance-lost',
    message: `VM ${vm.id} (${vm.state}) lost its instance ${vm.instance_id}: ${why}.`,
    vmId: vm.id,
    instanceId: vm.instance_id,
  });
  deps.log.error({ vmId: vm.id, instanceId: vm.instance_id, why }, 'lifecycle: machine lost its instance');
  return failed;
}

/** Whether a machine in this state is worth a follow-up check soon. */
export function needsFollowUp(vm: Vm): boolean {
  return isTransitional(vm.state);
}

// ——— warm pool ———

function poolFacts(row: PoolInstance) {
  return {
    state: row.state,
    hot: row.hot,
    instanceId: row.instance_id,
    launchAttempts: row.launch_attempts,
    launchedAt: row.launched_at,
  };
}

/** Takes a warm-pool instance through first boot, password capture and the stop; fails it when its instance is gone. */
export async function advancePoolInstance(
  deps: WorkerDeps,
  start: PoolInstance,
  instance: Ec2Instance | null | undefined,
): Promise<PoolDecision> {
  let row = start;
  let cloud: CloudView | undefined = instance === undefined ? undefined : cloudView(instance);
  for (let i = 0; i < MAX_STEPS; i += 1) {
    const decision = decidePoolInstance({ pool: poolFacts(row), cloud, now: new Date(), limits: limitsOf() });
    const now = new Date();
    switch (decision.kind) {
      case 'nothing':
      case 'wait':
        return decision;
      case 'observe':
        if (!row.instance_id) return decision;
        cloud = cloudView((await observeInstances(deps, [row.instance_id])).get(row.instance_id));
        continue;
      case 'fail':
        await markPoolFailed(deps.db, row.id, decision.reason, now);
        return decision;
      case 'mark-ready':
        await markPoolReady(deps.db, row.id, now);
        return decision;
      default:
        break;
    }
    const acted = await withTryLock(deps.db, `pool:${row.id}`, () =>
      actOnPool(deps, row.id, decision, cloud, now),
    );
    if (!acted) return { kind: 'wait', reason: 'another worker is acting on this pool instance' };
    if ('kind' in acted.value) return acted.value;
    row = acted.value.row;
    if (acted.value.cloud !== undefined) cloud = acted.value.cloud;
  }
  throw new Error(`lifecycle: pool instance ${row.id} took more than ${MAX_STEPS} steps`);
}

/** The EC2 side of a pool decision, under the pool row's lock, on the freshly read row. */
async function actOnPool(
  deps: WorkerDeps,
  id: string,
  decided: PoolDecision,
  cloud: CloudView | undefined,
  now: Date,
): Promise<PoolDecision | { row: PoolInstance; cloud?: CloudView }> {
  const ec2 = deps.vmEc2.ec2;
  const row = await findPoolInstance(deps.db, id);
  if (!row) return { kind: 'nothing', reason: 'the pool row is gone' };
  const decision = decidePoolInstance({ pool: poolFacts(row), cloud, now, limits: limitsOf() });
  // Someone else moved it on meanwhile: decide again outside the lock.
  if (decision.kind !== decided.kind) return { row };
  if (decision.kind === 'adopt') {
    if (row.instance_id) return { row };
    const found = (await ec2.findByClientTokens([row.id])).get(row.id);
    if (!found)
      return { kind: 'wait', reason: 'its launch is not known to EC2; the next replenish launches it' };
    return { row: (await recordPoolLaunch(deps.db, row.id, found, now)) ?? row, cloud: cloudView(found) };
  }
  if (!row.instance_id) return decision;
  if (decision.kind === 'stop') {
    await ec2.stopInstance(row.instance_id);
    return decision;
  }
  if (decision.kind !== 'capture-password') return { row };
  const captured = await capturePassword(deps, ec2, row.instance_id);
  if (captured.status === 'not-ready') {
    if (!firstBootOverdue(row.launched_at, now)) return { kind: 'wait', reason: 'first boot not done' };
    // It never will be: no longer ours (terminated now), and an operator hears of the image.
    const reason = `first boot not done ${POOL_FIRST_BOOT_DEADLINE_MS / 60_000} minutes after launch`;
    await raiseAlert(deps.db, {
      kind: 'provision-failed',
      dedupeKey: `pool-first-boot:${row.plan_id}`,
      message: `Warm-pool instance ${row.instance_id} (${row.plan_id}): ${reason}; terminated. Check the plan's image (AMI) and its first-boot agent.`,
      instanceId: row.instance_id,
    });
    if (await markPoolFailed(deps.db, row.id, reason, now)) await ec2.terminateInstance(row.instance_id);
    return { kind: 'fail', reason };
  }
  if (captured.status === 'undecryptable') {
    await raiseAlert(deps.db, {
      kind: 'password-undecryptable',
      dedupeKey: `password-undecryptable:pool:${row.plan_id}`,
      message: `Warm-pool instance ${row.instance_id}: ${captured.message} The instance is terminated.`,
      instanceId: row.instance_id,
    });
    if (await markPoolFailed(deps.db, row.id, captured.message, now))
      await ec2.terminateInstance(row.instance_id);
    return { kind: 'fail', reason: captured.message };
  }
  // First boot is done and the password kept: stop it until a customer claims it.
  return {
    row:
      (await markPoolFirstBoot(deps.db, row.id, captured.sealed, now)) ??
      (await findPoolInstance(deps.db, row.id)) ??
      row,
  };
}
