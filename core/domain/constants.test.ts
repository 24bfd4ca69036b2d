import { describe, expect, it } from 'vitest';
import {
  LIVE_CHART_POINTS,
  PARTICLE_COUNT,
  SUPPORT_REPLY_TIME,
  TIMERS_MS,
  TIME_TO_DESKTOP,
} from './constants.ts';

describe('product constants', () => {
  it('keeps the timers of spec §9', () => {
    expect(TIMERS_MS).toEqual({
      dashboardRefresh: 5000,
      usageTick: 1000,
      usagePoll: 1000,
      paymentPoll: 3000,
      failureRedirect: 5000,
      resetRedirect: 2000,
      heroText: 8000,
      tagline: 4000,
    });
    expect(LIVE_CHART_POINTS).toBe(60);
    expect(PARTICLE_COUNT).toBe(250);
  });

  it('states each claim once, its label agreeing with its figure', () => {
    // No figure in the copy: the landing page's number comes from measured provisions.
    expect(TIME_TO_DESKTOP.label).not.toMatch(/\d/);
    expect(SUPPORT_REPLY_TIME).toEqual({ hours: 12, label: '12 hours' });
  });
});
