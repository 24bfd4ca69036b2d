import { z } from 'zod';
import { sql, type Db } from './pool.ts';

/**
 * Sign-ups waiting for their emailed code (ARCHITECTURE deviation 3). The password is stored
 * only as its argon2id hash. A pending sign-up is good for a day; its codes for 10 minutes.
 */

export const PENDING_REGISTRATION_HOURS = 24;

export const PendingRegistration = z.object({
  email: z.string(),
  name: z.string(),
  phone: z.string(),
  password_hash: z.string(),
  updated_at: z.date(),
});
export type PendingRegistration = z.infer<typeof PendingRegistration>;

export async function upsertPendingRegistration(
  db: Db,
  pending: { email: string; name: string; phone: string; passwordHash: string },
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO pending_registrations (email, name, phone, password_hash)
    VALUES (${pending.email}, ${pending.name}, ${pending.phone}, ${pending.passwordHash})
    ON CONFLICT (email) DO UPDATE SET name = excluded.name, phone = excluded.phone,
      password_hash = excluded.password_hash, updated_at = now()`);
}

/** The pending sign-up for an email, unless it is older than a day. */
export async function findPendingRegistration(db: Db, email: string): Promise<PendingRegistration | null> {
  return db.maybeOne(sql.type(PendingRegistration)`
    SELECT email, name, phone, password_hash, updated_at FROM pending_registrations
    WHERE email = ${email} AND updated_at > now() - make_interval(hours => ${PENDING_REGISTRATION_HOURS})`);
}

export async function deletePendingRegistration(db: Db, email: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM pending_registrations WHERE email = ${email}`);
}

/** Drops sign-ups abandoned for more than a day (called on each new sign-up; cheap, bounded). */
export async function deleteStalePendingRegistrations(db: Db): Promise<void> {
  await db.query(sql.unsafe`
    DELETE FROM pending_registrations WHERE email IN (
      SELECT email FROM pending_registrations
      WHERE updated_at < now() - make_interval(hours => ${PENDING_REGISTRATION_HOURS}) LIMIT 100)`);
}
