import { describe, expect, it } from 'vitest';
import { formatHms, hourAlertsReached, liveUsageSeconds, remainingSeconds, vmDisplayState } from './usage.ts';

describe('remaining time', () => {
  it('is the plan’s hours in seconds minus the time used', () => {
    expect(remainingSeconds(30, 0)).toBe(108_000);
    expect(remainingSeconds(45, 3_600)).toBe(158_400);
    expect(remainingSeconds(1, 1_799.9)).toBe(1_801);
  });

  it('never goes below zero', () => {
    expect(remainingSeconds(30, 108_000)).toBe(0);
    expect(remainingSeconds(30, 200_000)).toBe(0);
  });
});

describe('live usage', () => {
  const change = new Date('2026-06-10T10:00:00Z');

  it('adds the whole seconds since the last state change while running', () => {
    const clock = { usageSeconds: 100, isRunning: true, lastStateChange: change };
    expect(liveUsageSeconds(clock, new Date('2026-06-10T10:00:59.999Z'))).toBe(159);
    expect(liveUsageSeconds(clock, new Date('2026-06-10T11:00:00Z'))).toBe(3_700);
  });

  it('is the stored usage while stopped', () => {
    expect(
      liveUsageSeconds({ usageSeconds: 100, isRunning: false, lastStateChange: change }, Date.now()),
    ).toBe(100);
  });

  it('does not run backwards when the clock is behind the last change, nor count without one', () => {
    const now = new Date('2026-06-10T09:59:00Z');
    expect(liveUsageSeconds({ usageSeconds: 100, isRunning: true, lastStateChange: change }, now)).toBe(100);
    expect(liveUsageSeconds({ usageSeconds: 100, isRunning: true, lastStateChange: null }, now)).toBe(100);
  });

  it('accepts the timestamp as the dashboard record sends it', () => {
    const clock = { usageSeconds: 0, isRunning: true, lastStateChange: change.toISOString() };
    expect(liveUsageSeconds(clock, change.getTime() + 5_000)).toBe(5);
  });
});

describe('VM display state', () => {
  it('is running when the running flag is set, whatever the last state', () => {
    expect(vmDisplayState({ isRunning: true, lastState: 'stopped' })).toBe('running');
  });

  it('is the last state otherwise', () => {
    expect(vmDisplayState({ isRunning: false, lastState: 'stopped' })).toBe('stopped');
    expect(vmDisplayState({ isRunning: false, lastState: 'running' })).toBe('running');
    expect(vmDisplayState({ isRunning: null, lastState: 'Provisioning' })).toBe('provisioning');
  });

  it('is stopped when nothing is known', () => {
    expect(vmDisplayState({ isRunning: undefined, lastState: null })).toBe('stopped');
    expect(vmDisplayState({ isRunning: false, lastState: ' ' })).toBe('stopped');
  });
});

describe('formatHms', () => {
  it.each([
    [0, '0h 00m 00s'],
    [9, '0h 00m 09s'],
    [59, '0h 00m 59s'],
    [60, '0h 01m 00s'],
    [3_599, '0h 59m 59s'],
    [3_600, '1h 00m 00s'],
    [43_509, '12h 05m 09s'],
    [86_400, '24h 00m 00s'],
    [324_000, '90h 00m 00s'],
  ])('shows %i seconds as %s', (seconds, text) => {
    expect(formatHms(seconds)).toBe(text);
  });

  it('drops fractions and shows nonsense as zero', () => {
    expect(formatHms(61.9)).toBe('0h 01m 01s');
    expect(formatHms(-5)).toBe('0h 00m 00s');
    expect(formatHms(Number.NaN)).toBe('0h 00m 00s');
  });
});

describe('hour alerts', () => {
  it('reaches the 80% alert at exactly 80% of the hours and the 100% alert at all of them', () => {
    expect(hourAlertsReached(45, 129_599)).toEqual([]);
    expect(hourAlertsReached(45, 129_600)).toEqual([80]);
    expect(hourAlertsReached(45, 161_999)).toEqual([80]);
    expect(hourAlertsReached(45, 162_000)).toEqual([80, 100]);
    expect(hourAlertsReached(45, 999_999)).toEqual([80, 100]);
  });

  it('puts the 80% alert at the right second for every duration', () => {
    for (const hours of [1, 30, 45, 65, 90]) {
      const threshold = hours * 3600 * 0.8;
      expect(hourAlertsReached(hours, Math.ceil(threshold) - 1)).toEqual([]);
      expect(hourAlertsReached(hours, Math.ceil(threshold))).toEqual([80]);
    }
  });
});
