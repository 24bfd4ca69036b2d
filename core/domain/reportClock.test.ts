import { describe, expect, it } from 'vitest';
import {
  CLOCK_MESSAGES,
  HEALTH_CLOCK_SKEW_SECONDS,
  HEALTH_REPORT_WINDOW_SECONDS,
  reportClock,
} from './reportClock.ts';

const NOW = Date.parse('2026-03-10T12:00:00Z');
const at = (offsetSeconds: number) => NOW / 1000 + offsetSeconds;

describe('reportClock', () => {
  it.each([
    [0, { kind: 'in-time' }],
    [HEALTH_CLOCK_SKEW_SECONDS, { kind: 'in-time' }],
    [HEALTH_CLOCK_SKEW_SECONDS + 1, { kind: 'ahead', seconds: 31 }],
    [280, { kind: 'ahead', seconds: 280 }],
    [-HEALTH_REPORT_WINDOW_SECONDS, { kind: 'in-time' }],
    [-HEALTH_REPORT_WINDOW_SECONDS - 1, { kind: 'stale' }],
  ])('a report signed %i s from our clock is %o', (offset, expected) => {
    expect(reportClock(at(offset), NOW)).toEqual(expected);
  });
});

describe('the clock line', () => {
  it('says how fast in words a person reads', () => {
    expect(CLOCK_MESSAGES.headline(45)).toBe(
      'Your PC’s clock is 45 seconds fast, so it cannot report its health.',
    );
    expect(CLOCK_MESSAGES.headline(280)).toContain('5 minutes fast');
    expect(CLOCK_MESSAGES.headline(3 * 3600)).toContain('3 hours fast');
  });
});
