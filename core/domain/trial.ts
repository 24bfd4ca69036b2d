/**
 * The trial: one hour of a LEGEND-family plan for a small price (spec §2 Trial page, §4
 * Trial start, §9). One length everywhere, blog copy included (architecture deviation 4).
 */
import { getPlan, findPlan, type Plan, type PlanId } from './plans.ts';
import { DAY_MS, toEpochMs, type Instant } from './time.ts';

export const TRIAL_HOURS = 1;
export const TRIAL_LABEL = '1 hour';

/** The `plan` the select-vm payload carries for a trial (spec §7). */
export const TRIAL_PLAN_NAME = 'Trial';

export interface TrialOffer {
  /** The plan whose machine the trial runs on. */
  plan: Plan;
  hours: typeof TRIAL_HOURS;
  pricePaise: number;
  instanceType: string;
  storageGb: number;
}

function offer(id: PlanId, priceRupees: number): TrialOffer {
  const plan = getPlan(id);
  return {
    plan,
    hours: TRIAL_HOURS,
    pricePaise: priceRupees * 100,
    instanceType: plan.instanceType,
    storageGb: plan.storageGb,
  };
}

/** The three trials of the /trial carousel, in carousel order. */
export const TRIAL_OFFERS: readonly TrialOffer[] = [
  offer('legend', 40),
  offer('pro-legend', 45),
  offer('ultra-legend', 50),
];

/** The trial of a plan (id or name, leniently as findPlan), or undefined for a plan without one. */
export function findTrialOffer(idOrName: string): TrialOffer | undefined {
  const plan = findPlan(idOrName);
  return plan && TRIAL_OFFERS.find((candidate) => candidate.plan.id === plan.id);
}

export function isTrialPlanName(plan: string): boolean {
  return plan.trim().toLowerCase() === TRIAL_PLAN_NAME.toLowerCase();
}

/**
 * How long a paid trial stays usable. Not a month like a plan: an hour of use needs no month,
 * and a month-long trial machine would cost its disk for weeks. A day leaves room to come back.
 */
export const TRIAL_VALIDITY_MS = DAY_MS;

export function trialExpiry(purchasedAt: Instant): Date {
  return new Date(toEpochMs(purchasedAt) + TRIAL_VALIDITY_MS);
}

/**
 * A running trial never blocks buying a plan: the purchase replaces it. (The spec's
 * "purchase only after expiry" rule keeps people from paying twice for overlapping months,
 * which a one-hour trial is not.) Other trials are refused: one per user and phone number.
 */
export const TRIAL_ALREADY_USED_MESSAGE = 'You have already used your 1 hour trial. Please choose a plan.';
export const TRIAL_NEEDS_PHONE_MESSAGE = 'A trial needs a phone number on your account.';

/**
 * The trial refused because the phone number on the account already had one (on another
 * account): the refusal names the number, so the customer knows it is the number, not them.
 */
export function trialPhoneUsedMessage(phone: string): string {
  const shown = /^\d{10}$/.test(phone) ? `+91 ${phone.slice(0, 5)} ${phone.slice(5)}` : phone;
  return `The phone number ${shown} has already been used for a 1 hour trial, on another account. There is one trial per phone number: please choose a plan.`;
}

export const TRIAL_MESSAGES = {
  loginRequired: 'Please login first',
  saveFailed: 'Failed to save plan.',
  saveError: 'Error saving trial plan',
  startNow: 'Start Now',
} as const;

/**
 * Whether to offer the trial: to visitors and to customers who have never bought anything.
 * Anyone who has had a plan (a paid month, or the trial itself) is past it; the server refuses
 * them anyway (a used trial, or an active plan blocking), so offering it would be a dead end.
 */
export function isTrialOffered(customer: { hasPlan: boolean } | null | undefined): boolean {
  return !customer?.hasPlan;
}
