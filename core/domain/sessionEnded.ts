/**
 * What a signed-in page says once its session has expired or was revoked (every call then
 * answers 401). Its own module: the SPA's fetcher, on every page's first load, needs this
 * sentences and none of the account rules beside them (core/domain/account.ts, which names them too).
 */
export const SESSION_ENDED_MESSAGE = 'Your session has ended — log in again.';

/** The same, when the server said why: the password was changed (on another device, or by a reset). */
export const SIGNED_OUT_PASSWORD_CHANGED_MESSAGE =
  'You were signed out because the password was changed. Log in again with the new password.';
