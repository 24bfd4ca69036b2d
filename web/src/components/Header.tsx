import { lazy, Suspense, useEffect, useId, useState, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { useSession, type Session } from '../api/session.ts';
import { Logo } from './Logo.tsx';
import { NavItem, PLAN_ITEM } from './NavItem.tsx';

// Whether a customer's plan can be renewed now needs their plan and the plan rules: loaded for a
// customer who has one, not with every visitor's first page.
const PlanNavItem = lazy(() => import('./PlanNavItem.tsx'));

/**
 * The three nav variants of spec §2 "Landing page". A customer with a plan sees "Renew Plan"
 * only when a plan can be bought now (it has ended, or it is a trial); while one is in force,
 * "My plan", which shows it, rather than cards that would all refuse; during a trial, "My trial"
 * (PlanNavItem).
 */
function navItems(session: Session, location: string): ReactNode[] {
  const item = (label: string, href: string) => (
    <NavItem key={label} label={label} href={href} location={location} />
  );
  if (session.status !== 'user') {
    return [
      item('Services', '/services'),
      item('Plans', '/select-vm'),
      item('Blogs', '/blogs'),
      item('Register / Login', '/login'),
    ];
  }
  if (!session.user.hasPlan)
    return [item('Services', '/services'), item('Plans', '/select-vm'), item('Blogs', '/blogs')];
  return [
    item('Services', '/services'),
    // Until its rule has loaded it says what it says while the plan is asked for: "My plan".
    <Suspense key="plan" fallback={<NavItem {...PLAN_ITEM} location={location} />}>
      <PlanNavItem location={location} />
    </Suspense>,
    item('Dashboard', '/dashboard'),
    item('Blogs', '/blogs'),
  ];
}

export function Header({ profileMenu }: { profileMenu?: ReactNode }) {
  const session = useSession();
  const [open, setOpen] = useState(false);
  const [location] = useLocation();
  const menuId = useId();

  // A navigation closes the mobile menu.
  useEffect(() => setOpen(false), [location]);

  const loading = session.status === 'loading';
  return (
    <header className="site-header">
      <div className="container header-row">
        <Link href="/" className="brand" aria-label="Legend Cloud home">
          <Logo />
          <span>Legend Cloud</span>
        </Link>
        {/* Hidden, not removed, while the plan check loads: the header keeps its height (spec §2). */}
        <div className={`header-nav ${loading ? 'is-loading' : ''}`} aria-hidden={loading}>
          <button
            type="button"
            className="menu-toggle"
            aria-expanded={open}
            aria-controls={menuId}
            onClick={() => setOpen((v) => !v)}
          >
            <span className="menu-toggle-bars" aria-hidden="true" />
            <span className="visually-hidden">{open ? 'Close menu' : 'Open menu'}</span>
          </button>
          <nav id={menuId} className={`main-nav ${open ? 'is-open' : ''}`} aria-label="Main">
            <ul>
              {navItems(session, location)}
              {session.status === 'user' && (
                <li className="profile-slot">{profileMenu ?? <ProfileLink />}</li>
              )}
            </ul>
          </nav>
        </div>
      </div>
    </header>
  );
}

function ProfileLink() {
  return <Link href="/dashboard">My Profile</Link>;
}
