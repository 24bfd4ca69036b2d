import { autopayOfPlans } from '../../core/db/autopay.ts';
import { listSubscriptionsDueExpiredNotice, listSubscriptionsDueReminder } from '../../core/db/vmNotices.ts';
import { findSubscription } from '../../core/db/subscriptions.ts';
import { listVmsOutOfPlan, listVmsPastGrace } from '../../core/db/vms.ts';
import { DAY_MS } from '../../core/domain/time.ts';
import { keptUntil, pastGrace } from '../../core/domain/planTime.ts';
import { EXPIRY_REMINDER_DAYS, expiryRemindersDue } from '../../core/domain/subscription.ts';
import { expiryRemindersWanted } from '../../core/domain/autopay.ts';
import { expirePlans, remindExpiry, tellPlanExpired } from '../../core/commands/planExpiry.ts';
import { requestTerminate } from '../../core/commands/vmActions.ts';
import type { WorkerDeps } from '../deps.ts';
import { advanceMachine } from '../lifecycle/advance.ts';
import { planFacts } from '../lifecycle/inputs.ts';
import { sweepJob } from '../job.ts';

/**
 * `plan-expiry` (cron, every minute). Each step selects a bounded batch by a predicate that
 * excludes what is already done, and each effect is a conditional transition or a recorded
 * notice, so running it twice does everything once:
 *
 * 1. active plans past expiry → expired;
 * 2. running machines whose plan is not in force → handed to the lifecycle, whose `request-stop`
 *    moves them to stopping (usage stops counting now);
 * 3. "expired, stopped, kept until …" mail, once per plan;
 * 4. reminders 3 days and 1 day before expiry, once each (not for one-day trials, nor for a plan
 *    AutoPay renews: `expiryRemindersWanted`);
 * 5. machines whose plan ended more than VM_GRACE_DAYS ago, not renewed → terminated, their disk
 *    first kept as a snapshot for SNAPSHOT_KEEP_DAYS (the lifecycle takes it, and mails once EC2
 *    confirms the deletion).
 */
export function planExpiry(deps: WorkerDeps) {
  return sweepJob('plan-expiry', () => runPlanExpiry(deps));
}

export type ExpiryReport = {
  expired: number;
  stopped: number;
  expiredNotices: number;
  reminders: number;
  terminated: number;
};

export async function runPlanExpiry(deps: WorkerDeps, now: Date = new Date()): Promise<ExpiryReport> {
  const { db, boss, config } = deps;
  const report: ExpiryReport = { expired: 0, stopped: 0, expiredNotices: 0, reminders: 0, terminated: 0 };

  report.expired = await expirePlans(db, now);

  for (const vm of await listVmsOutOfPlan(db, now)) {
    const { steps } = await advanceMachine(deps, vm, { mode: 'sweep', now });
    if (steps.some((step) => step.kind === 'request-stop')) report.stopped += 1;
  }

  for (const subscription of await listSubscriptionsDueExpiredNotice(db, now, config.vm.graceDays)) {
    const plan = planFacts(subscription);
    const until = new Date(
      (plan && keptUntil(plan, config.vm.graceDays)) ?? now.getTime() + config.vm.graceDays * DAY_MS,
    );
    if (await tellPlanExpired(deps, subscription, until)) report.expiredNotices += 1;
  }

  const furthest = Math.max(...EXPIRY_REMINDER_DAYS);
  const dueReminder = await listSubscriptionsDueReminder(db, now, furthest);
  const autopay = await autopayOfPlans(
    db,
    dueReminder.map((s) => s.id),
  );
  for (const subscription of dueReminder) {
    if (!subscription.expires_at) continue;
    // AutoPay renews it: nothing to renew by hand (the pre-debit notice tells what happens).
    if (!expiryRemindersWanted(subscription.id, autopay.get(subscription.id))) continue;
    const expiresAt = subscription.expires_at;
    for (const days of expiryRemindersDue(expiresAt, now)) {
      if (await remindExpiry(deps, subscription, days, expiresAt)) report.reminders += 1;
    }
  }

  // The disk is kept as a snapshot first, unless SNAPSHOT_KEEP_DAYS is 0. Either way the
  // customer is told once EC2 confirms the instance is deleted (the lifecycle's ending mail).
  const keepDisk = config.vm.snapshotKeepDays > 0;
  for (const vm of await listVmsPastGrace(db, now, config.vm.graceDays)) {
    const plan = planFacts(await findSubscription(db, vm.subscription_id));
    // Carries out `pastGrace` (the list is its SQL twin): the ended plan's machine is kept no longer.
    if (!plan || !pastGrace(plan, now, config.vm.graceDays)) continue;
    if (!(await requestTerminate(db, boss, vm.id, 'plan-ended', now, { keepDisk }))) continue;
    report.terminated += 1;
  }

  if (Object.values(report).some((n) => n > 0)) deps.log.info(report, 'plan-expiry: sweep done');
  return report;
}
