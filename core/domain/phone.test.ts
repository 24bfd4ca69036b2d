import { describe, expect, it } from 'vitest';
import { isValidPhone, normalisePhoneInput } from './phone.ts';

describe('phone numbers', () => {
  it.each(['6000000000', '7999999999', '8123456789', '9876543210'])('accepts %s', (phone) => {
    expect(isValidPhone(phone)).toBe(true);
  });

  it.each(['5876543210', '987654321', '98765432100', '98765 4321', '+919876543210', '', 'abcdefghij'])(
    'refuses %j',
    (phone) => {
      expect(isValidPhone(phone)).toBe(false);
    },
  );

  it('keeps at most ten characters of what is typed, trimmed', () => {
    expect(normalisePhoneInput('  98765432109 ')).toBe('9876543210');
    expect(normalisePhoneInput(' 987 ')).toBe('987');
  });
});
