import { describe, expect, it } from 'vitest';
import {
  customerRefundCheck,
  DEFAULT_REFUND_POLICY,
  planDay,
  quoteFor,
  quoteRefund,
  REFUND_STATUSES,
  refundFailureWords,
  refundStep,
  type RefundCase,
} from './refund.ts';

const purchasedAt = '2026-06-10T15:00:00+05:30';
const onDay = (day: number, time = '12:00:00') => {
  const date = new Date(Date.UTC(2026, 5, 10 + day - 1));
  return `${date.toISOString().slice(0, 10)}T${time}+05:30`;
};

describe('refund policy', () => {
  it('refunds by day of the plan: 70, 70, 60, 50, 40, 30, 25, 20, then nothing', () => {
    const percents = Array.from(
      { length: 12 },
      (_, index) => quoteRefund(350_000, purchasedAt, onDay(index + 1)).percent,
    );
    expect(percents).toEqual([70, 70, 60, 50, 40, 30, 25, 20, 0, 0, 0, 0]);
  });

  it('deducts the ₹200 cancellation charge from the day’s share', () => {
    expect(quoteRefund(350_000, purchasedAt, onDay(1))).toEqual({
      day: 1,
      percent: 70,
      grossPaise: 245_000,
      chargePaise: 20_000,
      refundPaise: 225_000,
    });
    expect(quoteRefund(145_000, purchasedAt, onDay(8))).toMatchObject({
      grossPaise: 29_000,
      refundPaise: 9_000,
    });
  });

  it('never goes negative: the charge is capped at what would be refunded', () => {
    expect(quoteRefund(4_000, purchasedAt, onDay(1))).toEqual({
      day: 1,
      percent: 70,
      grossPaise: 2_800,
      chargePaise: 2_800,
      refundPaise: 0,
    });
    expect(quoteRefund(350_000, purchasedAt, onDay(9))).toMatchObject({
      grossPaise: 0,
      chargePaise: 0,
      refundPaise: 0,
    });
  });

  it('rounds the share down to the paisa', () => {
    expect(quoteRefund(189_999, purchasedAt, onDay(3)).grossPaise).toBe(113_999);
    expect(quoteRefund(333, purchasedAt, onDay(7)).grossPaise).toBe(83);
  });

  it('takes any configured policy', () => {
    const policy = { percentByDay: [100, 50], cancellationChargePaise: 0 };
    expect(quoteRefund(10_000, purchasedAt, onDay(1), policy).refundPaise).toBe(10_000);
    expect(quoteRefund(10_000, purchasedAt, onDay(2), policy).refundPaise).toBe(5_000);
    expect(quoteRefund(10_000, purchasedAt, onDay(3), policy).refundPaise).toBe(0);
    expect(() => quoteRefund(10_000, purchasedAt, onDay(1), { ...policy, percentByDay: [150] })).toThrow(
      RangeError,
    );
  });

  it('keeps its default figures', () => {
    expect(DEFAULT_REFUND_POLICY).toEqual({
      percentByDay: [70, 70, 60, 50, 40, 30, 25, 20],
      cancellationChargePaise: 20_000,
    });
  });

  it('refuses amounts that are not whole paise', () => {
    expect(() => quoteRefund(100.5, purchasedAt, onDay(1))).toThrow(RangeError);
    expect(() => quoteRefund(-100, purchasedAt, onDay(1))).toThrow(RangeError);
  });
});

