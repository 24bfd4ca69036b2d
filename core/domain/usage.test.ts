import { formatIndiaClock } from './time.ts';
import { describe, expect, it } from 'vitest';
import {
  formatHms,
  hourAlertsReached,
  hourBankNotice,
  HOURS_RUN_OUT_WARNING_SECONDS,
  liveUsageSeconds,
  remainingSeconds,
  stopsSoonMessage,
} from './usage.ts';

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

describe('hour-bank notice', () => {
  const now = Date.parse('2026-11-24T09:00:00Z'); // 14:30 in India
  const base = { hours: 30, running: true, planActive: true, now };
  const plan = 30 * 3600;

  it('says nothing below 80%, then the 80% notice with what is left', () => {
    expect(hourBankNotice({ ...base, usedSeconds: plan * 0.8 - 1 })).toBeNull();
    expect(hourBankNotice({ ...base, usedSeconds: plan * 0.8 })).toEqual({
      kind: 'used-80',
      secondsLeft: plan * 0.2,
    });
  });

  it('counts down the last 10 minutes of a running machine, with the time it stops', () => {
    const left = HOURS_RUN_OUT_WARNING_SECONDS + 1;
    expect(hourBankNotice({ ...base, usedSeconds: plan - left })?.kind).toBe('used-80');
    expect(hourBankNotice({ ...base, usedSeconds: plan - 600 })).toEqual({
      kind: 'stops-soon',
      secondsLeft: 600,
      runsOutAt: now + 600_000,
    });
    expect(hourBankNotice({ ...base, usedSeconds: plan - 90 })).toEqual({
      kind: 'stops-soon',
      secondsLeft: 90,
      runsOutAt: now + 90_000,
    });
  });

  it('a stopped machine with minutes left gets the 80% notice, not a countdown: nothing will stop it', () => {
    expect(hourBankNotice({ ...base, running: false, usedSeconds: plan - 60 })?.kind).toBe('used-80');
  });

  it('all hours used: the 100% notice when stopped, the stop under way when the clock ran out while running', () => {
    expect(hourBankNotice({ ...base, running: false, usedSeconds: plan })).toEqual({ kind: 'used-all' });
    expect(hourBankNotice({ ...base, usedSeconds: plan + 30 })).toMatchObject({
      kind: 'stops-soon',
      secondsLeft: 0,
    });
  });

  it('nothing without a plan in force: the expiry notice speaks then', () => {
    expect(hourBankNotice({ ...base, planActive: false, usedSeconds: plan })).toBeNull();
    expect(hourBankNotice({ ...base, hours: null, usedSeconds: plan })).toBeNull();
  });

  it('prints the stop time as the customer in India reads it (one format for notices and mails)', () => {
    expect(formatIndiaClock(now)).toBe('2:30 pm IST');
    expect(formatIndiaClock(Date.parse('2026-11-24T18:35:00Z'))).toBe('12:05 am IST');
    expect(stopsSoonMessage(now + 480_000, 480)).toBe(
      'Your hours run out at 2:38 pm IST (in 8 minutes) — save your work; your PC will stop then.',
    );
    expect(stopsSoonMessage(now + 30_000, 30)).toContain('(in under a minute)');
  });
});
