import { z } from 'zod';
import { hashCode } from '../crypto.ts';
import { sql, type Db } from './pool.ts';

/**
 * Emailed one-time codes (sign-up and code login). Only the HMAC of a code is stored (see
 * core/crypto.ts `hashCode`). A code belongs to the browser that asked for it (a hash of its
 * requester cookie): it is live while unconsumed, unexpired and tried fewer than
 * MAX_CODE_ATTEMPTS times wrongly by that browser, and a new code replaces only that
 * browser's earlier one, so nobody else can use up or replace the owner's code.
 */

export const CODE_PURPOSES = ['register', 'login'] as const;
export type CodePurpose = (typeof CODE_PURPOSES)[number];
export const CODE_TTL_MINUTES = 10;
export const MAX_CODE_ATTEMPTS = 5;

/** What is stored of a code: its HMAC under APP_SECRET, bound to the purpose and the email. */
export function codeHash(appSecret: string, purpose: CodePurpose, email: string, code: string): string {
  return hashCode(appSecret, `otp-${purpose}`, `${email}\n${code}`);
}

export async function insertCode(
  db: Db,
  email: string,
  purpose: CodePurpose,
  codeHash: string,
  requesterHash: string,
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE one_time_codes SET consumed_at = now()
    WHERE email = ${email} AND purpose = ${purpose} AND requester_hash = ${requesterHash}
      AND consumed_at IS NULL`);
  await db.query(sql.unsafe`
    INSERT INTO one_time_codes (email, purpose, code_hash, requester_hash, expires_at)
    VALUES (${email}, ${purpose}, ${codeHash}, ${requesterHash},
      now() + make_interval(mins => ${CODE_TTL_MINUTES}))`);
}

export type CodeCheck = 'ok' | 'wrong' | 'none';

const Outcome = z.object({ matched: z.boolean() });

/**
 * Checks a code against the requester's live one and records the outcome in the same
 * statement: a match consumes the code, a miss spends one attempt. The WHERE clause is
 * re-evaluated on the row it locks, so parallel guesses can never exceed the budget.
 */
export async function checkCode(
  db: Db,
  email: string,
  purpose: CodePurpose,
  codeHash: string,
  requesterHash: string,
): Promise<CodeCheck> {
  const outcome = await db.maybeOne(sql.type(Outcome)`
    UPDATE one_time_codes SET
      consumed_at = CASE WHEN code_hash = ${codeHash} THEN now() ELSE NULL END,
      attempts = attempts + CASE WHEN code_hash = ${codeHash} THEN 0 ELSE 1 END
    WHERE id = (
        SELECT id FROM one_time_codes
        WHERE email = ${email} AND purpose = ${purpose} AND requester_hash = ${requesterHash}
          AND consumed_at IS NULL AND expires_at > now() AND attempts < ${MAX_CODE_ATTEMPTS}
        ORDER BY created_at DESC LIMIT 1)
      AND consumed_at IS NULL AND expires_at > now() AND attempts < ${MAX_CODE_ATTEMPTS}
    RETURNING consumed_at IS NOT NULL AS matched`);
  if (!outcome) return 'none';
  return outcome.matched ? 'ok' : 'wrong';
}

/** Kills every live code for an email (after a password reset or account deletion). */
export async function consumeCodes(db: Db, email: string): Promise<void> {
  await db.query(
    sql.unsafe`UPDATE one_time_codes SET consumed_at = now() WHERE email = ${email} AND consumed_at IS NULL`,
  );
}
