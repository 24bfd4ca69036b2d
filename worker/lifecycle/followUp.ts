import { findPoolInstance, markPoolSynced, type PoolInstance } from '../../core/db/poolInstances.ts';
import { findSubscription, findSubscriptionsByIds } from '../../core/db/subscriptions.ts';
import { findVm, markVmsSynced, recordVmError, type Vm } from '../../core/db/vms.ts';
import { findStepFailures, poolSubject, vmSubject } from '../../core/db/stepFailures.ts';
import { followUpOf } from '../../core/domain/lifecycle.ts';
import { poolFollowUp } from '../../core/domain/poolInstance.ts';
import { ACCOUNT_SUBJECT, backedOff } from '../../core/domain/stepBackoff.ts';
import { sendJob, type Payload } from '../../core/queue.ts';
import { scheduleVmCheck } from '../../core/commands/vmActions.ts';
import type { WorkerDeps } from '../deps.ts';
import { describeEc2Error } from '../ec2Errors.ts';
import { clearFailures, recordStepFailure } from './failures.ts';
import { observeInstances, planFacts } from './inputs.ts';
import { stepMachine, syncPool } from './sweep.ts';

/**
 * One machine (or spare) in transition, looked at on its own: one DescribeInstances, the
 * executor, and the next check `followUpOf` asks for (soon while in transition, at the end of the
 * hours once running). A machine whose step keeps failing is looked at again when its backoff says.
 */
export async function checkOne(deps: WorkerDeps, target: Payload<'vm-sync'>): Promise<void> {
  const { db } = deps;
  // A machine whose step keeps failing is looked at again when its backoff says, not every poll.
  const waiting = await backoffOf(deps, target);
  if (waiting !== null) {
    await scheduleFollowUp(deps, target, target.followUp ?? 0, waiting);
    return;
  }
  const vms: Vm[] = target.vmId ? [await findVm(db, target.vmId)].filter((v): v is Vm => v !== null) : [];
  const pool: PoolInstance[] = target.poolInstanceId
    ? [await findPoolInstance(db, target.poolInstanceId)].filter((p): p is PoolInstance => p !== null)
    : [];
  let instances: Awaited<ReturnType<typeof observeInstances>>;
  try {
    instances = await observeInstances(
      deps,
      [...vms, ...pool].map((row) => row.instance_id).filter((id): id is string => id !== null),
    );
  } catch (error) {
    // The look itself failed: counted against the machine (backoff, log level, alert after 5
    // minutes), and looked at again when its backoff says.
    for (const vm of vms) {
      await recordVmError(db, vm.id, `sync: ${describeEc2Error(error)}`, new Date());
      await recordStepFailure(deps, { kind: 'vm', id: vm.id, instanceId: vm.instance_id }, error);
    }
    for (const row of pool)
      await recordStepFailure(deps, { kind: 'pool', id: row.id, instanceId: row.instance_id }, error);
    await followUp(deps, target);
    return;
  }
  // The look went through: a run of failed looks is over.
  const looked = new Set(['DescribeInstances']);
  for (const vm of vms) await clearFailures(deps, { kind: 'vm', id: vm.id }, looked);
  for (const row of pool) await clearFailures(deps, { kind: 'pool', id: row.id }, looked);
  const subscriptions = await findSubscriptionsByIds(
    db,
    vms.map((v) => v.subscription_id),
  );
  const now = new Date();
  for (const vm of vms) await stepMachine(deps, vm, subscriptions.get(vm.subscription_id) ?? null, instances);
  await syncPool(deps, pool, instances);
  await markVmsSynced(
    db,
    vms.map((v) => v.id),
    now,
  );
  await markPoolSynced(
    db,
    pool.map((p) => p.id),
    now,
  );
  await followUp(deps, target);
}

/** Seconds until the subject's backoff lets it be tried again (its own, or the account's), or null. */
async function backoffOf(deps: WorkerDeps, target: Payload<'vm-sync'>): Promise<number | null> {
  const now = Date.now();
  const subject = target.vmId
    ? vmSubject(target.vmId)
    : target.poolInstanceId
      ? poolSubject(target.poolInstanceId)
      : null;
  const rows = await findStepFailures(deps.db, [ACCOUNT_SUBJECT, ...(subject ? [subject] : [])]);
  const waits = [...rows.values()]
    .filter((row) => backedOff({ nextAt: row.next_at }, now))
    .map((row) => (row.next_at.getTime() - now) / 1000);
  return waits.length === 0 ? null : Math.max(...waits);
}

async function scheduleFollowUp(
  deps: WorkerDeps,
  target: Payload<'vm-sync'>,
  count: number,
  delaySeconds?: number,
): Promise<void> {
  const which = target.vmId ? { vmId: target.vmId } : { poolInstanceId: target.poolInstanceId as string };
  await scheduleVmCheck(deps.boss, deps.config, which, {
    followUp: count,
    ...(delaySeconds === undefined ? {} : { delaySeconds }),
  });
}

/** The next check the domain's `followUpOf` asks for: soon while in transition, at the end of the hours once running. */
async function followUp(deps: WorkerDeps, target: Payload<'vm-sync'>): Promise<void> {
  const { config, boss, db } = deps;
  const checks = {
    count: (target.followUp ?? 0) + 1,
    limit: Math.ceil((config.vm.provisionDeadlineMinutes * 60 * 2) / config.vm.pollSeconds),
  };
  if (target.vmId) {
    const vm = await findVm(db, target.vmId);
    if (!vm) return;
    const subscription = await findSubscription(db, vm.subscription_id);
    const next = followUpOf(
      { state: vm.state, usageSeconds: vm.usage_seconds },
      planFacts(subscription),
      checks,
    );
    switch (next.kind) {
      case 'check-again':
        // After a failure, the next look waits for the backoff (poll interval doubling, up to 5 minutes).
        await scheduleFollowUp(deps, target, checks.count, (await backoffOf(deps, target)) ?? undefined);
        return;
      case 'hours-check':
        // One such check per machine at a time, however many follow-ups see it running; it
        // carries no follow-up count: it is not part of a transition's chain.
        await sendJob(
          boss,
          'vm-sync',
          { vmId: vm.id },
          {
            startAfter: new Date(Date.now() + next.inSeconds * 1000),
            singletonKey: `hours:${vm.id}`,
            singletonSeconds: 60,
          },
        );
        return;
      case 'none':
        return;
    }
  } else if (target.poolInstanceId) {
    const row = await findPoolInstance(db, target.poolInstanceId);
    if (row && poolFollowUp(row.state, checks).kind === 'check-again')
      await scheduleFollowUp(deps, target, checks.count, (await backoffOf(deps, target)) ?? undefined);
  }
}
