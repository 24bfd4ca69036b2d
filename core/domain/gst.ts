/**
 * GST on invoices. Plan prices are GST-inclusive: the price is the invoice total
 * and the tax is carved out of it, so the customer pays exactly the catalogue price.
 */
import { assertPaise, divideRounded } from './money.ts';
import { indiaDate, type Instant } from './time.ts';

export const DEFAULT_GST_RATE_PERCENT = 18;

/** States and union territories with their GST state codes, for the place of supply. */
export const INDIAN_STATES = [
  { code: '01', name: 'Jammu and Kashmir' },
  { code: '02', name: 'Himachal Pradesh' },
  { code: '03', name: 'Punjab' },
  { code: '04', name: 'Chandigarh' },
  { code: '05', name: 'Uttarakhand' },
  { code: '06', name: 'Haryana' },
  { code: '07', name: 'Delhi' },
  { code: '08', name: 'Rajasthan' },
  { code: '09', name: 'Uttar Pradesh' },
  { code: '10', name: 'Bihar' },
  { code: '11', name: 'Sikkim' },
  { code: '12', name: 'Arunachal Pradesh' },
  { code: '13', name: 'Nagaland' },
  { code: '14', name: 'Manipur' },
  { code: '15', name: 'Mizoram' },
  { code: '16', name: 'Tripura' },
  { code: '17', name: 'Meghalaya' },
  { code: '18', name: 'Assam' },
  { code: '19', name: 'West Bengal' },
  { code: '20', name: 'Jharkhand' },
  { code: '21', name: 'Odisha' },
  { code: '22', name: 'Chhattisgarh' },
  { code: '23', name: 'Madhya Pradesh' },
  { code: '24', name: 'Gujarat' },
  { code: '26', name: 'Dadra and Nagar Haveli and Daman and Diu' },
  { code: '27', name: 'Maharashtra' },
  { code: '29', name: 'Karnataka' },
  { code: '30', name: 'Goa' },
  { code: '31', name: 'Lakshadweep' },
  { code: '32', name: 'Kerala' },
  { code: '33', name: 'Tamil Nadu' },
  { code: '34', name: 'Puducherry' },
  { code: '35', name: 'Andaman and Nicobar Islands' },
  { code: '36', name: 'Telangana' },
  { code: '37', name: 'Andhra Pradesh' },
  { code: '38', name: 'Ladakh' },
] as const;

export type IndianState = (typeof INDIAN_STATES)[number];

function normaliseStateText(text: string): string {
  return text.trim().toLowerCase().replace(/&/g, 'and').replace(/\s+/g, ' ');
}

/** A state by GST code ("29"), name ("karnataka", any case) or both as invoices print them ("29-Karnataka"). */
export function findIndianState(codeOrName: string): IndianState | undefined {
  const text = normaliseStateText(codeOrName);
  const code = /^(\d{1,2})(?:\s*-.*)?$/.exec(text)?.[1]?.padStart(2, '0');
  if (code) return INDIAN_STATES.find((state) => state.code === code);
  return INDIAN_STATES.find((state) => state.name.toLowerCase() === text);
}

/** Same state when both name the same state (by code or name); unknown texts are compared as written. */
export function isSameState(a: string, b: string): boolean {
  const stateA = findIndianState(a);
  const stateB = findIndianState(b);
  if (stateA && stateB) return stateA.code === stateB.code;
  return normaliseStateText(a) === normaliseStateText(b);
}

export interface GstInput {
  /** The GST-inclusive total, i.e. the price paid. */
  totalPaise: number;
  ratePercent?: number;
  supplierState: string;
  /**
   * The customer's state when known. When not, the place of supply falls back to
   * `fallbackCustomerState`, itself defaulting to the supplier's state (an intra-state sale).
   */
  customerState?: string | null;
  fallbackCustomerState?: string;
}

export interface GstBreakdown {
  totalPaise: number;
  taxablePaise: number;
  taxPaise: number;
  ratePercent: number;
  /** CGST + SGST within one state, IGST across states. */
  supply: 'intra-state' | 'inter-state';
  placeOfSupply: string;
  cgstPaise: number;
  sgstPaise: number;
  igstPaise: number;
}

function rateBasisPoints(ratePercent: number): number {
  const basisPoints = Math.round(ratePercent * 100);
  if (!(basisPoints >= 0 && basisPoints <= 100_00) || Math.abs(basisPoints - ratePercent * 100) > 1e-6) {
    throw new RangeError(`A GST rate must be a percent 0–100 with at most two decimals, got ${ratePercent}`);
  }
  return basisPoints;
}

/**
 * Splits a GST-inclusive total into taxable value and tax, to the paisa. The taxable value is
 * total ÷ (1 + rate) rounded to the nearest paisa and the tax is the rest, so taxable + tax
 * is always exactly the total. Within a state the tax is halved into CGST and SGST, the odd
 * paisa going to CGST so the halves also add up exactly.
 */
