import { useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { Page } from '../components/Layout.tsx';
import { usePageTitle } from '../components/pageTitle.ts';
import { TIMERS_MS } from '../../../core/domain/constants.ts';
import { PAYMENT_MESSAGES as M } from '../../../core/domain/subscription.ts';

/** Spec §2 Payment failure: "Payment failed", then home after 5 seconds (the timer dies with the page). */
export default function PaymentFailure() {
  usePageTitle(M.failure);
  const [, navigate] = useLocation();
  const [secondsLeft, setSecondsLeft] = useState(Math.round(TIMERS_MS.failureRedirect / 1000));

  useEffect(() => {
    const home = window.setTimeout(() => navigate('/'), TIMERS_MS.failureRedirect);
    const tick = window.setInterval(() => setSecondsLeft((s) => Math.max(0, s - 1)), 1000);
    return () => {
      window.clearTimeout(home);
      window.clearInterval(tick);
    };
  }, [navigate]);

  return (
    <Page title={M.failure}>
      <div className="card payment-outcome payment-failed">
        <p>
          Your payment did not go through, so your plan was not started. You can try again from your plan
          choice.
        </p>
        <p className="muted" aria-live="polite">
          Returning to the home page in {secondsLeft} second{secondsLeft === 1 ? '' : 's'}…
        </p>
        <div className="checkout-actions">
          <Link href="/payment" className="button primary">
            Try again
          </Link>
          <Link href="/" className="button ghost">
            Home
          </Link>
        </div>
      </div>
    </Page>
  );
}
