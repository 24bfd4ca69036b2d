/**
 * Money is integer paise everywhere (₹1 = 100 paise). Formatting is done by hand rather than
 * with Intl so the text is identical in every browser and on the server, and so amounts
 * beyond what a float shows exactly still print every paisa.
 */

export const PAISE_PER_RUPEE = 100;

/** Throws unless the value is a whole number of paise (a float here is always a bug upstream). */
export function assertPaise(value: number, what = 'amount'): void {
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`${what} must be a whole number of paise, got ${value}`);
  }
}

export function rupeesToPaise(rupees: number): number {
  const paise = Math.round(rupees * PAISE_PER_RUPEE);
  assertPaise(paise);
  return paise;
}

/** n / d rounded to the nearest integer, halves away from zero, exactly (n, d safe integers, d > 0). */
export function divideRounded(n: number, d: number): number {
  const sign = n < 0 ? -1 : 1;
  const abs = Math.abs(n);
  const quotient = Math.floor(abs / d);
  const remainder = abs - quotient * d;
  return sign * (remainder * 2 >= d ? quotient + 1 : quotient);
}

function groupIndian(digits: string): string {
  // Indian grouping: the last three digits, then pairs (1,00,000 is one lakh).
  if (digits.length <= 3) return digits;
  const head = digits.slice(0, -3);
  const tail = digits.slice(-3);
  return `${head.replace(/\B(?=(\d{2})+$)/g, ',')},${tail}`;
}

function splitPaise(paise: number): { sign: string; rupees: string; paise: string } {
  assertPaise(paise);
  const abs = Math.abs(paise);
  return {
    sign: paise < 0 ? '-' : '',
    rupees: String(Math.floor(abs / PAISE_PER_RUPEE)),
    paise: String(abs % PAISE_PER_RUPEE).padStart(2, '0'),
  };
}

/** "₹1,450.00", "₹1,00,000.00", "-₹200.00": rupee sign, Indian grouping, two decimals. */
export function formatRupees(paise: number): string {
  const parts = splitPaise(paise);
  return `${parts.sign}₹${groupIndian(parts.rupees)}.${parts.paise}`;
}

/** The `amount` PayU expects and echoes back: "1450.00", two decimals, no grouping. */
export function formatAmountForPayU(paise: number): string {
  if (paise <= 0) throw new RangeError(`A payment amount must be positive, got ${paise}`);
  const parts = splitPaise(paise);
  return `${parts.rupees}.${parts.paise}`;
}

const RUPEE_AMOUNT = /^(\d{1,13})(?:\.(\d{1,2}))?$/;

/**
 * Reads a rupee amount such as PayU's "1450.00" (or "1450", "1450.5") back into paise, for
 * comparing a callback's amount with our payment row. Anything else (signs, grouping,
 * exponents, three decimals) is `null` rather than a guess.
 */
export function parseRupeeAmount(text: string): number | null {
  const match = RUPEE_AMOUNT.exec(text.trim());
  if (!match) return null;
  const rupees = Number(match[1]);
  const paise = Number((match[2] ?? '').padEnd(2, '0'));
  return rupees * PAISE_PER_RUPEE + paise;
}
