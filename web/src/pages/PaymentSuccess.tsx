import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { isTransient } from '../api/fetcher.ts';
import { paymentCallback, refreshCurrentPlan, usePaymentStatus } from '../api/plans.ts';
import { useDashboard } from '../api/vm.ts';
import { refreshSession, type SessionUser } from '../api/session.ts';
import { Page } from '../components/Layout.tsx';
import { RequireUser } from '../components/RequireUser.tsx';
import { usePageTitle } from '../components/pageTitle.ts';
import { readStored, writeStored } from '../storage.ts';
import { PAYMENT_MESSAGES as M } from '../../../core/domain/subscription.ts';
import { SETUP_DASHBOARD_LINK_MS } from '../../../core/domain/setupProgress.ts';
import { SetupProgress } from '../components/SetupProgress.tsx';

/**
 * Spec §2 Payment success, §4 Payment success page. The page tells the server to check
 * (the callback's PAID is only a nudge, ARCHITECTURE deviation 1), then polls every 3 s:
 * first the payment's own status (honest progress while PayU is asked), then the dashboard
 * until it shows the machine's public IP, and goes to /dashboard with it. Polling stops when
 * the page is left (swr drops its timers on unmount).
 *
 * Only the server's answer that the payment cannot be verified goes to the failure page. A
 * dropped connection or a restarting server is retried (swr) while the page says so: the customer
 * has paid, and a failure page would tell them otherwise and invite them to pay again.
 */
export default function PaymentSuccess() {
  usePageTitle('Payment');
  return <RequireUser>{(user) => <Progress user={user} />}</RequireUser>;
}

function Progress({ user }: { user: SessionUser }) {
  const [, navigate] = useLocation();
  const txnid = new URLSearchParams(useSearch()).get('txnid');
  const [asked, setAsked] = useState(false);
  const failed = useRef(false);

  function verificationFailed() {
    if (failed.current) return;
    failed.current = true;
    // No native alert: the failure page says it, the message handed over in the history state.
    navigate(txnid ? `/payment-failure?txnid=${encodeURIComponent(txnid)}` : '/payment-failure', {
      replace: true,
      state: { message: M.verifyFailed },
    });
  }

  useEffect(() => {
    if (!txnid) return verificationFailed();
    let cancelled = false;
    paymentCallback({
      txnid,
      customer: { email: user.email },
      notes: {
        plan: readStored('selectedPlan') ?? '',
        duration: readStored('selectedDuration') ?? '',
        storage: readStored('selectedStorage') ?? '',
      },
    })
      .then(() => !cancelled && setAsked(true))
      .catch((callbackError: unknown) => {
        if (cancelled) return;
        // The callback only nudges the check (the server verifies the payment in any case):
        // after a blip, go on and ask for the payment's status.
        if (isTransient(callbackError)) setAsked(true);
        else verificationFailed();
      });
    return () => {
      cancelled = true;
    };
    // Once per page visit and txnid.
  }, [txnid]);

  const { data: payment, error } = usePaymentStatus(asked ? txnid : null);
  const verified = payment?.status === 'success' && !payment.needsAttention;
  // The dashboard's own hook and key: it polls every 2 s while the machine is being set up.
  const { data: dashboard } = useDashboard(verified ? user.email : null);

  useEffect(() => {
    if (payment?.status === 'failure')
      navigate(`/payment-failure?txnid=${encodeURIComponent(payment.txnid)}`, { replace: true });
    if (error && !isTransient(error)) verificationFailed();
    if (verified) {
      writeStored({ hasPlan: true, purchaseDate: payment.subscription?.purchaseDate ?? null });
      void refreshSession();
      void refreshCurrentPlan();
    }
  }, [payment?.status, verified, error]);

  useEffect(() => {
    if (dashboard?.vmPublicIp) navigate('/dashboard', { state: dashboard });
  }, [dashboard, navigate]);

  // After a while the dashboard is offered: it shows the same progress, and the customer need not stay here.
  const [offerDashboard, setOfferDashboard] = useState(false);
  useEffect(() => {
    const timer = window.setTimeout(() => setOfferDashboard(true), SETUP_DASHBOARD_LINK_MS);
    return () => window.clearTimeout(timer);
  }, []);

  if (payment?.needsAttention) {
    return (
      <Page title="Payment received">
        <div className="card payment-outcome">
          <p>
            PayU confirmed your payment, but we could not start this plan for your account. Our support team
            has been told and will refund it; you can also{' '}
            <Link href="/report-problem">report a problem</Link>.
          </p>
        </div>
      </Page>
    );
  }

  return (
    <Page title={verified ? M.success : 'Checking your payment…'}>
      <div className="card payment-outcome" aria-live="polite">
        <SetupProgress
          setup={verified ? (dashboard?.setup ?? null) : null}
          phase={verified ? (dashboard?.setup ? undefined : 'preparing') : 'payment'}
        />
        {verified ? (
          <p className="payment-message">Payment verified. {M.onTheWay}</p>
        ) : error ? (
          <p className="payment-message muted" role="status">
            {M.stillChecking}
          </p>
        ) : (
          <p className="payment-message muted">This takes a few seconds. Please keep this page open.</p>
        )}
        <span className="spinner" aria-hidden="true" />
        {offerDashboard && (
          <p className="setup-dashboard-link">
            No need to wait here: <Link href="/dashboard">go to your dashboard</Link>, which shows the same
            progress.
          </p>
        )}
        {payment?.invoiceId && (
          <p className="muted">
            Your invoice {payment.invoiceId} is in your{' '}
            <Link href={`/history?invoiceId=${encodeURIComponent(payment.invoiceId)}`}>plan history</Link>.
          </p>
        )}
      </div>
    </Page>
  );
}
