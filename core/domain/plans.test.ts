import { describe, expect, it } from 'vitest';
import { formatAmountForPayU } from './money.ts';
import {
  CARD_PLANS,
  DURATIONS,
  PLANS,
  PLAN_IDS,
  addOneMonth,
  findPlan,
  formatRupees,
  getPlan,
  isDuration,
  isPlanId,
  planExpiry,
  priceFor,
} from './plans.ts';

// Spec §9, in rupees, copied from the table rather than derived from the catalogue.
const PRICE_TABLE = {
  LEGEND: [1450, 1830, 2685, 3500],
  'PRO LEGEND': [1899, 2699, 3699, 4899],
  'ULTRA LEGEND': [2299, 2799, 3299, 4299],
  'EDITOR LOW': [3199, 4000, 4999, 5999],
  'EDITOR HIGH': [4199, 5199, 7899, 10999],
} as const;

describe('plan catalogue', () => {
  it('sells 30, 45, 65 and 90 hours', () => {
    expect(DURATIONS).toEqual([30, 45, 65, 90]);
  });

  it.each(
    Object.entries(PRICE_TABLE).flatMap(([plan, prices]) =>
      DURATIONS.map((hours, index) => [plan, hours, prices[index]!] as const),
    ),
  )('prices %s for %i hours at ₹%i', (plan, hours, rupees) => {
    expect(priceFor(plan, hours)).toBe(rupees * 100);
  });

  it('holds exactly the five plans of the price table, each with a price for every duration', () => {
    expect(PLANS.map((plan) => plan.displayName)).toEqual(Object.keys(PRICE_TABLE));
    expect(PLANS.map((plan) => plan.id)).toEqual([...PLAN_IDS]);
    for (const plan of PLANS) {
      expect(Object.keys(plan.pricesPaise).map(Number)).toEqual([...DURATIONS]);
      for (const paise of Object.values(plan.pricesPaise)) expect(Number.isSafeInteger(paise)).toBe(true);
    }
  });

  it('offers LEGEND, PRO LEGEND and ULTRA LEGEND as cards, in that order, and not the editor plans', () => {
    expect(CARD_PLANS.map((plan) => plan.displayName)).toEqual(['LEGEND', 'PRO LEGEND', 'ULTRA LEGEND']);
    expect(getPlan('editor-low').offeredInCards).toBe(false);
    expect(getPlan('editor-high').offeredInCards).toBe(false);
  });

  it('includes the storage of spec §9 per month', () => {
    expect(PLANS.map((plan) => [plan.id, plan.storageGb])).toEqual([
      ['legend', 115],
      ['pro-legend', 225],
      ['ultra-legend', 225],
      ['editor-low', 225],
      ['editor-high', 450],
    ]);
  });

  it('runs each card plan on its EC2 instance type and RAM of spec §1 and §9', () => {
    expect(getPlan('legend')).toMatchObject({ instanceType: 'g4dn.xlarge', ramGb: 16 });
    expect(getPlan('pro-legend')).toMatchObject({ instanceType: 'g4dn.2xlarge', ramGb: 32 });
    expect(getPlan('ultra-legend')).toMatchObject({ instanceType: 'g5.xlarge', ramGb: 16 });
  });

  it('names every plan twice: as the spec writes it and in title case', () => {
    expect(PLANS.map((plan) => plan.name)).toEqual([
      'Legend',
      'Pro Legend',
      'Ultra Legend',
      'Editor Low',
      'Editor High',
    ]);
    for (const plan of PLANS) {
      expect(plan.name.toUpperCase()).toBe(plan.displayName);
      expect(plan.description.length).toBeGreaterThan(20);
      expect(plan.gpu).not.toBe('');
    }
  });
});

