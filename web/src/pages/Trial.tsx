import { useLayoutEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { ApiError } from '../api/fetcher.ts';
import { rememberCheckout, selectVm } from '../api/plans.ts';
import { useSession } from '../api/session.ts';
import { Page } from '../components/Layout.tsx';
import { PhoneStep } from '../components/PhoneStep.tsx';
import { usePageTitle } from '../components/pageTitle.ts';
import { forgetChoice, loginPathFor, pendingChoice, rememberChoice, rememberReturnTo } from '../returnTo.ts';
import { writeStored } from '../storage.ts';
import { formatRupees } from '../../../core/domain/plans.ts';
import {
  isTrialOffered,
  TRIAL_LABEL,
  TRIAL_MESSAGES as M,
  TRIAL_OFFERS,
  TRIAL_PLAN_NAME,
} from '../../../core/domain/trial.ts';

/**
 * Spec §2 Trial page (carousel of the three plans at 1 hour, rotate buttons, Start Now) and
 * §4 Trial start. The trial is paid like any plan: Start Now saves it and goes to /payment.
 */
export default function Trial() {
  usePageTitle('1 hour trial');
  const session = useSession();
  const [, navigate] = useLocation();
  // A trial picked before signing in or registering is still the one shown afterwards: read in
  // the browser before it paints, after the first render (a prerendered page's first render
  // must be its HTML's).
  const [index, setIndex] = useState(0);
  useLayoutEffect(() => {
    const chosen = pendingChoice('trial');
    if (chosen)
      setIndex(
        Math.max(
          0,
          TRIAL_OFFERS.findIndex((o) => o.plan.id === chosen.planId),
        ),
      );
  }, []);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const count = TRIAL_OFFERS.length;
  const offer = TRIAL_OFFERS[index] ?? TRIAL_OFFERS[0]!;
  const rotate = (step: number) => {
    setMessage(null);
    setIndex((i) => (i + step + count) % count);
  };

  async function startNow() {
    setMessage(null);
    if (session.status !== 'user') {
      // No native alert: the login page says why, and sign-in (or sign-up) comes back here.
      rememberChoice({ kind: 'trial', planId: offer.plan.id });
      rememberReturnTo('/trial');
      navigate(loginPathFor('/trial'));
      return;
    }
    const storage = `${offer.storageGb} GB`;
    const price = offer.pricePaise / 100;
    writeStored({
      selectedPlan: TRIAL_PLAN_NAME,
      selectedDuration: offer.hours,
      selectedStorage: storage,
      selectedPrice: price,
    });
    setBusy(true);
    try {
      const saved = await selectVm({
        email: session.user.email,
        plan: TRIAL_PLAN_NAME,
        duration: offer.hours,
        storage,
        price,
        isTrial: true,
        trialPlan: offer.plan.displayName,
      });
      writeStored({ hasPlan: true });
      forgetChoice();
      await rememberCheckout(saved);
      navigate('/payment');
    } catch (error) {
      // The server answered no (its reason follows), or the call itself failed.
      setMessage(
        error instanceof ApiError && error.status > 0
          ? `${M.saveFailed} ${error.message}`.trim()
          : M.saveError,
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <Page
      title="Try a cloud PC for 1 hour"
      lead="Pick a machine, pay a small one-time price, and play, edit or build for an hour."
    >
      <section className="trial-carousel" aria-roledescription="carousel" aria-label="Trial plans">
        <button type="button" className="trial-rotate" onClick={() => rotate(-1)} aria-label="Previous plan">
          <span aria-hidden="true">‹</span>
        </button>
        <article
          className={`card trial-slide pricing-${offer.plan.id}`}
          aria-roledescription="slide"
          aria-label={`${index + 1} of ${count}: ${offer.plan.displayName}`}
          aria-live="polite"
        >
          <h2 className="pricing-name">{offer.plan.displayName}</h2>
          <p className="trial-price">
            {formatRupees(offer.pricePaise)} <span className="muted">for {TRIAL_LABEL}</span>
          </p>
          <p className="pricing-hardware">
            {offer.plan.ramGb} GB RAM · {offer.plan.gpu} · {offer.storageGb} GB storage
          </p>
          <p className="pricing-description">{offer.plan.description}</p>
        </article>
        <button type="button" className="trial-rotate" onClick={() => rotate(1)} aria-label="Next plan">
          <span aria-hidden="true">›</span>
        </button>
      </section>
      <div className="trial-dots" role="group" aria-label="Choose a trial plan">
        {TRIAL_OFFERS.map((o, i) => (
          <button
            key={o.plan.id}
            type="button"
            className="trial-dot"
            aria-label={o.plan.displayName}
            aria-pressed={i === index}
            onClick={() => {
              setMessage(null);
              setIndex(i);
            }}
          />
        ))}
      </div>
      {!isTrialOffered(session.user) ? (
        <div className="trial-start">
          <p className="notice info">
            The {TRIAL_LABEL} trial is for newcomers, and you have already had a plan with us.
          </p>
          <div className="button-row">
            <Link href="/select-vm" className="button primary">
              See plans
            </Link>
            <Link href="/dashboard" className="button">
              Dashboard
            </Link>
          </div>
        </div>
      ) : session.status === 'user' && !session.user.phone ? (
        // An account made with Google has no number yet: asked here, as /payment asks, then on.
        <div className="trial-start">
          <PhoneStep
            user={session.user}
            why={`The ${TRIAL_LABEL} trial is one per mobile number, and PayU asks for one with every payment.`}
            onSaved={() => void startNow()}
          />
        </div>
      ) : (
        <div className="trial-start">
          <button
            type="button"
            className="button primary large"
            onClick={startNow}
            disabled={busy || session.status === 'loading'}
          >
            {busy ? 'Processing...' : M.startNow}
          </button>
          <div role="alert" className="form-status">
            {message && <p className="notice error">{message}</p>}
          </div>
          <p className="muted">One trial per account and phone number.</p>
        </div>
      )}
    </Page>
  );
}
