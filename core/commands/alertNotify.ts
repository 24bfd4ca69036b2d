import type { Config } from '../config/config.ts';
import { deadLetterAlertKey, deadLettersSinceRaised } from '../db/deadLetters.ts';
import { claimAlertsToNotify, raiseAlert, type OperatorAlert } from '../db/operatorAlerts.ts';
import type { DatabasePool, Db } from '../db/pool.ts';
import type { Logger } from '../observability/log.ts';
import { sendJob, type Boss, type Payload } from '../queue.ts';

/**
 * What a person is told about an operator alert: a mail to OPS_EMAIL and a Slack-compatible
 * webhook post. Words only: ids of machines and instances, never customer data or secrets.
 */

function subjectOf(alert: OperatorAlert): string {
  return [alert.vm_id && `vm ${alert.vm_id}`, alert.instance_id && `instance ${alert.instance_id}`]
    .filter(Boolean)
    .join(', ');
}

function headline(alert: OperatorAlert, deployment: string): string {
  const again = alert.notify_count > 1 ? ' (still happening)' : '';
  return `[${deployment}] ${alert.kind}${again}: ${alert.message}`.slice(0, 200);
}

function facts(alert: OperatorAlert): string[] {
  const subject = subjectOf(alert);
  return [
    ...(subject ? [`Subject: ${subject}`] : []),
    `Seen ${alert.occurrences} time(s), first ${alert.created_at.toISOString()}, last ${alert.last_seen_at.toISOString()}`,
    `Alert id: ${alert.id}`,
    `npm run alerts -- show ${alert.id}   |   ack ${alert.id}   |   resolve ${alert.id}`,
  ];
}

export function alertMail(alert: OperatorAlert, to: string, deployment: string): Payload<'email-send'> {
  return {
    kind: 'operator-alert',
    to,
    subject: headline(alert, deployment),
    text: [alert.message, '', ...facts(alert)].join('\n'),
  };
}

/** Slack's incoming-webhook body (`text` with mrkdwn); Mattermost and others take the same. */
export function alertWebhookText(alert: OperatorAlert, deployment: string): string {
  return [`*${headline(alert, deployment)}*`, ...facts(alert)].join('\n').slice(0, 4000);
}

/**
 * Every operator alert a person has not heard about yet, or that keeps happening past
 * ALERT_RENOTIFY_MINUTES, mailed to OPS_EMAIL and posted to ALERT_WEBHOOK_URL. Claiming and
 * enqueueing share one transaction: a crash before commit leaves the alert unclaimed for the next
 * run, after it the jobs carry on with their retries.
 */
export async function notifyAlerts(deps: {
  db: DatabasePool;
  boss: Boss;
  log: Logger;
  config: Pick<Config, 'ops' | 'publicUrl'>;
}): Promise<void> {
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
}

/** One alert per queue with new dead letters: raised again (a recurrence) when more arrive. */
export async function raiseDeadLetters(deps: { db: Db; log: Logger }): Promise<number> {
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
