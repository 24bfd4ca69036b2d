import { describe, expect, it } from 'vitest';
import { afterCrash, CRASH_LOOP } from './supervise.ts';

describe('restarting a crashed process', () => {
  it('pauses longer after each crash of the last minute', () => {
    expect(afterCrash([0], 0)).toEqual({ action: 'restart', pauseMs: 500 });
    expect(afterCrash([0, 1000], 1000)).toEqual({ action: 'restart', pauseMs: 1000 });
    expect(afterCrash([0, 1000, 2000, 3000], 3000)).toEqual({ action: 'restart', pauseMs: 4000 });
  });

  it('forgets crashes older than a minute', () => {
    expect(afterCrash([0, 1000, 2000, 3000, 70_000], 70_000)).toEqual({ action: 'restart', pauseMs: 500 });
  });

  it('gives up on the fifth crash within a minute', () => {
    const times = Array.from({ length: CRASH_LOOP.crashes }, (_, i) => i * 10_000);
    expect(afterCrash(times, times.at(-1)!)).toEqual({ action: 'give-up' });
  });
});
