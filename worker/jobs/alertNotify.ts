import { alertMail, alertWebhookText } from '../../core/commands/alertNotify.ts';
import { deadLetterAlertKey, deadLettersSinceRaised } from '../../core/db/deadLetters.ts';
import { claimAlertsToNotify, raiseAlert } from '../../core/db/operatorAlerts.ts';
import { sendJob, type Job } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';

/**
 * `alert-notify` (cron, every minute): every operator alert a person has not heard about yet,
 * or that keeps happening past ALERT_RENOTIFY_MINUTES, is mailed to OPS_EMAIL and posted to
 * ALERT_WEBHOOK_URL. Claiming and enqueueing share one transaction: a crash before commit
 * leaves the alert unclaimed for the next run, after it the jobs carry on with their retries.
 *
 * First, jobs that exhausted their retries since the last run are raised as alerts
 * (`job-dead-lettered`, one per queue), so a failure nothing retries any more reaches a person.
 */
export function alertNotify(deps: WorkerDeps) {
  return async (_jobs: Job<unknown>[]) => {
    await raiseDeadLetters(deps);
    const { opsEmail, alertWebhookUrl, alertRenotifyMinutes } = deps.config.ops;
    if (!opsEmail && !alertWebhookUrl) return;
    const deployment = new URL(deps.config.publicUrl).host;
    for (let pass = 0; pass < 10; pass++) {
      const claimed = await deps.db.transaction(async (trx) => {
        const alerts = await claimAlertsToNotify(trx, { renotifyMinutes: alertRenotifyMinutes });
        for (const alert of alerts) {
          if (opsEmail)
            await sendJob(deps.boss, 'email-send', alertMail(alert, opsEmail, deployment), { db: trx });
          if (alertWebhookUrl) {
            await sendJob(
              deps.boss,
              'alert-webhook',
              { alertId: alert.id, text: alertWebhookText(alert, deployment) },
              { db: trx },
            );
          }
        }
        return alerts;
      });
      for (const alert of claimed) {
        deps.log.info(
          { alertId: alert.id, kind: alert.kind, notification: alert.notify_count },
          'alert notified',
        );
      }
      if (claimed.length < 50) return;
    }
  };
}

/** One alert per queue with new dead letters: raised again (a recurrence) when more arrive. */
export async function raiseDeadLetters(deps: Pick<WorkerDeps, 'db' | 'log'>): Promise<number> {
  const arrivals = await deadLettersSinceRaised(deps.db);
  for (const { queue, count, latestError } of arrivals) {
    await raiseAlert(deps.db, {
      kind: 'job-dead-lettered',
      dedupeKey: deadLetterAlertKey(queue),
      message:
        `${count} ${queue} job${count === 1 ? '' : 's'} exhausted ${count === 1 ? 'its' : 'their'} retries and ` +
        `wait${count === 1 ? 's' : ''} in ${queue}-dlq (latest error: ${latestError}). ` +
        `See npm run jobs -- dead ${queue}; replay with npm run jobs -- replay once the cause is fixed.`,
    });
    deps.log.warn({ queue, count, error: latestError }, 'alert-notify: jobs dead-lettered');
  }
  return arrivals.length;
}
