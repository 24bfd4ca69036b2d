import { Link } from 'wouter';
import { useHydrated } from '../hydration.ts';

/** `compact`: also on the dashboard's short footer (policies and contact). */
const LINKS = [
  { label: 'Privacy Policy', href: '/privacy-policy', compact: true },
  { label: 'Terms of Service', href: '/terms-of-service', compact: true },
  { label: 'Refund Policy', href: '/refund-policy', compact: true },
  { label: 'Contact Us', href: '/contact-us', compact: true },
  { label: 'Blogs', href: '/blogs', compact: false },
  { label: 'Services', href: '/services', compact: false },
  { label: 'Plans', href: '/select-vm', compact: false },
];

/** Footer links of spec §2, with the refund policy. `compact` is the dashboard's: policies and contact. */
export function Footer({ compact = false }: { compact?: boolean }) {
  const links = compact ? LINKS.filter((link) => link.compact) : LINKS;
  // A prerendered page shows its build's year until hydrated, then today's (the same but at New Year).
  const year = useHydrated() ? new Date().getFullYear() : __BUILD_YEAR__;
  return (
    <footer className="site-footer">
      <div className="container footer-row">
        <nav aria-label="Footer">
          <ul>
            {links.map((link) => (
              <li key={link.href}>
                <Link href={link.href}>{link.label}</Link>
              </li>
            ))}
          </ul>
        </nav>
        <p className="muted">© {year} Legend Cloud. Cloud PCs made in India.</p>
      </div>
    </footer>
  );
}
