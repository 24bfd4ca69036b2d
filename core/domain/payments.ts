/**
 * Rules about PayU payment attempts that the API, the worker and the SPA share: when the
 * reconciliation sweep asks PayU again, when an attempt is given up, how many checkouts a
 * customer may have open, and how PayU's reasons read to a person. Pure: no I/O.
 */
import { assertNever } from './assertNever.ts';
import { formatIndiaClock, formatLongDate } from './time.ts';

const MINUTE_MS = 60_000;

/** Every state a payment attempt can be in; the same list as core/db/payments.ts stores. */
export const PAYMENT_STATES = ['initiated', 'pending', 'success', 'failure', 'abandoned'] as const;
export type PaymentState = (typeof PAYMENT_STATES)[number];

/** Not final: the sweep still asks PayU about these. */
export const OPEN_PAYMENT_STATES = ['initiated', 'pending'] as const satisfies readonly PaymentState[];

export function isOpenPayment(status: PaymentState): boolean {
  return (OPEN_PAYMENT_STATES as readonly string[]).includes(status);
}

/**
 * PayU's verified answer is in: paid or failed, never asked about again. An abandoned checkout is
 * not settled (a late success still counts), nor is an open one.
 */
export function paymentSettled(status: PaymentState): boolean {
  switch (status) {
    case 'success':
    case 'failure':
      return true;
    case 'initiated':
    case 'pending':
    case 'abandoned':
      return false;
    default:
      return assertNever(status);
  }
}

/** Paid, but the plan it bought was not activated (`problem` says why): it is refunded whole. */
export function paidNotActivated(status: PaymentState, problem: string | null): boolean {
  return status === 'success' && problem !== null;
}

/** PayU's reason for a failed payment (null for any other); `plainFailureReason` words it for a person. */
export function failureReasonOf(status: PaymentState, reason: string | null): string | null {
  return status === 'failure' ? reason : null;
}

/**
 * When the sweep asks PayU about an attempt, in minutes after checkout: 2, 5, 15 and 60
 * minutes, then doubling gaps up to 72 hours. The first check at 2 minutes is what makes a
 * paid checkout whose browser and webhook were both lost active within about 3 minutes.
 */
export const RECONCILE_CHECK_MINUTES: readonly number[] = [2, 5, 15, 60, 120, 240, 480, 960, 1920, 72 * 60];

/**
 * The sweep runs each minute (pg-boss fires a cron up to about 37 s after its minute) and also
 * takes what falls due within this much of its run, so a first check lands between about 80 s
 * and 180 s after checkout rather than up to 3.6 minutes.
 */
export const RECONCILE_LOOKAHEAD_MS = 40_000;

/** Transaction ids per verify_payment call (PayU takes them joined with "|" in var1). */
export const RECONCILE_BATCH_SIZE = 50;

/** Attempts taken per sweep run; the rest wait for the next run (each is one PayU call per batch). */
export const RECONCILE_MAX_PER_RUN = 1000;

/** The first check of a new attempt. */
export function firstCheckAt(createdAt: Date): Date {
  return new Date(createdAt.getTime() + (RECONCILE_CHECK_MINUTES[0] ?? 2) * MINUTE_MS);
}

/**
 * Once the schedule is over, an attempt still open is asked about again this often until an
 * answer settles or abandons it: a last check lost on the way (the sweep died after claiming it,
 * PayU's batch answer left it out) must not leave it open for ever.
 */
export const RECONCILE_LAST_LOOK_RETRY_MS = 60 * MINUTE_MS;

/** Whether the schedule is over after `checksDone` checks: an answer that is not final abandons. */
export function reconcileScheduleOver(checksDone: number): boolean {
  return checksDone >= RECONCILE_CHECK_MINUTES.length;
}

/**
 * When to ask again after the `checksDone`-th check (1 after the first): the schedule's next
 * step, or once it is over `now` + RECONCILE_LAST_LOOK_RETRY_MS (the answer to that check abandons
 * the attempt; until one arrives it stays due).
 */
