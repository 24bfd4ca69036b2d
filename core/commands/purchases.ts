import { checkCapacity } from './capacity.ts';
import type { Db } from '../db/pool.ts';
import { findActiveSubscription, trialUsedBy, type Subscription } from '../db/subscriptions.ts';
import { findPlan, type PlanId } from '../domain/plans.ts';
import { checkPlanChoice, PLAN_CHOICE_MESSAGES, type PlanChoiceProblem } from '../domain/subscription.ts';
import {
  findTrialOffer,
  isTrialPlanName,
  TRIAL_ALREADY_USED_MESSAGE,
  TRIAL_HOURS,
  TRIAL_NEEDS_PHONE_MESSAGE,
  TRIAL_PLAN_NAME,
  trialPhoneUsedMessage,
} from '../domain/trial.ts';

/**
 * Whether a logged-in user may buy what they asked for, right now: spec §5 "Choosing a plan"
 * (active plan, duration, price, capacity) plus the trial's limits. Asked when the plan is
 * chosen (select-vm) and again before money is taken (create-payment). The price always comes
 * from the catalogue here, never from the request.
 */

export type PurchaseRequest = {
  /** As sent: "LEGEND", "PRO LEGEND", "pro-legend", or "Trial". */
  plan: string;
  hours: number | null | undefined;
  isTrial: boolean;
  /** For a trial: the plan it is of (default LEGEND, the first of the carousel). */
  trialPlan?: string | undefined;
};

export type Purchase = {
  planId: PlanId;
  /** What the product shows: the plan's display name, or "Trial". */
  planName: string;
  isTrial: boolean;
  hours: number;
  storageGb: number;
  instanceType: string;
  pricePaise: number;
};

export type PurchaseProblem = PlanChoiceProblem | 'capacity' | 'trial-used' | 'trial-needs-phone';

export type PurchaseCheck =
  { ok: true; purchase: Purchase } | { ok: false; problem: PurchaseProblem; message: string };

/** The catalogue's answer for a request, before anything about the user is considered. */
export function resolvePurchase(request: PurchaseRequest): PurchaseCheck {
  if (request.isTrial || isTrialPlanName(request.plan)) {
    const offer = findTrialOffer(request.trialPlan ?? 'LEGEND');
    const hours = request.hours ?? TRIAL_HOURS;
    if (!offer || hours !== TRIAL_HOURS) {
      return { ok: false, problem: 'no-price', message: PLAN_CHOICE_MESSAGES.noPrice };
    }
    return {
      ok: true,
      purchase: {
        planId: offer.plan.id,
        planName: TRIAL_PLAN_NAME,
        isTrial: true,
        hours: TRIAL_HOURS,
        storageGb: offer.storageGb,
        instanceType: offer.instanceType,
        pricePaise: offer.pricePaise,
      },
    };
  }
  const choice = checkPlanChoice(
    { loggedIn: true, current: null, plan: request.plan, hours: request.hours },
    0,
  );
  if (!choice.ok) return choice;
  return {
    ok: true,
    purchase: {
      planId: choice.plan.id,
      planName: choice.plan.displayName,
      isTrial: false,
      hours: choice.hours,
      storageGb: choice.plan.storageGb,
      instanceType: choice.plan.instanceType,
      pricePaise: choice.pricePaise,
    },
  };
}

/**
 * The active plan that stops this purchase, in the terms of checkPlanChoice (a running trial
 * never does for a plan, nor the plan a renewal renews: "Pay now" of a renewal AutoPay could not
 * take).
 */
function blockingPlan(active: Subscription | null, buyingTrial: boolean, renews: string | null) {
  if (!active || (active.is_trial && !buyingTrial) || active.id === renews) return null;
  return { plan: active.plan_name, hours: active.hours, expiresAt: active.expires_at };
}

/**
 * checkPurchase of a plan already chosen and waiting for payment, as the checkout page shows it
 * and as create-payment asks again right before money: the choice as it was made, and the plan it
 * renews if it is a renewal's "Pay now".
 */
export function checkPendingPurchase(
  db: Db,
  input: {
    user: { id: string; phone: string | null };
    pending: Subscription;
    renews: string | null;
    capacityLimits: Readonly<Record<string, number>>;
    now: Date;
  },
): Promise<PurchaseCheck> {
  const { pending } = input;
  return checkPurchase(db, {
    renews: input.renews,
    user: input.user,
    request: {
      plan: pending.is_trial ? pending.plan_name : pending.plan_id,
      hours: pending.hours,
      isTrial: pending.is_trial,
      trialPlan: pending.plan_id,
    },
    capacityLimits: input.capacityLimits,
    now: input.now,
  });
}

/** Everything of spec §5 for a logged-in user, in the spec's order, capacity last. */
export async function checkPurchase(
  db: Db,
  input: {
    user: { id: string; phone: string | null };
    request: PurchaseRequest;
    capacityLimits: Readonly<Record<string, number>>;
    now: Date;
    /** The plan this purchase renews on the same machine (a renewal's "Pay now"), if any. */
    renews?: string | null;
  },
): Promise<PurchaseCheck> {
  const { user, request, now } = input;
  const renews = input.renews ?? null;
  const resolved = resolvePurchase(request);
  // One trial ever: say so first, rather than that the (used) trial is still running.
  const usedBy =
    resolved.ok && resolved.purchase.isTrial && user.phone
      ? await trialUsedBy(db, user.id, user.phone)
      : null;
  if (usedBy) {
    return {
      ok: false,
      problem: 'trial-used',
      message:
        usedBy === 'phone' && user.phone ? trialPhoneUsedMessage(user.phone) : TRIAL_ALREADY_USED_MESSAGE,
    };
  }
  const active = await findActiveSubscription(db, user.id, now);
  // The active-plan rule comes first in the spec, before even the duration.
  const blocking = blockingPlan(active, request.isTrial || isTrialPlanName(request.plan), renews);
  if (blocking) {
    const choice = checkPlanChoice(
      { loggedIn: true, current: blocking, plan: request.plan, hours: request.hours },
      now,
    );
    if (!choice.ok) return choice;
  }
  if (!resolved.ok) return resolved;
  const { purchase } = resolved;
  // A used trial was refused above; only the missing phone is left to check.
  if (purchase.isTrial && !user.phone) {
    return { ok: false, problem: 'trial-needs-phone', message: TRIAL_NEEDS_PHONE_MESSAGE };
  }
  // A renewal keeps the machine it renews: it takes no capacity it does not hold already.
  if (renews) return resolved;
  const capacity = await checkCapacity(db, purchase.planId, { limits: input.capacityLimits, now });
  if (!capacity.ok) return { ok: false, problem: 'capacity', message: capacity.message };
  return resolved;
}

/** Whether a pending subscription is what the request names (create-payment repeats the choice). */
export function matchesPending(pending: Subscription, request: Partial<PurchaseRequest>): boolean {
  if (request.plan === undefined || request.plan.trim() === '') return true;
  if (isTrialPlanName(request.plan) || request.isTrial) return pending.is_trial;
  const plan = findPlan(request.plan);
  if (!plan || pending.is_trial || plan.id !== pending.plan_id) return false;
  return request.hours === undefined || request.hours === null || request.hours === pending.hours;
}
