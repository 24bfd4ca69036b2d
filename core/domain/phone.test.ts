import { describe, expect, it } from 'vitest';
import { isValidPhone, PHONE_INPUT_MAX_LENGTH, phoneDigits } from './phone.ts';

describe('phone numbers', () => {
  it.each(['6000000000', '7999999999', '8123456789', '9876543210'])('accepts %s as it is', (phone) => {
    expect(isValidPhone(phone)).toBe(true);
    expect(phoneDigits(phone)).toBe(phone);
  });

  it.each([
    '+919876543210',
    '+91 98765 43210',
    '+91-98765-43210',
    '+91 (98765) 43210',
    '0091 98765 43210',
    '919876543210',
    '09876543210',
    '098765-43210',
    ' 98765 43210 ',
    '98765\u00a043210',
    '98765\u201343210',
    '987.654.3210',
  ])('reads %j as the ten digits 9876543210', (typed) => {
    expect(phoneDigits(typed)).toBe('9876543210');
  });

  it.each([
    '5876543210',
    '987654321',
    '98765432100',
    '+9198765432',
    '+1 9876543210',
    '+91987654321099',
    '0 0 9876543210',
    '',
    'abcdefghij',
    '98765x43210',
    '91987654321',
  ])('refuses %j', (phone) => {
    expect(isValidPhone(phone)).toBe(false);
    expect(phoneDigits(phone)).toBeNull();
  });

  it('refuses, never cuts, an input longer than any way of writing a number', () => {
    const long = `+91 98765 43210${' '.repeat(PHONE_INPUT_MAX_LENGTH)}`;
    expect(phoneDigits(long)).toBeNull();
  });
});
