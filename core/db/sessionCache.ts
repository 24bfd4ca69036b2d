/**
 * The web process's memory of sessions it has read, so a signed-in request (the dashboard poll
 * above all) does not start with a database round trip. Kept apart from sessions.ts so the
 * modules that change what a session shows (users.ts) can forget entries without an import
 * cycle.
 *
 * How long a session may be answered from memory is SESSION_CACHE_MS. Revocation and changes
 * made through core/db (logout, login over an old cookie, password reset, account deletion, a
 * new name) take effect at once in the process that made them. Revocations reach every other web
 * process at once too: they are announced with Postgres NOTIFY and each web process listens
 * (core/db/sessionRevocations.ts). While a process that listens has lost its listening
 * connection, it answers nothing from memory, since it could miss a revocation; other changes
 * (a new name) show elsewhere within SESSION_CACHE_MS.
 */

export const SESSION_CACHE_MS = 5_000;
/**
 * How long a forgotten user or token is never served from (or put into) the cache. Longer than
 * any transaction the change runs in, so a lookup that read the row before that transaction
 * committed cannot put the old session back.
 */
const FORGET_MS = 60_000;
const CACHE_LIMIT = 50_000;

type Cacheable = { expires_at: Date; user: { id: string } };

const cached = new Map<string, { session: Cacheable; until: number }>();
const forgottenUsers = new Map<string, number>();
const forgottenTokens = new Map<string, number>();

/**
 * Whether the cache may answer. A process that listens for revocations turns it off while its
 * listening connection is down (and the listener clears the cache when it is back, as it may
 * have missed announcements meanwhile).
 */
let trusted = true;

export function trustSessionCache(trust: boolean): void {
  trusted = trust;
  if (!trust) cached.clear();
}

/** Drops every cached session (forgotten tokens and users stay forgotten). */
export function clearSessionCache(): void {
  cached.clear();
}

/** The cached session for a token hash, if it is fresh and nothing forgot it since. */
export function cachedSession<T extends Cacheable>(tokenHash: string, now: Date): T | null {
  if (!trusted) return null;
  const nowMs = now.getTime();
  const hit = cached.get(tokenHash);
  if (!hit) return null;
  if (
    hit.until > nowMs &&
    hit.session.expires_at.getTime() > nowMs &&
    !isForgotten(tokenHash, hit.session, nowMs)
  ) {
    return hit.session as T;
  }
  cached.delete(tokenHash);
  return null;
}

/** Remembers a session read from the database at `readAtMs` (before the query was sent). */
export function cacheSession(tokenHash: string, session: Cacheable, readAtMs: number): void {
  if (!trusted || isForgotten(tokenHash, session, Date.now())) return;
  if (cached.size >= CACHE_LIMIT) {
    // Oldest first (a Map iterates in insertion order): the least likely to be asked again.
    const oldest = cached.keys().next();
    if (!oldest.done) cached.delete(oldest.value);
  }
  cached.set(tokenHash, { session, until: readAtMs + SESSION_CACHE_MS });
}

/** Drops a token's or a user's sessions from the cache and keeps them out for FORGET_MS. */
export function forgetCachedSession(which: { tokenHash?: string; userId?: string }): void {
  const until = Date.now() + FORGET_MS;
  if (which.tokenHash) {
    cached.delete(which.tokenHash);
    forgottenTokens.set(which.tokenHash, until);
  }
  if (which.userId) {
    for (const [hash, entry] of cached) if (entry.session.user.id === which.userId) cached.delete(hash);
    forgottenUsers.set(which.userId, until);
  }
  pruneExpired(forgottenTokens);
  pruneExpired(forgottenUsers);
}

function isForgotten(tokenHash: string, session: Cacheable, nowMs: number): boolean {
  return isRecent(forgottenTokens, tokenHash, nowMs) || isRecent(forgottenUsers, session.user.id, nowMs);
}

function isRecent(map: Map<string, number>, key: string, nowMs: number): boolean {
  const until = map.get(key);
  if (until === undefined) return false;
  if (until > nowMs) return true;
  map.delete(key);
  return false;
}

function pruneExpired(map: Map<string, number>): void {
  if (map.size < 1000) return;
  const nowMs = Date.now();
  for (const [key, until] of map) if (until <= nowMs) map.delete(key);
}
