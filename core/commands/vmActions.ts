import type { Config } from '../config/config.ts';
import type { Db } from '../db/pool.ts';
import { findSubscription } from '../db/subscriptions.ts';
import { findVm, requestVmStart, requestVmStop, requestVmTerminate, type Vm } from '../db/vms.ts';
import { planSeconds } from '../domain/usage.ts';
import { sendJob, type Boss } from '../queue.ts';

/**
 * Asking for a change of a machine: the conditional transition and the job that carries it
 * out, in one transaction, so the job exists exactly when the row says it is wanted. Used by
 * the API (START/STOP), the worker (hours, expiry, renewal) and account deletion. Nothing here
 * calls AWS.
 */

/** The conditional transition and, when it happened, the job that carries it out, in one transaction. */
async function transitionAndSend(
  db: Db,
  boss: Boss,
  queue: 'vm-start' | 'vm-stop' | 'vm-terminate',
  vmId: string,
  transition: (trx: Db) => Promise<Vm | null>,
): Promise<Vm | null> {
  return db.transaction(async (trx) => {
    const vm = await transition(trx);
    if (vm) await sendJob(boss, queue, { vmId }, { db: trx });
    return vm;
  });
}

/** stopped → starting + `vm-start`. Null when the VM was not stopped. */
export async function requestStart(
  db: Db,
  boss: Boss,
  vmId: string,
  reason: string,
  now: Date,
): Promise<Vm | null> {
  return transitionAndSend(db, boss, 'vm-start', vmId, (trx) => requestVmStart(trx, vmId, reason, now));
}

/** running → stopping (usage counted up to now) + `vm-stop`. Null when it was not running. */
export async function requestStop(
  db: Db,
  boss: Boss,
  vmId: string,
  reason: string,
  now: Date,
): Promise<Vm | null> {
  return transitionAndSend(db, boss, 'vm-stop', vmId, async (trx) => {
    const current = await findVm(trx, vmId);
    const subscription = current ? await findSubscription(trx, current.subscription_id) : null;
    const cap = subscription ? planSeconds(subscription.hours) : Number.MAX_SAFE_INTEGER;
    return requestVmStop(trx, vmId, reason, now, cap);
  });
}

/**
 * Any live state → terminating + `vm-terminate`. Null when already terminating or terminated.
 * `keepDisk`: the root volume is snapshotted (and kept for a window) before the instance goes.
 */
export async function requestTerminate(
  db: Db,
  boss: Boss,
  vmId: string,
  reason: string,
  now: Date,
  options: { keepDisk?: boolean } = {},
): Promise<Vm | null> {
  return transitionAndSend(db, boss, 'vm-terminate', vmId, (trx) =>
    requestVmTerminate(trx, vmId, reason, now, options.keepDisk ?? false),
  );
}

/**
 * Schedules the follow-up check of a machine in transition, `pollSeconds` from now. With `db`,
 * in that transaction.
 */
export async function scheduleVmCheck(
  boss: Boss,
  config: Pick<Config, 'vm'>,
  target: { vmId: string } | { poolInstanceId: string },
  options: { followUp?: number; db?: Db; delaySeconds?: number } = {},
): Promise<void> {
  const delay = options.delaySeconds ?? config.vm.pollSeconds;
  await sendJob(
    boss,
    'vm-sync',
    { ...target, followUp: options.followUp ?? 0 },
    {
      // pg-boss counts startAfter in whole seconds when given a number; a Date keeps sub-second polls.
      startAfter: new Date(Date.now() + delay * 1000),
      ...(options.db ? { db: options.db } : {}),
    },
  );
}
