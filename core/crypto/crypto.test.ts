import { describe, expect, it } from 'vitest';
import {
  decrypt,
  DecryptError,
  encrypt,
  hashCode,
  hashToken,
  randomDigits,
  randomToken,
  safeEqual,
} from './crypto.ts';

const SECRET = 'a-test-secret-that-is-long-enough-000000';

describe('encrypt / decrypt', () => {
  it('round-trips text, with a fresh IV every time', () => {
    const a = encrypt(SECRET, 'totp-secret', 'JBSWY3DPEHPK3PXP');
    const b = encrypt(SECRET, 'totp-secret', 'JBSWY3DPEHPK3PXP');
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(decrypt(SECRET, 'totp-secret', a)).toBe('JBSWY3DPEHPK3PXP');
    expect(decrypt(SECRET, 'x', encrypt(SECRET, 'x', 'ünïcødé ✓'))).toBe('ünïcødé ✓');
  });

  it('does not open under another purpose or another secret, or when tampered with', () => {
    const sealed = encrypt(SECRET, 'totp-secret', 'hello');
    expect(() => decrypt(SECRET, 'windows-password', sealed)).toThrow(DecryptError);
    expect(() => decrypt(`${SECRET}x`, 'totp-secret', sealed)).toThrow(DecryptError);
    const tampered = `${sealed.slice(0, -2)}${sealed.endsWith('A') ? 'B' : 'A'}A`;
    expect(() => decrypt(SECRET, 'totp-secret', tampered)).toThrow(DecryptError);
    expect(() => decrypt(SECRET, 'totp-secret', 'v2.abc')).toThrow(DecryptError);
    expect(() => decrypt(SECRET, 'totp-secret', 'v1.')).toThrow(DecryptError);
  });
});

describe('tokens and codes', () => {
  it('makes URL-safe tokens of 256 bits and uniform digit strings', () => {
    expect(randomToken()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomDigits(6)).toMatch(/^\d{6}$/);
  });

  it('hashes tokens with SHA-256 and codes with a keyed, purpose-bound HMAC', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const code = hashCode(SECRET, 'otp-register', 'a@b.co\n123456');
    expect(code).toMatch(/^[0-9a-f]{64}$/);
    expect(hashCode(SECRET, 'otp-login', 'a@b.co\n123456')).not.toBe(code);
    expect(hashCode(`${SECRET}x`, 'otp-register', 'a@b.co\n123456')).not.toBe(code);
  });

  it('compares safely', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});
