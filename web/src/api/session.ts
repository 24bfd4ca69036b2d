import { clearLogin } from '../storage.ts';
import { ApiError } from './fetcher.ts';
import { resource } from './resource.ts';
import { onSessionEndedChange, isSessionEnded, sessionBegan, sessionLost } from './sessionEnded.ts';

/** What `GET /api/auth/login` (the session check, spec §7) answers for a logged-in user. */
export type SessionUser = { email: string; name: string; phone: string | null; hasPlan: boolean };

export type Session =
  | { status: 'loading'; user: undefined }
  | { status: 'anonymous'; user: undefined }
  | { status: 'user'; user: SessionUser };

/** The session check the SPA uses: `/auth/session` answers 200 signed out too (no console 401). */
export const SESSION_KEY = '/auth/session';

type SessionAnswer = SessionUser | { email: null } | null;

// Asked again when the tab comes back, and even once the session has ended (other calls pause):
// a login or logout in another tab shows here. Every page's header reads it (web/src/api/resource.ts).
const session = resource<SessionAnswer>(SESSION_KEY, {
  revalidateOnFocus: true,
  onSuccess: (answer) => void (answer?.email ? sessionBegan() : sessionLost()),
});

/**
 * The server's answer on who is logged in and whether they have a plan. No email, a 401 (or an API
 * that does not know sessions yet) means anonymous; other failures are logged only (spec §8).
 */
export function useSession(): Session {
  const { data, error, isLoading } = session.use();
  if (isLoading) return { status: 'loading', user: undefined };
  if (error || !data?.email) {
    if (error && !(error instanceof ApiError && error.status < 500))
      console.warn('session check failed', error);
    return { status: 'anonymous', user: undefined };
  }
  return { status: 'user', user: data };
}

// An ended session is no session: the header and every reader of the session see a visitor,
// and the browser's display caches (spec §3) forget the login.
onSessionEndedChange(() => {
  if (!isSessionEnded()) return;
  clearLogin();
  session.set({ email: null });
});

/**
 * The session's user as just changed here (a login, a new name or phone; null after a logout),
 * without asking again.
 */
export function updateSessionUser(user: SessionUser | null) {
  session.set(user);
}

/** Asks the session check again (after a payment, `hasPlan` may have changed). */
export function refreshSession() {
  return session.revalidate();
}
