import { z } from 'zod';
import { decrypt, encrypt } from '../crypto/crypto.ts';
import { sql, type Db } from './pool.ts';

/** Single-use password reset links (hash of the token only), valid RESET_TTL_MINUTES. */

export const RESET_TTL_MINUTES = 30;

/**
 * Stores a new reset token; earlier unused links of the user stop working. The link itself is
 * kept encrypted (`sealResetUrl`) while live, so a repeated request sends it again.
 */
export async function insertPasswordResetToken(
  db: Db,
  userId: string,
  tokenHash: string,
  urlSealed: string,
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE password_reset_tokens SET consumed_at = now() WHERE user_id = ${userId} AND consumed_at IS NULL`);
  await db.query(sql.unsafe`
    INSERT INTO password_reset_tokens (user_id, token_hash, expires_at, url_sealed)
    VALUES (${userId}, ${tokenHash}, now() + make_interval(mins => ${RESET_TTL_MINUTES}), ${urlSealed})`);
}

const SEALED_PURPOSE = 'reset-link-live';

export function sealResetUrl(appSecret: string, url: string): string {
  return encrypt(appSecret, SEALED_PURPOSE, url);
}

/** The user's live reset link with minutes to spare, to send again instead of minting another. */
export async function findLiveResetUrl(db: Db, appSecret: string, userId: string): Promise<string | null> {
  const sealed = await db.maybeOneFirst(sql.type(z.object({ url_sealed: z.string() }))`
    SELECT url_sealed FROM password_reset_tokens
    WHERE user_id = ${userId} AND consumed_at IS NULL AND url_sealed IS NOT NULL
      AND expires_at > now() + make_interval(mins => 5)
    ORDER BY created_at DESC LIMIT 1`);
  return sealed ? decrypt(appSecret, SEALED_PURPOSE, sealed) : null;
}

/**
 * Uses a reset token: marks it consumed and answers its user id, only when it is unused,
 * unexpired and belongs to the user with `email`. One statement, so a link works once even
 * when submitted twice at the same moment.
 */
export async function consumePasswordResetToken(
  db: Db,
  tokenHash: string,
  email: string,
): Promise<string | null> {
  return db.maybeOneFirst(sql.type(z.object({ user_id: z.uuid() }))`
    UPDATE password_reset_tokens t SET consumed_at = now()
    FROM users u
    WHERE t.token_hash = ${tokenHash} AND t.consumed_at IS NULL AND t.expires_at > now()
      AND u.id = t.user_id AND u.email = ${email} AND u.deleted_at IS NULL
    RETURNING t.user_id`);
}

/** Kills every unused link of a user (after a reset or deletion). */
export async function consumeUserResetTokens(db: Db, userId: string): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE password_reset_tokens SET consumed_at = now() WHERE user_id = ${userId} AND consumed_at IS NULL`);
}
