import { z } from 'zod';
import { sql, type Db } from './pool.ts';
import { forgetCachedSession } from './sessionCache.ts';
import { hasPurchasedPlan } from './subscriptions.ts';

/** Users (sql/0004_accounts.sql). Emails are lower-cased and trimmed before they get here. */

export const User = z.object({
  id: z.uuid(),
  email: z.string(),
  name: z.string(),
  phone: z.string().nullable(),
  password_hash: z.string().nullable(),
  google_sub: z.string().nullable(),
  email_verified_at: z.date().nullable(),
  totp_secret_encrypted: z.string().nullable(),
  totp_pending_secret_encrypted: z.string().nullable(),
  totp_enabled_at: z.date().nullable(),
  totp_last_step: z.number().nullable(),
  created_at: z.date(),
  deleted_at: z.date().nullable(),
});
export type User = z.infer<typeof User>;

const COLUMNS = sql.fragment`id, email, name, phone, password_hash, google_sub, email_verified_at,
  totp_secret_encrypted, totp_pending_secret_encrypted, totp_enabled_at, totp_last_step, created_at, deleted_at`;

/** A live (not deleted) user by email. */
export async function findUserByEmail(db: Db, email: string): Promise<User | null> {
  return db.maybeOne(
    sql.type(User)`SELECT ${COLUMNS} FROM users WHERE email = ${email} AND deleted_at IS NULL`,
  );
}

export async function findUserById(db: Db, id: string): Promise<User | null> {
  return db.maybeOne(sql.type(User)`SELECT ${COLUMNS} FROM users WHERE id = ${id} AND deleted_at IS NULL`);
}

export async function findUserByGoogleSub(db: Db, sub: string): Promise<User | null> {
  return db.maybeOne(
    sql.type(User)`SELECT ${COLUMNS} FROM users WHERE google_sub = ${sub} AND deleted_at IS NULL`,
  );
}

export type NewUser = {
  email: string;
  name: string;
  phone: string | null;
  passwordHash: string | null;
  googleSub: string | null;
};

/** Creates a user whose email has been proven (by the emailed code or by Google). */
export async function insertUser(db: Db, user: NewUser): Promise<User> {
  return db.one(sql.type(User)`
    INSERT INTO users (email, name, phone, password_hash, google_sub, email_verified_at)
    VALUES (${user.email}, ${user.name}, ${user.phone}, ${user.passwordHash}, ${user.googleSub}, now())
    RETURNING ${COLUMNS}`);
}

/** Links a Google account to an existing user (the email matched and Google verified it). */
export async function linkGoogleAccount(db: Db, userId: string, sub: string): Promise<User> {
  forgetCachedSession({ userId }); // signed-in requests read the user from the session cache
  return db.one(sql.type(User)`
    UPDATE users SET google_sub = ${sub}, email_verified_at = coalesce(email_verified_at, now()), updated_at = now()
    WHERE id = ${userId} RETURNING ${COLUMNS}`);
}

export async function updateUserName(db: Db, userId: string, name: string): Promise<User> {
  forgetCachedSession({ userId }); // signed-in requests read the user from the session cache
  return db.one(sql.type(User)`
    UPDATE users SET name = ${name}, updated_at = now() WHERE id = ${userId} AND deleted_at IS NULL RETURNING ${COLUMNS}`);
}

/** A validated Indian mobile number (core/domain/phone.ts); PayU's checkout needs one. */
export async function updateUserPhone(db: Db, userId: string, phone: string): Promise<User> {
  forgetCachedSession({ userId }); // signed-in requests read the user from the session cache
  return db.one(sql.type(User)`
    UPDATE users SET phone = ${phone}, updated_at = now() WHERE id = ${userId} AND deleted_at IS NULL RETURNING ${COLUMNS}`);
}

export async function updatePasswordHash(db: Db, userId: string, passwordHash: string): Promise<void> {
  forgetCachedSession({ userId }); // signed-in requests read the user from the session cache
  await db.query(
    sql.unsafe`UPDATE users SET password_hash = ${passwordHash}, updated_at = now() WHERE id = ${userId}`,
  );
}

