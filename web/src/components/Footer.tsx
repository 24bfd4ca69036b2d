import { Link } from 'wouter';

const LINKS = [
  { label: 'Privacy Policy', href: '/privacy-policy' },
  { label: 'Terms of Service', href: '/terms-of-service' },
  { label: 'Contact Us', href: '/contact-us' },
  { label: 'Blogs', href: '/blogs' },
  { label: 'Services', href: '/services' },
  { label: 'Plans', href: '/select-vm' },
];

/** Footer links of spec §2. `compact` is the dashboard's: policy, terms, contact only. */
export function Footer({ compact = false }: { compact?: boolean }) {
  const links = compact ? LINKS.slice(0, 3) : LINKS;
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
        <p className="muted">© {new Date().getFullYear()} Legend Cloud. Cloud PCs made in India.</p>
      </div>
    </footer>
  );
}
