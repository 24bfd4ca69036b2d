import { describe, expect, it } from 'vitest';
import { dayNumber, daysInMonth, formatLongDate, indiaDate, toEpochMs, toEpochMsOrNull } from './time.ts';

describe('india time', () => {
  it('gives the Indian calendar date, which runs 5h30 ahead of UTC', () => {
    expect(indiaDate('2026-03-31T18:29:59Z')).toEqual({ year: 2026, month: 3, day: 31 });
    expect(indiaDate('2026-03-31T18:30:00Z')).toEqual({ year: 2026, month: 4, day: 1 });
    expect(indiaDate(new Date('2026-12-31T23:00:00+05:30'))).toEqual({ year: 2026, month: 12, day: 31 });
  });

  it('accepts dates, epoch milliseconds and ISO strings alike', () => {
    const ms = Date.parse('2026-06-01T00:00:00Z');
    expect(toEpochMs(ms)).toBe(ms);
    expect(toEpochMs(new Date(ms))).toBe(ms);
    expect(toEpochMs('2026-06-01T00:00:00Z')).toBe(ms);
  });

  it('refuses what is not a moment, or reads it as missing where missing is allowed', () => {
    expect(() => toEpochMs('not a date')).toThrow(RangeError);
    expect(() => toEpochMs(Number.NaN)).toThrow(RangeError);
    expect(toEpochMsOrNull('not a date')).toBeNull();
    expect(toEpochMsOrNull(null)).toBeNull();
    expect(toEpochMsOrNull(undefined)).toBeNull();
    expect(toEpochMsOrNull('')).toBeNull();
  });

  it('counts whole days between calendar dates', () => {
    expect(dayNumber({ year: 2026, month: 3, day: 1 }) - dayNumber({ year: 2026, month: 2, day: 28 })).toBe(
      1,
    );
    expect(dayNumber({ year: 1970, month: 1, day: 1 })).toBe(0);
  });

  it('knows month lengths, leap years included', () => {
    expect(daysInMonth(2026, 2)).toBe(28);
    expect(daysInMonth(2028, 2)).toBe(29);
    expect(daysInMonth(2100, 2)).toBe(28);
    expect(daysInMonth(2026, 4)).toBe(30);
    expect(daysInMonth(2026, 12)).toBe(31);
  });

  it('prints long en-IN dates in India time', () => {
    expect(formatLongDate('2026-12-22T10:00:00+05:30')).toBe('22 December 2026');
    // 20:00 UTC on the 21st is already the 22nd in India.
    expect(formatLongDate('2026-12-21T20:00:00Z')).toBe('22 December 2026');
    expect(formatLongDate('2027-01-05T00:00:00+05:30')).toBe('5 January 2027');
  });
});
