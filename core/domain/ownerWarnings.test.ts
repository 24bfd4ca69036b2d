import { describe, expect, it } from 'vitest';
import {
  shouldWarnOfPasswordGuesses,
  shouldWarnOfUnfinishedSignIns,
  UNFINISHED_SIGN_INS_BEFORE_WARNING,
  WRONG_CURRENT_PASSWORDS_BEFORE_WARNING,
} from './ownerWarnings.ts';

describe('warning an owner', () => {
  it('after five wrong current passwords within the hour, not before', () => {
    expect(WRONG_CURRENT_PASSWORDS_BEFORE_WARNING).toBe(5);
    expect(shouldWarnOfPasswordGuesses(4)).toBe(false);
    expect(shouldWarnOfPasswordGuesses(5)).toBe(true);
    expect(shouldWarnOfPasswordGuesses(9)).toBe(true);
  });

  it('after three unfinished sign-ins with the password from strange addresses, not before', () => {
    expect(UNFINISHED_SIGN_INS_BEFORE_WARNING).toBe(3);
    expect(shouldWarnOfUnfinishedSignIns(2)).toBe(false);
    expect(shouldWarnOfUnfinishedSignIns(3)).toBe(true);
  });
});
