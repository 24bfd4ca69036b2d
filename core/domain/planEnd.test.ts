import { describe, expect, it } from 'vitest';
import {
  planEndPhase,
  planEndView,
  PLAN_END_NOTICE_HOURS,
  remainingOfPlan,
  renewOfferFor,
} from './planEnd.ts';

const HOUR = 3_600_000;
const end = new Date('2027-03-12T14:15:00Z'); // 7:45 pm IST
const before = (hours: number) => new Date(end.getTime() - hours * HOUR);
const plan = (over: Record<string, unknown> = {}) => ({
  status: 'active',
  expiresAt: end,
  hours: 45,
  cancelledAt: null,
  planName: 'LEGEND',
  isTrial: false,
  ...over,
});
const view = (now: Date, over: Partial<Parameters<typeof planEndView>[0]> = {}) =>
  planEndView({ plan: plan(), autopay: null, graceDays: 7, machineKept: true, now, ...over });

describe('when the plan-end banner shows', () => {
  it(`from ${PLAN_END_NOTICE_HOURS} hours before the end, not a minute earlier; ended at the end`, () => {
    expect(planEndPhase(plan(), before(72.02))).toBe('running');
    expect(planEndPhase(plan(), before(72))).toBe('ending');
    expect(planEndPhase(plan(), before(20))).toBe('ending');
    expect(planEndPhase(plan(), end)).toBe('ended');
    // Ended by status, whatever its expiry says (a refund cancels it early).
    expect(planEndPhase(plan({ status: 'cancelled', cancelledAt: before(100) }), before(100))).toBe('ended');
    expect(planEndPhase(plan({ status: 'expired' }), before(1))).toBe('ended');
  });

  it('says what happens then and what AutoPay does about it', () => {
    expect(view(before(48))).toEqual({
      endsAt: end.toISOString(),
      phase: 'ending',
      renewal: 'none',
      nextDebitAt: null,
      graceDays: 7,
      filesKeptUntil: new Date(end.getTime() + 7 * 24 * HOUR).toISOString(),
      refunded: false,
      pcKept: true,
      renewOffer: null,
    });
    const debit = before(1);
    expect(view(before(48), { autopay: { status: 'active', nextDebitAt: debit } })).toMatchObject({
      renewal: 'autopay',
      nextDebitAt: debit.toISOString(),
    });
    expect(view(before(48), { autopay: { status: 'paused', nextDebitAt: null } })).toMatchObject({
      renewal: 'autopay-paused',
      nextDebitAt: null,
    });
    expect(view(before(48), { autopay: { status: 'cancelled', nextDebitAt: null } })?.renewal).toBe('none');
  });

  it('after the end offers the same plan again; a refund ends it at the refund', () => {
    expect(view(new Date(end.getTime() + HOUR))).toMatchObject({
      phase: 'ended',
      renewOffer: { planId: 'legend', planName: 'LEGEND', hours: 45, label: 'Renew LEGEND 45 h' },
    });
    const refundedAt = before(200);
    expect(
      view(before(199), {
        plan: plan({ status: 'cancelled', cancelledAt: refundedAt }),
        autopay: { status: 'active', nextDebitAt: before(1) },
      }),
    ).toMatchObject({ phase: 'ended', refunded: true, renewal: 'none', endsAt: refundedAt.toISOString() });
  });

  it('is not shown for a trial or without a plan', () => {
    expect(view(before(1), { plan: plan({ isTrial: true, hours: 1, planName: 'Trial' }) })).toBeNull();
    expect(view(before(1), { plan: null })).toBeNull();
  });
});

describe('the remaining time: the lesser of hours left and time left', () => {
  it('the time to the end when the plan ends before the hours run out, labelled as such', () => {
    // 29h 53m of hours left, 20 hours until the end (the case).
    const used = 45 * 3600 - (29 * 3600 + 53 * 60);
    expect(
      remainingOfPlan({ hours: 45, usedSeconds: used, endsAt: end, ended: false, now: before(20) }),
    ).toEqual({
      seconds: 20 * 3600,
      limitedBy: 'plan-end',
      ended: false,
    });
  });

  it('the hours left when they run out first, and zero with "ended" after the end', () => {
    expect(
      remainingOfPlan({ hours: 45, usedSeconds: 44 * 3600, endsAt: end, ended: false, now: before(20) }),
    ).toEqual({ seconds: 3600, limitedBy: 'hours', ended: false });
    expect(remainingOfPlan({ hours: 45, usedSeconds: 0, endsAt: end, ended: false, now: end })).toEqual({
      seconds: 0,
      limitedBy: 'plan-end',
      ended: true,
    });
    expect(
      remainingOfPlan({ hours: 45, usedSeconds: 0, endsAt: null, ended: false, now: end }).limitedBy,
    ).toBe('hours');
  });
});

describe('the renewal the plans page offers', () => {
  it('names the plan and its hours; never a trial or something off the catalogue', () => {
    expect(renewOfferFor({ planName: 'PRO LEGEND', hours: 65, isTrial: false })?.label).toBe(
      'Renew PRO LEGEND 65 h',
    );
    expect(renewOfferFor({ planName: 'Trial', hours: 1, isTrial: true })).toBeNull();
    expect(renewOfferFor({ planName: 'LEGEND', hours: 50, isTrial: false })).toBeNull();
  });
});
