import { describe, expect, it } from 'vitest';
import { formatInvoiceDate, formatInvoiceTotal } from './invoiceFormat.ts';

describe('invoice formatting (spec §3 Invoice)', () => {
  it('shows the total as rupees with two decimals, 0.00 when it is not a number', () => {
    expect(formatInvoiceTotal(1830)).toBe('₹1,830.00');
    expect(formatInvoiceTotal(26.99)).toBe('₹26.99');
    expect(formatInvoiceTotal('45')).toBe('₹45.00');
    expect(formatInvoiceTotal('abc')).toBe('₹0.00');
    expect(formatInvoiceTotal(null)).toBe('₹0.00');
  });

  it('shows a missing or unreadable date as a dash', () => {
    expect(formatInvoiceDate('2026-11-22T10:00:00.000Z')).toBe('22 November 2026');
    expect(formatInvoiceDate(null)).toBe('—');
    expect(formatInvoiceDate('soon')).toBe('—');
  });
});