describe('finding plans and prices', () => {
  it.each([
    'LEGEND',
    'legend',
    ' Legend ',
    'PRO LEGEND',
    'Pro Legend',
    'pro-legend',
    'pro_legend',
    'PRO  LEGEND',
  ])('finds %j leniently', (text) => {
    expect(findPlan(text)?.id).toBe(text.toLowerCase().includes('pro') ? 'pro-legend' : 'legend');
  });

  it('finds nothing for unknown names', () => {
    expect(findPlan('MEGA LEGEND')).toBeUndefined();
    expect(findPlan('Trial')).toBeUndefined();
    expect(findPlan('')).toBeUndefined();
  });

  it('has no price for a duration outside the catalogue or an unknown plan', () => {
    expect(priceFor('LEGEND', 60)).toBeNull();
    expect(priceFor('LEGEND', 1)).toBeNull();
    expect(priceFor('LEGEND', 30.5)).toBeNull();
    expect(priceFor('GOLD', 30)).toBeNull();
  });

  it('accepts the ids as ids and the durations as durations', () => {
    expect(isPlanId('ultra-legend')).toBe(true);
    expect(isPlanId('ULTRA LEGEND')).toBe(false);
    expect(isDuration(65)).toBe(true);
    expect(isDuration('65')).toBe(false);
    expect(isDuration(60)).toBe(false);
  });

  it('formats catalogue prices for the screen and for PayU', () => {
    expect(formatRupees(priceFor('LEGEND', 30)!)).toBe('₹1,450.00');
    expect(formatRupees(priceFor('EDITOR HIGH', 90)!)).toBe('₹10,999.00');
    expect(formatAmountForPayU(priceFor('PRO LEGEND', 45)!)).toBe('2699.00');
  });
});

describe('plan validity', () => {
  it('runs one calendar month, keeping the time of day', () => {
    expect(addOneMonth('2026-03-15T14:30:00+05:30').toISOString()).toBe(
      new Date('2026-04-15T14:30:00+05:30').toISOString(),
    );
    expect(planExpiry('2026-12-22T09:00:00+05:30').toISOString()).toBe(
      new Date('2027-01-22T09:00:00+05:30').toISOString(),
    );
  });

  it('clamps to the end of a shorter month', () => {
    expect(addOneMonth('2026-01-31T10:00:00+05:30')).toEqual(new Date('2026-02-28T10:00:00+05:30'));
    expect(addOneMonth('2028-01-31T10:00:00+05:30')).toEqual(new Date('2028-02-29T10:00:00+05:30'));
    expect(addOneMonth('2026-03-31T10:00:00+05:30')).toEqual(new Date('2026-04-30T10:00:00+05:30'));
    expect(addOneMonth('2026-01-29T10:00:00+05:30')).toEqual(new Date('2026-02-28T10:00:00+05:30'));
    expect(addOneMonth('2026-02-28T10:00:00+05:30')).toEqual(new Date('2026-03-28T10:00:00+05:30'));
  });

  it('counts the month on the Indian calendar, whatever the UTC date', () => {
    // 31 January 02:00 in India is still 30 January in UTC; the customer bought on the 31st.
    expect(addOneMonth('2026-01-31T02:00:00+05:30')).toEqual(new Date('2026-02-28T02:00:00+05:30'));
    // 30 April 23:00 in India: the next month has a 30th, so 30 May.
    expect(addOneMonth('2026-04-30T23:00:00+05:30')).toEqual(new Date('2026-05-30T23:00:00+05:30'));
  });

  it('crosses the year end', () => {
    expect(addOneMonth('2026-12-31T23:59:59+05:30')).toEqual(new Date('2027-01-31T23:59:59+05:30'));
  });

  it('keeps milliseconds and accepts every kind of instant', () => {
    const start = new Date('2026-05-10T08:00:00.123+05:30');
    const expected = new Date('2026-06-10T08:00:00.123+05:30');
    expect(addOneMonth(start)).toEqual(expected);
    expect(addOneMonth(start.getTime())).toEqual(expected);
    expect(addOneMonth(start.toISOString())).toEqual(expected);
  });
});
