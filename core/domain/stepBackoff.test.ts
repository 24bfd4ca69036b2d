import { describe, expect, it } from 'vitest';
import {
  backedOff,
  backoffCauseOf,
  backoffDelayMs,
  failureAlertDue,
  failureLogLevel,
  isThrottling,
  nextStepFailure,
  STEP_BACKOFF_MAX_MS,
} from './stepBackoff.ts';

const T0 = Date.parse('2026-05-01T10:00:00Z');
const POLL = 10_000;

describe('backoffDelayMs', () => {
  it('doubles from the poll interval up to 5 minutes, with jitter of up to half', () => {
    const highest = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffDelayMs(n, POLL, 1));
    expect(highest).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
    const lowest = [1, 2, 3, 6].map((n) => backoffDelayMs(n, POLL, 0));
    expect(lowest).toEqual([10_000, 10_000, 20_000, 150_000]);
    for (let n = 1; n < 40; n += 1)
      for (const r of [0, 0.3, 0.99]) {
        const delay = backoffDelayMs(n, POLL, r);
        expect(delay).toBeGreaterThanOrEqual(POLL);
        expect(delay).toBeLessThanOrEqual(STEP_BACKOFF_MAX_MS);
      }
  });
});

describe('nextStepFailure', () => {
  it('counts the same action failing the same way, and starts again on another', () => {
    const first = nextStepFailure(
      null,
      { action: 'DescribeInstances', code: 'RequestLimitExceeded' },
      T0,
      POLL,
      1,
    );
    expect(first).toMatchObject({ count: 1, firstAt: T0, nextAt: T0 + POLL, sameRun: false });
    const facts = {
      action: 'DescribeInstances',
      code: 'RequestLimitExceeded',
      count: 1,
      firstAt: T0,
      nextAt: first.nextAt,
      alertedAt: null,
    };
    const again = nextStepFailure(
      facts,
      { action: 'DescribeInstances', code: 'RequestLimitExceeded' },
      T0 + POLL,
      POLL,
      1,
    );
    expect(again).toMatchObject({ count: 2, firstAt: T0, sameRun: true });
    const other = nextStepFailure(
      facts,
      { action: 'DescribeInstances', code: 'InternalError' },
      T0 + POLL,
      POLL,
      1,
    );
    expect(other).toMatchObject({ count: 1, firstAt: T0 + POLL, sameRun: false });
  });
});

describe('what a failure says and when', () => {
  it('logs the first as an error and the repeats as warnings', () => {
    expect([1, 2, 9].map(failureLogLevel)).toEqual(['error', 'warn', 'warn']);
  });

  it('alerts once a run has lasted 5 minutes, once', () => {
    const run = { count: 30, firstAt: T0, nextAt: T0, alertedAt: null };
    expect(failureAlertDue(run, T0 + 4 * 60_000)).toBe(false);
    expect(failureAlertDue(run, T0 + 5 * 60_000)).toBe(true);
    expect(failureAlertDue({ ...run, alertedAt: T0 + 5 * 60_000 }, T0 + 9 * 60_000)).toBe(false);
  });

  it('waits while the next try is later', () => {
    expect(backedOff(null, T0)).toBe(false);
    expect(backedOff({ nextAt: T0 + 1 }, T0)).toBe(true);
    expect(backedOff({ nextAt: T0 }, T0)).toBe(false);
  });

  it('tells throttling (the whole account) from the rest, and names causes for /metrics', () => {
    expect(['RequestLimitExceeded', 'Throttling', 'EC2ThrottledException'].every(isThrottling)).toBe(true);
    expect(isThrottling('InsufficientInstanceCapacity')).toBe(false);
    expect(backoffCauseOf('Throttling')).toBe('throttled');
    expect(backoffCauseOf('InsufficientInstanceCapacity')).toBe('capacity');
    expect(backoffCauseOf('UnauthorizedOperation')).toBe('permission');
    expect(backoffCauseOf('PasswordUndecryptable')).toBe('password');
    expect(backoffCauseOf('Whatever')).toBe('other');
  });
});
