/** Indian mobile numbers as the product accepts them: 10 digits, the first 6 to 9 (spec §5, §9). */
export const PHONE_PATTERN = /^[6-9]\d{9}$/;

export const PHONE_MESSAGE = 'Enter a valid 10-digit phone number starting with 6-9.';

export function isValidPhone(value: string): boolean {
  return PHONE_PATTERN.test(value);
}

/** What the phone inputs keep of what is typed or pasted: trimmed, at most 10 characters. */
export function normalisePhoneInput(value: string): string {
  return value.trim().slice(0, 10);
}
