import { describe, expect, it } from 'vitest';
import {
  PLAN_CHOICE_MESSAGES,
  activePlanBlocksPurchaseMessage,
  activePlanNote,
  canBuyPlanNow,
  canPurchase,
  checkPlanChoice,
  daysLeft,
  expiryRemindersDue,
  isPlanActive,
  saveErrorMessage,
} from './subscription.ts';

const DAY = 86_400_000;
const now = new Date('2026-06-10T12:00:00+05:30');
const later = (ms: number) => new Date(now.getTime() + ms);

describe('active plan', () => {
  it('is active while a plan is selected and its expiry is ahead', () => {
    expect(isPlanActive({ plan: 'LEGEND', hours: 45, expiresAt: later(DAY) }, now)).toBe(true);
    expect(isPlanActive({ plan: 'LEGEND', hours: 45, expiresAt: later(1) }, now)).toBe(true);
  });

  it('has expired at the expiry instant and after', () => {
    expect(isPlanActive({ plan: 'LEGEND', hours: 45, expiresAt: now }, now)).toBe(false);
    expect(isPlanActive({ plan: 'LEGEND', hours: 45, expiresAt: later(-1) }, now)).toBe(false);
  });

  it('counts no expiry date, or an unreadable one, as expired', () => {
    expect(isPlanActive({ plan: 'LEGEND', hours: 45, expiresAt: null }, now)).toBe(false);
    expect(isPlanActive({ plan: 'LEGEND', hours: 45, expiresAt: undefined }, now)).toBe(false);
    expect(isPlanActive({ plan: 'LEGEND', hours: 45, expiresAt: 'soon' }, now)).toBe(false);
  });

  it('is not active without a selected plan, whatever the expiry', () => {
    expect(isPlanActive({ plan: '', hours: 45, expiresAt: later(DAY) }, now)).toBe(false);
    expect(isPlanActive({ plan: '  ', hours: 45, expiresAt: later(DAY) }, now)).toBe(false);
    expect(isPlanActive({ plan: null, hours: null, expiresAt: later(DAY) }, now)).toBe(false);
    expect(isPlanActive(null, now)).toBe(false);
  });

  it('allows a purchase or extension only after expiry', () => {
    expect(canPurchase({ plan: 'LEGEND', hours: 30, expiresAt: later(DAY) }, now)).toBe(false);
    expect(canPurchase({ plan: 'LEGEND', hours: 30, expiresAt: later(-DAY) }, now)).toBe(true);
    expect(canPurchase(undefined, now)).toBe(true);
  });

  it('lets a plan be bought (the header\'s "Renew Plan") with no plan, an ended one, or a running trial', () => {
    const legend = { plan: 'LEGEND', hours: 30, isTrial: false };
    expect(canBuyPlanNow(null, now)).toBe(true);
    expect(canBuyPlanNow({ ...legend, expiresAt: later(-DAY) }, now)).toBe(true);
    expect(canBuyPlanNow({ ...legend, expiresAt: later(DAY) }, now)).toBe(false);
    expect(canBuyPlanNow({ plan: 'Trial', hours: 1, isTrial: true, expiresAt: later(DAY) }, now)).toBe(true);
  });
});

describe('days left', () => {
  it.each([
    [1, 1],
    [DAY - 1, 1],
    [DAY, 1],
    [DAY + 1, 2],
    [2.5 * DAY, 3],
    [30 * DAY, 30],
  ])('rounds %i ms up to %i day(s)', (ms, days) => {
    expect(daysLeft(later(ms), now)).toBe(days);
  });

  it('is 0 once expired or with no expiry', () => {
    expect(daysLeft(now, now)).toBe(0);
    expect(daysLeft(later(-5 * DAY), now)).toBe(0);
    expect(daysLeft(null, now)).toBe(0);
  });

  it('reads ISO strings and epoch milliseconds', () => {
    expect(daysLeft(later(DAY + 1).toISOString(), now.getTime())).toBe(2);
  });
});

