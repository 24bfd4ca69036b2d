import { Link, useSearch } from 'wouter';
import { usePaymentAttempt } from '../api/payments.ts';
import { useSession } from '../api/session.ts';
import { Page } from '../components/Layout.tsx';
import { usePageTitle } from '../components/pageTitle.ts';
import { PAYMENT_MESSAGES as M } from '../../../core/domain/subscription.ts';

/**
 * Spec §2 Payment failure: "Payment failed". It stays until the customer acts (the spec's
 * five-second return home is dropped: docs/deviations.md), says why in plain words from what
 * PayU told our server, and gives the reference to quote to support. The attempt is listed in
 * the history too.
 */
export default function PaymentFailure() {
  usePageTitle(M.failure);
  const txnid = new URLSearchParams(useSearch()).get('txnid');
  const session = useSession();
  const { data: attempt } = usePaymentAttempt(session.status === 'user' ? txnid : null);

  let reason = 'Your payment did not go through, so your plan was not started. No money was taken for it.';
  if (attempt?.status === 'failure' && attempt.failureReason) reason = attempt.failureReason;
  else if (attempt && (attempt.status === 'initiated' || attempt.status === 'pending'))
    reason =
      'PayU has not confirmed this payment yet. If money left your account, we will find it within minutes and start your plan, or refund it.';
  else if (attempt?.status === 'success')
    reason = 'PayU has since confirmed this payment: your plan is being started.';

  return (
    <Page title={M.failure}>
      <div className="card payment-outcome payment-failed">
        <p className="payment-failure-reason">{reason}</p>
        {attempt?.payuReason && (
          <p className="muted">
            PayU said: <q>{attempt.payuReason}</q>
          </p>
        )}
        {txnid && (
          <p>
            Reference to quote if you contact us: <code className="payment-reference">{txnid}</code>
          </p>
        )}
        <div className="checkout-actions">
          <Link href="/payment" className="button primary">
            Try again
          </Link>
          <Link href="/history" className="button ghost">
            Payment history
          </Link>
          <Link href="/report-problem" className="button ghost">
            Contact support
          </Link>
        </div>
      </div>
    </Page>
  );
}
