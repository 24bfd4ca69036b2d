/**
 * The usage page's cards (spec §2 Progress page: Daily Forecast, Plan Suggestion, Peak Hour;
 * §9 per-day allowance, plan suggestion) and its words. The rules live in insights.ts; this
 * turns the page's data into what each card says, so the page only lays them out.
 *
 * The spec's fourth card, Estimated Savings, is not shown: it quoted what a "reserved price"
 * 30% below the monthly one would save, and no reserved price is sold. Explaining it would
 * advertise a saving nobody can buy (a misleading advertisement under India's Consumer
 * Protection Act, 2019 and the CCPA's 2022 guidelines); the real saving is on the same page,
 * the hours idle auto-stop saved (components/IdleAutoStop.tsx). docs/deviations.md.
 */
import {
  averageDailyHours,
  ADVICE_AFTER_DAYS,
  dailyAllowanceHours,
  enoughUseForAdvice,
  forecastUsage,
  hourRangeLabel,
  peakHour,
  suggestPlan,
} from './insights.ts';
import { toEpochMsOrNull, type Instant } from './time.ts';
import { formatHoursMinutes, type DailyUsage, type HourlyUsageEntry } from './usageBuckets.ts';
import { USAGE_MESSAGES } from './usage.ts';

export const PROGRESS_MESSAGES = {
  title: 'Usage',
  loading: USAGE_MESSAGES.loading,
  stoppedTitle: USAGE_MESSAGES.stoppedTitle,
  stoppedBody: USAGE_MESSAGES.stoppedBody,
  /**
   * Spec §8: a failed dashboard fetch on the usage page shows the server's error, else the
   * error's message, else this. The wording is the product's own (it reads like the delete
   * account message, without the full stop); kept as specified.
   */
  fetchFailed: 'Delete failed, try again',
  noPlan: 'You have no plan yet. Choose a plan to get your cloud PC.',
  notRunning: 'Live usage appears here while your VM is running.',
  unknown: '—',
} as const;

export interface ProgressCard {
  title: string;
  /** The figure in large type. */
  value: string;
  /** One or two sentences explaining it. */
  detail: string;
}

export interface ProgressCards {
  forecast: ProgressCard;
  suggestion: ProgressCard;
  peak: ProgressCard;
}

export interface ProgressCardsInput {
  /** The plan's hours (spec §3 selectedDuration); null without a plan. */
  durationHours: number | null;
  /** Usage of the plan so far, live (the dashboard's clock). */
  usedSeconds: number;
  purchasedAt: Instant | null;
  expiresAt: Instant | null;
  daily: readonly DailyUsage[];
  hourly: readonly HourlyUsageEntry[];
  now: Instant;
}

const hoursAday = (hours: number) => `${hours.toFixed(1)} h a day`;

/**
 * The one pace both the forecast and the suggestion quote: hours used since the plan was
 * bought over the days since (the first day counting whole). Two cards once showed "0.2 h a
 * day" and "about 0.0 h a day" for the same use, one averaging the last 7 days including days
 * before the plan; without a purchase date the 7-day average is all there is.
 */
function paceOf(input: ProgressCardsInput): { hoursPerDay: number; basis: string } {
  const purchasedAt = toEpochMsOrNull(input.purchasedAt);
  const expiresAt = toEpochMsOrNull(input.expiresAt);
  if (input.durationHours && purchasedAt !== null && expiresAt !== null) {
    const forecast = forecastUsage({
      durationHours: input.durationHours,
      usedSeconds: input.usedSeconds,
      purchasedAt,
      expiresAt,
      now: input.now,
    });
    return { hoursPerDay: forecast.paceHoursPerDay, basis: 'Your pace since you bought the plan.' };
  }
  return {
    hoursPerDay: averageDailyHours(input.daily),
    basis: `Average of the last ${input.daily.length} days.`,
  };
}

function forecastCard(input: ProgressCardsInput): ProgressCard {
  const title = 'Daily Forecast';
  const purchasedAt = toEpochMsOrNull(input.purchasedAt);
  const expiresAt = toEpochMsOrNull(input.expiresAt);
  if (!input.durationHours || purchasedAt === null || expiresAt === null) {
    return { title, value: PROGRESS_MESSAGES.unknown, detail: 'Your forecast appears once you have a plan.' };
  }
  const forecast = forecastUsage({
    durationHours: input.durationHours,
    usedSeconds: input.usedSeconds,
    purchasedAt,
    expiresAt,
    now: input.now,
  });
  const allowance = dailyAllowanceHours(input.durationHours);
  return {
    title,
    value: hoursAday(forecast.paceHoursPerDay),
    detail: `${forecast.message} Your plan allows ${hoursAday(allowance)}.`,
  };
}

function suggestionCard(input: ProgressCardsInput): ProgressCard {
  const title = 'Plan Suggestion';
  if (!input.durationHours) {
    return { title, value: PROGRESS_MESSAGES.unknown, detail: 'A suggestion appears once you have a plan.' };
  }
  if (!enoughUseForAdvice(toEpochMsOrNull(input.purchasedAt), input.now)) {
    return {
      title,
      value: 'Too early to tell',
      detail: `A suggestion appears after ${ADVICE_AFTER_DAYS} days of your plan, once your pace is clear. Your plan allows ${hoursAday(dailyAllowanceHours(input.durationHours))}.`,
    };
  }
  const pace = paceOf(input);
  const suggestion = suggestPlan(input.durationHours, pace.hoursPerDay);
  const value =
    suggestion.kind === 'upgrade'
      ? suggestion.suggestedHours
        ? `Upgrade to ${suggestion.suggestedHours} h`
        : 'Upgrade'
      : suggestion.kind === 'downgrade'
        ? `${suggestion.suggestedHours} h would do`
        : 'Your plan fits';
  return { title, value, detail: `${suggestion.message} (${pace.basis})` };
}

function peakCard(input: ProgressCardsInput): ProgressCard {
  const title = 'Peak Hour';
  const peak = peakHour(input.hourly);
  if (!peak)
    return {
      title,
      value: 'No use yet today',
      detail: 'Your busiest hour today shows here once your VM has run.',
    };
  return {
    title,
    value: hourRangeLabel(peak.hour),
    detail: `Your busiest hour today (India time): ${formatHoursMinutes(peak.usage)} of use.`,
  };
}

/** What each card says. */
export function progressCards(input: ProgressCardsInput): ProgressCards {
  return {
    forecast: forecastCard(input),
    suggestion: suggestionCard(input),
    peak: peakCard(input),
  };
}
