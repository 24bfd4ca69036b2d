/**
 * How a plan's end shows in the app: from PLAN_END_NOTICE_HOURS before it, the dashboard says
 * when it ends (the exact moment), what happens then and what the customer can do; after it,
 * START is refused with the reason, the hours read "plan ended" and the plans page offers the
 * same plan first. The rules live here; the presenter sends their answers in the dashboard record
 * and the SPA renders them (and asks `remainingOfPlan` every second for the live clock).
 */
import { keptUntil, planEnded, type PlanFacts } from './planTime.ts';
import { findPlan, type DurationHours, DURATIONS } from './plans.ts';
import { remainingSeconds } from './usage.ts';
import { DAY_MS, HOUR_MS, SECOND_MS, toEpochMs, toEpochMsOrNull, type Instant } from './time.ts';

/** Hours before a plan's end from which the dashboard shows its banner. */
export const PLAN_END_NOTICE_HOURS = 72;

/** Where a plan stands towards its end: well before it, in its last PLAN_END_NOTICE_HOURS, or ended. */
export type PlanEndPhase = 'running' | 'ending' | 'ended';

/** What happens when the plan ends: AutoPay renews it, AutoPay is paused, or nothing renews it. */
export type PlanEndRenewal = 'autopay' | 'autopay-paused' | 'none';

/** The plan the plans page offers first once the customer's plan has ended ("Renew LEGEND 45 h"). */
export type RenewOffer = { planId: string; planName: string; hours: DurationHours; label: string };

/** The dashboard record's part about the plan's end (`DashboardRecord.planEnd`). */
export type PlanEndRecord = {
  /** When the plan ends or ended: its expiry, or the moment a refund cancelled it. */
  endsAt: string;
  phase: PlanEndPhase;
  renewal: PlanEndRenewal;
  /** The AutoPay debit that renews it, when `renewal` is `autopay` and it is scheduled. */
  nextDebitAt: string | null;
  /** VM_GRACE_DAYS: the PC's files are kept this long after the end. */
  graceDays: number;
  filesKeptUntil: string;
  /** The plan was ended by a refund, not by running out. */
  refunded: boolean;
  /**
   * The plan's PC is still there (stopped after the end, kept for the grace days). Once it is
   * deleted the dashboard's kept-disk or deleted notice says what remains, not this banner.
   */
  pcKept: boolean;
  /** After the end: what the plans page offers first. */
  renewOffer: RenewOffer | null;
};

/** The phase at `now` of a plan that ends at `endsAt` (an ended plan is ended whatever the clock says). */
export function planEndPhase(plan: PlanFacts, now: Instant): PlanEndPhase {
  if (planEnded(plan, now)) return 'ended';
  const endsAt = toEpochMsOrNull(plan.expiresAt);
  if (endsAt === null) return 'ended';
  return endsAt - toEpochMs(now) <= PLAN_END_NOTICE_HOURS * HOUR_MS ? 'ending' : 'running';
}

/** "Renew LEGEND 45 h": a bought monthly plan is offered again as it was; a trial is not a plan to renew. */
export function renewOfferFor(plan: {
  planName: string;
  hours: number;
  isTrial: boolean;
}): RenewOffer | null {
  if (plan.isTrial) return null;
  const catalogue = findPlan(plan.planName);
  const hours = DURATIONS.find((h) => h === plan.hours);
  if (!catalogue || hours === undefined) return null;
  return {
    planId: catalogue.id,
    planName: catalogue.displayName,
    hours,
    label: `Renew ${catalogue.displayName} ${hours} h`,
  };
}

/**
 * The dashboard's view of the plan's end. Null for a trial (its hour is its clock) and for no
 * plan. `autopay` describes the customer's mandate when it follows this plan.
 */
export function planEndView(input: {
  plan: (PlanFacts & { planName: string; isTrial: boolean }) | null;
  autopay: { status: string; nextDebitAt: Instant | null } | null;
  graceDays: number;
  /** The customer's machine exists and is not being deleted. */
  machineKept: boolean;
  now: Instant;
}): PlanEndRecord | null {
  const { plan } = input;
  if (!plan || plan.isTrial) return null;
  const endedAt = keptUntil(plan, 0);
  if (endedAt === null) return null;
  const phase = planEndPhase(plan, input.now);
  const refunded = plan.status === 'cancelled';
  const renewal: PlanEndRenewal =
    refunded || !input.autopay
      ? 'none'
      : input.autopay.status === 'active'
        ? 'autopay'
        : input.autopay.status === 'paused'
          ? 'autopay-paused'
          : 'none';
  const nextDebitAt = renewal === 'autopay' ? toEpochMsOrNull(input.autopay?.nextDebitAt ?? null) : null;
  return {
    endsAt: new Date(endedAt).toISOString(),
    phase,
    renewal,
    nextDebitAt: nextDebitAt === null ? null : new Date(nextDebitAt).toISOString(),
    graceDays: input.graceDays,
    filesKeptUntil: new Date(endedAt + input.graceDays * DAY_MS).toISOString(),
    refunded,
    pcKept: input.machineKept,
    renewOffer: phase === 'ended' ? renewOfferFor(plan) : null,
  };
}

/**
 * What the remaining-time line shows: the lesser of the plan's hours left and the time left
 * before it ends, and which one it is, so the line can say so. Zero once the plan has ended.
 */
export function remainingOfPlan(input: {
  hours: number;
  usedSeconds: number;
  /** Null: the plan's end is unknown (no limit from time). */
  endsAt: Instant | null;
  ended: boolean;
  now: Instant;
}): { seconds: number; limitedBy: 'hours' | 'plan-end'; ended: boolean } {
  const hoursLeft = remainingSeconds(input.hours, input.usedSeconds);
  const endsAt = toEpochMsOrNull(input.endsAt);
  const timeLeft =
    endsAt === null
      ? Number.POSITIVE_INFINITY
      : Math.max(0, Math.floor((endsAt - toEpochMs(input.now)) / SECOND_MS));
  const ended = input.ended || timeLeft === 0;
  if (ended) return { seconds: 0, limitedBy: 'plan-end', ended: true };
  return timeLeft < hoursLeft
    ? { seconds: timeLeft, limitedBy: 'plan-end', ended: false }
    : { seconds: hoursLeft, limitedBy: 'hours', ended: false };
}

/** The labels of the remaining-time line (one place for the dashboard and its tests). */
export const REMAINING_LABELS = {
  hours: 'hours left on your plan',
  'plan-end': 'until your plan ends, before your hours run out',
  ended: 'Plan ended',
} as const;
