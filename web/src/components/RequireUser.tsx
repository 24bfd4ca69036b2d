import { useEffect, type ReactNode } from 'react';
import { useLocation } from 'wouter';
import { useSession, type SessionUser } from '../api/session.ts';
import { loginPathFor, rememberReturnTo } from '../returnTo.ts';

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
 *   return <RequireUser>{(user) => <DashboardView email={user.email} />}</RequireUser>;
 * }
 * ```
 */
export function RequireUser({ children }: { children: ReactNode | ((user: SessionUser) => ReactNode) }) {
  const session = useSession();
  const [, navigate] = useLocation();
  useEffect(() => {
    if (session.status !== 'anonymous') return;
    const here = window.location.pathname + window.location.search + window.location.hash;
    rememberReturnTo(here);
    navigate(loginPathFor(here), { replace: true });
  }, [session.status, navigate]);
  if (session.status !== 'user') return <p className="container page loading">Loading…</p>;
  return <>{typeof children === 'function' ? children(session.user) : children}</>;
}
