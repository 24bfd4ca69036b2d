import { Link } from 'wouter';

/** One link of the header's nav, marked while its page is the one shown. */
export function NavItem({ label, href, location }: { label: string; href: string; location: string }) {
  return (
    <li>
      <Link href={href} className={location === href ? 'active' : undefined}>
        {label}
      </Link>
    </li>
  );
}

/** The plan's link for a customer who has one, while whether it can be renewed is not known. */
export const PLAN_ITEM = { label: 'My plan', href: '/select-vm' } as const;
