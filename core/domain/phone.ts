/**
 * Indian mobile numbers as the product keeps them: 10 digits, the first 6 to 9 (spec §5, §9).
 * People type and paste them in many shapes ("+91 98765-43210", "098765 43210", "0091…"): every
 * phone field accepts those and the server stores the 10 digits, so server and forms agree.
 */
export const PHONE_PATTERN = /^[6-9]\d{9}$/;

export const PHONE_MESSAGE = 'Enter a valid 10-digit phone number starting with 6-9.';

/**
 * The longest input looked at: "+91 98765 43210" with room for more separators. Longer is
 * refused with PHONE_MESSAGE, never cut: cutting a pasted number is what made a wrong one.
 */
export const PHONE_INPUT_MAX_LENGTH = 24;

// Spaces (incl. no-break), dashes (ASCII and Unicode), dots, slashes and brackets people write between digit groups.
const SEPARATORS = /[\s\u00a0\-\u2010-\u2015\u2212./()]/g;

/**
 * The 10 stored digits of a number as typed or pasted, or null when it is not an Indian mobile
 * number. Accepts the country code (+91, 0091, or 91 before ten more digits) and the trunk
 * prefix 0, with spaces, dashes, dots or brackets anywhere.
 */
export function phoneDigits(value: string): string | null {
  if (value.length > PHONE_INPUT_MAX_LENGTH) return null;
  let digits = value.trim().replace(SEPARATORS, '');
  if (digits.startsWith('+91')) digits = digits.slice(3);
  else if (digits.startsWith('0091')) digits = digits.slice(4);
  else if (digits.length === 12 && digits.startsWith('91')) digits = digits.slice(2);
  else if (digits.length === 11 && digits.startsWith('0')) digits = digits.slice(1);
  return PHONE_PATTERN.test(digits) ? digits : null;
}

export function isValidPhone(value: string): boolean {
  return phoneDigits(value) !== null;
}
