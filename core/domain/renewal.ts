/**
 * An AutoPay renewal as decisions: `noticing → noticed → debiting → renewed`, or `retrying`,
 * `failed`, `skipped`, `cancelled`, `superseded`, `manual`. The `autopay-renewal` sweep
 * (core/commands/autopayRenewal.ts) reads a renewal, its mandate and the plan it renews, asks
 * here what the renewal does next, and carries the answer out (PayU's calls, the conditional
 * transitions, the customer's mails). PayU's answers are read by autopay.ts; what they mean for
 * the renewal is decided here.
 */
import { assertNever } from './assertNever.ts';
import {
  debitAllowedAt,
  noticeDueAt,
  periodKey,
  retryAt,
  scheduledDebitAt,
  type MandateMethod,
  type MandateReading,
  type MandateStatus,
  type PreDebitReading,
  type RenewalState,
} from './autopay.ts';
import type { PaymentState } from './payments.ts';
import type { SubscriptionStatus } from './planRecords.ts';
import { toEpochMs, type Instant } from './time.ts';

/** After this many notices PayU did not accept, an operator is told (it keeps trying until the plan ends). */
const NOTICE_ATTEMPTS_ALERTED = 3;

/**
 * Whether a mandate's next renewal is opened now: not while the plan it renews is not an active
 * plan with an expiry (nothing to renew: the mandate follows the next plan bought); for an active
 * mandate once its notice falls due (a paused one's is recorded as skipped at once).
 */
export function renewalToOpen(input: {
  mandateStatus: 'active' | 'paused';
  method: MandateMethod | null;
  plan: { status: SubscriptionStatus; expiresAt: Date | null } | null;
  noticeMinutes: number;
  now: Instant;
}):
  | { kind: 'nothing-to-renew' }
  | { kind: 'not-yet' }
  | { kind: 'open'; state: 'noticing' | 'skipped'; renewalAt: Date; debitAt: Date; periodKey: string } {
  const { plan } = input;
  if (!plan?.expiresAt || plan.status !== 'active') return { kind: 'nothing-to-renew' };
  const debitAt = scheduledDebitAt(plan.expiresAt, input.method);
  const state = input.mandateStatus === 'active' ? 'noticing' : 'skipped';
  if (state === 'noticing' && toEpochMs(noticeDueAt(debitAt, input.noticeMinutes)) > toEpochMs(input.now))
    return { kind: 'not-yet' };
  return { kind: 'open', state, renewalAt: plan.expiresAt, debitAt, periodKey: periodKey(plan.expiresAt) };
}

/** A noticed renewal's debit may go: at its date, and never sooner than the notice lead after PayU accepted the notice. */
export function debitDue(
  renewal: { state: RenewalState; debitAt: Instant; noticeSentAt: Instant | null },
  noticeMinutes: number,
  now: Instant,
): boolean {
  switch (renewal.state) {
    case 'noticed':
      return (
        renewal.noticeSentAt !== null &&
        toEpochMs(debitAllowedAt(renewal.debitAt, renewal.noticeSentAt, noticeMinutes)) <= toEpochMs(now)
      );
    case 'retrying':
      return true;
    case 'noticing':
    case 'debiting':
    case 'renewed':
    case 'failed':
    case 'skipped':
    case 'cancelled':
    case 'superseded':
    case 'manual':
      return false;
    default:
      return assertNever(renewal.state);
  }
}

/**
 * What a renewal held by the sweep does next:
 * - send-notice / debit: ask PayU whether the mandate is still active, then the notice or the debit;
 * - move: the mandate was paused (skipped) or is gone, or the plan was refunded meanwhile (cancelled);
 * - fail-without-debit: the plan ended without a notice PayU accepted: no debit may go for it;
 * - wait: nothing yet (a debit not due, a mandate not registered at PayU).
 */
export type RenewalStep =
  | { kind: 'send-notice'; reason: string }
  | { kind: 'debit'; reason: string }
  | { kind: 'move'; to: 'skipped' | 'cancelled'; reason: string }
  | { kind: 'fail-without-debit'; reason: string }
  | { kind: 'wait'; reason: string };

