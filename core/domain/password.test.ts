import { describe, expect, it } from 'vitest';
import {
  PASSWORD_MAX_LENGTH,
  PASSWORD_MESSAGE,
  PASSWORD_RULES,
  PASSWORD_TOO_LONG_MESSAGE,
  isValidPassword,
  passwordChecklist,
  passwordProblem,
} from './password.ts';

describe('password policy', () => {
  it('shows the checklist with the spec’s words, en dashes included, the special line widened', () => {
    expect(PASSWORD_RULES.map((rule) => rule.label)).toEqual([
      'Minimum 10 Characters',
      'At least Uppercase letter (A\u2013Z)',
      'At least Lowercase letter (a\u2013z)',
      'Minimum one Number (0\u20139)',
      'At least one Special Character (any symbol, e.g. @ # $ ! _ -)',
      `Maximum ${PASSWORD_MAX_LENGTH} Characters`,
    ]);
    expect(PASSWORD_MAX_LENGTH).toBe(128);
  });

  it('accepts a password meeting every rule', () => {
    expect(isValidPassword('Abcdefgh1!')).toBe(true);
    expect(passwordChecklist('Abcdefgh1!').every((check) => check.passed)).toBe(true);
    expect(passwordProblem('Abcdefgh1!')).toBeNull();
  });

  it.each([
    ['Abcdefg1!', 'length'],
    ['abcdefgh1!', 'uppercase'],
    ['ABCDEFGH1!', 'lowercase'],
    ['Abcdefghi!', 'number'],
    ['Abcdefghi1', 'special'],
    ['Abcdefgh12', 'special'],
    ['Abcdéfgh12', 'special'],
  ])('refuses %j, failing only %s', (password, failing) => {
    const failed = passwordChecklist(password).filter((check) => !check.passed);
    expect(failed.map((check) => check.id)).toEqual([failing]);
    expect(isValidPassword(password)).toBe(false);
    expect(passwordProblem(password)).toBe(PASSWORD_MESSAGE);
  });

  it('fails every line but the maximum for an empty password', () => {
    expect(passwordChecklist('').map((check) => check.passed)).toEqual([
      false,
      false,
      false,
      false,
      false,
      true,
    ]);
  });

  it.each(['@', '$', '!', '%', '*', '?', '&', '#', '_', '-', '.', ' ', '€'])(
    'counts %j as a special character',
    (special) => {
      expect(isValidPassword(`Abcdefgh1${special}`)).toBe(true);
    },
  );

  it('accepts "Ravi#Cloud2026": # is a special character like any non-alphanumeric', () => {
    expect(isValidPassword('Ravi#Cloud2026')).toBe(true);
  });

  it('allows characters beyond the checklist, such as spaces and #', () => {
    expect(isValidPassword('Correct horse #1 battery!')).toBe(true);
  });

  it('counts characters, not UTF-16 units, for the minimum length', () => {
    // Nine characters, one of them an emoji taking two UTF-16 units.
    expect(passwordChecklist('Ab1!😀xyzw')[0]?.passed).toBe(false);
  });

  it('refuses passwords longer than the maximum with their own message', () => {
    const atMax = `Aa1!${'x'.repeat(PASSWORD_MAX_LENGTH - 4)}`;
    expect(isValidPassword(atMax)).toBe(true);
    expect(isValidPassword(`${atMax}x`)).toBe(false);
    expect(passwordProblem(`${atMax}x`)).toBe(PASSWORD_TOO_LONG_MESSAGE);
    expect(PASSWORD_TOO_LONG_MESSAGE).toBe('Password must be at most 128 characters.');
  });

  it('ticks off the maximum-length line only for a password within it', () => {
    const long = `Aa1!${'x'.repeat(300)}`;
    const failed = passwordChecklist(long).filter((check) => !check.passed);
    expect(failed.map((check) => check.id)).toEqual(['maxLength']);
    expect(passwordProblem(long)).toBe(PASSWORD_TOO_LONG_MESSAGE);
  });

  it('says "Enter a valid Password"', () => {
    expect(PASSWORD_MESSAGE).toBe('Enter a valid Password');
  });
});
