import { useEffect, useRef, type ReactNode } from 'react';
import { useLocation } from 'wouter';
import { useSession, type SessionUser } from '../api/session.ts';
import { sessionLost, useSessionEnded } from '../api/sessionEnded.ts';
import { loginPathFor, rememberReturnTo } from '../returnTo.ts';
import { SessionEnded } from './SessionEnded.tsx';

/**
 * Guards a page: only a logged-in user sees `children`; anyone else is sent to /login, which
 * brings them back here once they have signed in (password, code or Google). It
 * asks the server (the session check), never the browser's stored values, which are only
 * display caches. `children` may be a function of the user:
 *
 * ```tsx
 * { path: '/dashboard', component: lazy(() => import('./pages/Dashboard.tsx')) }
 * // in Dashboard.tsx:
 * export default function Dashboard() {
 *   return <RequireUser>{(user) => <DashboardView user={user} />}</RequireUser>;
 * }
 * ```
 *
 * When the session ends while the page is open (a 401 from any call, or the session check
 * answering nobody), the page is not whisked away: it stays, frozen and unusable, under one
 * message with a login link that comes back here (components/SessionEnded.tsx).
 */
export function RequireUser({ children }: { children: ReactNode | ((user: SessionUser) => ReactNode) }) {
  const session = useSession();
  const ended = useSessionEnded();
  const [, navigate] = useLocation();
  // Who this page was open for: still shown (frozen) once the session has ended under it.
  const shownFor = useRef<SessionUser | null>(null);
  if (session.status === 'user') shownFor.current = session.user;
  const frozen = ended && shownFor.current !== null;

  useEffect(() => {
    if (session.status !== 'anonymous' || frozen) return;
    // The session check now says nobody, on a page open for someone: their session ended.
    if (shownFor.current && sessionLost()) return;
    const here = window.location.pathname + window.location.search + window.location.hash;
    rememberReturnTo(here);
    navigate(loginPathFor(here), { replace: true });
  }, [session.status, frozen, navigate]);

  const user = frozen ? shownFor.current : session.user;
  if (!user) return <p className="container page loading">Loading…</p>;
  // The same tree either way, so the page keeps its state (a message it showed) when it freezes.
  return (
    <SessionEnded active={frozen}>{typeof children === 'function' ? children(user) : children}</SessionEnded>
  );
}
