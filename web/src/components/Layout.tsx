import { lazy, Suspense, useLayoutEffect, type ReactNode } from 'react';
import { useLocation } from 'wouter';
import { Footer } from './Footer.tsx';
import { Header } from './Header.tsx';

// Only a signed-in customer has one, and never on a page's first render (the session is not
// known yet): the profile menu, its dialogs and their rules load once someone signs in, not with
// every visitor's first page.
const ProfileMenu = lazy(() => import('./ProfileMenu.tsx').then((m) => ({ default: m.ProfileMenu })));

export function Layout({ children }: { children: ReactNode }) {
  // Spec §2: the dashboard's footer links only to the policy, the terms and contact.
  const [location] = useLocation();
  // A link to another page opens it at its top (wouter keeps the old scroll position); a link to
  // a section (#refunds) is the browser's to scroll to. A layout effect: it runs before any page's
  // own effects, so a page that scrolls to something (the highlighted invoice) still does.
  useLayoutEffect(() => {
    if (!window.location.hash) window.scrollTo(0, 0);
  }, [location]);
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <Header
        profileMenu={
          <Suspense fallback={<ProfileMenuLoading />}>
            <ProfileMenu />
          </Suspense>
        }
      />
      <main id="main" tabIndex={-1}>
        {children}
      </main>
      <Footer compact={location === '/dashboard'} />
    </>
  );
}

/** The profile menu's button while its code loads: the same place and words, not yet a menu. */
function ProfileMenuLoading() {
  return (
    <div className="profile-menu">
      <button type="button" className="profile-toggle" aria-expanded={false} disabled>
        My Profile
        <span aria-hidden="true" className="caret" />
      </button>
    </div>
  );
}

/** A page's title block and content column. */
export function Page({ title, lead, children }: { title: string; lead?: ReactNode; children?: ReactNode }) {
  return (
    <div className="container page">
      <h1>{title}</h1>
      {lead && <p className="lead">{lead}</p>}
      {children}
    </div>
  );
}
