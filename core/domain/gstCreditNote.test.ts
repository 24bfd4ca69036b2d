import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatCreditNoteNumber, GST_SERIAL_MAX_LENGTH, splitCreditNote, splitGst } from './gst.ts';

describe('credit note tax', () => {
  it('a full refund credits exactly the tax the invoice charged, intra-state and inter-state', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50_000_00 }),
        fc.constantFrom('29', '27'),
        (total, customerState) => {
          const invoice = splitGst({ totalPaise: total, supplierState: '29', customerState });
          const note = splitCreditNote(total, {
            ratePercent: invoice.ratePercent,
            supply: invoice.supply,
            placeOfSupply: invoice.placeOfSupply,
          });
          expect(note).toEqual(invoice);
        },
      ),
    );
  });

  it('a partial refund is carved at the invoice rate and adds up to the paisa', () => {
    const note = splitCreditNote(108_100, {
      ratePercent: 18,
      supply: 'intra-state',
      placeOfSupply: '29-Karnataka',
    });
    expect(note).toMatchObject({ taxablePaise: 91_610, cgstPaise: 8_245, sgstPaise: 8_245, igstPaise: 0 });
    expect(note.taxablePaise + note.cgstPaise + note.sgstPaise + note.igstPaise).toBe(108_100);
    const across = splitCreditNote(108_100, {
      ratePercent: 18,
      supply: 'inter-state',
      placeOfSupply: '27-Maharashtra',
    });
    expect(across).toMatchObject({ taxablePaise: 91_610, cgstPaise: 0, sgstPaise: 0, igstPaise: 16_490 });
  });

  it('refuses a credit note for nothing', () => {
    expect(() => splitCreditNote(0, { ratePercent: 18, supply: 'intra-state', placeOfSupply: '29' })).toThrow(
      RangeError,
    );
  });
});

describe('credit note numbers', () => {
  it('are CN/<year>/<six digits>, within the sixteen characters the CGST Rules allow', () => {
    expect(formatCreditNoteNumber('2026-27', 1)).toBe('CN/26-27/000001');
    expect(formatCreditNoteNumber('2026-27', 1).length).toBeLessThanOrEqual(GST_SERIAL_MAX_LENGTH);
    expect(formatCreditNoteNumber('2026-27', 1_234_567)).toBe('CN/26-27/1234567');
    expect(() => formatCreditNoteNumber('2026-27', 12_345_678)).toThrow(/16 characters/);
    expect(() => formatCreditNoteNumber('2026-27', 0)).toThrow(RangeError);
    expect(() => formatCreditNoteNumber('26-27', 1)).toThrow(RangeError);
  });
});
