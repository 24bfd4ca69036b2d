import { z } from 'zod';
import { sql, type Db } from './pool.ts';

/**
 * Browsers that signed in to an account (the hash of their device cookie). Such a browser is
 * the owner's as far as code limits go: it always gets its code (core/domain/codeLimits.ts).
 */

/** Records (or refreshes) a browser that just signed in to `userId`. */
export async function recordKnownDevice(db: Db, userId: string, deviceHash: string): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO known_devices (user_id, device_hash) VALUES (${userId}, ${deviceHash})
    ON CONFLICT (user_id, device_hash) DO UPDATE SET last_seen_at = now()`);
}

/** Whether the browser has signed in to the (not deleted) account with this email. Same work for any email. */
export async function isKnownDevice(db: Db, email: string, deviceHash: string): Promise<boolean> {
  return db.oneFirst(sql.type(z.object({ known: z.boolean() }))`
    SELECT EXISTS (
      SELECT 1 FROM known_devices d JOIN users u ON u.id = d.user_id
      WHERE u.email = ${email} AND u.deleted_at IS NULL AND d.device_hash = ${deviceHash}) AS known`);
}
