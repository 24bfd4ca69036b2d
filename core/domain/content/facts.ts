/**
 * The facts the public site's copy repeats, each computed once from the catalogue and the
 * single constants (architecture deviation 4), so no page can state its own figure. The
 * rest of core/domain/content/ holds the copy itself, one module per page so each lazy page
 * chunk carries only its own text; it lives in core/domain, not web/, because it is product
 * truth: unit-tested against the catalogue, and the server's mails link to the same posts.
 */
import { PROVISIONING_TIME, SUPPORT_REPLY_TIME, TIME_TO_DESKTOP } from '../constants.ts';
import { formatRupees } from '../money.ts';
import { CARD_PLANS, DURATIONS, PLAN_VALIDITY_LABEL } from '../plans.ts';
import { TRIAL_LABEL, TRIAL_OFFERS } from '../trial.ts';

/** "₹1,450" for whole rupees, "₹1,450.50" otherwise: marketing copy drops a trailing ".00". */
export function rupeesShort(paise: number): string {
  return formatRupees(paise).replace(/\.00$/, '');
}

const cheapestPlanPaise = Math.min(...CARD_PLANS.map((plan) => plan.pricesPaise[DURATIONS[0]]));
const cheapestTrialPaise = Math.min(...TRIAL_OFFERS.map((offer) => offer.pricePaise));
const storageRange = (() => {
  const sizes = CARD_PLANS.map((plan) => plan.storageGb);
  return { min: Math.min(...sizes), max: Math.max(...sizes) };
})();

/** "30, 45, 65 or 90 hours". */
const durationsText = `${DURATIONS.slice(0, -1).join(', ')} or ${DURATIONS.at(-1)} hours`;

/** Facts the copy repeats, each computed once. */
export const SITE_FACTS = {
  productName: 'Legend Cloud',
  trialLabel: TRIAL_LABEL,
  trialFrom: rupeesShort(cheapestTrialPaise),
  plansFrom: rupeesShort(cheapestPlanPaise),
  timeToDesktop: TIME_TO_DESKTOP.label,
  provisioning: PROVISIONING_TIME.label,
  supportReply: SUPPORT_REPLY_TIME.label,
  durationsText,
  validity: PLAN_VALIDITY_LABEL,
  storageMinGb: storageRange.min,
  storageMaxGb: storageRange.max,
} as const;
