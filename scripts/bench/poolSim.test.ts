import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS } from '../../core/domain/time.ts';
import type { Timings } from '../../sandbox/ec2/timing.ts';
import {
  DEMAND,
  connectableAt,
  demandMultiplier,
  generateArrivals,
  hotCoverageLowerBound,
  purchasesPerWeek,
  seededRandom,
  simulatePool,
  type Arrival,
  type Demand,
} from './poolSim.ts';

const WEEK_MS = 7 * DAY_MS;

describe('demand: an inhomogeneous Poisson process by thinning', () => {
  const weeks = 200;
  const arrivals = generateArrivals(DEMAND, 0, weeks * WEEK_MS, seededRandom(7));
  const expected = (planId: string, within: (hourOfWeek: number) => boolean) => {
    let sum = 0;
    for (let hour = 0; hour < 7 * 24; hour++)
      if (within(hour)) sum += DEMAND.baseRatePerHour[planId]! * demandMultiplier(DEMAND, hour * HOUR_MS);
    return sum * weeks;
  };
  const counted = (planId: string, within: (hourOfWeek: number) => boolean) =>
    arrivals.filter((a) => a.planId === planId && within(Math.floor((a.atMs % WEEK_MS) / HOUR_MS))).length;
  const weekday = (h: number) => h < 5 * 24;
  const hourOfDay = (h: number) => h % 24;
  const windows: Record<string, (h: number) => boolean> = {
    'the whole week': () => true,
    'weekday evening peak': (h) => weekday(h) && hourOfDay(h) >= 19 && hourOfDay(h) < 23,
    'weekday night': (h) => weekday(h) && hourOfDay(h) >= 1 && hourOfDay(h) < 8,
    'weekday daytime': (h) => weekday(h) && hourOfDay(h) >= 8 && hourOfDay(h) < 19,
    weekend: (h) => !weekday(h),
  };

  for (const planId of Object.keys(DEMAND.baseRatePerHour)) {
    for (const [name, within] of Object.entries(windows)) {
      it(`${planId}: ${name} matches the stated rates over ${weeks} weeks`, () => {
        const want = expected(planId, within);
        // Four standard deviations of a Poisson count: a wrong multiplier is far outside.
        expect(Math.abs(counted(planId, within) - want)).toBeLessThan(4 * Math.sqrt(want));
      });
    }
  }

  it('the peak hours bring three times the base, weekends half as much again', () => {
    const monday = (hour: number) => demandMultiplier(DEMAND, hour * HOUR_MS);
    const saturday = (hour: number) => demandMultiplier(DEMAND, 5 * DAY_MS + hour * HOUR_MS);
    expect([monday(3), monday(12), monday(20), monday(23)]).toEqual([0.2, 1, 3, 1]);
    expect(saturday(20)).toBeCloseTo(4.5);
  });

  it('the same seed gives the same month; another seed another', () => {
    const month = (seed: number) => generateArrivals(DEMAND, 0, 30 * DAY_MS, seededRandom(seed));
    expect(month(3)).toEqual(month(3));
    expect(month(3)).not.toEqual(month(4));
  });
});

/** Every EC2 step takes a fixed time and our worker picks jobs up at once: exact answers. */
const FIXED: Timings = {
  launch: [30_000, 30_000],
  password: [270_000, 270_000],
  start: [60_000, 60_000],
  stop: [45_000, 45_000],
  terminate: [45_000, 45_000],
  snapshot: [60_000, 60_000],
};
const NO_PICKUP = { pickupMaxMs: 0, pollMs: 10_000, replenishEveryMs: 5 * 60_000 };

function run(arrivals: Arrival[], warm: number, hot: number, days = 10) {
  return simulatePool({
    arrivals,
    setting: { warm: { legend: warm }, hot: { legend: hot } },
    startMs: -DAY_MS,
    fromMs: 0,
    toMs: days * DAY_MS,
    random: seededRandom(1),
    timings: FIXED,
    worker: NO_PICKUP,
  });
}

