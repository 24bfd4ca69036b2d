import type { Config } from '../config/config.ts';
import type { Db } from '../db/pool.ts';
import { expireDueSubscriptions, type Subscription } from '../db/subscriptions.ts';
import type { ExpiryReminderDays } from '../domain/subscription.ts';
import { expiryReminderMail, planExpiredMail } from '../emails/vms.ts';
import type { Boss } from '../queue.ts';
import { notify } from './notices.ts';

/**
 * What `plan-expiry` writes: plans past their expiry marked expired, and the customer's notices
 * (the plan expired and until when its machine is kept; 3 and 1 days before expiry), each recorded
 * once however often the sweep runs.
 */

type ExpiryDeps = { db: Db; boss: Boss; config: Pick<Config, 'publicUrl' | 'vm'> };

export async function expirePlans(db: Db, now: Date): Promise<number> {
  return (await expireDueSubscriptions(db, now)).length;
}

/** "Your plan expired; your PC is kept until …", once per plan. */
export async function tellPlanExpired(deps: ExpiryDeps, subscription: Subscription, keptUntil: Date) {
  const { db, boss, config } = deps;
  return notify(
    db,
    boss,
    {
      kind: 'plan-expired',
      subjectId: subscription.id,
      userId: subscription.user_id,
      subscriptionId: subscription.id,
    },
    (person) =>
      planExpiredMail(person, subscription, keptUntil, config.publicUrl, config.vm.snapshotKeepDays),
  );
}

/** "Your plan expires in N days", once per plan and reminder. */
export async function remindExpiry(
  deps: ExpiryDeps,
  subscription: Subscription,
  days: ExpiryReminderDays,
  expiresAt: Date,
) {
  const { db, boss, config } = deps;
  return notify(
    db,
    boss,
    {
      kind: `expiry-${days}d`,
      subjectId: subscription.id,
      userId: subscription.user_id,
      subscriptionId: subscription.id,
    },
    (person) => expiryReminderMail(person, subscription, days, expiresAt, config.publicUrl),
  );
}
