import { z } from 'zod';
import { decrypt, encrypt, hashCode } from '../crypto/crypto.ts';
import { sql, type Db } from './pool.ts';

/**
 * Emailed one-time codes (sign-up and code login). Only the HMAC of a code is stored (see
 * core/crypto/crypto.ts `hashCode`). A code belongs to the browser that asked for it (a hash of its
 * requester cookie), so nobody else can use up or replace the owner's code. It is live while
 * unconsumed, unexpired and tried fewer than MAX_CODE_ATTEMPTS times wrongly. Issuing a new code
 * leaves that browser's earlier ones live until one of them is used or they expire: a customer
 * who asked twice may type either mail's code. Wrong guesses are counted against every live code
 * at once, so a resend does not buy extra guesses.
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
  /** The code itself, encrypted (`sealCode`), so a repeated request can send it again. */
  codeSealed: string,
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO one_time_codes (email, purpose, code_hash, requester_hash, expires_at, code_sealed)
    VALUES (${email}, ${purpose}, ${codeHash}, ${requesterHash},
      now() + make_interval(mins => ${CODE_TTL_MINUTES}), ${codeSealed})`);
}

const SEALED_PURPOSE = 'otp-live';

export function sealCode(appSecret: string, code: string): string {
  return encrypt(appSecret, SEALED_PURPOSE, code);
}

/**
 * The requester's newest live code, to send again instead of minting another (a repeated
 * request must not hand guessers more live codes). Null when none is live with minutes to spare.
 */
export async function findLiveCode(
  db: Db,
  appSecret: string,
  email: string,
  purpose: CodePurpose,
  requesterHash: string,
): Promise<string | null> {
  const sealed = await db.maybeOneFirst(sql.type(z.object({ code_sealed: z.string() }))`
    SELECT code_sealed FROM one_time_codes
    WHERE email = ${email} AND purpose = ${purpose} AND requester_hash = ${requesterHash}
      AND consumed_at IS NULL AND attempts < ${MAX_CODE_ATTEMPTS} AND code_sealed IS NOT NULL
      AND expires_at > now() + make_interval(mins => ${RESEND_MIN_MINUTES_LEFT})
    ORDER BY created_at DESC LIMIT 1`);
  return sealed ? decrypt(appSecret, SEALED_PURPOSE, sealed) : null;
}

/** A code with less time left than this is not sent again: a fresh one is minted instead. */
const RESEND_MIN_MINUTES_LEFT = 3;

export type CodeCheck = 'ok' | 'wrong' | 'none';

const Outcome = z.object({ matched: z.boolean() });

/**
 * Checks a code against the requester's live ones and records the outcome in one statement: a
 * match consumes them all (the one used and any other sent), a miss spends one attempt of each.
 * The rows are locked and their conditions re-checked on the latest version, so parallel guesses
 * can never exceed the budget.
 */
export async function checkCode(
  db: Db,
  email: string,
  purpose: CodePurpose,
  codeHash: string,
  requesterHash: string,
): Promise<CodeCheck> {
  const outcomes = await db.any(sql.type(Outcome)`
    WITH live AS (
      SELECT id, code_hash FROM one_time_codes
      WHERE email = ${email} AND purpose = ${purpose} AND requester_hash = ${requesterHash}
        AND consumed_at IS NULL AND expires_at > now() AND attempts < ${MAX_CODE_ATTEMPTS}
      FOR UPDATE),
    verdict AS (SELECT coalesce(bool_or(code_hash = ${codeHash}), false) AS matched FROM live)
    UPDATE one_time_codes SET
      consumed_at = CASE WHEN verdict.matched THEN now() ELSE NULL END,
      attempts = attempts + CASE WHEN verdict.matched THEN 0 ELSE 1 END
    FROM verdict
    WHERE one_time_codes.id IN (SELECT id FROM live)
    RETURNING verdict.matched AS matched`);
  if (outcomes.length === 0) return 'none';
  return outcomes[0]?.matched ? 'ok' : 'wrong';
}

/** Kills every live code for an email (after a password reset or account deletion). */
export async function consumeCodes(db: Db, email: string): Promise<void> {
  await db.query(
    sql.unsafe`UPDATE one_time_codes SET consumed_at = now() WHERE email = ${email} AND consumed_at IS NULL`,
  );
}
