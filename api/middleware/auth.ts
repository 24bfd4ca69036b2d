import type { Middleware } from 'koa';
import { hashToken } from '../../core/crypto/crypto.ts';
import {
  findLiveSessionCached,
  sessionEndReason,
  sessionNeedsTouch,
  touchSession,
} from '../../core/db/sessions.ts';
import { revocationsAcknowledged } from '../../core/db/sessionRevocations.ts';
import type { Db } from '../../core/db/pool.ts';
import { clearCookie, readCookie, SESSION_COOKIE } from '../auth/cookies.ts';
import { forbidden, unauthorized } from '../errors.ts';
import type { AppState, AuthUser } from '../context.ts';

/**
 * Who is asking, for every /api route. Identity comes from the session cookie only; an email
 * in a path, query or body is a claim to check against it, never a way in (ARCHITECTURE
 * "Security model").
 *
 * For other routes:
 *
 * ```ts
 * router.get('/vm/dashboard/:email', requireUser(), async (ctx) => {
 *   assertSameUser(ctx, ctx.params.email); // 403 unless it is the session user's email
 *   const user = currentUser(ctx);         // { id, email, name, phone, sessionId }
 *   ...findVmByUser(services.db, user.id)
 * });
 * ```
 */

/**
 * Reads the session cookie and, when it names a live session, sets `ctx.state.user`. Never
 * refuses: anonymous requests go on without a user. A cookie that names no live session
 * (expired, revoked, deleted user) is cleared.
 *
 * Cheap on purpose, because every signed-in request (the dashboard poll above all) passes here:
 * the session comes from the in-process cache when it was read within SESSION_CACHE_MS (see
 * core/db/sessions.ts for how revocation is honoured), and "last seen" is written only when it
 * is older than SESSION_TOUCH_MINUTES, so a read costs no write.
 */
export function loadSession(options: { db: Db; production: boolean }): Middleware<AppState> {
  const settings = { production: options.production };
  return async (ctx, next) => {
    const token = readCookie(ctx, SESSION_COOKIE, settings);
    if (token) {
      const now = new Date();
      const session = await findLiveSessionCached(options.db, hashToken(token), now);
      if (session) {
        ctx.state.user = {
          id: session.user.id,
          email: session.user.email,
          name: session.user.name,
          phone: session.user.phone,
          sessionId: session.session_id,
        };
        if (sessionNeedsTouch(session, now)) await touchSession(options.db, session, now);
      } else {
        clearCookie(ctx, SESSION_COOKIE, settings);
        // The device's last request with this cookie: tell it why it was signed out, when there is
        // a reason it should hear (a password change). One read, once per revoked device.
        const reason = await sessionEndReason(options.db, hashToken(token));
        if (reason) ctx.set(SESSION_ENDED_HEADER, reason);
      }
    } else if (ctx.cookies.get(SESSION_COOKIE.name(settings.production))) {
      clearCookie(ctx, SESSION_COOKIE, settings);
    }
    await next();
    // A request that revoked sessions (logout, reset, deletion) answers once every web process
    // has been told (core/db/sessionRevocations.ts); otherwise this costs nothing.
    await revocationsAcknowledged();
  };
}

/** The header that tells a signed-out device why (`SessionEndReason`); the SPA's fetcher reads it. */
export const SESSION_ENDED_HEADER = 'X-Session-Ended';

/** Route middleware: 401 "Please log in to continue." without a session. */
export function requireUser(): Middleware<AppState> {
  return async (ctx, next) => {
    if (!ctx.state.user) throw unauthorized();
    await next();
  };
}

/** The session user; throws 401 when there is none (use after `requireUser()` or on its own). */
export function currentUser(ctx: { state: AppState }): AuthUser {
  const user = ctx.state.user;
  if (!user) throw unauthorized();
  return user;
}

/**
 * Checks an email the request names (path, query or body) against the session user: 401
 * without a session, 403 when it is someone else's. Absent (undefined, null or blank) passes,
 * meaning "me". Comparison is on the trimmed, lower-cased address.
 */
export function assertSameUser(ctx: { state: AppState }, email: unknown): AuthUser {
  const user = currentUser(ctx);
  if (email === undefined || email === null) return user;
  if (typeof email !== 'string') throw forbidden(OTHER_USER_MESSAGE);
  const claimed = email.trim().toLowerCase();
  if (claimed !== '' && claimed !== user.email) throw forbidden(OTHER_USER_MESSAGE);
  return user;
}

export const OTHER_USER_MESSAGE = 'You can only see and change your own account.';
