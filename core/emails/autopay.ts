import { escapeHtml } from '../escape.ts';
import { formatRupees } from '../domain/money.ts';
import { formatIndiaClock, formatLongDate } from '../domain/time.ts';
import type { MandateMethod } from '../domain/autopay.ts';
import type { Payload } from '../queue.ts';

/**
 * The mails of AutoPay: the pre-debit notice (RBI: merchant, amount, date and a way to opt out),
 * a debit that failed (at once, with the next try and "Pay now"), and a mandate cancelled from
 * outside. The post-debit alert is the receipt with its invoice (core/emails/payments.ts).
 */

type Mail = Payload<'email-send'>;
type Person = { name: string; email: string };

function mail(
  kind: string,
  to: string,
  subject: string,
  lines: string[],
  link: { url: string; label: string },
): Mail {
  const text = [...lines, '', `${link.label}: ${link.url}`].join('\n');
  const html = [
    ...lines.filter((line) => line !== '').map((line) => `<p>${escapeHtml(line)}</p>`),
    `<p><a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></p>`,
  ].join('\n');
  return { kind, to, subject, text, html };
}

const METHOD_WORDS: Record<MandateMethod, string> = { upi: 'UPI AutoPay', card: 'your card' };

/** The dashboard's AutoPay panel: where the customer cancels, pauses or pays by hand. */
function autopayPanelUrl(publicUrl: string): string {
  return `${publicUrl}/dashboard#autopay`;
}

export function autopayNoticeMail(
  person: Person,
  renewal: {
    planName: string;
    hours: number;
    amountPaise: number;
    debitAt: Date;
    method: MandateMethod | null;
  },
  merchant: string,
  publicUrl: string,
): Mail {
  const amount = formatRupees(renewal.amountPaise);
  const when = `${formatLongDate(renewal.debitAt)} (around ${formatIndiaClock(renewal.debitAt)})`;
  return mail(
    'autopay-notice',
    person.email,
    `${merchant} will debit ${amount} on ${formatLongDate(renewal.debitAt)} to renew your plan`,
    [
      `Hi ${person.name},`,
      '',
      `Your ${renewal.planName} plan (${renewal.hours} hours a month) renews automatically. ${merchant} will debit ${amount} through ${renewal.method ? METHOD_WORDS[renewal.method] : 'PayU'} on ${when}.`,
      'The renewal continues on the same cloud PC, with everything on its disk; its hours start again.',
      "Don't want it? Cancel or pause automatic renewal from your dashboard before then; nothing is debited.",
    ],
    { url: autopayPanelUrl(publicUrl), label: 'Cancel or pause automatic renewal' },
  );
}

export function autopayFailedMail(
  person: Person,
  failure: {
    planName: string;
    amountPaise: number;
    reason: string;
    retryAt: Date | null;
    planEndsAt: Date;
    now: Date;
  },
  publicUrl: string,
): Mail {
  const amount = formatRupees(failure.amountPaise);
  const next = failure.retryAt
    ? `We will try again on ${formatLongDate(failure.retryAt)} (around ${formatIndiaClock(failure.retryAt)}).`
    : 'We will not try again automatically.';
  const ends =
    failure.planEndsAt.getTime() > failure.now.getTime()
      ? `Your plan ends on ${formatLongDate(failure.planEndsAt)}; after that your cloud PC stops until the renewal is paid, and is kept for the grace period.`
      : 'Your plan has ended, so your cloud PC is stopped until the renewal is paid; it is kept for the grace period.';
  return mail(
    'autopay-failed',
    person.email,
    `We could not renew your ${failure.planName} plan`,
    [
      `Hi ${person.name},`,
      '',
      `The automatic debit of ${amount} to renew your ${failure.planName} plan did not go through: ${failure.reason}`,
      next,
      ends,
      'Pay now from your dashboard to renew the same cloud PC straight away.',
    ],
    { url: autopayPanelUrl(publicUrl), label: 'Pay now' },
  );
}

export function autopayStoppedMail(person: Person, reason: string, publicUrl: string): Mail {
  return mail(
    'autopay-stopped',
    person.email,
    'Automatic renewal of your plan has stopped',
    [
      `Hi ${person.name},`,
      '',
      reason,
      'Your current plan is not affected. You can turn automatic renewal on again with your next purchase.',
    ],
    { url: autopayPanelUrl(publicUrl), label: 'Open your dashboard' },
  );
}
