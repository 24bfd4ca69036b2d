import { Link } from 'wouter';

/** A line pointing to /connection-check, worded for where it stands. */
export function ConnectionCheckLink({ on }: { on: 'plans' | 'dashboard' }) {
  return (
    <p className="muted connection-check-link">
      {on === 'plans' ? 'Not sure your internet is up to it? ' : 'Playing from somewhere new? '}
      <Link href="/connection-check">Check your connection</Link>
      {on === 'plans' ? ' to our PCs before you buy.' : ' to our PCs.'}
    </p>
  );
}
