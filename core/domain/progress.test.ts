import { describe, expect, it } from 'vitest';
import { progressCards, type ProgressCardsInput } from './progress.ts';

const week = (hours: number[]) => hours.map((usage, i) => ({ day: `2026-03-0${i + 3}`, usage }));
const hours = (entries: Record<number, number>) =>
  Array.from({ length: 24 }, (_, hour) => ({ hour, usage: entries[hour] ?? 0 }));

const base: ProgressCardsInput = {
  durationHours: 45,
  usedSeconds: 10 * 3600,
  purchasedAt: '2026-03-01T04:30:00Z',
  expiresAt: '2026-04-01T04:30:00Z',
  daily: week([1, 1, 1, 1, 1, 1, 1]),
  hourly: hours({ 9: 0.5, 14: 0.75, 20: 0.75 }),
  now: '2026-03-11T04:30:00Z',
};

describe('progress cards', () => {
  it('forecasts from the pace so far and names the per-day allowance (duration / 30)', () => {
    const { forecast } = progressCards(base);
    // 10 h over 10 days.
    expect(forecast.title).toBe('Daily Forecast');
    expect(forecast.value).toBe('1.0 h a day');
    expect(forecast.detail).toContain('your hours last until your plan expires on 1 April 2026');
    expect(forecast.detail).toContain('Your plan allows 1.5 h a day.');
  });

  it('suggests from the same pace the forecast shows, against the allowance', () => {
    expect(progressCards(base).suggestion).toMatchObject({
      title: 'Plan Suggestion',
      value: 'Your plan fits',
    });
    // 20 h over 10 days: 2.0 h a day, over the 45-hour plan's 1.5.
    const up = progressCards({ ...base, usedSeconds: 20 * 3600 });
    expect(up.suggestion.value).toBe('Upgrade to 65 h');
    expect(up.forecast.value).toBe('2.0 h a day');
    expect(up.suggestion.detail).toContain('You use about 2.0 h a day');
    const down = progressCards({ ...base, durationHours: 90, usedSeconds: 3 * 3600 }).suggestion;
    expect(down.value).toBe('30 h would do');
    expect(down.detail).toContain('You use about 0.3 h a day');
    expect(down.detail).toContain('(Your pace since you bought the plan.)');
  });

  it("never quotes two paces for the same use: early sessions on the plan's fourth day", () => {
    const cards = progressCards({
      ...base,
      usedSeconds: 0.8 * 3600,
      purchasedAt: '2026-03-07T01:00:00Z',
      daily: week([0, 0, 0, 0, 0, 0, 0.8]),
    });
    expect(cards.forecast.value).toBe('0.2 h a day');
    expect(cards.suggestion.detail).toContain('You use about 0.2 h a day');
  });

  it('names the busiest hour of today, the earliest on a tie', () => {
    expect(progressCards(base).peak).toEqual({
      title: 'Peak Hour',
      value: '14:00–15:00',
      detail: 'Your busiest hour today (India time): 45 min of use.',
    });
    expect(progressCards({ ...base, hourly: hours({}) }).peak.value).toBe('No use yet today');
  });

  it('has no savings card: no reserved price is sold', () => {
    expect(Object.keys(progressCards(base))).toEqual(['forecast', 'suggestion', 'peak']);
  });

  it('gives no advice on the plan before three days of it, however the first session went', () => {
    // Three minutes into a 90-hour plan bought an hour ago: "30 h would do" was the advice before.
    const early = progressCards({
      ...base,
      durationHours: 90,
      usedSeconds: 180,
      purchasedAt: '2026-03-11T03:30:00Z',
    }).suggestion;
    expect(early.value).toBe('Too early to tell');
    expect(early.detail).toBe(
      'A suggestion appears after 3 days of your plan, once your pace is clear. Your plan allows 3.0 h a day.',
    );
    const justBefore = progressCards({ ...base, purchasedAt: '2026-03-08T04:30:01Z' }).suggestion;
    expect(justBefore.value).toBe('Too early to tell');
    const threeDays = progressCards({
      ...base,
      usedSeconds: 3 * 3600,
      purchasedAt: '2026-03-08T04:30:00Z',
    }).suggestion;
    expect(threeDays.value).toBe('Your plan fits');
  });

  it('says plainly what is missing without a plan', () => {
    const cards = progressCards({
      ...base,
      durationHours: null,
      purchasedAt: null,
      expiresAt: null,
    });
    expect(cards.forecast.value).toBe('—');
    expect(cards.suggestion.value).toBe('—');
  });
});
