import type { OperatorAlert } from '../db/operatorAlerts.ts';
import type { Payload } from '../queue.ts';

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
