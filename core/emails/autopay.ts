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

/** "22 December 2026 at 7:45 pm IST": a moment the customer acts by, in every AutoPay mail. */
function at(moment: Date): string {
  return `${formatLongDate(moment)} at ${formatIndiaClock(moment)}`;
}

/** What happens when a plan ends without renewing, in the same words as the dashboard's banner. */
function endsWithoutRenewal(graceDays: number): string {
  return `When it ends your cloud PC stops, its files are kept for ${graceDays} days, and unused hours lapse.`;
}

/** AutoPay was set up with the first payment: what will be debited, when, and how to stop it. */
export function autopaySetUpMail(
  person: Person,
  mandate: {
    planName: string;
    hours: number;
    amountPaise: number;
    method: MandateMethod;
    firstDebitAt: Date;
    noticeHours: number;
  },
  publicUrl: string,
): Mail {
  const amount = formatRupees(mandate.amountPaise);
  return mail(
    'autopay-set-up',
    person.email,
    `Automatic renewal is on for your ${mandate.planName} plan`,
    [
      `Hi ${person.name},`,
      '',
      `Automatic renewal is set up through ${METHOD_WORDS[mandate.method]}: your ${mandate.planName} plan (${mandate.hours} hours a month) renews every month for ${amount}.`,
      `The first renewal is debited on ${at(mandate.firstDebitAt)}. We mail you ${mandate.noticeHours} hours before every debit.`,
      'Each renewal continues on the same cloud PC, with everything on its disk; its hours start again.',
      'You can pause or cancel it any time from your dashboard.',
    ],
    { url: autopayPanelUrl(publicUrl), label: 'Manage automatic renewal' },
  );
}

/** Paused: the next renewal is skipped, so the PC stops when the plan ends (the date), unless resumed. */
export function autopayPausedMail(
  person: Person,
  paused: { planName: string; planEndsAt: Date | null; graceDays: number },
  publicUrl: string,
): Mail {
  const stops = paused.planEndsAt
    ? `Your plan is not renewed, so your cloud PC will stop on ${at(paused.planEndsAt)}, when the plan ends.`
    : 'Your plan is not renewed when it ends.';
  return mail(
    'autopay-paused',
    person.email,
    paused.planEndsAt
      ? `Automatic renewal paused: your PC stops on ${formatLongDate(paused.planEndsAt)}`
      : 'Automatic renewal paused',
    [
      `Hi ${person.name},`,
      '',
      `Automatic renewal of your ${paused.planName} plan is paused: nothing is debited.`,
      stops,
      endsWithoutRenewal(paused.graceDays),
      'Resume it from your dashboard before then to keep renewing on the same PC.',
    ],
    { url: autopayPanelUrl(publicUrl), label: 'Resume automatic renewal' },
  );
}

/** Resumed: debits go on; the next one, when known. */
export function autopayResumedMail(
  person: Person,
  resumed: { planName: string; amountPaise: number; nextDebitAt: Date | null },
  publicUrl: string,
): Mail {
  return mail(
    'autopay-resumed',
    person.email,
    `Automatic renewal resumed for your ${resumed.planName} plan`,
    [
      `Hi ${person.name},`,
      '',
      `Automatic renewal of your ${resumed.planName} plan is on again.`,
      resumed.nextDebitAt
        ? `The next renewal of ${formatRupees(resumed.amountPaise)} is debited on ${at(resumed.nextDebitAt)}; we mail you before it.`
        : `The next plan you buy renews itself every month for ${formatRupees(resumed.amountPaise)}.`,
    ],
    { url: autopayPanelUrl(publicUrl), label: 'Manage automatic renewal' },
  );
}

/** Cancelled by the customer: nothing more is debited; the last day of the plan as bought. */
export function autopayCancelledMail(
  person: Person,
  cancelled: { planName: string; planEndsAt: Date | null; graceDays: number },
  publicUrl: string,
): Mail {
  return mail(
    'autopay-cancelled',
    person.email,
    cancelled.planEndsAt
      ? `Automatic renewal cancelled: your plan's last day is ${formatLongDate(cancelled.planEndsAt)}`
      : 'Automatic renewal cancelled',
    [
      `Hi ${person.name},`,
      '',
      `Automatic renewal of your ${cancelled.planName} plan is cancelled: nothing more is debited, and the mandate is revoked at PayU.`,
      cancelled.planEndsAt
        ? `Your plan runs until ${at(cancelled.planEndsAt)}, its last day. ${endsWithoutRenewal(cancelled.graceDays)}`
        : endsWithoutRenewal(cancelled.graceDays),
      'You can renew it by hand after it ends, and turn automatic renewal on again when you pay.',
    ],
    { url: `${publicUrl}/dashboard`, label: 'Open your dashboard' },
  );
}
