import { describe, expect, it } from 'vitest';
import {
  dailyUsage,
  dayMonthLabel,
  formatHoursMinutes,
  hourlyUsage,
  indiaDayKey,
  indiaHour,
  indiaDayStart,
  normaliseIntervals,
  shortDayLabel,
  usageHistoryStart,
} from './usageBuckets.ts';

/** An India-time wall clock reading as an instant (IST is UTC+05:30 all year). */
const ist = (local: string) => new Date(`${local}+05:30`);

describe('India-time days', () => {
  it('starts the day at India midnight, which is 18:30 UTC the evening before', () => {
    expect(new Date(indiaDayStart(ist('2026-03-09T00:00:00'))).toISOString()).toBe(
      '2026-03-08T18:30:00.000Z',
    );
    expect(new Date(indiaDayStart(ist('2026-03-09T23:59:59'))).toISOString()).toBe(
      '2026-03-08T18:30:00.000Z',
    );
    expect(new Date(indiaDayStart('2026-03-08T18:29:59Z')).toISOString()).toBe('2026-03-07T18:30:00.000Z');
  });

  it('names the India date, not the UTC one', () => {
    // 20:00 UTC on the 8th is already 01:30 on the 9th in India.
    expect(indiaDayKey('2026-03-08T20:00:00Z')).toBe('2026-03-09');
    expect(indiaDayKey('2026-03-08T18:29:59.999Z')).toBe('2026-03-08');
    expect(indiaDayKey(ist('2026-12-31T23:59:59'))).toBe('2026-12-31');
    expect(indiaDayKey(ist('2027-01-01T00:00:00'))).toBe('2027-01-01');
  });

  it('tells the India hour of an instant', () => {
    expect(indiaHour(ist('2026-03-09T00:00:00'))).toBe(0);
    expect(indiaHour('2026-03-09T09:00:00Z')).toBe(14);
    expect(indiaHour('2026-03-09T18:29:59Z')).toBe(23);
  });

  it('begins the 7-day history at India midnight six days before today', () => {
    expect(usageHistoryStart(ist('2026-03-09T10:00:00')).toISOString()).toBe('2026-03-02T18:30:00.000Z');
  });
});

describe('daily usage', () => {
  const now = ist('2026-03-09T10:00:00');

  it('lists the last 7 India days oldest first, idle days as 0', () => {
    const daily = dailyUsage([], now);
    expect(daily.map((d) => d.day)).toEqual([
      '2026-03-03',
      '2026-03-04',
      '2026-03-05',
      '2026-03-06',
      '2026-03-07',
      '2026-03-08',
      '2026-03-09',
    ]);
    expect(daily.every((d) => d.usage === 0)).toBe(true);
  });

  it('splits a session across India midnight into the two days it touched', () => {
    const daily = dailyUsage([{ start: ist('2026-03-07T23:00:00'), end: ist('2026-03-08T01:30:00') }], now);
    expect(daily.find((d) => d.day === '2026-03-07')?.usage).toBe(1);
    expect(daily.find((d) => d.day === '2026-03-08')?.usage).toBe(1.5);
  });

  it('puts a session across UTC midnight (05:30 in India) on one India day', () => {
    const daily = dailyUsage([{ start: '2026-03-07T23:00:00Z', end: '2026-03-08T01:00:00Z' }], now);
    // 04:30–06:30 on 8 March in India.
    expect(daily.filter((d) => d.usage > 0)).toEqual([{ day: '2026-03-08', usage: 2 }]);
  });

  it('counts a running session up to now and nothing of the future', () => {
    const daily = dailyUsage([{ start: ist('2026-03-09T08:45:00'), end: null }], now);
    expect(daily.at(-1)).toEqual({ day: '2026-03-09', usage: 1.25 });
  });

  it('ignores time before the window and counts a session spanning days in full days', () => {
    const daily = dailyUsage([{ start: ist('2026-02-20T00:00:00'), end: ist('2026-03-04T12:00:00') }], now);
    expect(daily[0]).toEqual({ day: '2026-03-03', usage: 24 });
    expect(daily[1]).toEqual({ day: '2026-03-04', usage: 12 });
    expect(daily.slice(2).every((d) => d.usage === 0)).toBe(true);
  });

  it('never counts overlapping sessions twice', () => {
    const daily = dailyUsage(
      [
        { start: ist('2026-03-08T10:00:00'), end: ist('2026-03-08T12:00:00') },
        { start: ist('2026-03-08T11:00:00'), end: ist('2026-03-08T13:00:00') },
        { start: ist('2026-03-08T12:30:00'), end: ist('2026-03-08T12:45:00') },
      ],
      now,
    );
    expect(daily.find((d) => d.day === '2026-03-08')?.usage).toBe(3);
  });

  it('rounds to 4 decimals of an hour', () => {
    const daily = dailyUsage([{ start: ist('2026-03-09T09:00:00'), end: ist('2026-03-09T09:00:01') }], now);
    expect(daily.at(-1)?.usage).toBe(0.0003);
  });
});

