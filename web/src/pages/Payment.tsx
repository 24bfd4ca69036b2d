import { useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import { ApiError } from '../api/fetcher.ts';
import { createPayment, isNotFound, useCheckout, type PaymentStart, type PlanChoice } from '../api/plans.ts';
import type { SessionUser } from '../api/session.ts';
import { Page } from '../components/Layout.tsx';
import { PhoneStep } from '../components/PhoneStep.tsx';
import { AutoPayOptIn } from '../components/AutoPayOptIn.tsx';
import { RequireUser } from '../components/RequireUser.tsx';
import { usePageTitle } from '../components/pageTitle.ts';
import { formatRupees } from '../../../core/domain/plans.ts';
import { PAYMENT_MESSAGES as M } from '../../../core/domain/subscription.ts';
import { TRIAL_LABEL } from '../../../core/domain/trial.ts';

/** Spec §2 Payment confirmation, §4 Purchase flow (the hidden form to PayU), §8 Payment start. */
export default function Payment() {
  usePageTitle(M.confirmHeading);
  return <RequireUser>{(user) => <Confirm user={user} />}</RequireUser>;
}

/** PayU needs a phone number: a customer who signed up with Google adds one before the first payment. */
function Confirm({ user }: { user: SessionUser }) {
  if (!user.phone) {
    return (
      <Page title={M.confirmHeading}>
        <PhoneStep user={user} why="PayU asks for a mobile number with every payment." />
      </Page>
    );
  }
  return <ConfirmAndPay user={user} />;
}

function ConfirmAndPay({ user }: { user: SessionUser }) {
  const { data: choice, error, isLoading } = useCheckout();
  const [redirecting, setRedirecting] = useState(false);
  const [start, setStart] = useState<PaymentStart | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  // "Renew automatically every month": off unless the customer ticks it; a tick survives the
  // session ending under this page and the sign-in that comes back here (this tab, this choice).
  const [autoRenew, setTicked] = useState(false);
  useEffect(() => {
    if (choice?.subscriptionId) setTicked(readAutoRenewTick(choice.subscriptionId));
  }, [choice?.subscriptionId]);
  function setAutoRenew(on: boolean) {
    setTicked(on);
    if (choice?.subscriptionId) rememberAutoRenewTick(choice.subscriptionId, on);
  }

  async function pay(choice: PlanChoice & { autoRenew: unknown }) {
    setMessage(null);
    setRedirecting(true);
    try {
      // The server charges the plan choice's catalogue price; the amount sent is only a copy.
      setStart(
        await createPayment({
          amount: choice.selectedPrice,
          customerEmail: user.email,
          plan: choice.selectedPlan,
          duration: choice.selectedDuration,
          storage: choice.selectedStorage,
          ...(autoRenew && choice.autoRenew ? { autoRenew: true } : {}),
        }),
      );
    } catch (failure) {
      setRedirecting(false);
      setMessage(
        failure instanceof ApiError && failure.status > 0 && failure.message
          ? failure.message
          : M.startFailed,
      );
    }
  }

  if (isLoading) return <p className="container page loading">Loading…</p>;
  if (error || !choice) {
    return (
      <Page title={M.confirmHeading}>
        <div className="card checkout-card">
          <p>
            {isNotFound(error) ? 'No plan is waiting for payment.' : 'We could not load your plan choice.'}
          </p>
          <Link href="/select-vm" className="button primary">
            Choose a plan
          </Link>
        </div>
      </Page>
    );
  }

  const price = formatRupees(choice.pricePaise);
  if (choice.refusal) {
    // An old choice that can no longer be paid (a plan bought since, capacity gone): said before Pay.
    return (
      <Page title={M.confirmHeading}>
        <div className="card checkout-card checkout-refused" role="alert">
          <p>
            Your earlier choice, {choice.selectedPlan}
            {choice.isTrial ? '' : ` ${choice.selectedDuration} hours`} for {price}, cannot be paid now.
          </p>
          <p className="notice warning">{choice.refusal}</p>
          <div className="checkout-actions">
            <Link href="/dashboard" className="button primary">
              Go to your dashboard
            </Link>
            <Link href="/select-vm" className="button ghost">
              See plans
            </Link>
          </div>
        </div>
      </Page>
    );
  }
  return (
    <Page title={M.confirmHeading}>
      <section className="card checkout-card" aria-label="Your plan">
        <dl className="checkout-summary">
          <div>
            <dt>Plan</dt>
            <dd className="checkout-plan">
              {choice.isTrial ? `${choice.selectedPlan} · ${choice.machinePlan}` : choice.selectedPlan}
            </dd>
          </div>
          <div>
            <dt>Hours</dt>
            <dd>{choice.isTrial ? TRIAL_LABEL : `${choice.selectedDuration} hours, valid one month`}</dd>
          </div>
          <div>
            <dt>Storage</dt>
            <dd>{choice.selectedStorage}</dd>
          </div>
          <div>
            <dt>{choice.isTrial ? 'Price' : 'Price per month'}</dt>
            <dd className="checkout-price">{price}</dd>
          </div>
        </dl>
        {choice.machineNote && <p className="notice info checkout-machine">{choice.machineNote}</p>}
        {choice.autoRenew && (
          <AutoPayOptIn
            offer={choice.autoRenew}
            checked={autoRenew}
            onChange={setAutoRenew}
            disabled={redirecting}
          />
        )}
        <p className="muted checkout-fineprint">
          GST included. You pay on PayU&rsquo;s secure page and come straight back here.
        </p>
        <div role="alert" className="form-status">
          {message && <p className="notice error">{message}</p>}
        </div>
        <div className="checkout-actions">
          <button
            type="button"
            className="button primary large"
            onClick={() => pay(choice)}
            disabled={redirecting}
          >
            Pay {price}
          </button>
          <Link href="/select-vm" className="button ghost">
            Change plan
          </Link>
        </div>
      </section>
      {redirecting && (
        <div className="fullscreen-loader" role="status" aria-live="assertive">
          <span className="spinner" aria-hidden="true" />
          <p>{M.redirecting}</p>
        </div>
      )}
      {start && <PayUForm start={start} />}
    </Page>
  );
}

const AUTO_RENEW_TICK_KEY = 'autoRenewTick';

/** Whether the customer ticked "Renew automatically" for this plan choice, in this tab. */
function readAutoRenewTick(subscriptionId: string): boolean {
  try {
    return window.sessionStorage.getItem(AUTO_RENEW_TICK_KEY) === subscriptionId;
  } catch {
    return false;
  }
}

function rememberAutoRenewTick(subscriptionId: string, on: boolean): void {
  try {
    if (on) window.sessionStorage.setItem(AUTO_RENEW_TICK_KEY, subscriptionId);
    else window.sessionStorage.removeItem(AUTO_RENEW_TICK_KEY);
  } catch {
    // without storage the tick lasts as long as the page
  }
}

/**
 * Spec §4: a hidden POST form to the provider's URL with the payment-start fields and a
 * notify_url at our callback. Submitted from an effect: the CSP allows no inline script.
 */
function PayUForm({ start }: { start: PaymentStart }) {
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    form.current?.submit();
  }, []);
  const { action, ...fields } = start;
  const notifyUrl = `${window.location.origin}/api/vm/payment-callback`;
  return (
    <form ref={form} method="post" action={action} hidden aria-hidden="true">
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <input type="hidden" name="notify_url" value={notifyUrl} />
    </form>
  );
}
