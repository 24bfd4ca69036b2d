/**
 * Refund quotes (spec §9, architecture deviation 6). Days 5–7 are not in the spec;
 * the architecture fixes them at 40% / 30% / 25%. Every figure is configuration: callers
 * pass a policy built from config, this default is what config falls back to.
 */
import { assertNever } from './assertNever.ts';
import { assertPaise, formatRupees } from './money.ts';
import type { PaymentState } from './payments.ts';
import { planInForce, type PlanFacts } from './planTime.ts';
import { dayNumber, formatIndiaClock, formatLongDate, indiaDate, type Instant } from './time.ts';

/** A refund's states: `requested → accepted → refunded`, or `failed`. */
export const REFUND_STATUSES = ['requested', 'accepted', 'refunded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

export interface RefundPolicy {
  /** Percent refunded on each day of the plan: index 0 is day 1. Days past the list refund nothing. */
  percentByDay: readonly number[];
  /** Deducted from every refund, never taking it below zero. */
  cancellationChargePaise: number;
}

export const DEFAULT_REFUND_POLICY: RefundPolicy = {
  percentByDay: [70, 70, 60, 50, 40, 30, 25, 20],
  cancellationChargePaise: 200_00,
};

export interface RefundQuote {
  /** Day of the plan in India time: the purchase day is day 1, from midnight IST it is day 2. */
  day: number;
  percent: number;
  /** The policy's percent of what was paid, rounded down to the paisa. */
  grossPaise: number;
  /** The cancellation charge actually taken: the policy's, or less when the gross is smaller. */
  chargePaise: number;
  /** grossPaise − chargePaise, never negative. */
  refundPaise: number;
}

/** Day of the plan at `now`, counted in India calendar days; a `now` before the purchase is day 1. */
export function planDay(purchasedAt: Instant, now: Instant): number {
  const days = dayNumber(indiaDate(now)) - dayNumber(indiaDate(purchasedAt));
  return Math.max(1, days + 1);
}

/**
 * What cancelling now would refund of `paidPaise`: the day's percent of the amount paid
 * (rounded down, so we never refund a paisa more than the policy says), less the
 * cancellation charge, floored at zero.
 */
export function quoteRefund(
  paidPaise: number,
  purchasedAt: Instant,
  now: Instant,
  policy: RefundPolicy = DEFAULT_REFUND_POLICY,
): RefundQuote {
  assertPaise(paidPaise, 'amount paid');
  assertPaise(policy.cancellationChargePaise, 'cancellation charge');
  if (paidPaise < 0) throw new RangeError(`amount paid cannot be negative, got ${paidPaise}`);
  const day = planDay(purchasedAt, now);
  const percent = policy.percentByDay[day - 1] ?? 0;
  if (!(percent >= 0 && percent <= 100)) throw new RangeError(`refund percent must be 0–100, got ${percent}`);
  const grossPaise = Math.floor((paidPaise * percent) / 100);
  const chargePaise = Math.min(Math.max(0, policy.cancellationChargePaise), grossPaise);
  return { day, percent, grossPaise, chargePaise, refundPaise: grossPaise - chargePaise };
}

/** Why a customer may not ask for a refund of a payment right now, or null when they may. */
export type CustomerRefundRefusal =
  | 'not-paid'
  | 'not-settled'
  | 'not-activated'
  | 'trial'
  | 'plan-not-active'
  | 'outside-window'
  | 'already-requested'
  | 'under-review';

export const CUSTOMER_REFUND_MESSAGES: Record<CustomerRefundRefusal, string> = {
  'not-paid': 'This payment did not go through, so there is nothing to refund.',
  'not-settled':
    'Your bank has not confirmed this payment yet, so it cannot be refunded now. Ask again once it shows as paid.',
  'not-activated': 'This payment started no plan: it is refunded in full automatically.',
  trial: 'The trial is not refundable.',
  'plan-not-active': 'Only a plan that is still running can be cancelled for a refund.',
  'outside-window': 'The refund period for this plan has ended: the policy gives nothing back from this day.',
  'already-requested': 'A refund of this payment has already been requested.',
  'under-review':
    'PayU refused the last refund of this payment. Our team is looking into it and will write to you; you can ask again once they have.',
};

/**
 * The refusal as the customer reads it. A payment the bank has not confirmed says when we ask
 * PayU again, which is when asking for the refund can next work.
 */
export function customerRefundMessage(
  refusal: CustomerRefundRefusal,
  context: { nextCheckAt: Instant | null } = { nextCheckAt: null },
): string {
  if (refusal === 'not-settled' && context.nextCheckAt !== null) {
    const at = context.nextCheckAt;
    return `Your bank has not confirmed this payment yet, so it cannot be refunded now. We ask PayU again on ${formatLongDate(at)} at ${formatIndiaClock(at)}: try again after that.`;
  }
  return CUSTOMER_REFUND_MESSAGES[refusal];
}

/** A payment as a refund reads it: what was paid, the plan it bought, and the refunds asked of it. */
export type RefundCase = {
  txnid: string;
  status: PaymentState;
  paidPaise: number;
  /** Why a paid payment activated nothing (null: it activated its plan). */
  problem: string | null;
  invoiceNumber: string | null;
  plan: (PlanFacts & { purchasedAt: Instant | null; isTrial: boolean }) | null;
  refunds: ReadonlyArray<{ status: RefundStatus; amountPaise: number; underReview: boolean }>;
};

export type Quote = {
  txnid: string;
  invoiceNumber: string | null;
  paidPaise: number;
  alreadyRefundedPaise: number;
  /** The policy's answer, or a full refund for a payment that never activated anything. */
  quote: RefundQuote;
  /** Why the quote is what it is. */
  basis: string;
  /** The payment activated nothing: the whole amount goes back, no charge. */
  neverActivated: boolean;
};

/**
 * What the policy gives back of a payment at `now`, less what was already refunded (or on its
 * way); a payment that activated nothing comes back whole. Null when nothing was paid.
 */
export function quoteFor(refund: RefundCase, policy: RefundPolicy, now: Instant): Quote | null {
  if (refund.status !== 'success') return null;
  const alreadyRefundedPaise = refund.refunds
    .filter((r) => refundEndsPlan(r))
    .reduce((sum, r) => sum + r.amountPaise, 0);
  const purchasedAt = refund.problem === null ? (refund.plan?.purchasedAt ?? null) : null;
  const quote: RefundQuote = purchasedAt
    ? quoteRefund(refund.paidPaise, purchasedAt, now, policy)
    : { day: 1, percent: 100, grossPaise: refund.paidPaise, chargePaise: 0, refundPaise: refund.paidPaise };
  const limited = Math.max(0, Math.min(quote.refundPaise, refund.paidPaise - alreadyRefundedPaise));
  return {
    txnid: refund.txnid,
    invoiceNumber: refund.invoiceNumber,
    paidPaise: refund.paidPaise,
    alreadyRefundedPaise,
    quote: { ...quote, refundPaise: limited },
    basis: purchasedAt
      ? `day ${quote.day} of the plan: ${quote.percent}% less the cancellation charge`
      : `never activated (${refund.problem ?? 'no active plan'}): full refund`,
    neverActivated: purchasedAt === null,
  };
}

/** Whether the customer may ask for this refund now; the reason when not (`customerRefundRefusal`). */
export function customerRefundCheck(
  refund: RefundCase,
  quote: Quote | null,
  now: Instant,
): CustomerRefundRefusal | null {
  return customerRefundRefusal({
    paid: refund.status === 'success',
    settling: refund.status === 'initiated' || refund.status === 'pending',
    notActivated: refund.problem !== null,
    isTrial: refund.plan?.isTrial ?? false,
    planActive: planInForce(refund.plan, now),
    refundPaise: quote?.quote.refundPaise ?? 0,
    hasRefund: refund.refunds.some((r) => r.status !== 'failed'),
    refusedUnderReview: refund.refunds.some((r) => r.status === 'failed' && r.underReview),
  });
}

/**
 * The customer's refund rule: a paid, running, non-trial plan whose policy quote is above zero
 * today, not refunded before. A payment the bank has not confirmed yet (an AutoPay debit with its
 * bank, a checkout still pending) waits for it; one whose last refund PayU refused waits for an
 * operator to look (`npm run alerts`). A payment that started nothing is refunded by the worker.
 */
export function customerRefundRefusal(input: {
  paid: boolean;
  /** PayU has not given its final answer on the payment yet (initiated or pending). */
  settling?: boolean;
  notActivated: boolean;
  isTrial: boolean;
  planActive: boolean;
  refundPaise: number;
  hasRefund: boolean;
  /** PayU refused a refund of it and the operator alert about that is still open. */
  refusedUnderReview?: boolean;
}): CustomerRefundRefusal | null {
  if (input.settling) return 'not-settled';
  if (!input.paid) return 'not-paid';
  if (input.hasRefund) return 'already-requested';
  if (input.refusedUnderReview) return 'under-review';
  if (input.notActivated) return 'not-activated';
  if (input.isTrial) return 'trial';
  if (!input.planActive) return 'plan-not-active';
  if (input.refundPaise <= 0) return 'outside-window';
  return null;
}

/**
 * PayU's refusal of a refund (cancel_refund_transaction's error code, or a final FAILURE) in words
 * a customer can act on. Codes: docs.payu.in/docs/error-codes-for-refund-initiation; 232 for banks
 * that take no refunds of recurring debits: docs.payu.in/reference/recurring_payment_api.
 */
export function plainRefundRefusal(errorCode: number | null): string {
  switch (errorCode) {
    case 232:
      return 'your bank does not accept refunds of this kind of payment';
    case 111:
      return 'PayU cannot refund the payment in its current state';
    case 113:
      return 'the payment has a chargeback against it';
    case 116:
      return 'PayU could not find the payment';
    case 105:
    case 117:
      return 'PayU did not accept the amount';
    case 230:
      return 'the payment is too old for PayU to refund';
    case null:
      return 'PayU could not complete it';
    default:
      return `PayU refused it (code ${errorCode})`;
  }
}

/** The policy as a table a page can print: day ranges with their percent (Terms and refund pages). */
export type RefundPolicyBody = {
  rows: Array<{ days: string; percent: number }>;
  cancellationChargePaise: number;
  /** Days within which a bank returns a debit for a payment that did not complete (configuration). */
  failedDebitReturnDays: number;
  /** Hours before a payment that started no plan is refunded in full (configuration). */
  autoRefundHours: number;
};

/**
 * A refund still open (`requested` or `accepted`) that nothing has moved for this long has lost
 * its job: a follow-up is never more than six hours away (payment-refund), so seven hours without
 * a change means the job died or ran out of retries. `payment-reconcile` sends it again.
 */
export const REFUND_STALLED_MS = 7 * 3600_000;

/** Status checks before a refund PayU keeps "in progress" is handed to the operator (about 10 days). */
export const REFUND_MAX_STATUS_CHECKS = 45;
const REFUND_MAX_FOLLOW_SECONDS = 6 * 3600;

/**
 * What follows a refund's status check at PayU: refunded or failed (final), handed to an
 * operator once PayU has kept it in progress for `REFUND_MAX_STATUS_CHECKS` checks, else checked
 * again — the configured first delay, doubling, at most six hours apart.
 */
export type RefundFollowUp =
  | { kind: 'refunded' }
  | { kind: 'failed' }
  | { kind: 'stalled' }
  | { kind: 'check-again'; inSeconds: number };

/** A refund is final once PayU says it succeeded or failed. */
export function refundFinal(progress: string): 'refunded' | 'failed' | null {
  return progress === 'success' ? 'refunded' : progress === 'failure' ? 'failed' : null;
}

/** After a check recorded (`statusChecks` counts it). */
export function refundFollowUp(
  progress: string,
  statusChecks: number,
  firstDelaySeconds: number,
): RefundFollowUp {
  const final = refundFinal(progress);
  if (final) return { kind: final };
  if (statusChecks >= REFUND_MAX_STATUS_CHECKS) return { kind: 'stalled' };
  return { kind: 'check-again', inSeconds: refundCheckDelaySeconds(statusChecks, firstDelaySeconds) };
}

export function refundCheckDelaySeconds(statusChecks: number, firstDelaySeconds: number): number {
  return Math.min(firstDelaySeconds * 2 ** statusChecks, REFUND_MAX_FOLLOW_SECONDS);
}

/** What `payment-refund` does with a refund: send it to PayU, follow PayU's answer, or nothing (final). */
export function refundStep(status: RefundStatus): 'send' | 'follow' | 'final' {
  switch (status) {
    case 'requested':
      return 'send';
    case 'accepted':
      return 'follow';
    case 'refunded':
    case 'failed':
      return 'final';
    default:
      return assertNever(status);
  }
}

/**
 * Why a refund failed, in words a customer can act on; null unless it failed. One PayU accepted
 * (it has a request id) failed later at the bank; otherwise PayU refused it with a code.
 */
export function refundFailureWords(refund: {
  status: RefundStatus;
  payuRequestId: string | null;
  errorCode: number | null;
}): string | null {
  return refund.status === 'failed'
    ? plainRefundRefusal(refund.payuRequestId ? null : refund.errorCode)
    : null;
}

/** A refund as the history and the dashboard read it. */
export type RefundProgress = {
  amountPaise: number;
  status: RefundStatus;
  requestedAt: string;
  completedAt: string | null;
  /** For a failed refund: why, in plain words (`plainRefundRefusal`). */
  reason?: string | null;
};

/** PayU has taken the refund on: the plan it was for has ended (payment-refund cancels it then). */
export function refundEndsPlan(refund: Pick<RefundProgress, 'status'>): boolean {
  return refund.status === 'accepted' || refund.status === 'refunded';
}

/** "Refunded ₹1,081.00 on 12 March 2026", or where the refund is on its way there: one sentence, no asides. */
export function refundLine(refund: RefundProgress): string {
  const amount = formatRupees(refund.amountPaise);
  switch (refund.status) {
    case 'refunded':
      return `Refunded ${amount} on ${formatLongDate(refund.completedAt ?? refund.requestedAt)}`;
    case 'accepted':
      return `Refund of ${amount} accepted by PayU and on its way`;
    case 'requested':
      return `Refund of ${amount} requested on ${formatLongDate(refund.requestedAt)}`;
    case 'failed':
      return `Refund of ${amount} refused: ${refund.reason ?? 'PayU could not complete it'}`;
  }
}