export function splitGst(input: GstInput): GstBreakdown {
  const placeOfSupply = input.customerState?.trim() || input.fallbackCustomerState || input.supplierState;
  return carveGst(
    input.totalPaise,
    input.ratePercent ?? DEFAULT_GST_RATE_PERCENT,
    isSameState(input.supplierState, placeOfSupply) ? 'intra-state' : 'inter-state',
    placeOfSupply,
  );
}

/**
 * The tax in a refund of an invoiced amount, for its credit note: carved out of the refunded
 * (GST-inclusive) amount exactly as `splitGst` carved the invoice, at the invoice's rate and with
 * its kind of supply and place of supply as recorded on it, whatever the configuration says now.
 * A full refund therefore credits exactly the invoice's taxable value and tax.
 */
export function splitCreditNote(
  refundPaise: number,
  invoice: { ratePercent: number; supply: GstBreakdown['supply']; placeOfSupply: string },
): GstBreakdown {
  if (!(refundPaise > 0)) throw new RangeError(`A credit note is for a positive amount, got ${refundPaise}`);
  return carveGst(refundPaise, invoice.ratePercent, invoice.supply, invoice.placeOfSupply);
}

function carveGst(
  totalPaise: number,
  ratePercent: number,
  supply: GstBreakdown['supply'],
  placeOfSupply: string,
): GstBreakdown {
  assertPaise(totalPaise, 'invoice total');
  if (totalPaise < 0) throw new RangeError(`An invoice total cannot be negative, got ${totalPaise}`);
  const basisPoints = rateBasisPoints(ratePercent);
  const scaled = totalPaise * 100_00;
  if (!Number.isSafeInteger(scaled)) throw new RangeError(`Invoice total too large: ${totalPaise}`);

  const taxablePaise = divideRounded(scaled, 100_00 + basisPoints);
  const taxPaise = totalPaise - taxablePaise;
  const intraState = supply === 'intra-state';
  const sgstPaise = intraState ? Math.floor(taxPaise / 2) : 0;
  return {
    totalPaise,
    taxablePaise,
    taxPaise,
    ratePercent,
    supply,
    placeOfSupply,
    cgstPaise: intraState ? taxPaise - sgstPaise : 0,
    sgstPaise,
    igstPaise: intraState ? 0 : taxPaise,
  };
}

/** The Indian financial year (1 April to 31 March, India time) of a date: "2026-27". */
export function financialYear(at: Instant): string {
  const { year, month } = indiaDate(at);
  const startYear = month >= 4 ? year : year - 1;
  return `${startYear}-${String((startYear + 1) % 100).padStart(2, '0')}`;
}

export const INVOICE_PREFIX = 'LC';
const INVOICE_SEQUENCE_DIGITS = 6;

/**
 * "LC/2026-27/000001": prefix, financial year, and the invoice's number within that year,
 * zero-padded to six digits (a seventh digit appears rather than wrapping).
 */
export function formatInvoiceNumber(
  financialYearLabel: string,
  sequence: number,
  prefix = INVOICE_PREFIX,
): string {
  if (!Number.isSafeInteger(sequence) || sequence < 1) {
    throw new RangeError(`An invoice sequence starts at 1, got ${sequence}`);
  }
  return `${prefix}/${financialYearLabel}/${String(sequence).padStart(INVOICE_SEQUENCE_DIGITS, '0')}`;
}

export const CREDIT_NOTE_PREFIX = 'CN';

/**
 * "CN/26-27/000001": a credit note's number, its own consecutive series per financial year. CGST
 * Rules 53(1A)(c) cap the serial number at sixteen characters (letters, digits, "-" and "/"):
 * this form is 15, and 16 past 999,999 credit notes in a year; beyond that it refuses.
 */
export function formatCreditNoteNumber(financialYearLabel: string, sequence: number): string {
  if (!Number.isSafeInteger(sequence) || sequence < 1) {
    throw new RangeError(`A credit note sequence starts at 1, got ${sequence}`);
  }
  const year = /^\d{2}(\d{2})-(\d{2})$/.exec(financialYearLabel);
  if (!year) throw new RangeError(`Not a financial year: ${financialYearLabel}`);
  const number = `${CREDIT_NOTE_PREFIX}/${year[1]}-${year[2]}/${String(sequence).padStart(6, '0')}`;
  if (number.length > GST_SERIAL_MAX_LENGTH) {
    throw new RangeError(`Credit note ${number} would exceed ${GST_SERIAL_MAX_LENGTH} characters`);
  }
  return number;
}

/** CGST Rules 46(b) and 53(1A)(c): a document's serial number has at most sixteen characters. */
export const GST_SERIAL_MAX_LENGTH = 16;
