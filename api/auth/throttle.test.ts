import { describe, expect, it } from 'vitest';
import { ACCOUNT_SLOWDOWN_AFTER, slowdownMs } from './throttle.ts';

describe('slowdownMs', () => {
  it('waits not at all up to the threshold, then more per failure, up to a cap', () => {
    expect(slowdownMs(0)).toBe(0);
    expect(slowdownMs(ACCOUNT_SLOWDOWN_AFTER)).toBe(0);
    expect(slowdownMs(ACCOUNT_SLOWDOWN_AFTER + 1)).toBeGreaterThan(0);
    expect(slowdownMs(ACCOUNT_SLOWDOWN_AFTER + 2)).toBeGreaterThan(slowdownMs(ACCOUNT_SLOWDOWN_AFTER + 1));
    expect(slowdownMs(10_000)).toBe(2000);
  });
});
