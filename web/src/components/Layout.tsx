import { useLayoutEffect, type ReactNode } from 'react';
import { useLocation } from 'wouter';
import { Footer } from './Footer.tsx';
import { Header } from './Header.tsx';
import { ProfileMenu } from './ProfileMenu.tsx';

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
      <Header profileMenu={<ProfileMenu />} />
      <main id="main" tabIndex={-1}>
        {children}
      </main>
      <Footer compact={location === '/dashboard'} />
    </>
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