export function decideRenewal(input: {
  renewal: {
    state: RenewalState;
    renewalAt: Instant;
    debitAt: Instant;
    noticeSentAt: Instant | null;
    problem: string | null;
  };
  mandate: { status: MandateStatus; registered: boolean } | null;
  /** The plan it renews, as it is now. */
  plan: { status: SubscriptionStatus } | null;
  noticeMinutes: number;
  now: Instant;
}): RenewalStep {
  const { renewal, mandate, now } = input;
  switch (renewal.state) {
    case 'noticing':
      if (!mandate || mandate.status !== 'active' || !mandate.registered)
        return mandate?.status === 'paused'
          ? { kind: 'move', to: 'skipped', reason: 'the mandate is paused' }
          : { kind: 'move', to: 'cancelled', reason: 'the mandate is not active' };
      if (toEpochMs(now) >= toEpochMs(renewal.renewalAt))
        return {
          kind: 'fail-without-debit',
          reason: renewal.problem ?? 'PayU did not accept the pre-debit notice',
        };
      return { kind: 'send-notice', reason: 'the notice falls due' };
    case 'noticed':
    case 'retrying':
      if (!debitDue(renewal, input.noticeMinutes, now))
        return { kind: 'wait', reason: 'the debit is not due yet' };
      if (!input.plan || input.plan.status === 'cancelled')
        return { kind: 'move', to: 'cancelled', reason: 'the plan it renews was refunded meanwhile' };
      if (!mandate?.registered) return { kind: 'wait', reason: 'the mandate is not registered at PayU' };
      return { kind: 'debit', reason: 'the debit is due' };
    case 'debiting':
    case 'renewed':
    case 'failed':
    case 'skipped':
    case 'cancelled':
    case 'superseded':
    case 'manual':
      return { kind: 'wait', reason: `the renewal is ${renewal.state}` };
    default:
      return assertNever(renewal.state);
  }
}

/**
 * What PayU's word on the mandate means for the renewal: go on; ask again later (PayU unreachable,
 * or an answer we cannot read: an operator is told); the customer paused it (skipped); revoked
 * from their UPI app or bank, or PayU no longer knows it (the mandate is revoked, the renewal
 * cancelled, the customer told).
 */
export function mandateCheck(
  reading: MandateReading | 'unreachable',
): { kind: 'go' } | { kind: 'later'; alert: boolean } | { kind: 'paused' } | { kind: 'revoked' } {
  switch (reading) {
    case 'active':
      return { kind: 'go' };
    case 'unreachable':
      return { kind: 'later', alert: false };
    case 'unknown':
      return { kind: 'later', alert: true };
    case 'paused':
      return { kind: 'paused' };
    case 'revoked':
    case 'not-found':
      return { kind: 'revoked' };
    default:
      return assertNever(reading);
  }
}

/** What PayU's answer to the pre-debit notice means: accepted, or asked again later (told to an operator when unreadable, or after repeated refusals). */
export function noticeOutcome(
  reading: PreDebitReading,
  attemptsBefore: number,
): { kind: 'accepted' } | { kind: 'not-accepted'; problem: string; alert: boolean } {
  switch (reading.kind) {
    case 'accepted':
      return { kind: 'accepted' };
    case 'refused':
      return {
        kind: 'not-accepted',
        problem: `PayU refused the notice: ${reading.message}`,
        alert: attemptsBefore >= NOTICE_ATTEMPTS_ALERTED,
      };
    case 'unknown':
      return { kind: 'not-accepted', problem: 'PayU answered the notice unreadably', alert: true };
    default:
      return assertNever(reading);
  }
}

/**
 * A settled debit that did not renew: paid yet refused by the activation (another plan took over,
 * the account was deleted: that payment is refunded by itself), or failed — tried again while the
 * mandate is active and the ended plan's machine is kept (`retryAt`), else the renewal fails.
 */
export function settledDebitOutcome(input: {
  payment: { status: PaymentState; problem: string | null; failureReason: string | null };
  mandate: { status: MandateStatus; method: MandateMethod | null };
  attemptsDone: number;
  /** Until when the ended plan's machine is kept (null: no end known). */
  keptUntil: number | null;
  now: Instant;
}):
  | { kind: 'paid-not-activated'; problem: string }
  | { kind: 'retry'; at: Date; reason: string | null }
  | { kind: 'fail'; reason: string | null } {
  const { payment } = input;
  if (payment.status === 'success')
    return { kind: 'paid-not-activated', problem: payment.problem ?? 'paid but not activated' };
  const reason = payment.failureReason ?? (payment.status === 'abandoned' ? 'no answer from the bank' : null);
  const next =
    input.mandate.status === 'active' && input.keptUntil !== null
      ? retryAt(input.now, input.attemptsDone, input.mandate.method, input.keptUntil)
      : null;
  return next ? { kind: 'retry', at: next, reason } : { kind: 'fail', reason };
}
