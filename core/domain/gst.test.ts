import { describe, expect, it } from 'vitest';
import { PLANS } from './plans.ts';
import { TRIAL_OFFERS } from './trial.ts';
import {
  DEFAULT_GST_RATE_PERCENT,
  financialYear,
  findIndianState,
  formatInvoiceNumber,
  isSameState,
  splitGst,
} from './gst.ts';

describe('GST split of an inclusive price', () => {
  it('carves 18% GST out of ₹1,450', () => {
    expect(splitGst({ totalPaise: 145_000, supplierState: 'Karnataka', customerState: 'Karnataka' })).toEqual(
      {
        totalPaise: 145_000,
        taxablePaise: 122_881,
        taxPaise: 22_119,
        ratePercent: 18,
        supply: 'intra-state',
        placeOfSupply: 'Karnataka',
        cgstPaise: 11_060,
        sgstPaise: 11_059,
        igstPaise: 0,
      },
    );
  });

  it('charges IGST across states', () => {
    expect(
      splitGst({ totalPaise: 145_000, supplierState: 'Karnataka', customerState: 'Maharashtra' }),
    ).toMatchObject({
      supply: 'inter-state',
      taxPaise: 22_119,
      cgstPaise: 0,
      sgstPaise: 0,
      igstPaise: 22_119,
    });
  });

  it('adds up exactly over many amounts and rates, each part within half a paisa of the exact value', () => {
    for (const rate of [DEFAULT_GST_RATE_PERCENT, 5, 12, 28, 0.25]) {
      for (let total = 0; total < 30_000; total += 7) {
        const intra = splitGst({
          totalPaise: total,
          ratePercent: rate,
          supplierState: '29',
          customerState: '29',
        });
        expect(intra.taxablePaise + intra.taxPaise).toBe(total);
        expect(intra.cgstPaise + intra.sgstPaise).toBe(intra.taxPaise);
        expect(intra.cgstPaise - intra.sgstPaise).toBeGreaterThanOrEqual(0);
        expect(intra.cgstPaise - intra.sgstPaise).toBeLessThanOrEqual(1);
        expect(Math.abs(intra.taxablePaise - total / (1 + rate / 100))).toBeLessThanOrEqual(0.5 + 1e-9);
        const inter = splitGst({
          totalPaise: total,
          ratePercent: rate,
          supplierState: '29',
          customerState: '27',
        });
        expect(inter.taxablePaise + inter.igstPaise).toBe(total);
      }
    }
  });

  it('adds up exactly for every catalogue and trial price', () => {
    const prices = [
      ...PLANS.flatMap((plan) => Object.values(plan.pricesPaise)),
      ...TRIAL_OFFERS.map((o) => o.pricePaise),
    ];
    for (const totalPaise of prices) {
      const split = splitGst({ totalPaise, supplierState: 'Karnataka' });
      expect(split.taxablePaise + split.cgstPaise + split.sgstPaise).toBe(totalPaise);
    }
  });

  it('treats a total with no tax in it as all taxable', () => {
    expect(splitGst({ totalPaise: 10_000, ratePercent: 0, supplierState: 'Goa' })).toMatchObject({
      taxablePaise: 10_000,
      taxPaise: 0,
    });
    expect(splitGst({ totalPaise: 0, supplierState: 'Goa' })).toMatchObject({ taxablePaise: 0, taxPaise: 0 });
  });

  it('falls back to the configured state, else the supplier’s, when the customer’s is unknown', () => {
    expect(splitGst({ totalPaise: 100, supplierState: 'Karnataka', customerState: null }).supply).toBe(
      'intra-state',
    );
    expect(splitGst({ totalPaise: 100, supplierState: 'Karnataka', customerState: ' ' }).placeOfSupply).toBe(
      'Karnataka',
    );
    expect(
      splitGst({
        totalPaise: 100,
        supplierState: 'Karnataka',
        customerState: undefined,
        fallbackCustomerState: 'Delhi',
      }),
    ).toMatchObject({ supply: 'inter-state', placeOfSupply: 'Delhi' });
  });

  it('refuses bad totals and rates', () => {
    expect(() => splitGst({ totalPaise: 10.5, supplierState: 'Goa' })).toThrow(RangeError);
    expect(() => splitGst({ totalPaise: -1, supplierState: 'Goa' })).toThrow(RangeError);
    expect(() => splitGst({ totalPaise: 100, ratePercent: -18, supplierState: 'Goa' })).toThrow(RangeError);
    expect(() => splitGst({ totalPaise: 100, ratePercent: 18.123, supplierState: 'Goa' })).toThrow(
      RangeError,
    );
  });
});

describe('states', () => {
  it('finds a state by GST code, name or both', () => {
    expect(findIndianState('29')?.name).toBe('Karnataka');
    expect(findIndianState('7')?.name).toBe('Delhi');
    expect(findIndianState(' tamil  nadu ')?.code).toBe('33');
    expect(findIndianState('29-Karnataka')?.code).toBe('29');
    expect(findIndianState('Andaman & Nicobar Islands')?.code).toBe('35');
    expect(findIndianState('Atlantis')).toBeUndefined();
  });

  it('compares states by code or name', () => {
    expect(isSameState('Karnataka', '29')).toBe(true);
    expect(isSameState('KARNATAKA', 'karnataka')).toBe(true);
    expect(isSameState('Karnataka', 'Kerala')).toBe(false);
    expect(isSameState('Somewhere', ' somewhere ')).toBe(true);
  });
});

describe('financial year', () => {
  it('runs from 1 April to 31 March', () => {
    expect(financialYear('2026-04-01T00:00:00+05:30')).toBe('2026-27');
    expect(financialYear('2026-12-31T12:00:00+05:30')).toBe('2026-27');
    expect(financialYear('2027-03-31T23:59:59+05:30')).toBe('2026-27');
    expect(financialYear('2027-04-01T00:00:00+05:30')).toBe('2027-28');
    expect(financialYear('2026-03-31T23:59:59+05:30')).toBe('2025-26');
  });

  it('turns at midnight India time, which is 18:30 UTC on 31 March', () => {
    expect(financialYear('2026-03-31T18:29:59Z')).toBe('2025-26');
    expect(financialYear('2026-03-31T18:30:00Z')).toBe('2026-27');
  });

  it('pads the century turn', () => {
    expect(financialYear('2099-06-01T00:00:00+05:30')).toBe('2099-00');
    expect(financialYear('2008-06-01T00:00:00+05:30')).toBe('2008-09');
  });
});

describe('invoice numbers', () => {
  it('reads LC/financial year/six-digit sequence', () => {
    expect(formatInvoiceNumber('2026-27', 1)).toBe('LC/2026-27/000001');
    expect(formatInvoiceNumber('2026-27', 123_456)).toBe('LC/2026-27/123456');
    expect(formatInvoiceNumber('2026-27', 1_234_567)).toBe('LC/2026-27/1234567');
  });

  it('refuses sequences that are not counting numbers', () => {
    expect(() => formatInvoiceNumber('2026-27', 0)).toThrow(RangeError);
    expect(() => formatInvoiceNumber('2026-27', 1.5)).toThrow(RangeError);
  });

  it('writes the financial year across a century as it is', () => {
    expect(formatInvoiceNumber('2099-00', 7)).toBe('LC/2099-00/000007');
  });
});
