import { describe, expect, it } from 'vitest';
import { cachedSession, cacheSession, forgetCachedSession, SESSION_CACHE_MS } from './sessionCache.ts';

let n = 0;
function session(userId = `user-${++n}`, expiresInMs = 86_400_000) {
  return { expires_at: new Date(Date.now() + expiresInMs), user: { id: userId } };
}
const token = () => `token-${++n}`;

describe('the session cache', () => {
  it('answers a session for SESSION_CACHE_MS after it was read, then asks again', () => {
    const hash = token();
    const s = session();
    const readAt = Date.now();
    cacheSession(hash, s, readAt);
    expect(cachedSession(hash, new Date(readAt + SESSION_CACHE_MS - 1))).toBe(s);
    expect(cachedSession(hash, new Date(readAt + SESSION_CACHE_MS))).toBeNull();
    // Gone for good once stale.
    expect(cachedSession(hash, new Date(readAt))).toBeNull();
  });

  it('never answers a session past its own expiry', () => {
    const hash = token();
    const s = session(undefined, 1_000);
    cacheSession(hash, s, Date.now());
    expect(cachedSession(hash, new Date(s.expires_at.getTime()))).toBeNull();
  });

  it('forgets a revoked token at once and refuses to cache it again for a while', () => {
    const hash = token();
    cacheSession(hash, session(), Date.now());
    forgetCachedSession({ tokenHash: hash });
    expect(cachedSession(hash, new Date())).toBeNull();
    // A lookup that read the row before the revocation committed must not put it back.
    cacheSession(hash, session(), Date.now());
    expect(cachedSession(hash, new Date())).toBeNull();
  });

  it('forgets every session of a user (sign-out everywhere, deletion, rename), and only theirs', () => {
    const [laptop, phone, someoneElse] = [token(), token(), token()];
    const user = `user-${++n}`;
    const other = session();
    cacheSession(laptop, session(user), Date.now());
    cacheSession(phone, session(user), Date.now());
    cacheSession(someoneElse, other, Date.now());
    forgetCachedSession({ userId: user });
    expect(cachedSession(laptop, new Date())).toBeNull();
    expect(cachedSession(phone, new Date())).toBeNull();
    expect(cachedSession(someoneElse, new Date())).toBe(other);
    cacheSession(laptop, session(user), Date.now());
    expect(cachedSession(laptop, new Date())).toBeNull();
  });
});
