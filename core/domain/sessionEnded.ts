/**
 * What a signed-in page says once its session has expired or was revoked (every call then
 * answers 401). Its own module: the SPA's fetcher, on every page's first load, needs this
 * sentence and none of the account rules beside it (core/domain/account.ts, which names it too).
 */
export const SESSION_ENDED_MESSAGE = 'Your session has ended — log in again.';
