import type { Config } from '../config/config.ts';
import { clearIdleWarning, recordIdleStop, recordIdleWarning } from '../db/idle.ts';
import type { Db } from '../db/pool.ts';
import { findSubscription } from '../db/subscriptions.ts';
import { findUserById } from '../db/users.ts';
import { planSeconds } from '../domain/usage.ts';
import { idleWarningMail } from '../emails/idle.ts';
import type { Logger } from '../observability/log.ts';
import { sendJob, type Boss } from '../queue.ts';
import { requestStop } from './vmActions.ts';

/**
 * What `vm-idle` carries out once the idle rule (core/domain/idle.ts) has answered: the warning
 * of an idle episode recorded and mailed once, the stop the customer's STOP would make (reason
 * `idle`) recorded for the hours it saved, a withdrawn warning. Each in one transaction.
 */

type IdleDeps = { db: Db; boss: Boss; log: Logger; config: Pick<Config, 'publicUrl'> };
type IdleMachine = { vm_id: string; user_id: string; minutes: number | null };

export async function warnIdle(deps: IdleDeps, vm: IdleMachine, stopAt: Date, now: Date): Promise<boolean> {
  return deps.db.transaction(async (trx) => {
    if (!(await recordIdleWarning(trx, vm.vm_id, stopAt, now))) return false;
    const user = await findUserById(trx, vm.user_id);
    if (user && vm.minutes !== null) {
      const mail = idleWarningMail(user, stopAt, vm.minutes, deps.config.publicUrl);
      await sendJob(deps.boss, 'email-send', mail, { db: trx });
    }
    deps.log.info({ vmId: vm.vm_id, stopAt }, 'idle machine warned');
    return true;
  });
}

export async function stopIdle(
  deps: IdleDeps,
  vm: IdleMachine,
  idleSince: Date,
  now: Date,
): Promise<boolean> {
  return deps.db.transaction(async (trx) => {
    const stopped = await requestStop(trx, deps.boss, vm.vm_id, 'idle', now);
    if (!stopped) return false;
    const subscription = await findSubscription(trx, stopped.subscription_id);
    const remaining = subscription ? planSeconds(subscription.hours) - stopped.usage_seconds : 0;
    await recordIdleStop(trx, {
      vmId: vm.vm_id,
      userId: vm.user_id,
      subscriptionId: stopped.subscription_id,
      idleSince,
      stoppedAt: now,
      planEndsAt: subscription?.expires_at ?? null,
      remainingSeconds: remaining,
    });
    await clearIdleWarning(trx, vm.vm_id);
    deps.log.info({ vmId: vm.vm_id, idleSince }, 'idle machine stopped');
    return true;
  });
}

export async function withdrawIdleWarning(db: Db, vmId: string): Promise<void> {
  await clearIdleWarning(db, vmId);
}
