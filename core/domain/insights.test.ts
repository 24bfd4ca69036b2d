import { describe, expect, it } from 'vitest';
import {
  averageDailyHours,
  dailyAllowanceHours,
  forecastUsage,
  hourRangeLabel,
  peakHour,
  suggestPlan,
} from './insights.ts';

describe('daily allowance', () => {
  it('spreads the plan’s hours over 30 days', () => {
    expect(dailyAllowanceHours(30)).toBe(1);
    expect(dailyAllowanceHours(45)).toBe(1.5);
    expect(dailyAllowanceHours(90)).toBe(3);
  });

  it('averages the daily usage list, idle days included', () => {
    expect(averageDailyHours([])).toBe(0);
    expect(averageDailyHours([{ usage: 2 }, { usage: 0 }, { usage: 1 }])).toBe(1);
  });
});

describe('plan suggestion', () => {
  it('suggests an upgrade when the daily average exceeds the allowance, naming the duration that fits', () => {
    const suggestion = suggestPlan(45, 2);
    expect(suggestion).toMatchObject({ kind: 'upgrade', allowanceHours: 1.5, suggestedHours: 65 });
    expect(suggestion.message).toBe(
      'You use about 2.0 h a day, more than the 1.5 h a day your 45-hour plan allows. The 65-hour plan fits that pace.',
    );
  });

  it('still says upgrade beyond the largest plan, without naming a duration', () => {
    const suggestion = suggestPlan(90, 4);
    expect(suggestion).toMatchObject({ kind: 'upgrade', suggestedHours: null });
    expect(suggestion.message).toContain('more than even the 90-hour plan allows');
  });

  it('suggests a downgrade when the average is under half the allowance', () => {
    const suggestion = suggestPlan(90, 1);
    expect(suggestion).toMatchObject({ kind: 'downgrade', suggestedHours: 30 });
    expect(suggestion.message).toBe(
      'You use about 1.0 h a day, under half of the 3.0 h a day your 90-hour plan allows. The 30-hour plan would cover it for less.',
    );
  });

  it('calls it a fit between half and all of the allowance, boundaries included', () => {
    expect(suggestPlan(45, 1.5).kind).toBe('fit');
    expect(suggestPlan(45, 0.75).kind).toBe('fit');
    expect(suggestPlan(45, 1).message).toBe('Your 45-hour plan fits your use of about 1.0 h a day.');
    expect(suggestPlan(45, 1).suggestedHours).toBe(45);
  });

  it('does not suggest going below the smallest plan', () => {
    expect(suggestPlan(30, 0.1)).toMatchObject({ kind: 'fit', suggestedHours: 30 });
    expect(suggestPlan(30, 0)).toMatchObject({ kind: 'fit' });
  });

  it('goes just above the allowance to upgrade', () => {
    expect(suggestPlan(30, 1.01).kind).toBe('upgrade');
    expect(suggestPlan(30, 1.01).suggestedHours).toBe(45);
  });
});

describe('daily forecast', () => {
  const purchasedAt = new Date('2026-06-01T10:00:00+05:30');
  const expiresAt = new Date('2026-07-01T10:00:00+05:30');
  const day = 86_400_000;

  it('projects the pace so far over the remaining days and finds the day the hours run out', () => {
    // 10 days in, 20 of 30 hours used: 2 h a day, 10 h left → gone in 5 days.
    const now = new Date(purchasedAt.getTime() + 10 * day);
    const forecast = forecastUsage({
      durationHours: 30,
      usedSeconds: 20 * 3600,
      purchasedAt,
      expiresAt,
      now,
    });
    expect(forecast.paceHoursPerDay).toBe(2);
    expect(forecast.remainingHours).toBe(10);
    expect(forecast.remainingDays).toBe(20);
    expect(forecast.projectedHours).toBe(10);
    expect(forecast.runsOutAt).toEqual(new Date(now.getTime() + 5 * day));
    expect(forecast.message).toBe(
      'At about 2.0 h a day your hours run out around 16 June 2026, before your plan expires on 1 July 2026.',
    );
  });

  it('says the hours last when the pace is gentle', () => {
    const now = new Date(purchasedAt.getTime() + 10 * day);
    const forecast = forecastUsage({
      durationHours: 90,
      usedSeconds: 10 * 3600,
      purchasedAt,
      expiresAt,
      now,
    });
    expect(forecast.paceHoursPerDay).toBe(1);
    expect(forecast.projectedHours).toBe(20);
    expect(forecast.runsOutAt).toBeNull();
    expect(forecast.message).toBe(
      'At about 1.0 h a day your hours last until your plan expires on 1 July 2026.',
    );
  });

  it('counts the first day as a whole day so an early session does not read as a huge pace', () => {
    const now = new Date(purchasedAt.getTime() + 2 * 3600_000);
    const forecast = forecastUsage({ durationHours: 30, usedSeconds: 3600, purchasedAt, expiresAt, now });
    expect(forecast.paceHoursPerDay).toBe(1);
  });

  it('says so when every hour is used', () => {
    const now = new Date(purchasedAt.getTime() + 3 * day);
    const forecast = forecastUsage({
      durationHours: 30,
      usedSeconds: 40 * 3600,
      purchasedAt,
      expiresAt,
      now,
    });
    expect(forecast.remainingHours).toBe(0);
    expect(forecast.runsOutAt).toEqual(now);
    expect(forecast.message).toBe('You have used all the hours of your plan.');
  });

  it('never runs out with no use at all', () => {
    const now = new Date(purchasedAt.getTime() + 3 * day);
    const forecast = forecastUsage({ durationHours: 30, usedSeconds: 0, purchasedAt, expiresAt, now });
    expect(forecast.runsOutAt).toBeNull();
    expect(forecast.projectedHours).toBe(0);
  });
});

describe('peak hour', () => {
  it('is the hour with the most use', () => {
    expect(
      peakHour([
        { hour: 9, usage: 0.2 },
        { hour: 21, usage: 0.9 },
        { hour: 14, usage: 0.5 },
      ]),
    ).toEqual({ hour: 21, usage: 0.9 });
  });

  it('takes the earliest hour on a tie', () => {
    expect(
      peakHour([
        { hour: 22, usage: 1 },
        { hour: 8, usage: 1 },
      ]),
    ).toEqual({ hour: 8, usage: 1 });
  });

  it('is null when nothing was used', () => {
    expect(peakHour([])).toBeNull();
    expect(peakHour([{ hour: 3, usage: 0 }])).toBeNull();
  });

  it('labels an hour as a range', () => {
    expect(hourRangeLabel(14)).toBe('14:00–15:00');
    expect(hourRangeLabel(0)).toBe('00:00–01:00');
    expect(hourRangeLabel(23)).toBe('23:00–00:00');
  });
});
