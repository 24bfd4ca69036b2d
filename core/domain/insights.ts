/** The cards of the progress page: plan suggestion, estimated savings, daily forecast, peak hour (spec §2, §9). */
import { DURATIONS, isDuration, type DurationHours } from './plans.ts';
import { DAY_MS, formatLongDate, toEpochMs, type Instant } from './time.ts';

/** A plan's month, for spreading its hours over days (spec §9). */
export const DAYS_PER_PLAN = 30;

/** Hours a day the plan allows if spread evenly over its month: duration / 30. */
export function dailyAllowanceHours(durationHours: number): number {
  return durationHours / DAYS_PER_PLAN;
}

/** Mean of the daily usage list (hours per day); days with no use count as 0, no days is 0. */
export function averageDailyHours(daily: readonly { usage: number }[]): number {
  if (daily.length === 0) return 0;
  return daily.reduce((sum, entry) => sum + entry.usage, 0) / daily.length;
}

function hoursText(hours: number): string {
  return `${hours.toFixed(1)} h`;
}

/** The smallest duration whose allowance covers the pace, or null when none does. */
function durationCovering(hoursPerDay: number): DurationHours | null {
  return DURATIONS.find((duration) => dailyAllowanceHours(duration) >= hoursPerDay) ?? null;
}

export type PlanSuggestionKind = 'upgrade' | 'downgrade' | 'fit';

export interface PlanSuggestion {
  kind: PlanSuggestionKind;
  allowanceHours: number;
  averageDailyHours: number;
  /** The duration that covers the pace; null on upgrade when even the largest does not. */
  suggestedHours: DurationHours | null;
  message: string;
}

/**
 * Spec §9: upgrade if the average daily use exceeds the allowance, downgrade if it is under
 * half of it, else the plan fits. A downgrade is only suggested when a smaller duration
 * exists that still covers the pace; otherwise the plan fits.
 */
export function suggestPlan(durationHours: number, averageHoursPerDay: number): PlanSuggestion {
  const allowance = dailyAllowanceHours(durationHours);
  const base = { allowanceHours: allowance, averageDailyHours: averageHoursPerDay };
  const pace = `You use about ${hoursText(averageHoursPerDay)} a day`;
  if (averageHoursPerDay > allowance) {
    const suggested = durationCovering(averageHoursPerDay);
    return {
      ...base,
      kind: 'upgrade',
      suggestedHours: suggested,
      message: suggested
        ? `${pace}, more than the ${hoursText(allowance)} a day your ${durationHours}-hour plan allows. The ${suggested}-hour plan fits that pace.`
        : `${pace}, more than even the ${Math.max(...DURATIONS)}-hour plan allows. Pace your sessions so your hours last the month.`,
    };
  }
  const smaller = durationCovering(averageHoursPerDay);
  if (averageHoursPerDay < allowance / 2 && smaller !== null && smaller < durationHours) {
    return {
      ...base,
      kind: 'downgrade',
      suggestedHours: smaller,
      message: `${pace}, under half of the ${hoursText(allowance)} a day your ${durationHours}-hour plan allows. The ${smaller}-hour plan would cover it for less.`,
    };
  }
  return {
    ...base,
    kind: 'fit',
    suggestedHours: isDuration(durationHours) ? durationHours : smaller,
    message: `Your ${durationHours}-hour plan fits your use of about ${hoursText(averageHoursPerDay)} a day.`,
  };
}

/**
 * How long a plan must have run before the page advises on its size: one evening's session
 * says nothing about a month ("30 h would do" after 3 minutes of use was the advice before).
 */
export const ADVICE_AFTER_DAYS = 3;

/** Whether the plan has run long enough (ADVICE_AFTER_DAYS since it was bought) to advise on its size. */
export function enoughUseForAdvice(purchasedAt: Instant | null, now: Instant): boolean {
  if (purchasedAt === null) return false;
  return toEpochMs(now) - toEpochMs(purchasedAt) >= ADVICE_AFTER_DAYS * DAY_MS;
}

export interface ForecastInput {
  durationHours: number;
  usedSeconds: number;
  purchasedAt: Instant;
  expiresAt: Instant;
  now: Instant;
}

export interface DailyForecast {
  /** Hours a day used so far; the first day of the plan counts as a whole day so one early session does not read as a huge pace. */
  paceHoursPerDay: number;
  remainingHours: number;
  remainingDays: number;
  /** Hours the pace would use over the remaining days, capped at the hours left. */
  projectedHours: number;
  /** When the hours run out at this pace; null when they outlast the plan. Now if already gone. */
  runsOutAt: Date | null;
  message: string;
}

/** The Daily Forecast card: where the current pace leads by the end of the plan. */
export function forecastUsage(input: ForecastInput): DailyForecast {
  const now = toEpochMs(input.now);
  const expiresAt = toEpochMs(input.expiresAt);
  const elapsedDays = Math.max(1, (now - toEpochMs(input.purchasedAt)) / DAY_MS);
  const usedHours = Math.max(0, input.usedSeconds) / 3600;
  const pace = usedHours / elapsedDays;
  const remainingHours = Math.max(0, input.durationHours - usedHours);
  const remainingDays = Math.max(0, (expiresAt - now) / DAY_MS);
  const projectedHours = Math.min(remainingHours, pace * remainingDays);

  let runsOutAt: Date | null = null;
  if (remainingHours === 0) runsOutAt = new Date(now);
  else if (pace > 0) {
    const at = now + (remainingHours / pace) * DAY_MS;
    if (at < expiresAt) runsOutAt = new Date(Math.round(at));
  }

  const message =
    remainingHours === 0
      ? 'You have used all the hours of your plan.'
      : runsOutAt
        ? `At about ${hoursText(pace)} a day your hours run out around ${formatLongDate(runsOutAt)}, before your plan expires on ${formatLongDate(expiresAt)}.`
        : `At about ${hoursText(pace)} a day your hours last until your plan expires on ${formatLongDate(expiresAt)}.`;

  return { paceHoursPerDay: pace, remainingHours, remainingDays, projectedHours, runsOutAt, message };
}

export interface HourlyUsage {
  /** Hour of the day, 0–23. */
  hour: number;
  usage: number;
}

/** The hour with the most use (the earliest on a tie), or null when nothing was used. */
export function peakHour(hourly: readonly HourlyUsage[]): HourlyUsage | null {
  let peak: HourlyUsage | null = null;
  for (const entry of hourly) {
    if (entry.usage <= 0) continue;
    if (!peak || entry.usage > peak.usage || (entry.usage === peak.usage && entry.hour < peak.hour)) {
      peak = entry;
    }
  }
  return peak;
}

/** "14:00–15:00" for hour 14; "23:00–00:00" for the last. */
export function hourRangeLabel(hour: number): string {
  const pad = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;
  return `${pad(hour)}–${pad(hour + 1)}`;
}
