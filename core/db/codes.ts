import { z } from 'zod';
import { safeEqual } from '../crypto.ts';
import { sql, type Db } from './pool.ts';

/**
 * Emailed one-time codes (sign-up and code login). Only the HMAC of a code is stored (see
 * core/crypto.ts `hashCode`). A code is live while unconsumed, unexpired and tried fewer than
 * MAX_CODE_ATTEMPTS times wrongly. Issuing a new code leaves the earlier ones live until one of
 * them is used or they expire: a customer who asked twice may type either mail's code. Wrong
 * guesses are counted against every live code at once, so a resend does not buy extra guesses
 * on the codes already out.
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
    INSERT INTO one_time_codes (email, purpose, code_hash, expires_at)
    VALUES (${email}, ${purpose}, ${codeHash}, now() + make_interval(mins => ${CODE_TTL_MINUTES}))`);
}

export type CodeCheck = 'ok' | 'wrong' | 'none';

/**
 * Checks a code against the live ones and records the outcome under row locks, so parallel
 * guesses cannot exceed the attempt budget: a match consumes every live code of that purpose
 * (the one used and any sent before or after it), a miss spends one attempt of each.
 */
export async function checkCode(
  db: Db,
  email: string,
  purpose: CodePurpose,
  codeHash: string,
): Promise<CodeCheck> {
  return db.transaction(async (trx) => {
    const live = await trx.any(sql.type(LiveCode)`
      SELECT id, code_hash, attempts FROM one_time_codes
      WHERE email = ${email} AND purpose = ${purpose} AND consumed_at IS NULL
        AND expires_at > now() AND attempts < ${MAX_CODE_ATTEMPTS}
      ORDER BY created_at DESC
      FOR UPDATE`);
    if (live.length === 0) return 'none';
    const ids = live.map((code) => code.id);
    // Compare against every live code (no early exit), so timing says nothing about which matched.
    const matched = live.map((code) => safeEqual(code.code_hash, codeHash)).includes(true);
    if (matched) {
      await trx.query(sql.unsafe`
        UPDATE one_time_codes SET consumed_at = now()
        WHERE email = ${email} AND purpose = ${purpose} AND consumed_at IS NULL`);
      return 'ok';
    }
    await trx.query(sql.unsafe`
      UPDATE one_time_codes SET attempts = attempts + 1 WHERE id = ANY(${sql.array(ids, 'uuid')})`);
    return 'wrong';
  });
}

/** Kills every live code for an email (after a password reset or account deletion). */
export async function consumeCodes(db: Db, email: string): Promise<void> {
  await db.query(
    sql.unsafe`UPDATE one_time_codes SET consumed_at = now() WHERE email = ${email} AND consumed_at IS NULL`,
  );
}
