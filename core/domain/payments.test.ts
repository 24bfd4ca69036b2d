import { describe, expect, it } from 'vitest';
import {
  failureReasonOf,
  firstCheckAt,
  paidNotActivated,
  PAYMENT_STATES,
  paymentSettled,
  nextCheckAt,
  plainFailureReason,
  RECONCILE_CHECK_MINUTES,
  RECONCILE_LAST_LOOK_RETRY_MS,
  reconcileCutoff,
  reconcileScheduleOver,
  tooManyOpenCheckouts,
} from './payments.ts';
import { customerRefundRefusal } from './refund.ts';

const created = new Date('2026-11-24T10:00:00.000Z');
const minutesAfter = (d: Date | null) => (d ? (d.getTime() - created.getTime()) / 60_000 : null);

describe('the reconciliation schedule', () => {
  it('checks 2, 5, 15 and 60 minutes after checkout, then backs off to 72 hours and stops', () => {
    expect(minutesAfter(firstCheckAt(created))).toBe(2);
    const now = new Date(created.getTime() + 90 * 24 * 3600_000);
    const offsets = RECONCILE_CHECK_MINUTES.map((_, i) => minutesAfter(nextCheckAt(created, i, now)));
    expect(offsets.slice(0, 4)).toEqual([2, 5, 15, 60]);
    for (let i = 1; i < offsets.length; i++) expect(offsets[i]!).toBeGreaterThan(offsets[i - 1]!);
    // The last check is at 72 hours: without a final answer by then an attempt is abandoned.
    expect(offsets.at(-1)! * 60_000).toBe(72 * 3_600_000);
    // Over: the last check's answer abandons it; until one arrives it is asked again hourly.
    expect(reconcileScheduleOver(RECONCILE_CHECK_MINUTES.length - 1)).toBe(false);
    expect(reconcileScheduleOver(RECONCILE_CHECK_MINUTES.length)).toBe(true);
    expect(nextCheckAt(created, RECONCILE_CHECK_MINUTES.length, now).getTime() - now.getTime()).toBe(
      RECONCILE_LAST_LOOK_RETRY_MS,
    );
  });

  it('a sweep takes what falls due before its next run, not more than a minute ahead', () => {
    const now = new Date('2026-11-24T10:01:30.000Z');
    expect(reconcileCutoff(now).getTime() - now.getTime()).toBeGreaterThan(0);
    expect(reconcileCutoff(now).getTime() - now.getTime()).toBeLessThan(60_000);
  });
});

describe('open checkouts', () => {
  it('allows four open and refuses the fifth onwards', () => {
    expect(tooManyOpenCheckouts(4)).toBe(false);
    expect(tooManyOpenCheckouts(5)).toBe(true);
  });
});

describe("PayU's failure reasons in plain words", () => {
  it('names the common causes and never echoes PayU jargon', () => {
    expect(plainFailureReason('Insufficient funds')).toMatch(/not enough balance/);
    expect(plainFailureReason('User cancelled the transaction')).toMatch(/cancelled/);
    expect(plainFailureReason('3D Secure authentication failed')).toMatch(/OTP/);
    expect(plainFailureReason(null)).toBe('PayU did not complete the payment.');
    expect(plainFailureReason('E1234 PG_ERR')).toBe('PayU could not complete the payment.');
  });
});

describe('customer refunds', () => {
  const ok = {
    paid: true,
    notActivated: false,
    isTrial: false,
    planActive: true,
    refundPaise: 1000,
    hasRefund: false,
  };
  it('allows a paid, running, non-trial plan with a quote above zero, once', () => {
    expect(customerRefundRefusal(ok)).toBeNull();
    expect(customerRefundRefusal({ ...ok, hasRefund: true })).toBe('already-requested');
    expect(customerRefundRefusal({ ...ok, refundPaise: 0 })).toBe('outside-window');
    expect(customerRefundRefusal({ ...ok, isTrial: true })).toBe('trial');
    expect(customerRefundRefusal({ ...ok, planActive: false })).toBe('plan-not-active');
    expect(customerRefundRefusal({ ...ok, notActivated: true })).toBe('not-activated');
    expect(customerRefundRefusal({ ...ok, paid: false })).toBe('not-paid');
  });
});

describe('paymentSettled, paidNotActivated, failureReasonOf', () => {
  it('calls only a verified success or failure settled (an abandoned checkout may still be paid)', () => {
    expect(PAYMENT_STATES.filter(paymentSettled)).toEqual(['success', 'failure']);
  });

  it('reads a paid payment with a problem as not activated, and only a failure’s reason', () => {
    expect(paidNotActivated('success', 'another plan took over')).toBe(true);
    expect(paidNotActivated('success', null)).toBe(false);
    expect(paidNotActivated('failure', 'x')).toBe(false);
    expect(failureReasonOf('failure', 'Bank declined')).toBe('Bank declined');
    expect(failureReasonOf('success', 'Bank declined')).toBeNull();
  });
});