describe('the event loop', () => {
  it('a pool with no demand costs its spares × the hours: hot ones running, warm ones stopped', () => {
    // With no claims the rule keeps one hot spare, whatever POOL_HOT allows.
    const result = run([], 3, 4);
    expect(result.purchases).toBe(0);
    expect(result.runningHours).toBeCloseTo(1 * 240, 6);
    expect(result.stoppedHours).toBeCloseTo(3 * 240, 6);
    const dollarsPerHourHot = 0.76;
    expect(result.idleRupees).toBeGreaterThan(240 * dollarsPerHourHot * 88);
  });

  it('a spare launched inside the window is charged its first boot as running time', () => {
    // No warm-up: the three warm spares launch at 0 and run 30 + 270 s, seen stopped at the
    // check after the 45 s stop, and wait stopped for the rest of the day.
    const result = simulatePool({
      arrivals: [],
      setting: { warm: { legend: 3 }, hot: {} },
      startMs: 0,
      fromMs: 0,
      toMs: DAY_MS,
      random: seededRandom(1),
      timings: FIXED,
      worker: NO_PICKUP,
    });
    const runningMs = 300_000 + 45_000;
    expect(result.runningHours).toBeCloseTo((3 * runningMs) / HOUR_MS, 6);
    expect(result.stoppedHours).toBeCloseTo((3 * (DAY_MS - runningMs)) / HOUR_MS, 6);
  });

  const oneArrival: Arrival[] = [{ atMs: 2 * DAY_MS, planId: 'legend' }];

  it('a single purchase with a hot spare waiting is connectable at the first re-check', () => {
    const result = run(oneArrival, 1, 1);
    expect(result.served).toEqual({ hot: 1, warm: 0, cold: 0 });
    expect(result.connectMs).toEqual([10_000]);
  });

  it('with only a warm spare it waits for the start, seen at the re-check after it', () => {
    const result = run(oneArrival, 1, 0);
    expect(result.served).toEqual({ hot: 0, warm: 1, cold: 0 });
    expect(result.connectMs).toEqual([60_000]);
  });

  it('with no spare it waits for a launch and Windows’ first boot', () => {
    const result = run(oneArrival, 0, 0);
    expect(result.served).toEqual({ hot: 0, warm: 0, cold: 1 });
    expect(result.connectMs).toEqual([300_000]);
    expect(result.runningHours).toBe(0);
  });

  it('a claimed spare stops costing at the claim; its replacements run through their first boot', () => {
    const result = run(oneArrival, 1, 0);
    // The top-up that follows the claim launches two at once (with a claim in the last hour
    // another purchase may come while one boots): 30 + 270 s of first boot and a 45 s stop,
    // running; then stopped, like the one claimed was for the two days before.
    const runningMs = 300_000 + 45_000;
    expect(result.runningHours).toBeCloseTo((2 * runningMs) / HOUR_MS, 6);
    expect(result.stoppedHours).toBeCloseTo(48 + 2 * (192 - runningMs / HOUR_MS), 6);
  });

  it('two purchases a minute apart with one warm spare: the second launches cold', () => {
    const result = run(
      [
        { atMs: 2 * DAY_MS, planId: 'legend' },
        { atMs: 2 * DAY_MS + 60_000, planId: 'legend' },
      ],
      1,
      0,
    );
    expect(result.served).toEqual({ hot: 0, warm: 1, cold: 1 });
  });

  it('the model of each path alone matches the fixed EC2 times', () => {
    const random = seededRandom(2);
    expect(connectableAt('hot', 0, random, FIXED, NO_PICKUP)).toBe(10_000);
    expect(connectableAt('warm', 0, random, FIXED, NO_PICKUP)).toBe(60_000);
    expect(connectableAt('cold', 0, random, FIXED, NO_PICKUP)).toBe(300_000);
  });
});

describe('the coverage bound', () => {
  it('is the busiest hours holding the share, per purchase', () => {
    // A flat demand of one plan, one purchase an hour: covering all of them takes every hour.
    const flat: Demand = {
      baseRatePerHour: { legend: 1 },
      peak: { fromHour: 0, toHour: 0, multiplier: 1 },
      night: { fromHour: 0, toHour: 0, multiplier: 1 },
      weekendMultiplier: 1,
    };
    expect(purchasesPerWeek(flat)).toBe(168);
    expect(hotCoverageLowerBound(flat, 1)).toBe(1);
    expect(hotCoverageLowerBound(flat, 0.5)).toBe(0.5);
    // Ten times the demand: a tenth of the hours per purchase.
    expect(hotCoverageLowerBound(DEMAND, 0.95) / 10).toBeCloseTo(
      hotCoverageLowerBound(
        { ...DEMAND, baseRatePerHour: { legend: 4, 'pro-legend': 1.6, 'ultra-legend': 0.8 } },
        0.95,
      ),
      6,
    );
  });
});
