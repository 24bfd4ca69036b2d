/**
 * A plan's time, as the lifecycle reads it: in force, ended, kept for a renewal (the grace
 * period) and then gone, and its hours used up. The SQL filters that repeat these are proven
 * equal by `tests/integration/lifecycle-rules.test.ts`.
 */
import { DAY_MS, toEpochMs, toEpochMsOrNull, type Instant } from './time.ts';
import { remainingSeconds } from './usage.ts';

/** What the rules need of a plan (a subscription row, or the dashboard's view of one). */
export type PlanFacts = {
  status: string;
  expiresAt: Instant | null;
  /** The plan's hours (30/45/65/90, or 1 for the trial). */
  hours: number;
  cancelledAt?: Instant | null;
};

/** The plan is paid, active and not yet past its expiry instant. */
export function planInForce(plan: PlanFacts | null | undefined, now: Instant): boolean {
  if (!plan || plan.status !== 'active') return false;
  const expiresAt = toEpochMsOrNull(plan.expiresAt);
  return expiresAt !== null && expiresAt > toEpochMs(now);
}

/** The plan has run its course: expired or cancelled by status, or active past its expiry instant. */
export function planEnded(plan: PlanFacts, now: Instant): boolean {
  if (plan.status === 'expired' || plan.status === 'cancelled') return true;
  const expiresAt = toEpochMsOrNull(plan.expiresAt);
  return plan.status === 'active' && (expiresAt === null || expiresAt <= toEpochMs(now));
}

/** When an ended plan ended: the earlier of its cancellation and its expiry. */
function planEndedAt(plan: PlanFacts): number | null {
  const expiresAt = toEpochMsOrNull(plan.expiresAt);
  const cancelledAt = toEpochMsOrNull(plan.cancelledAt ?? null);
  if (expiresAt === null) return cancelledAt;
  return cancelledAt === null ? expiresAt : Math.min(expiresAt, cancelledAt);
}

/** The machine of an ended plan is kept (stopped) until this moment, then deleted unless renewed. */
export function keptUntil(plan: PlanFacts, graceDays: number): number | null {
  const ended = planEndedAt(plan);
  return ended === null ? null : ended + graceDays * DAY_MS;
}

/** The plan ended more than the grace period ago: its machine goes. */
export function pastGrace(plan: PlanFacts, now: Instant, graceDays: number): boolean {
  const until = keptUntil(plan, graceDays);
  return planEnded(plan, now) && until !== null && toEpochMs(now) >= until;
}

/** Every hour of the plan has been used: the machine stops and START is refused. */
export function hoursExhausted(plan: Pick<PlanFacts, 'hours'>, usageSeconds: number): boolean {
  return remainingSeconds(plan.hours, usageSeconds) === 0;
}