describe('plan-choice messages', () => {
  it('words the active-plan refusal as the spec does', () => {
    expect(activePlanBlocksPurchaseMessage('LEGEND', 45, 3)).toBe(
      'Your current plan (LEGEND, 45h) has 3 day(s) left. You can purchase/extend only after expiry.',
    );
  });

  it('words the note replacing Choose Plan, with a long en-IN date', () => {
    expect(activePlanNote('PRO LEGEND', '2026-12-22T10:00:00+05:30')).toBe(
      'You already have a PRO LEGEND plan active until 22 December 2026.',
    );
  });

  it('dates the note in India time', () => {
    expect(activePlanNote('LEGEND', '2026-12-21T20:00:00Z')).toBe(
      'You already have a LEGEND plan active until 22 December 2026.',
    );
  });

  it('keeps the spec’s strings', () => {
    expect(PLAN_CHOICE_MESSAGES).toMatchObject({
      loginRequired: 'Please login or register before purchasing a plan.',
      durationRequired: 'Please select Duration.',
      noPrice: 'No price configured for that combination.',
      capacityInsufficient: 'Capacity insufficient try again later.',
      saveFailed: 'Failed to save plan.',
      selectDuration: 'Select duration',
      processing: 'Processing...',
      renewPlan: 'Renew Plan',
    });
    expect(saveErrorMessage('timeout')).toBe('Error saving plan: timeout');
  });
});

describe('checking a plan choice', () => {
  const expired = { plan: 'LEGEND', hours: 30, expiresAt: later(-DAY) };

  it('accepts a logged-in choice with a catalogue price, pricing it from the catalogue', () => {
    const choice = checkPlanChoice({ loggedIn: true, current: expired, plan: 'PRO LEGEND', hours: 65 }, now);
    expect(choice).toMatchObject({ ok: true, hours: 65, pricePaise: 369_900 });
    expect(choice.ok && choice.plan.id).toBe('pro-legend');
  });

  it('refuses first while a plan is unexpired, with the days rounded up', () => {
    const current = { plan: 'ULTRA LEGEND', hours: 90, expiresAt: later(2 * DAY + 1) };
    expect(checkPlanChoice({ loggedIn: true, current, plan: 'LEGEND', hours: 30 }, now)).toEqual({
      ok: false,
      problem: 'active-plan',
      message:
        'Your current plan (ULTRA LEGEND, 90h) has 3 day(s) left. You can purchase/extend only after expiry.',
    });
  });

  it('asks a visitor to log in', () => {
    expect(checkPlanChoice({ loggedIn: false, current: null, plan: 'LEGEND', hours: 30 }, now)).toMatchObject(
      {
        ok: false,
        problem: 'login-required',
        message: 'Please login or register before purchasing a plan.',
      },
    );
  });

  it('asks for a duration', () => {
    expect(
      checkPlanChoice({ loggedIn: true, current: null, plan: 'LEGEND', hours: undefined }, now),
    ).toMatchObject({
      ok: false,
      message: 'Please select Duration.',
    });
  });

  it('refuses a duration or plan without a price', () => {
    for (const [plan, hours] of [
      ['LEGEND', 60],
      ['GOLD', 30],
    ] as const) {
      expect(checkPlanChoice({ loggedIn: true, current: expired, plan, hours }, now)).toMatchObject({
        ok: false,
        problem: 'no-price',
        message: 'No price configured for that combination.',
      });
    }
  });
});

describe('expiry reminders', () => {
  it('are due 3 days and 1 day before expiry, only the nearest, and not after it', () => {
    expect(expiryRemindersDue(later(4 * DAY), now)).toEqual([]);
    expect(expiryRemindersDue(later(3 * DAY), now)).toEqual([3]);
    expect(expiryRemindersDue(later(2 * DAY), now)).toEqual([3]);
    expect(expiryRemindersDue(later(DAY), now)).toEqual([1]);
    expect(expiryRemindersDue(later(1), now)).toEqual([1]);
    expect(expiryRemindersDue(now, now)).toEqual([]);
  });
});
