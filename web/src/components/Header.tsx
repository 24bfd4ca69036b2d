import { useEffect, useId, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { useCurrentPlan, type PlanChoice } from '../api/plans.ts';
import { useSession, type Session } from '../api/session.ts';
import { canBuyPlanNow } from '../../../core/domain/subscription.ts';
import { Logo } from './Logo.tsx';

type NavItem = { label: string; href: string };

/**
 * The three nav variants of spec §2 "Landing page". A customer with a plan sees "Renew Plan"
 * only when a plan can be bought now (it has ended, or it is a trial); while one is in force,
 * "My plan", which shows it, rather than cards that would all refuse; during a trial, "My trial".
 */
function navItems(session: Session, current?: PlanChoice | null): NavItem[] {
  if (session.status !== 'user') {
    return [
      { label: 'Services', href: '/services' },
      { label: 'Plans', href: '/select-vm' },
      { label: 'Blogs', href: '/blogs' },
      { label: 'Register / Login', href: '/login' },
    ];
  }
  if (!session.user.hasPlan) {
    return [
      { label: 'Services', href: '/services' },
      { label: 'Plans', href: '/select-vm' },
      { label: 'Blogs', href: '/blogs' },
    ];
  }
  // Unknown yet: "My plan" (it leads to the same page) rather than a promise that may not hold.
  const renewable =
    current !== undefined &&
    canBuyPlanNow(
      current && {
        plan: current.selectedPlan,
        hours: current.selectedDuration,
        expiresAt: current.expiryDate,
        isTrial: current.isTrial,
      },
      Date.now(),
    );
  // A trial in its hour is the customer's plan for now: it reads as the trial, not a renewal.
  const inTrial =
    current?.isTrial === true &&
    current.status === 'active' &&
    current.expiryDate !== null &&
    Date.parse(current.expiryDate) > Date.now();
  return [
    { label: 'Services', href: '/services' },
    { label: inTrial ? 'My trial' : renewable ? 'Renew Plan' : 'My plan', href: '/select-vm' },
    { label: 'Dashboard', href: '/dashboard' },
    { label: 'Blogs', href: '/blogs' },
  ];
}

export function Header({ profileMenu }: { profileMenu?: React.ReactNode }) {
  const session = useSession();
  const current = useCurrentPlan(session.user?.hasPlan ?? false).data?.plan;
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
              {navItems(session, current).map((item) => (
                <li key={item.label}>
                  <Link href={item.href} className={location === item.href ? 'active' : undefined}>
                    {item.label}
                  </Link>
                </li>
              ))}
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
