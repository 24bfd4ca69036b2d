import type { MouseEvent, ReactNode } from 'react';
import { Link } from 'wouter';
import { loginPathFor, rememberReturnTo } from '../returnTo.ts';
import { ACCOUNT_MESSAGES as M } from '../../../core/domain/account.ts';
import { useSessionEndReason } from '../api/sessionEnded.ts';

/**
 * A guarded page whose session has ended (`active`): one message at the top, "Your session has
 * ended — log in again", with a link to /login that comes back to this page; the page below
 * stays in view (what was last known) but frozen: `inert` (nothing can be clicked, focused or
 * typed into) and inside a disabled fieldset (its buttons are disabled, as a screen reader
 * says). Timers and polls stop on their own (useSessionEnded, swr's isPaused). Inactive, it
 * changes nothing: both wrappers have `display: contents`.
 */
export function SessionEnded({ active, children }: { active: boolean; children: ReactNode }) {
  const here =
    typeof window === 'undefined'
      ? '/'
      : window.location.pathname + window.location.search + window.location.hash;
  const remember = (_event: MouseEvent) => rememberReturnTo(here);
  const reason = useSessionEndReason();
  return (
    <>
      {active && (
        <div className="container session-ended" role="alert">
          <p className="notice warning session-ended-notice">
            <span>{reason === 'password-changed' ? M.signedOutPasswordChanged : M.sessionEnded}</span>{' '}
            <Link href={loginPathFor(here)} className="button primary small" onClick={remember}>
              {M.sessionEndedLink}
            </Link>
          </p>
        </div>
      )}
      <div className={active ? 'session-frame is-ended' : 'session-frame'} inert={active}>
        <fieldset className="session-frame-fields" disabled={active}>
          {children}
        </fieldset>
      </div>
    </>
  );
}
