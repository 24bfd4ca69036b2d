import { describe, expect, it } from 'vitest';
import { activationOf, type Activation } from './payments.ts';
import { REFUND_MAX_STATUS_CHECKS, refundCheckDelaySeconds, refundFollowUp } from './refund.ts';

/** The payment jobs' rules, now in the domain: whether a paid plan activates, and what follows a refund check. */

describe('activationOf', () => {
  const base = {
    paidPaise: 49_900,
    askedPaise: 49_900,
    subscription: { status: 'pending_payment', isTrial: false },
    customerExists: true,
    active: null,
    trialUsed: false,
  };
  it.each<[string, Partial<Parameters<typeof activationOf>[0]>, Activation]>([
    ['paid as asked', {}, { kind: 'activate', givesWay: null }],
    [
      'another amount',
      { paidPaise: 100 },
      { kind: 'refuse', problem: 'PayU reports 100 paise paid, we asked 49900' },
    ],
    [
      'no amount',
      { paidPaise: null },
      { kind: 'refuse', problem: 'PayU reports no paise paid, we asked 49900' },
    ],
    ['subscription gone', { subscription: null }, { kind: 'refuse', problem: 'subscription missing' }],
    [
      'subscription no longer waiting',
      { subscription: { status: 'cancelled', isTrial: false } },
      { kind: 'refuse', problem: 'subscription cancelled' },
    ],
    ['account deleted', { customerExists: false }, { kind: 'refuse', problem: 'the account was deleted' }],
    [
      'a running trial gives way to a bought plan',
      { active: { isTrial: true, planName: 'Trial', renewed: false } },
      { kind: 'activate', givesWay: 'trial' },
    ],
    [
      'another bought plan is active',
      { active: { isTrial: false, planName: 'Legend', renewed: false } },
      { kind: 'refuse', problem: 'another plan (Legend) is active' },
    ],
    [
      'the renewed plan gives way to its renewal',
      { active: { isTrial: false, planName: 'Legend', renewed: true } },
      { kind: 'activate', givesWay: 'renewed-plan' },
    ],
    [
      'a trial over a running trial',
      {
        subscription: { status: 'pending_payment', isTrial: true },
        active: { isTrial: true, planName: 'Trial', renewed: false },
      },
      { kind: 'refuse', problem: 'another plan (Trial) is active' },
    ],
    [
      'a second trial',
      { subscription: { status: 'pending_payment', isTrial: true }, trialUsed: true },
      { kind: 'refuse', problem: 'a trial was already used by this account or phone number' },
    ],
  ])('%s', (_name, change, expected) => {
    expect(activationOf({ ...base, ...change })).toEqual(expected);
  });
});

describe('refundFollowUp', () => {
  it.each([
    ['success', 3, { kind: 'refunded' }],
    ['failure', 3, { kind: 'failed' }],
    ['in-progress', REFUND_MAX_STATUS_CHECKS, { kind: 'stalled' }],
    ['in-progress', 0, { kind: 'check-again', inSeconds: 60 }],
    ['unknown', 3, { kind: 'check-again', inSeconds: 480 }],
  ])('%s after %i checks', (progress, checks, expected) => {
    expect(refundFollowUp(progress, checks, 60)).toEqual(expected);
  });

  it('doubles the delay, at most six hours apart', () => {
    expect([0, 1, 2, 10].map((checks) => refundCheckDelaySeconds(checks, 60))).toEqual([
      60, 120, 240, 21_600,
    ]);
  });
});
