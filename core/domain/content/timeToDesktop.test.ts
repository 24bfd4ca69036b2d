import { describe, expect, it } from 'vitest';
import { MIN_PROVISIONS_FOR_FIGURE, UNMEASURED_STAT, timeToDesktopStat } from './timeToDesktop.ts';

describe('the time-to-desktop figure', () => {
  it('is the modest wording without enough recorded provisions', () => {
    expect(timeToDesktopStat(null)).toBe(UNMEASURED_STAT);
    expect(timeToDesktopStat(undefined)).toBe(UNMEASURED_STAT);
    expect(timeToDesktopStat({ sampleSize: MIN_PROVISIONS_FOR_FIGURE - 1, medianSeconds: 50 })).toBe(
      UNMEASURED_STAT,
    );
    expect(UNMEASURED_STAT.value).not.toMatch(/\d/);
  });

  it('states the measured median in seconds under two minutes, in minutes above', () => {
    expect(timeToDesktopStat({ sampleSize: 20, medianSeconds: 73.4 })).toEqual({
      value: '73',
      label: 'seconds to your desktop (median of our last 20 desktops)',
      measured: true,
    });
    expect(timeToDesktopStat({ sampleSize: 50, medianSeconds: 290 })).toMatchObject({
      value: '5',
      label: 'minutes to your desktop (median of our last 50 desktops)',
    });
  });
});