/**
 * Replaces the password hash only if it is still `expected` (null: the account has no password
 * yet, as one made with Google). False when it changed meanwhile: a second change racing the
 * first cannot pass with the password the first one replaced.
 */
export async function replacePasswordHash(
  db: Db,
  userId: string,
  expected: string | null,
  passwordHash: string,
): Promise<boolean> {
  forgetCachedSession({ userId }); // signed-in requests read the user from the session cache
  const result = await db.query(sql.unsafe`
    UPDATE users SET password_hash = ${passwordHash}, updated_at = now()
    WHERE id = ${userId} AND deleted_at IS NULL AND password_hash IS NOT DISTINCT FROM ${expected}`);
  return result.rowCount === 1;
}

/** Stores a not-yet-confirmed TOTP secret (encrypted), replacing an earlier unconfirmed one. */
export async function setPendingTotpSecret(db: Db, userId: string, encryptedSecret: string): Promise<void> {
  forgetCachedSession({ userId }); // signed-in requests read the user from the session cache
  await db.query(sql.unsafe`
    UPDATE users SET totp_pending_secret_encrypted = ${encryptedSecret}, updated_at = now() WHERE id = ${userId}`);
}

/** Turns two-factor on with the confirmed secret; only while it is off (a double submit changes nothing). */
export async function enableTotp(
  db: Db,
  userId: string,
  encryptedSecret: string,
  step: number,
): Promise<boolean> {
  forgetCachedSession({ userId }); // signed-in requests read the user from the session cache
  const result = await db.query(sql.unsafe`
    UPDATE users SET totp_secret_encrypted = ${encryptedSecret}, totp_pending_secret_encrypted = NULL,
      totp_enabled_at = now(), totp_last_step = ${step}, updated_at = now()
    WHERE id = ${userId} AND totp_enabled_at IS NULL`);
  return result.rowCount === 1;
}

export async function disableTotp(db: Db, userId: string): Promise<void> {
  forgetCachedSession({ userId }); // signed-in requests read the user from the session cache
  await db.query(sql.unsafe`
    UPDATE users SET totp_secret_encrypted = NULL, totp_pending_secret_encrypted = NULL, totp_enabled_at = NULL,
      totp_last_step = NULL, updated_at = now()
    WHERE id = ${userId}`);
}

/**
 * Records the TOTP time step just accepted. Conditional, so two requests racing with the same
 * code cannot both pass: the loser finds the step already taken.
 */
export async function claimTotpStep(db: Db, userId: string, step: number): Promise<boolean> {
  const result = await db.query(sql.unsafe`
    UPDATE users SET totp_last_step = ${step}
    WHERE id = ${userId} AND (totp_last_step IS NULL OR totp_last_step < ${step})`);
  return result.rowCount === 1;
}

/**
 * Deletes an account the way the business may: personal data (email, name, phone, password,
 * Google link, second factor) is overwritten, the row stays so invoices and payments that
 * reference it keep their meaning. The old email is free to register again.
 */
export async function anonymiseUser(db: Db, userId: string): Promise<void> {
  forgetCachedSession({ userId }); // signed-in requests read the user from the session cache
  await db.query(sql.unsafe`
    UPDATE users SET
      email = 'deleted-' || id::text || '@deleted.invalid',
      name = 'Deleted user',
      phone = NULL,
      password_hash = NULL,
      google_sub = NULL,
      totp_secret_encrypted = NULL,
      totp_pending_secret_encrypted = NULL,
      totp_enabled_at = NULL,
      totp_last_step = NULL,
      deleted_at = now(),
      updated_at = now()
    WHERE id = ${userId} AND deleted_at IS NULL`);
}

/**
 * Whether the user has a plan (spec §3: "A user has a plan when selectedPlan is non-empty").
 * The header's nav variant and the session check read it. A plan stays the user's plan after
 * it lapses (the dashboard still shows it, the header offers "Renew Plan"); a plan that was
 * only chosen and never paid for does not count. Answered by core/db/subscriptions.ts.
 */
export async function userHasPlan(db: Db, userId: string): Promise<boolean> {
  return hasPurchasedPlan(db, userId);
}