describe('hourly usage', () => {
  it('lists 24 India hours of today and splits a session at each hour boundary', () => {
    const now = ist('2026-03-09T16:00:00');
    const hourly = hourlyUsage([{ start: ist('2026-03-09T13:40:00'), end: ist('2026-03-09T15:10:00') }], now);
    expect(hourly).toHaveLength(24);
    expect(hourly.map((h) => h.hour)).toEqual([...Array(24).keys()]);
    expect(hourly[13]?.usage).toBeCloseTo(20 / 60, 4);
    expect(hourly[14]?.usage).toBe(1);
    expect(hourly[15]?.usage).toBeCloseTo(10 / 60, 4);
    expect(hourly.filter((h) => h.usage > 0).map((h) => h.hour)).toEqual([13, 14, 15]);
  });

  it('counts only today’s part of a session that began yesterday, from hour 0', () => {
    const now = ist('2026-03-09T02:00:00');
    const hourly = hourlyUsage([{ start: ist('2026-03-08T22:00:00'), end: ist('2026-03-09T00:30:00') }], now);
    expect(hourly[0]?.usage).toBe(0.5);
    expect(hourly.slice(1).every((h) => h.usage === 0)).toBe(true);
  });

  it('uses India hours: 09:00 UTC is hour 14 in India', () => {
    const now = '2026-03-09T12:00:00Z';
    const hourly = hourlyUsage([{ start: '2026-03-09T09:00:00Z', end: '2026-03-09T09:30:00Z' }], now);
    expect(hourly.filter((h) => h.usage > 0)).toEqual([{ hour: 14, usage: 0.5 }]);
  });

  it('fills the current hour only up to now while running', () => {
    const now = ist('2026-03-09T10:15:00');
    const hourly = hourlyUsage([{ start: ist('2026-03-09T09:30:00'), end: null }], now);
    expect(hourly[9]?.usage).toBe(0.5);
    expect(hourly[10]?.usage).toBe(0.25);
    expect(hourly[11]?.usage).toBe(0);
  });

  it('agrees with the daily total for today', () => {
    const now = ist('2026-03-09T23:59:00');
    const sessions = [
      { start: ist('2026-03-08T23:10:00'), end: ist('2026-03-09T01:05:00') },
      { start: ist('2026-03-09T12:00:00'), end: ist('2026-03-09T12:01:00') },
      { start: ist('2026-03-09T22:30:00'), end: null },
    ];
    const today = dailyUsage(sessions, now).at(-1)?.usage ?? 0;
    const sum = hourlyUsage(sessions, now).reduce((s, h) => s + h.usage, 0);
    expect(sum).toBeCloseTo(today, 3);
  });
});

describe('interval normalisation', () => {
  it('drops empty and reversed stretches and clips to the window', () => {
    expect(
      normaliseIntervals(
        [
          { start: 50, end: 50 },
          { start: 80, end: 60 },
          { start: 0, end: 150 },
        ],
        100,
        200,
      ),
    ).toEqual([[100, 150]]);
  });
});

describe('labels', () => {
  it('prints calendar days as themselves whatever the zone', () => {
    expect(shortDayLabel('2026-03-09')).toBe('Mon 9');
    expect(dayMonthLabel('2026-03-09')).toBe('Mon 9 Mar');
    expect(shortDayLabel('not-a-day')).toBe('not-a-day');
  });

  it('prints hours and minutes', () => {
    expect(formatHoursMinutes(0)).toBe('0 min');
    expect(formatHoursMinutes(0.002)).toBe('under 1 min');
    expect(formatHoursMinutes(0.2)).toBe('12 min');
    expect(formatHoursMinutes(1.0833)).toBe('1 h 05 min');
    expect(formatHoursMinutes(Number.NaN)).toBe('0 min');
  });
});
