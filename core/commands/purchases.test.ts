import { describe, expect, it } from 'vitest';
import { matchesPending, resolvePurchase } from './purchases.ts';
import type { Subscription } from '../db/subscriptions.ts';

describe('resolvePurchase', () => {
  it('prices a plan from the catalogue, whatever name form is sent', () => {
    expect(resolvePurchase({ plan: 'pro legend', hours: 65, isTrial: false })).toEqual({
      ok: true,
      purchase: {
        planId: 'pro-legend',
        planName: 'PRO LEGEND',
        isTrial: false,
        hours: 65,
        storageGb: 225,
        instanceType: 'g4dn.2xlarge',
        pricePaise: 369900,
      },
    });
  });

  it('answers the spec messages for a missing duration and a combination without a price', () => {
    expect(resolvePurchase({ plan: 'LEGEND', hours: null, isTrial: false })).toMatchObject({
      ok: false,
      message: 'Please select Duration.',
    });
    expect(resolvePurchase({ plan: 'LEGEND', hours: 50, isTrial: false })).toMatchObject({
      ok: false,
      message: 'No price configured for that combination.',
    });
    expect(resolvePurchase({ plan: 'GIGA', hours: 30, isTrial: false })).toMatchObject({
      ok: false,
      problem: 'no-price',
    });
  });

  it('makes a trial plan "Trial", 1 hour, at the trial price of the plan it is of (LEGEND by default)', () => {
    expect(resolvePurchase({ plan: 'Trial', hours: 1, isTrial: true, trialPlan: 'ULTRA LEGEND' })).toEqual({
      ok: true,
      purchase: {
        planId: 'ultra-legend',
        planName: 'Trial',
        isTrial: true,
        hours: 1,
        storageGb: 225,
        instanceType: 'g5.xlarge',
        pricePaise: 5000,
      },
    });
    expect(resolvePurchase({ plan: 'trial', hours: undefined, isTrial: false })).toMatchObject({
      ok: true,
      purchase: { planId: 'legend', pricePaise: 4000 },
    });
    expect(resolvePurchase({ plan: 'Trial', hours: 30, isTrial: true })).toMatchObject({ ok: false });
    expect(
      resolvePurchase({ plan: 'Trial', hours: 1, isTrial: true, trialPlan: 'EDITOR HIGH' }),
    ).toMatchObject({
      ok: false,
    });
  });
});

describe('matchesPending', () => {
  const pending = { plan_id: 'legend', is_trial: false, hours: 45 } as Subscription;
  const trial = { plan_id: 'legend', is_trial: true, hours: 1 } as Subscription;

  it('accepts the same plan and hours, or no plan named at all', () => {
    expect(matchesPending(pending, { plan: 'LEGEND', hours: 45 })).toBe(true);
    expect(matchesPending(pending, { plan: 'legend' })).toBe(true);
    expect(matchesPending(pending, {})).toBe(true);
    expect(matchesPending(trial, { plan: 'Trial', hours: 1 })).toBe(true);
  });

  it('refuses another plan, other hours, or a trial for a plan', () => {
    expect(matchesPending(pending, { plan: 'PRO LEGEND', hours: 45 })).toBe(false);
    expect(matchesPending(pending, { plan: 'LEGEND', hours: 30 })).toBe(false);
    expect(matchesPending(pending, { plan: 'Trial', hours: 1 })).toBe(false);
    expect(matchesPending(trial, { plan: 'LEGEND', hours: 30 })).toBe(false);
  });
});