export function nextCheckAt(createdAt: Date, checksDone: number, now: Date): Date {
  const minutes = RECONCILE_CHECK_MINUTES[checksDone];
  return minutes === undefined
    ? new Date(now.getTime() + RECONCILE_LAST_LOOK_RETRY_MS)
    : new Date(createdAt.getTime() + minutes * MINUTE_MS);
}

/** The due cutoff of a sweep run at `now`: everything whose next check is at or before it. */
export function reconcileCutoff(now: Date): Date {
  return new Date(now.getTime() + RECONCILE_LOOKAHEAD_MS);
}

/** Open checkouts a customer may start in the window; a flood of attempts cannot fill the queue. */
export const OPEN_CHECKOUT_LIMIT = 5;
export const OPEN_CHECKOUT_WINDOW_MS = 15 * MINUTE_MS;
export const OPEN_CHECKOUT_LIMIT_MESSAGE =
  'You have started 5 payments in the last 15 minutes that PayU has not finished yet. Please complete one of them, or wait a few minutes and try again.';

export function tooManyOpenCheckouts(openInWindow: number): boolean {
  return openInWindow >= OPEN_CHECKOUT_LIMIT;
}

/** Largest PayU callback body accepted (PayU's posts are about 2 kB). */
export const PAYU_CALLBACK_MAX_BYTES = 16 * 1024;

/** How a payment attempt reads in the customer's history. */
export const PAYMENT_STATE_LABELS: Record<PaymentState, string> = {
  initiated: 'Waiting for PayU',
  pending: 'Waiting for your bank',
  success: 'Paid',
  failure: 'Payment failed',
  abandoned: 'Not completed',
};

/**
 * PayU's reason for a failure in plain words. PayU's own texts ("Transaction failed due to
 * …", bank codes) are kept for support; the customer reads what happened and what to do.
 */
export function plainFailureReason(reason: string | null | undefined): string {
  const text = (reason ?? '').toLowerCase();
  if (text.includes('cancel')) return 'The payment was cancelled before it was completed.';
  if (text.includes('insufficient') || text.includes('balance'))
    return 'Your bank declined the payment: not enough balance.';
  if (text.includes('otp') || text.includes('authentication') || text.includes('3d'))
    return 'The bank could not confirm it was you (OTP or card authentication failed).';
  if (text.includes('timeout') || text.includes('timed out'))
    return 'The payment took too long and was stopped.';
  if (text.includes('declin') || text.includes('do not honour') || text.includes('bank'))
    return 'Your bank declined the payment.';
  if (text.trim() === '') return 'PayU did not complete the payment.';
  return 'PayU could not complete the payment.';
}

/** What happens after a payment was taken that activated nothing, for the customer. */
export function notActivatedExplanation(refundHours: number): string {
  const when = refundHours >= 1 ? `within ${Math.round(refundHours)} hours` : 'shortly';
  return `We received your payment but could not start the plan it was for. We will refund the full amount to your original payment method ${when} unless our team sorts it out with you first; you do not need to do anything.`;
}

/**
 * Whether a paid subscription is activated, from what its settlement found, checked in this
 * order: the amount PayU took, the subscription still waiting for its payment, the account, an
 * overlapping plan (a running trial gives way to a bought plan, a renewed plan to its renewal),
 * a trial already used. A
 * refusal is never silent: the payment records it with its automatic refund.
 */
export type Activation =
  { kind: 'activate'; givesWay: 'trial' | 'renewed-plan' | null } | { kind: 'refuse'; problem: string };

