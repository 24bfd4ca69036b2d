import { z } from 'zod';
import { sql, type Db } from './pool.ts';

/**
 * Sign-ups waiting for their emailed code (ARCHITECTURE deviation 3). The password is stored
 * only as its argon2id hash. A pending sign-up is good for a day; its codes for 10 minutes.
 *
 * Each belongs to the browser that started it (`requesterHash`, the hash of its code-requester
 * cookie, as the codes are bound): a second sign-up for the same email from elsewhere is a row
 * of its own and can never change what the first browser's code creates.
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
  pending: { email: string; name: string; phone: string; passwordHash: string; requesterHash: string },
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO pending_registrations (email, requester_hash, name, phone, password_hash)
    VALUES (${pending.email}, ${pending.requesterHash}, ${pending.name}, ${pending.phone}, ${pending.passwordHash})
    ON CONFLICT (email, requester_hash) DO UPDATE SET name = excluded.name, phone = excluded.phone,
      password_hash = excluded.password_hash, updated_at = now()`);
}

/** This browser's pending sign-up for an email, unless it is older than a day. */
export async function findPendingRegistration(
  db: Db,
  email: string,
  requesterHash: string,
): Promise<PendingRegistration | null> {
  return db.maybeOne(sql.type(PendingRegistration)`
    SELECT email, name, phone, password_hash, updated_at FROM pending_registrations
    WHERE email = ${email} AND requester_hash = ${requesterHash}
      AND updated_at > now() - make_interval(hours => ${PENDING_REGISTRATION_HOURS})`);
}

/** Every pending sign-up for the email (the account exists now, or the address is gone). */
export async function deletePendingRegistration(db: Db, email: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM pending_registrations WHERE email = ${email}`);
}

/** Drops sign-ups abandoned for more than a day (called on each new sign-up; cheap, bounded). */
export async function deleteStalePendingRegistrations(db: Db): Promise<void> {
  await db.query(sql.unsafe`
    DELETE FROM pending_registrations WHERE (email, requester_hash) IN (
      SELECT email, requester_hash FROM pending_registrations
      WHERE updated_at < now() - make_interval(hours => ${PENDING_REGISTRATION_HOURS}) LIMIT 100)`);
}
