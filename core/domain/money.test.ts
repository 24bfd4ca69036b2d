import { describe, expect, it } from 'vitest';
import {
  divideRounded,
  formatAmountForPayU,
  formatRupees,
  parseRupeeAmount,
  rupeesToPaise,
} from './money.ts';

describe('formatRupees', () => {
  it.each([
    [0, '₹0.00'],
    [5, '₹0.05'],
    [99, '₹0.99'],
    [100, '₹1.00'],
    [4000, '₹40.00'],
    [99_999, '₹999.99'],
    [145_000, '₹1,450.00'],
    [1_099_900, '₹10,999.00'],
    [10_000_000, '₹1,00,000.00'],
    [123_456_789, '₹12,34,567.89'],
    [1_000_000_000, '₹1,00,00,000.00'],
    [-20_000, '-₹200.00'],
  ])('formats %i paise as %s', (paise, text) => {
    expect(formatRupees(paise)).toBe(text);
  });

  it('agrees with Intl en-IN currency formatting', () => {
    const intl = new Intl.NumberFormat('en-IN', { style: 'currency', currency: 'INR' });
    for (const paise of [1, 12_345, 145_000, 10_000_000, 987_654_321, 12_345_678_901]) {
      expect(formatRupees(paise)).toBe(intl.format(paise / 100));
    }
  });

  it('refuses fractions of a paisa', () => {
    expect(() => formatRupees(1450.5)).toThrow(RangeError);
    expect(() => formatRupees(Number.NaN)).toThrow(RangeError);
  });
});

describe('PayU amounts', () => {
  it('formats two decimals with no grouping', () => {
    expect(formatAmountForPayU(145_000)).toBe('1450.00');
    expect(formatAmountForPayU(1_099_900)).toBe('10999.00');
    expect(formatAmountForPayU(4005)).toBe('40.05');
    expect(formatAmountForPayU(10_000_000)).toBe('100000.00');
  });

  it('refuses amounts that are not a positive number of paise', () => {
    expect(() => formatAmountForPayU(0)).toThrow(RangeError);
    expect(() => formatAmountForPayU(-100)).toThrow(RangeError);
    expect(() => formatAmountForPayU(14.5)).toThrow(RangeError);
  });

  it('reads amounts back into paise', () => {
    expect(parseRupeeAmount('1450.00')).toBe(145_000);
    expect(parseRupeeAmount('1450')).toBe(145_000);
    expect(parseRupeeAmount('1450.5')).toBe(145_050);
    expect(parseRupeeAmount(' 40.05 ')).toBe(4005);
  });

  it.each(['', '1,450.00', '-1450.00', '+1450', '1e3', '1450.001', '.50', '1450.', 'abc'])(
    'does not guess at %j',
    (text) => {
      expect(parseRupeeAmount(text)).toBeNull();
    },
  );

  it('round-trips every amount it formats', () => {
    for (const paise of [1, 99, 100, 145_000, 1_099_900, 123_456_789]) {
      expect(parseRupeeAmount(formatAmountForPayU(paise))).toBe(paise);
    }
  });
});

describe('arithmetic helpers', () => {
  it('converts rupees to paise without float residue', () => {
    expect(rupeesToPaise(1450)).toBe(145_000);
    expect(rupeesToPaise(0.29)).toBe(29);
    expect(rupeesToPaise(1.005 * 1000)).toBe(100_500);
  });

  it('rounds a division to the nearest integer, halves away from zero', () => {
    expect(divideRounded(10, 4)).toBe(3);
    expect(divideRounded(9, 4)).toBe(2);
    expect(divideRounded(11, 4)).toBe(3);
    expect(divideRounded(-10, 4)).toBe(-3);
    expect(divideRounded(0, 7)).toBe(0);
  });
});
