import { z } from 'zod';
import { User } from './users.ts';
import { sql, type Db } from './pool.ts';
import { cachedSession, cacheSession } from './sessionCache.ts';
import { announceRevoked } from './sessionRevocations.ts';

/**
 * Server-side sessions. The browser's cookie holds a random token; this table holds its
 * SHA-256. A session is valid while not revoked, younger than SESSION_LIFETIME_DAYS and used
 * within SESSION_IDLE_DAYS (each use slides the idle window).
 */

export const SESSION_LIFETIME_DAYS = 30;
export const SESSION_IDLE_DAYS = 14;
/** last_seen_at is written at most this often, so a busy user does not write on every request. */
export const SESSION_TOUCH_MINUTES = 10;

const SessionRow = User.extend({
  session_id: z.uuid(),
  session_created_at: z.date(),
  last_seen_at: z.date(),
  expires_at: z.date(),
});

export type SessionWithUser = {
  session_id: string;
  session_created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  user: User;
};

export async function insertSession(
  db: Db,
  session: { userId: string; tokenHash: string; userAgent: string | null; ip: string | null },
): Promise<{ id: string; expires_at: Date }> {
  return db.one(sql.type(z.object({ id: z.uuid(), expires_at: z.date() }))`
    INSERT INTO sessions (user_id, token_hash, expires_at, user_agent, ip)
    VALUES (${session.userId}, ${session.tokenHash}, now() + make_interval(days => ${SESSION_LIFETIME_DAYS}),
            ${session.userAgent}, ${session.ip})
    RETURNING id, expires_at`);
}

/** The live session for a token hash, with its (not deleted) user. */
async function findLiveSession(db: Db, tokenHash: string): Promise<SessionWithUser | null> {
  // Prepared: every signed-in request whose session is not cached asks this.
  const row = await db.maybeOne(sql.prepared('live_session', SessionRow)`
    SELECT s.id AS session_id, s.created_at AS session_created_at, s.last_seen_at, s.expires_at,
      u.id, u.email, u.name, u.phone, u.password_hash, u.google_sub, u.email_verified_at,
      u.totp_secret_encrypted, u.totp_pending_secret_encrypted, u.totp_enabled_at, u.totp_last_step,
      u.created_at, u.deleted_at
    FROM sessions s JOIN users u ON u.id = s.user_id
    WHERE s.token_hash = ${tokenHash} AND s.revoked_at IS NULL AND s.expires_at > now()
      AND s.last_seen_at > now() - make_interval(days => ${SESSION_IDLE_DAYS})
      AND u.deleted_at IS NULL`);
  if (!row) return null;
  const { session_id, session_created_at, last_seen_at, expires_at, ...user } = row;
  return { session_id, session_created_at, last_seen_at, expires_at, user };
}

/** Whether the session's last_seen_at is old enough to be written again (read side of touchSession). */
export function sessionNeedsTouch(session: { last_seen_at: Date }, now: Date): boolean {
  return session.last_seen_at.getTime() < now.getTime() - SESSION_TOUCH_MINUTES * 60_000;
}

/**
 * Slides the idle window (only when the last write is older than SESSION_TOUCH_MINUTES; the
 * caller asks `sessionNeedsTouch` first, so a read does not write, or even ask, on every request).
 */
export async function touchSession(
  db: Db,
  session: { session_id: string; last_seen_at: Date },
  now: Date,
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE sessions SET last_seen_at = now()
    WHERE id = ${session.session_id} AND last_seen_at < now() - make_interval(mins => ${SESSION_TOUCH_MINUTES})`);
  // A cached copy must not ask again on the next request.
  session.last_seen_at = now;
}

export async function revokeSessionByTokenHash(db: Db, tokenHash: string): Promise<void> {
  await announceRevoked(db, { tokenHash });
  await db.query(
    sql.unsafe`UPDATE sessions SET revoked_at = now() WHERE token_hash = ${tokenHash} AND revoked_at IS NULL`,
  );
}

/** Why a device was signed out, told to it on its next request (only a password change, for now). */
export type SessionEndReason = 'password-changed';

/** Signs a user out everywhere (password reset, account deletion), with the reason a device is told. */
export async function revokeUserSessions(
  db: Db,
  userId: string,
  reason: SessionEndReason | null = null,
): Promise<number> {
  await announceRevoked(db, { userId });
  const result = await db.query(sql.unsafe`
    UPDATE sessions SET revoked_at = now(), revoked_reason = ${reason}
    WHERE user_id = ${userId} AND revoked_at IS NULL`);
  return result.rowCount;
}

/** Why the session of this token was revoked, when it was for a reason a device is told. */
export async function sessionEndReason(db: Db, tokenHash: string): Promise<SessionEndReason | null> {
  const row = await db.maybeOne(sql.type(z.object({ revoked_reason: z.literal('password-changed') }))`
    SELECT revoked_reason FROM sessions
    WHERE token_hash = ${tokenHash} AND revoked_at IS NOT NULL AND revoked_reason IS NOT NULL`);
  return row?.revoked_reason ?? null;
}

/**
 * Signs a user out everywhere but the session `keepSessionId` (a password change keeps the
 * browser that made it). Announced like every revocation (core/db/sessionRevocations.ts): every
 * web process forgets the user's cached sessions, the kept one too, which is simply read again.
 */
export async function revokeOtherUserSessions(
  db: Db,
  userId: string,
  keepSessionId: string,
): Promise<number> {
  await announceRevoked(db, { userId });
  const result = await db.query(sql.unsafe`
    UPDATE sessions SET revoked_at = now(), revoked_reason = 'password-changed'
    WHERE user_id = ${userId} AND id <> ${keepSessionId} AND revoked_at IS NULL`);
  return result.rowCount;
}

/** What a signed-in request needs of its session; the in-process cache keeps only this. */
export type LiveSession = {
  session_id: string;
  expires_at: Date;
  last_seen_at: Date;
  user: { id: string; email: string; name: string; phone: string | null };
};

/**
 * `findLiveSession` behind the in-process cache (core/db/sessionCache.ts): a session read less
 * than SESSION_CACHE_MS ago is answered from memory, unless it has expired since or it, or its
 * user, was revoked or changed in this process.
 */
export async function findLiveSessionCached(
  db: Db,
  tokenHash: string,
  now: Date,
): Promise<LiveSession | null> {
  const hit = cachedSession<LiveSession>(tokenHash, now);
  if (hit) return hit;
  const readAt = Date.now();
  const found = await findLiveSession(db, tokenHash);
  if (!found) return null;
  const session: LiveSession = {
    session_id: found.session_id,
    expires_at: found.expires_at,
    last_seen_at: found.last_seen_at,
    user: { id: found.user.id, email: found.user.email, name: found.user.name, phone: found.user.phone },
  };
  cacheSession(tokenHash, session, readAt);
  return session;
}