export function activationOf(facts: {
  paidPaise: number | null;
  askedPaise: number;
  subscription: { status: string; isTrial: boolean } | null;
  customerExists: boolean;
  /** The customer's plan in force now, if any; `renewed`: this payment renews it (AutoPay or "Pay now"). */
  active: { isTrial: boolean; planName: string; renewed: boolean } | null;
  trialUsed: boolean;
}): Activation {
  const { subscription, active } = facts;
  // Our hash signed the amount, so PayU charging another one means something is badly wrong.
  if (facts.paidPaise !== facts.askedPaise)
    return {
      kind: 'refuse',
      problem: `PayU reports ${facts.paidPaise ?? 'no'} paise paid, we asked ${facts.askedPaise}`,
    };
  if (!subscription || subscription.status !== 'pending_payment')
    return { kind: 'refuse', problem: `subscription ${subscription?.status ?? 'missing'}` };
  if (!facts.customerExists) return { kind: 'refuse', problem: 'the account was deleted' };
  // A running trial gives way to a bought plan, the renewed plan to its renewal; anything else
  // means this purchase overlaps one.
  const givesWay = !active
    ? null
    : active.isTrial && !subscription.isTrial
      ? 'trial'
      : active.renewed
        ? 'renewed-plan'
        : undefined;
  if (givesWay === undefined)
    return { kind: 'refuse', problem: `another plan (${active!.planName}) is active` };
  if (subscription.isTrial && facts.trialUsed)
    return { kind: 'refuse', problem: 'a trial was already used by this account or phone number' };
  return { kind: 'activate', givesWay };
}

/** How long an unanswered checkout waits before it reads "Not completed", and what the bank does then. */
export type CheckoutWaitSettings = {
  /** Minutes without PayU's final answer after which the history says "Not completed" (configuration). */
  noAnswerMinutes: number;
  /** Days within which a bank returns a debit of a payment that did not complete (configuration). */
  failedDebitReturnDays: number;
};

/** The sentence under a checkout that got no final answer (the issue's words, N from configuration). */
function notCompletedExplanation(failedDebitReturnDays: number): string {
  return `Not completed — no money was taken. If your bank shows a debit, it is returned automatically within ${failedDebitReturnDays} days.`;
}

/**
 * How a payment attempt reads in the history: its label, and under it what happens next.
 * An attempt PayU has not answered for `noAnswerMinutes` (or that the sweep abandoned) reads
 * "Not completed" with what the bank does with a debit; one still waiting says when we next ask
 * PayU (the reconcile schedule's next check). The sweep goes on asking either way, so a payment
 * PayU confirms late still starts its plan.
 */
export function attemptProgress(
  attempt: {
    status: PaymentState;
    createdAt: Date;
    nextCheckAt: Date | null;
    /**
     * PayU has posted something about it (a return or a webhook). A checkout PayU never answered
     * is one the customer left on PayU's page: it reads as not completed from the start.
     */
    heardFromPayU?: boolean;
  },
  now: Date,
  settings: CheckoutWaitSettings,
): { label: string; detail: string | null; nextCheckAt: Date | null } {
  const open = isOpenPayment(attempt.status);
  const unanswered =
    attempt.status === 'abandoned' ||
    (open && now.getTime() - attempt.createdAt.getTime() >= settings.noAnswerMinutes * MINUTE_MS);
  if (unanswered) {
    return {
      label: PAYMENT_STATE_LABELS.abandoned,
      detail: notCompletedExplanation(settings.failedDebitReturnDays),
      nextCheckAt: null,
    };
  }
  if (!open) return { label: PAYMENT_STATE_LABELS[attempt.status], detail: null, nextCheckAt: null };
  const next = attempt.nextCheckAt;
  const when =
    next === null || next.getTime() <= now.getTime()
      ? 'We are checking with PayU now.'
      : `We check with PayU again at ${formatIndiaClock(next)}${
          formatLongDate(next) === formatLongDate(now) ? '' : ` on ${formatLongDate(next)}`
        }.`;
  if (attempt.status === 'initiated' && attempt.heardFromPayU === false) {
    return {
      label: NOT_COMPLETED_YET,
      detail: `${NOT_COMPLETED_YET}: no money has been taken. ${when} If you did pay, your plan starts by itself.`,
      nextCheckAt: next,
    };
  }
  return { label: PAYMENT_STATE_LABELS[attempt.status], detail: when, nextCheckAt: next };
}

/** A checkout PayU has said nothing about yet: the customer most likely left PayU's page. */
export const NOT_COMPLETED_YET = 'Not completed yet';
