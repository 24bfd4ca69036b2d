import argon2 from 'argon2';
import { randomToken } from './crypto.ts';

/**
 * Password hashing with argon2id (OWASP's first choice). Parameters are argon2's defaults
 * (64 MiB, 3 passes, 4 lanes), which the hash string records, so raising them later only
 * needs `needsRehash` at the next login.
 */

const OPTIONS = { type: argon2.argon2id, memoryCost: 65_536, timeCost: 3, parallelism: 4 } as const;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, OPTIONS);
}

let dummy: Promise<string> | undefined;

/**
 * Checks a password against a stored hash. With no hash (no such user, or a Google-only
 * account) it still verifies against a dummy hash, so the answer takes as long either way and
 * response times do not tell which emails have accounts.
 */
export async function verifyPassword(hash: string | null | undefined, password: string): Promise<boolean> {
  if (!hash) {
    dummy ??= argon2.hash(randomToken(), OPTIONS);
    await argon2.verify(await dummy, password);
    return false;
  }
  // A wrong password is `false`; a throw is a fault (a stored hash that is not one, argon2
  // out of memory), which must surface as an error, not pass for a wrong password.
  return argon2.verify(hash, password);
}

/** True when a stored hash was made with weaker parameters than today's. */
export function passwordNeedsRehash(hash: string): boolean {
  return argon2.needsRehash(hash, OPTIONS);
}
