import type { OwnerWarningKind } from '../domain/ownerWarnings.ts';
import { sql, type Db } from './pool.ts';

/**
 * Claims the right to send the owner a warning of `kind`: at most once per `windowSeconds`,
 * however many requests race (one statement). Claim and send in one transaction, so a mail
 * that could not be queued leaves the claim untaken.
 */
export async function claimOwnerWarning(
  db: Db,
  userId: string,
  kind: OwnerWarningKind,
  windowSeconds: number,
): Promise<boolean> {
  const result = await db.query(sql.unsafe`
    INSERT INTO owner_warnings (user_id, kind, warned_at) VALUES (${userId}, ${kind}, now())
    ON CONFLICT (user_id, kind) DO UPDATE SET warned_at = now()
    WHERE owner_warnings.warned_at < now() - make_interval(secs => ${windowSeconds})`);
  return result.rowCount === 1;
}
