import { describe, expect, it } from 'vitest';
import { progressCards, type ProgressCardsInput } from './progress.ts';

const week = (hours: number[]) => hours.map((usage, i) => ({ day: `2026-03-0${i + 3}`, usage }));
const hours = (entries: Record<number, number>) =>
  Array.from({ length: 24 }, (_, hour) => ({ hour, usage: entries[hour] ?? 0 }));

const base: ProgressCardsInput = {
  durationHours: 45,
  priceRupees: 1830,
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

  it('never quotes two paces for the same use: one early session on the first day', () => {
    const cards = progressCards({
      ...base,
      usedSeconds: 0.2 * 3600,
      purchasedAt: '2026-03-11T01:00:00Z',
      daily: week([0, 0, 0, 0, 0, 0, 0.2]),
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

  it('estimates savings at a reserved price 30% below the monthly price, in rupees and percent', () => {
    expect(progressCards(base).savings).toEqual({
      title: 'Estimated Savings',
      value: '₹549.00 (30%)',
      detail: 'With a reserved price of ₹1,281.00 instead of ₹1,830.00 a month.',
    });
  });

  it('says plainly what is missing without a plan', () => {
    const cards = progressCards({
      ...base,
      durationHours: null,
      priceRupees: null,
      purchasedAt: null,
      expiresAt: null,
    });
    expect(cards.forecast.value).toBe('—');
    expect(cards.suggestion.value).toBe('—');
    expect(cards.savings.value).toBe('—');
  });
});
