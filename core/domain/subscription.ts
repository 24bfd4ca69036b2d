/** Active-plan rules and the plan-choice messages (spec §2 Plan selection, §4 Active plan, §5, §8, §9). */
import { findPlan, isDuration, type DurationHours, type Plan } from './plans.ts';
import { planInForce } from './planTime.ts';
import { DAY_MS, formatLongDate, toEpochMs, toEpochMsOrNull, type Instant } from './time.ts';

/** What the rules need to know of a user's current plan (spec §3: selectedPlan, selectedDuration, expiryDate). */
export interface CurrentPlan {
  /** Display name as stored, e.g. "LEGEND" or "Trial"; empty or null means no plan. */
  plan: string | null | undefined;
  hours: number | null | undefined;
  expiresAt: Instant | null | undefined;
}

export const PLAN_CHOICE_MESSAGES = {
  loginRequired: 'Please login or register before purchasing a plan.',
  durationRequired: 'Please select Duration.',
  noPrice: 'No price configured for that combination.',
  capacityInsufficient: 'Capacity insufficient try again later.',
  saveFailed: 'Failed to save plan.',
  /** Followed by the server's message or the error's text; see saveErrorMessage. */
  saveErrorPrefix: 'Error saving plan: ',
  selectDuration: 'Select duration',
  choosePlan: 'Choose Plan',
  processing: 'Processing...',
  renewPlan: 'Renew Plan',
} as const;

export const PAYMENT_MESSAGES = {
  confirmHeading: 'Confirm & Pay',
  redirecting: 'Redirecting to payment… please wait.',
  startFailed: 'Could not start payment. Please try again.',
  success: 'Payment successful!',
  onTheWay: 'Your Virtual Computer is on the way. Please wait…',
  failure: 'Payment failed',
  verifyFailed: 'Could not verify payment with the server.',
  stillChecking: 'The connection dropped for a moment. Still checking your payment…',
} as const;

export function saveErrorMessage(detail: string): string {
  return `${PLAN_CHOICE_MESSAGES.saveErrorPrefix}${detail}`;
}

function hasPlanName(plan: string | null | undefined): plan is string {
  return typeof plan === 'string' && plan.trim() !== '';
}

/**
 * A plan is active when one is selected and its expiry is still ahead. A missing or
 * unreadable expiry counts as expired (spec §4); at the expiry instant itself it has expired.
 */
export function isPlanActive(current: CurrentPlan | null | undefined, now: Instant): boolean {
  if (!current || !hasPlanName(current.plan)) return false;
  // The browser's cache knows no status: a named plan counts as paid; expiry decides.
  const expiresAt = toEpochMsOrNull(current.expiresAt);
  return planInForce({ status: 'active', expiresAt, hours: current.hours ?? 0 }, now);
}

/**
 * Days until expiry, any part of a day counting as a whole one (spec §9: milliseconds over
 * 86,400,000, rounded up). 0 once expired or when there is no expiry.
 */
export function daysLeft(expiresAt: Instant | null | undefined, now: Instant): number {
  const expiry = toEpochMsOrNull(expiresAt);
  if (expiry === null) return 0;
  return Math.max(0, Math.ceil((expiry - toEpochMs(now)) / DAY_MS));
}

/** Purchase or extension is allowed only once the current plan has expired (spec §4). */
export function canPurchase(current: CurrentPlan | null | undefined, now: Instant): boolean {
  return !isPlanActive(current, now);
}

/**
 * Whether a plan can be bought now: no plan, one that has ended, or a trial (buying a plan
 * replaces a running trial; the server's rule in core/commands/purchases.ts). The header shows "Renew
 * Plan" only then ("My plan" otherwise), and the plan cards offer their button only then.
 */
export function canBuyPlanNow(
  current: (CurrentPlan & { isTrial: boolean }) | null | undefined,
  now: Instant,
): boolean {
  return !current || current.isTrial || canPurchase(current, now);
}

/** Spec §5, shown when someone with an unexpired plan tries to choose another. */
export function activePlanBlocksPurchaseMessage(plan: string, hours: number, days: number): string {
  return `Your current plan (${plan}, ${hours}h) has ${days} day(s) left. You can purchase/extend only after expiry.`;
}

/** Spec §2, the note that replaces Choose Plan while a plan is active. */
export function activePlanNote(plan: string, expiresAt: Instant): string {
  return `You already have a ${plan} plan active until ${formatLongDate(expiresAt)}.`;
}

export type PlanChoiceProblem = 'active-plan' | 'login-required' | 'duration-required' | 'no-price';

export type PlanChoice =
  | { ok: true; plan: Plan; hours: DurationHours; pricePaise: number }
  | { ok: false; problem: PlanChoiceProblem; message: string };

export interface PlanChoiceRequest {
  loggedIn: boolean;
  current: CurrentPlan | null | undefined;
  /** Plan id or name as sent (findPlan is lenient). */
  plan: string;
  hours: number | null | undefined;
}

/**
 * The rules of spec §5 "Choosing a plan", in the spec's order, up to (not including) the
 * capacity check, which needs I/O. The price comes from the catalogue, never the request.
 */
export function checkPlanChoice(request: PlanChoiceRequest, now: Instant): PlanChoice {
  const { current } = request;
  if (current && isPlanActive(current, now)) {
    return {
      ok: false,
      problem: 'active-plan',
      message: activePlanBlocksPurchaseMessage(
        String(current.plan).trim(),
        current.hours ?? 0,
        daysLeft(current.expiresAt, now),
      ),
    };
  }
  if (!request.loggedIn) {
    return { ok: false, problem: 'login-required', message: PLAN_CHOICE_MESSAGES.loginRequired };
  }
  if (request.hours === null || request.hours === undefined) {
    return { ok: false, problem: 'duration-required', message: PLAN_CHOICE_MESSAGES.durationRequired };
  }
  const plan = findPlan(request.plan);
  if (!plan || !isDuration(request.hours)) {
    return { ok: false, problem: 'no-price', message: PLAN_CHOICE_MESSAGES.noPrice };
  }
  return { ok: true, plan, hours: request.hours, pricePaise: plan.pricesPaise[request.hours] };
}

/** Reminder emails go out this many days before expiry: time to renew without a gap. */
export const EXPIRY_REMINDER_DAYS = [3, 1] as const;
export type ExpiryReminderDays = (typeof EXPIRY_REMINDER_DAYS)[number];

/**
 * The expiry reminder whose moment has come and the plan not yet expired: [3] two and a half
 * days before expiry, [1] twelve hours before. Only the nearest: a reminder that was not sent in
 * its time (AutoPay was to renew the plan and was paused, the sweep was down) never arrives
 * later saying "in 3 days". The caller remembers which it sent.
 */
export function expiryRemindersDue(expiresAt: Instant, now: Instant): ExpiryReminderDays[] {
  const remaining = toEpochMs(expiresAt) - toEpochMs(now);
  if (remaining <= 0) return [];
  const due = EXPIRY_REMINDER_DAYS.filter((days) => remaining <= days * DAY_MS);
  return due.length === 0 ? [] : [Math.min(...due) as ExpiryReminderDays];
}
