import { describe, expect, it } from 'vitest';
import { getPlan } from './plans.ts';
import { TRIAL_HOURS, TRIAL_OFFERS, TRIAL_PLAN_NAME, findTrialOffer, isTrialPlanName } from './trial.ts';

describe('trial', () => {
  it('lasts one hour', () => {
    expect(TRIAL_HOURS).toBe(1);
    for (const offer of TRIAL_OFFERS) expect(offer.hours).toBe(1);
  });

  it('costs ₹40, ₹45 and ₹50 on Legend, Pro Legend and Ultra Legend', () => {
    expect(TRIAL_OFFERS.map((offer) => [offer.plan.displayName, offer.pricePaise])).toEqual([
      ['LEGEND', 4000],
      ['PRO LEGEND', 4500],
      ['ULTRA LEGEND', 5000],
    ]);
  });

  it('runs on the same machines and storage as the plans', () => {
    expect(TRIAL_OFFERS.map((offer) => [offer.instanceType, offer.storageGb])).toEqual([
      ['g4dn.xlarge', 115],
      ['g4dn.2xlarge', 225],
      ['g5.xlarge', 225],
    ]);
    for (const offer of TRIAL_OFFERS) expect(offer.instanceType).toBe(getPlan(offer.plan.id).instanceType);
  });

  it('finds the trial of a plan by id or name, and none for the editor plans', () => {
    expect(findTrialOffer('ULTRA LEGEND')?.pricePaise).toBe(5000);
    expect(findTrialOffer('pro-legend')?.pricePaise).toBe(4500);
    expect(findTrialOffer('EDITOR LOW')).toBeUndefined();
    expect(findTrialOffer('nope')).toBeUndefined();
  });

  it("is sent to select-vm under the plan name 'Trial'", () => {
    expect(TRIAL_PLAN_NAME).toBe('Trial');
    expect(isTrialPlanName('Trial')).toBe(true);
    expect(isTrialPlanName(' trial ')).toBe(true);
    expect(isTrialPlanName('LEGEND')).toBe(false);
  });
});
