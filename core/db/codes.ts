import { z } from 'zod';
import { safeEqual } from '../crypto.ts';
import { sql, type Db } from './pool.ts';

/**
 * Emailed one-time codes (sign-up and code login). Only the HMAC of a code is stored (see
 * core/crypto.ts `hashCode`). A code is live while unconsumed, unexpired and tried fewer than
 * MAX_CODE_ATTEMPTS times wrongly; issuing a new code kills the earlier ones.
 */

export const CODE_PURPOSES = ['register', 'login'] as const;
export type CodePurpose = (typeof CODE_PURPOSES)[number];
export const CODE_TTL_MINUTES = 10;
export const MAX_CODE_ATTEMPTS = 5;

const LiveCode = z.object({ id: z.uuid(), code_hash: z.string(), attempts: z.number() });

export async function insertCode(
  db: Db,
  email: string,
  purpose: CodePurpose,
  codeHash: string,
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE one_time_codes SET consumed_at = now()
    WHERE email = ${email} AND purpose = ${purpose} AND consumed_at IS NULL`);
  await db.query(sql.unsafe`
    INSERT INTO one_time_codes (email, purpose, code_hash, expires_at)
    VALUES (${email}, ${purpose}, ${codeHash}, now() + make_interval(mins => ${CODE_TTL_MINUTES}))`);
}

export type CodeCheck = 'ok' | 'wrong' | 'none';

/**
 * Checks a code against the live one and records the outcome in the same statement pair under
 * a row lock, so parallel guesses cannot exceed the attempt budget: a match consumes the code,
 * a miss spends one attempt.
 */
export async function checkCode(
  db: Db,
  email: string,
  purpose: CodePurpose,
  codeHash: string,
): Promise<CodeCheck> {
  return db.transaction(async (trx) => {
    const live = await trx.maybeOne(sql.type(LiveCode)`
      SELECT id, code_hash, attempts FROM one_time_codes
      WHERE email = ${email} AND purpose = ${purpose} AND consumed_at IS NULL
        AND expires_at > now() AND attempts < ${MAX_CODE_ATTEMPTS}
      ORDER BY created_at DESC LIMIT 1
      FOR UPDATE`);
    if (!live) return 'none';
    if (safeEqual(live.code_hash, codeHash)) {
      await trx.query(sql.unsafe`UPDATE one_time_codes SET consumed_at = now() WHERE id = ${live.id}`);
      return 'ok';
    }
    await trx.query(sql.unsafe`UPDATE one_time_codes SET attempts = attempts + 1 WHERE id = ${live.id}`);
    return 'wrong';
  });
}

/** Kills every live code for an email (after a password reset or account deletion). */
export async function consumeCodes(db: Db, email: string): Promise<void> {
  await db.query(
    sql.unsafe`UPDATE one_time_codes SET consumed_at = now() WHERE email = ${email} AND consumed_at IS NULL`,
  );
}
