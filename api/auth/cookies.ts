import type { AppContext } from '../context.ts';

/**
 * The auth cookies. HttpOnly (scripts never see them), SameSite=Lax (not sent on cross-site
 * POSTs; the sameOrigin check backs it up), Secure in production. In production the session
 * cookie takes the `__Host-` prefix: the browser then refuses it unless Secure, host-only and
 * Path=/, so no subdomain can plant or shadow it.
 */

export type CookieSettings = { production: boolean };

type CookieSpec = { name: (production: boolean) => string; path: string; maxAgeMs: number };

export const SESSION_COOKIE: CookieSpec = {
  name: (production) => (production ? '__Host-legend_session' : 'legend_session'),
  path: '/',
  maxAgeMs: 30 * 24 * 3600 * 1000,
};

/** The half-finished login of a two-factor user (see core/db/twoFactor.ts). */
export const TWO_FACTOR_COOKIE: CookieSpec = {
  name: (production) => (production ? '__Secure-legend_2fa' : 'legend_2fa'),
  path: '/api/auth',
  maxAgeMs: 5 * 60 * 1000,
};

/** Which browser asked for an emailed code: only that browser can use the code. */
export const CODE_REQUESTER_COOKIE: CookieSpec = {
  name: (production) => (production ? '__Secure-legend_code_requester' : 'legend_code_requester'),
  path: '/api/auth',
  maxAgeMs: 60 * 60 * 1000,
};

/**
 * A browser that has signed in here: a random token set (or kept) at every sign-in and recorded
 * against the account (core/db/knownDevices.ts). It lets the owner's own browsers past limits
 * strangers can spend; nobody can forge one for an account they never signed in to.
 */
export const DEVICE_COOKIE: CookieSpec = {
  name: (production) => (production ? '__Secure-legend_device' : 'legend_device'),
  path: '/api/auth',
  maxAgeMs: 400 * 24 * 3600 * 1000,
};

/** The nonce a Google ID token must carry, binding it to this browser. */
export const GOOGLE_NONCE_COOKIE: CookieSpec = {
  name: (production) => (production ? '__Secure-legend_google_nonce' : 'legend_google_nonce'),
  path: '/api/auth/google',
  maxAgeMs: 10 * 60 * 1000,
};

export function readCookie(ctx: AppContext, spec: CookieSpec, settings: CookieSettings): string | undefined {
  const value = ctx.cookies.get(spec.name(settings.production));
  // Our tokens are 43 base64url characters; anything else is not ours.
  return value && /^[A-Za-z0-9_-]{20,128}$/.test(value) ? value : undefined;
}

export function writeCookie(
  ctx: AppContext,
  spec: CookieSpec,
  settings: CookieSettings,
  value: string,
  maxAgeMs = spec.maxAgeMs,
): void {
  ctx.cookies.set(spec.name(settings.production), value, {
    httpOnly: true,
    sameSite: 'lax',
    secure: settings.production,
    path: spec.path,
    maxAge: maxAgeMs,
    overwrite: true,
  });
}

export function clearCookie(ctx: AppContext, spec: CookieSpec, settings: CookieSettings): void {
  ctx.cookies.set(spec.name(settings.production), '', {
    httpOnly: true,
    sameSite: 'lax',
    secure: settings.production,
    path: spec.path,
    maxAge: 0,
    expires: new Date(0),
    overwrite: true,
  });
}
