import type { ReactNode } from 'react';
import { useLocation } from 'wouter';
import { Footer } from './Footer.tsx';
import { Header } from './Header.tsx';
import { ProfileMenu } from './ProfileMenu.tsx';

export function Layout({ children }: { children: ReactNode }) {
  // Spec §2: the dashboard's footer links only to the policy, the terms and contact.
  const [location] = useLocation();
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
