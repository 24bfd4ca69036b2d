import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { useSession } from '../api/session.ts';
import { isTrialOffered } from '../../../core/domain/trial.ts';

/**
 * A link to /trial for those the trial is for; a customer who has had a plan sees `otherwise`
 * (nothing by default) instead of an offer the server would refuse.
 */
export function TrialLink({
  className,
  children,
  otherwise = null,
}: {
  className: string;
  children: ReactNode;
  otherwise?: ReactNode;
}) {
  const session = useSession();
  if (!isTrialOffered(session.user)) return <>{otherwise}</>;
  return (
    <Link href="/trial" className={className}>
      {children}
    </Link>
  );
}
