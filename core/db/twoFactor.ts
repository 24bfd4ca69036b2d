import { z } from 'zod';
import { sql, type Db } from './pool.ts';

/**
 * Two-factor sign-in: the pending login between the first and the second factor, and the
 * single-use recovery codes (HMAC-hashed, see core/crypto/crypto.ts `hashCode`).
 */

export const CHALLENGE_TTL_MINUTES = 5;
export const MAX_CHALLENGE_ATTEMPTS = 5;
export const RECOVERY_CODE_COUNT = 10;

export type ChallengeMethod = 'password' | 'code' | 'google';

const Challenge = z.object({
  id: z.uuid(),
  user_id: z.uuid(),
  method: z.enum(['password', 'code', 'google']),
  attempts: z.number(),
});
export type Challenge = z.infer<typeof Challenge>;

/** A pending second step, started from `ip` (kept: sign-ins left unfinished from strange addresses warn the owner). */
export async function insertChallenge(
  db: Db,
  userId: string,
  tokenHash: string,
  method: ChallengeMethod,
  ip: string | null,
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO two_factor_challenges (user_id, token_hash, method, expires_at, ip)
    VALUES (${userId}, ${tokenHash}, ${method}, now() + make_interval(mins => ${CHALLENGE_TTL_MINUTES}),
            ${ip})`);
}

/**
 * The user's sign-ins with the right password, started within the window, that have not
 * finished their second step, from addresses none of the user's sessions (live or ended) ever
 * came from.
 */
export async function countUnfinishedPasswordSignIns(
  db: Db,
  userId: string,
  windowSeconds: number,
): Promise<number> {
  return db.oneFirst(sql.type(z.object({ count: z.number() }))`
    SELECT count(*)::int AS count FROM two_factor_challenges c
    WHERE c.user_id = ${userId} AND c.method = 'password' AND c.consumed_at IS NULL
      AND c.created_at > now() - make_interval(secs => ${windowSeconds})
      AND c.ip IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.user_id = c.user_id AND s.ip = c.ip)`);
}

/**
 * Spends one attempt of the live challenge for a token hash (unconsumed, unexpired, attempts
 * left) and returns it; null when there is none or its attempts are used up. Checking and
 * counting are one statement, so parallel guesses cannot try more than MAX_CHALLENGE_ATTEMPTS.
 */
export async function claimChallengeAttempt(db: Db, tokenHash: string): Promise<Challenge | null> {
  return db.maybeOne(sql.type(Challenge)`
    UPDATE two_factor_challenges SET attempts = attempts + 1
    WHERE token_hash = ${tokenHash} AND consumed_at IS NULL AND expires_at > now()
      AND attempts < ${MAX_CHALLENGE_ATTEMPTS}
    RETURNING id, user_id, method, attempts`);
}

/** Whether the challenge for a token hash ended because its attempts were used up (not expired or finished). */
export async function challengeUsedUp(db: Db, tokenHash: string): Promise<boolean> {
  const row = await db.maybeOne(sql.type(z.object({ used_up: z.boolean() }))`
    SELECT (attempts >= ${MAX_CHALLENGE_ATTEMPTS} AND consumed_at IS NULL) AS used_up
    FROM two_factor_challenges WHERE token_hash = ${tokenHash}`);
  return row?.used_up ?? false;
}

/**
 * Records a wrong code on a challenge (from `ip`) and answers how many of the user's sign-ins
 * whose first factor was the password saw a wrong second step within the window.
 */
export async function recordWrongSecondStep(
  db: Db,
  challengeId: string,
  ip: string,
  windowSeconds: number,
): Promise<{ userId: string; method: ChallengeMethod; failedPasswordSignIns: number }> {
  return db.one(sql.type(
    z.object({
      userId: z.uuid(),
      method: z.enum(['password', 'code', 'google']),
      failedPasswordSignIns: z.number(),
    }),
  )`
    WITH marked AS (
      UPDATE two_factor_challenges SET failed_at = coalesce(failed_at, now()), ip = ${ip}
      WHERE id = ${challengeId} RETURNING user_id, method)
    SELECT marked.user_id AS "userId", marked.method AS method,
      (SELECT count(*)::int FROM two_factor_challenges c
       WHERE c.user_id = marked.user_id AND c.method = 'password'
         AND (c.failed_at > now() - make_interval(secs => ${windowSeconds}) OR c.id = ${challengeId})
      ) AS "failedPasswordSignIns"
    FROM marked`);
}

/** Finishes a challenge; false when another request finished it first. */
export async function consumeChallenge(db: Db, id: string): Promise<boolean> {
  const result = await db.query(sql.unsafe`
    UPDATE two_factor_challenges SET consumed_at = now() WHERE id = ${id} AND consumed_at IS NULL`);
  return result.rowCount === 1;
}

/** Replaces the user's recovery codes with a new set of hashes. */
export async function replaceRecoveryCodes(db: Db, userId: string, codeHashes: string[]): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM recovery_codes WHERE user_id = ${userId}`);
  for (const hash of codeHashes) {
    await db.query(sql.unsafe`INSERT INTO recovery_codes (user_id, code_hash) VALUES (${userId}, ${hash})`);
  }
}

/** Uses a recovery code; true when it existed and was unused (then it is used up). */
export async function useRecoveryCode(db: Db, userId: string, codeHash: string): Promise<boolean> {
  const result = await db.query(sql.unsafe`
    UPDATE recovery_codes SET used_at = now()
    WHERE user_id = ${userId} AND code_hash = ${codeHash} AND used_at IS NULL`);
  return result.rowCount === 1;
}

export async function countUnusedRecoveryCodes(db: Db, userId: string): Promise<number> {
  return db.oneFirst(sql.type(z.object({ count: z.number() }))`
    SELECT count(*)::int AS count FROM recovery_codes WHERE user_id = ${userId} AND used_at IS NULL`);
}

export async function deleteRecoveryCodes(db: Db, userId: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM recovery_codes WHERE user_id = ${userId}`);
}

/** Ends every pending second-factor login of a user (deletion, disabling two-factor). */
export async function consumeUserChallenges(db: Db, userId: string): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE two_factor_challenges SET consumed_at = now() WHERE user_id = ${userId} AND consumed_at IS NULL`);
}
