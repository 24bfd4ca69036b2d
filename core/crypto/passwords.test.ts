import { describe, expect, it } from 'vitest';
import { hashPassword, passwordNeedsRehash, verifyPassword } from './passwords.ts';

describe('passwords', () => {
  it('verifies the right password, refuses a wrong one, and answers false with no hash', async () => {
    const hash = await hashPassword('correct horse battery');
    await expect(verifyPassword(hash, 'correct horse battery')).resolves.toBe(true);
    await expect(verifyPassword(hash, 'wrong')).resolves.toBe(false);
    await expect(verifyPassword(null, 'anything')).resolves.toBe(false);
    expect(passwordNeedsRehash(hash)).toBe(false);
  });

  it('does not pass a stored hash that is not one for a wrong password: it is a fault', async () => {
    await expect(verifyPassword('not-an-argon2-hash', 'anything')).rejects.toThrow();
  });
});