describe('day of the plan in India time', () => {
  it('is day 1 on the purchase day until midnight IST, day 2 from midnight', () => {
    const bought = '2026-06-10T23:50:00+05:30';
    expect(planDay(bought, '2026-06-10T23:59:59+05:30')).toBe(1);
    expect(planDay(bought, '2026-06-11T00:00:00+05:30')).toBe(2);
  });

  it('turns the day at 18:30 UTC, not at UTC midnight', () => {
    // Bought 10 June 09:00 IST (03:30 UTC).
    const bought = '2026-06-10T03:30:00Z';
    expect(planDay(bought, '2026-06-10T18:29:59Z')).toBe(1);
    expect(planDay(bought, '2026-06-10T18:30:00Z')).toBe(2);
    // UTC midnight is 05:30 IST: no change of day there.
    expect(planDay(bought, '2026-06-10T23:59:59Z')).toBe(2);
    expect(planDay(bought, '2026-06-11T00:00:01Z')).toBe(2);
  });

  it('moves from 70% to 60% at midnight IST starting day 3', () => {
    const bought = '2026-06-10T00:00:00+05:30';
    expect(quoteRefund(100_000, bought, '2026-06-11T23:59:59.999+05:30').percent).toBe(70);
    expect(quoteRefund(100_000, bought, '2026-06-12T00:00:00+05:30').percent).toBe(60);
  });

  it('counts across month and year ends', () => {
    expect(planDay('2026-12-31T22:00:00+05:30', '2027-01-01T01:00:00+05:30')).toBe(2);
    expect(planDay('2026-02-27T10:00:00+05:30', '2026-03-02T10:00:00+05:30')).toBe(4);
  });

  it('treats a quote timed before the purchase as day 1', () => {
    expect(planDay('2026-06-10T10:00:00+05:30', '2026-06-09T10:00:00+05:30')).toBe(1);
  });
});

describe('quoteFor and customerRefundCheck: a payment as the refund rules read it', () => {
  const now = onDay(2);
  const paid = (overrides: Partial<RefundCase> = {}): RefundCase => ({
    txnid: 'TXN1',
    status: 'success',
    paidPaise: 100_000,
    problem: null,
    invoiceNumber: 'LC/2026-27/000001',
    plan: {
      status: 'active',
      expiresAt: onDay(30),
      hours: 30,
      purchasedAt,
      isTrial: false,
    },
    refunds: [],
    ...overrides,
  });

  it('quotes the day’s percent less the charge, less what was already refunded', () => {
    const quote = quoteFor(paid(), DEFAULT_REFUND_POLICY, now);
    expect(quote).toMatchObject({ paidPaise: 100_000, alreadyRefundedPaise: 0, neverActivated: false });
    expect(quote?.quote).toMatchObject({ day: 2, percent: 70, refundPaise: 70_000 - 20_000 });
    const again = quoteFor(
      paid({ refunds: [{ status: 'refunded', amountPaise: 40_000, underReview: false }] }),
      DEFAULT_REFUND_POLICY,
      now,
    );
    expect(again?.quote.refundPaise).toBe(50_000);
    expect(again?.alreadyRefundedPaise).toBe(40_000);
  });

  it('gives back a payment that activated nothing whole, and quotes nothing of one not paid', () => {
    expect(quoteFor(paid({ problem: 'another plan took over' }), DEFAULT_REFUND_POLICY, now)).toMatchObject({
      neverActivated: true,
      quote: { percent: 100, chargePaise: 0, refundPaise: 100_000 },
    });
    expect(quoteFor(paid({ status: 'pending' }), DEFAULT_REFUND_POLICY, now)).toBeNull();
  });

  it('lets the customer ask for a running plan’s refund once, never for a trial or a settling payment', () => {
    const quote = quoteFor(paid(), DEFAULT_REFUND_POLICY, now);
    expect(customerRefundCheck(paid(), quote, now)).toBeNull();
    expect(
      customerRefundCheck(
        paid({ refunds: [{ status: 'requested', amountPaise: 1, underReview: false }] }),
        quote,
        now,
      ),
    ).toBe('already-requested');
    expect(customerRefundCheck(paid({ plan: { ...paid().plan!, isTrial: true } }), quote, now)).toBe('trial');
    expect(customerRefundCheck(paid({ status: 'pending' }), null, now)).toBe('not-settled');
    expect(
      customerRefundCheck(
        paid({ plan: { ...paid().plan!, status: 'active', expiresAt: onDay(1) } }),
        quote,
        now,
      ),
    ).toBe('plan-not-active');
  });
});

describe('refundStep and refundFailureWords', () => {
  it('sends a requested refund, follows an accepted one, and leaves a final one alone', () => {
    expect(REFUND_STATUSES.map(refundStep)).toEqual(['send', 'follow', 'final', 'final']);
  });

  it('words only a failed refund', () => {
    expect(refundFailureWords({ status: 'refunded', payuRequestId: null, errorCode: 103 })).toBeNull();
    expect(refundFailureWords({ status: 'failed', payuRequestId: null, errorCode: 232 })).toMatch(/\w/);
  });
});
