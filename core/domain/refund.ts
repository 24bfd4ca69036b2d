/**
 * Refund quotes (spec §9, issue 4, architecture deviation 6). Days 5–7 are not in the spec;
 * the architecture fixes them at 40% / 30% / 25%. Every figure is configuration: callers
 * pass a policy built from config, this default is what config falls back to.
 */
import { assertPaise } from './money.ts';
import { dayNumber, indiaDate, type Instant } from './time.ts';

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
