import { hashToken, randomToken } from '../../core/crypto/crypto.ts';
import type { Db } from '../../core/db/pool.ts';
import { insertSession, revokeSessionByTokenHash } from '../../core/db/sessions.ts';
import { insertChallenge, type ChallengeMethod } from '../../core/db/twoFactor.ts';
import type { User } from '../../core/db/users.ts';
import { recordKnownDevice } from '../../core/db/knownDevices.ts';
import { warnIfPasswordKnown } from './twoFactor.ts';
import {
  clearCookie,
  DEVICE_COOKIE,
  readCookie,
  SESSION_COOKIE,
  TWO_FACTOR_COOKIE,
  writeCookie,
} from './cookies.ts';
import type { AppContext, AuthUser } from '../context.ts';
import type { Services } from '../services.ts';

/**
 * Starting and ending sessions. Every successful login goes through `completeLogin`, so the
 * second factor cannot be skipped by any path (password, code, Google).
 */

/**
 * Logs the user in: a new session with a new token (rotated: any session the browser held
 * before is revoked, so a token planted before login is worthless after it). Answers who is
 * now signed in; the request's own `ctx.state.user` stays what the session cookie said.
 */
export async function startSession(
  ctx: AppContext,
  services: Services,
  user: User,
  db: Db = services.db,
): Promise<AuthUser> {
  const settings = { production: services.config.production };
  const previous = readCookie(ctx, SESSION_COOKIE, settings);
  if (previous) await revokeSessionByTokenHash(db, hashToken(previous));
  const token = randomToken();
  const session = await insertSession(db, {
    userId: user.id,
    tokenHash: hashToken(token),
    userAgent: ctx.get('user-agent').slice(0, 400) || null,
    ip: ctx.ip || null,
  });
  writeCookie(ctx, SESSION_COOKIE, settings, token);
  clearCookie(ctx, TWO_FACTOR_COOKIE, settings);
  // This browser is now one of the account's own: its codes are never refused for others' asking.
  const device = readCookie(ctx, DEVICE_COOKIE, settings) ?? randomToken();
  writeCookie(ctx, DEVICE_COOKIE, settings, device);
  await recordKnownDevice(db, user.id, hashToken(device));
  return { id: user.id, email: user.email, name: user.name, phone: user.phone, sessionId: session.id };
}

/** Revokes the browser's session (if any) and clears the cookie. */
export async function endSession(ctx: AppContext, services: Services): Promise<void> {
  const settings = { production: services.config.production };
  const token = readCookie(ctx, SESSION_COOKIE, settings);
  if (token) await revokeSessionByTokenHash(services.db, hashToken(token));
  clearCookie(ctx, SESSION_COOKIE, settings);
  ctx.state.user = undefined;
}

export type LoginOutcome = { kind: 'session'; user: AuthUser } | { kind: 'two-factor' };

/**
 * The first factor passed. Without two-factor that is a login; with it, the browser gets a
 * short-lived challenge cookie and must answer `POST /api/auth/two-factor` within minutes.
 */
export async function completeLogin(
  ctx: AppContext,
  services: Services,
  user: User,
  method: ChallengeMethod,
  db: Db = services.db,
): Promise<LoginOutcome> {
  if (user.totp_enabled_at) {
    const token = randomToken();
    await insertChallenge(db, user.id, hashToken(token), method, ctx.ip || null);
    writeCookie(ctx, TWO_FACTOR_COOKIE, { production: services.config.production }, token);
    if (method === 'password') await warnIfPasswordKnown(ctx, services, user);
    return { kind: 'two-factor' };
  }
  return { kind: 'session', user: await startSession(ctx, services, user, db) };
}
