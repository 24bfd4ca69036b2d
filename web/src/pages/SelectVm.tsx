import { GAMING, GAMING_PLAN } from '../../../core/domain/gaming.ts';
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { ApiError } from '../api/fetcher.ts';
import { checkCapacity, rememberCheckout, selectVm, useCurrentPlan, type PlanChoice } from '../api/plans.ts';
import { useSession } from '../api/session.ts';
import { Page } from '../components/Layout.tsx';
import { usePageTitle } from '../components/pageTitle.ts';
import { useHydrated } from '../hydration.ts';
import { ConnectionCheckLink } from '../components/ConnectionCheckLink.tsx';
import {
  forgetChoice,
  loginPathFor,
  pendingChoice,
  rememberChoice,
  rememberReturnTo,
  type PendingChoice,
} from '../returnTo.ts';
import { writeStored } from '../storage.ts';
import {
  CARD_PLANS,
  DURATIONS,
  formatRupees,
  priceFor,
  type DurationHours,
  type Plan,
} from '../../../core/domain/plans.ts';
import { formatLongDate } from '../../../core/domain/time.ts';
import { renewOfferFor, type RenewOffer } from '../../../core/domain/planEnd.ts';
import '../components/endings.css';
import {
  activePlanBlocksPurchaseMessage,
  activePlanNote,
  canBuyPlanNow,
  daysLeft,
  PLAN_CHOICE_MESSAGES as M,
  saveErrorMessage,
} from '../../../core/domain/subscription.ts';

/** Spec §2 Plan selection, §4 Purchase flow, §5 Choosing a plan, §8 (capacity, save plan). */
export default function SelectVm() {
  usePageTitle('Plans');
  const session = useSession();
  const loggedIn = session.status === 'user';
  const currentQuery = useCurrentPlan(loggedIn);
  const current = currentQuery.data?.plan ?? null;
  // Whether the plan check has answered: a choice carried through sign-in waits for it.
  const planKnown = loggedIn && (currentQuery.data !== undefined || currentQuery.error !== undefined);
  // The plan that ended is offered again first, as it was ("Renew LEGEND 45 h").
  const offer =
    current &&
    current.status !== 'pending_payment' &&
    canBuyPlanNow(
      {
        plan: current.selectedPlan,
        hours: current.selectedDuration,
        expiresAt: current.expiryDate,
        isTrial: current.isTrial,
      },
      Date.now(),
    )
      ? renewOfferFor({
          planName: current.selectedPlan,
          hours: current.selectedDuration,
          isTrial: current.isTrial,
        })
      : null;
  const plans = offer
    ? [...CARD_PLANS].sort((a, b) => Number(b.id === offer.planId) - Number(a.id === offer.planId))
    : CARD_PLANS;
  // A running trial is not "a plan" here: buying one replaces it (see core/domain/trial.ts).
  const active =
    current &&
    !canBuyPlanNow(
      {
        plan: current.selectedPlan,
        hours: current.selectedDuration,
        expiresAt: current.expiryDate,
        isTrial: current.isTrial,
      },
      Date.now(),
    )
      ? current
      : null;

  return (
    <Page
      title={active ? 'Your plan' : 'Choose your plan'}
      lead="A Windows cloud PC with a real GPU. Every plan is valid for one month, whatever hours you pick. Prices include GST."
    >
      {active?.expiryDate && (
        <div className="card current-plan" role="status">
          <p>
            Your <strong>{active.selectedPlan}</strong> plan ({active.selectedDuration} hours) runs until{' '}
            {formatLongDate(active.expiryDate)}. You can renew it or choose another plan once it has ended.
          </p>
          <div className="button-row">
            <Link href="/dashboard" className="button primary small">
              Dashboard
            </Link>
            <Link href="/history" className="button small">
              Invoices &amp; plan history
            </Link>
          </div>
        </div>
      )}
      {offer && (
        <p className="card renew-offer-note" role="status">
          Your <strong>{offer.planName}</strong> plan ({offer.hours} hours) has ended. Renew it below to get
          back to the same PC and its files, or choose another plan.
        </p>
      )}
      <ConnectionCheckLink on="plans" />
      <ul className="pricing-grid">
        {plans.map((plan) => (
          <li key={plan.id}>
            <PlanCard
              plan={plan}
              sessionReady={session.status !== 'loading'}
              email={session.user?.email ?? null}
              renew={offer?.planId === plan.id ? offer : null}
              active={active}
              planKnown={planKnown}
            />
          </li>
        ))}
      </ul>
    </Page>
  );
}

function PlanCard({
  plan,
  sessionReady,
  email,
  renew,
  active,
  planKnown,
}: {
  plan: Plan;
  sessionReady: boolean;
  email: string | null;
  /** This card renews the customer's ended plan: its hours chosen, its button "Renew LEGEND 45 h". */
  renew: RenewOffer | null;
  active: PlanChoice | null;
  planKnown: boolean;
}) {
  const [, navigate] = useLocation();
  const [showInfo, setShowInfo] = useState(false);
  // The smallest bundle, whose price is the card's starting price, so the card never reads
  // "Select duration" or refuses at once; a choice made before signing in comes back. That is
  // read in the browser before it paints, after the first render: a prerendered page's first
  // render must be its HTML's.
  const [restored, setRestored] = useState<PendingChoice | null>(null);
  const [hours, setHours] = useState<DurationHours | null>(DURATIONS[0]);
  // Until the app has taken the prerendered page over, a tap would check the browser's radio and be
  // undone by hydration: the hours wait for it.
  const hydrated = useHydrated();
  useLayoutEffect(() => {
    const chosen = pendingChoice('plan');
    if (chosen?.planId !== plan.id) return;
    setRestored(chosen);
    if ((DURATIONS as readonly number[]).includes(chosen.hours)) setHours(chosen.hours as DurationHours);
  }, [plan.id]);
  // The renewed plan's hours, as it was bought (a choice made before signing in wins).
  useEffect(() => {
    if (renew && !pendingChoice('plan')) setHours(renew.hours);
  }, [renew?.hours]);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const infoId = useId();
  const price = hours === null ? null : priceFor(plan.id, hours);
  const from = priceFor(plan.id, DURATIONS[0]);
  const card = useRef<HTMLElement>(null);
  useEffect(() => {
    if (restored && email) card.current?.scrollIntoView({ block: 'center' });
  }, [restored, email]);
  // Chosen before signing in (or up): once signed in, the choice goes on to /payment as it was
  // made, rather than waiting to be chosen again. Once per page: a refusal stays on the card.
  const continued = useRef(false);
  useEffect(() => {
    if (!restored || !email || !planKnown || active || continued.current) return;
    continued.current = true;
    void choose();
  }, [restored, email, planKnown, active]);

  async function choose() {
    setMessage(null);
    // Spec §5, in its order: no unexpired plan, logged in, duration, price, capacity.
    if (active?.expiryDate) {
      setMessage(
        activePlanBlocksPurchaseMessage(
          active.selectedPlan,
          active.selectedDuration,
          daysLeft(active.expiryDate, Date.now()),
        ),
      );
      return;
    }
    if (!email) {
      // No native alert: the login page says why, and sign-in (or sign-up) comes back here
      // with this card and its hours still chosen.
      rememberChoice({ kind: 'plan', planId: plan.id, hours: hours ?? DURATIONS[0] });
      rememberReturnTo('/select-vm');
      navigate(loginPathFor('/select-vm'));
      return;
    }
    if (hours === null) return setMessage(M.durationRequired);
    if (price === null) return setMessage(M.noPrice);
    setBusy(true);
    try {
      try {
        const capacity = await checkCapacity(plan.displayName);
        if (!capacity.ok) return setMessage(capacity.message || M.capacityInsufficient);
      } catch (error) {
        return setMessage(
          error instanceof ApiError && error.status > 0 && error.message
            ? error.message
            : M.capacityInsufficient,
        );
      }
      const storage = `${plan.storageGb} GB`;
      let saved: PlanChoice;
      try {
        saved = await selectVm({
          email,
          plan: plan.displayName,
          duration: hours,
          storage,
          price: price / 100,
          isTrial: false,
        });
      } catch (error) {
        const detail =
          error instanceof Error && error.message ? error.message : `status ${(error as ApiError).status}`;
        return setMessage(saveErrorMessage(detail));
      }
      writeStored({
        selectedPlan: saved.selectedPlan,
        selectedDuration: saved.selectedDuration,
        selectedStorage: saved.selectedStorage,
        selectedPrice: saved.selectedPrice,
      });
      forgetChoice();
      await rememberCheckout(saved);
      navigate('/payment');
    } finally {
      setBusy(false);
    }
  }

  return (
    <article
      ref={card}
      className={`card pricing-card pricing-${plan.id}${renew ? ' is-renewal' : ''}`}
      aria-labelledby={`${infoId}-name`}
    >
      <header className="pricing-head">
        <h2 id={`${infoId}-name`} className="pricing-name">
          {plan.displayName}
        </h2>
        <button
          type="button"
          className="pricing-info-toggle"
          aria-expanded={showInfo}
          aria-controls={infoId}
          onClick={() => setShowInfo((v) => !v)}
        >
          <span aria-hidden="true">i</span>
          <span className="visually-hidden">About {plan.displayName}</span>
        </button>
      </header>
      <p className="pricing-from">
        from <strong>{from === null ? '' : formatRupees(from)}</strong>{' '}
        <span className="muted">/ month for {DURATIONS[0]} h</span>
      </p>
      <p className="pricing-hardware">
        {plan.ramGb} GB RAM · {plan.gpu}
      </p>
      {plan.id === GAMING_PLAN && (
        <p className="pricing-badge" data-gaming-plan>
          Best for gaming: up to {GAMING.maxFps} fps
        </p>
      )}
      <p id={infoId} className="pricing-description" hidden={!showInfo}>
        {plan.description}
      </p>

      <fieldset className="duration-picker">
        <legend>Hours per month</legend>
        <div className="duration-options">
          {DURATIONS.map((option) => (
            <label key={option} className={`duration-option ${hours === option ? 'is-selected' : ''}`}>
              <input
                type="radio"
                name={`${infoId}-hours`}
                value={option}
                checked={hours === option}
                disabled={!hydrated}
                onChange={() => {
                  setHours(option);
                  setMessage(null);
                }}
              />
              <span>{option} h</span>
            </label>
          ))}
        </div>
      </fieldset>

      <dl className="pricing-facts">
        <div>
          <dt>Storage</dt>
          <dd>{plan.storageGb} GB / month</dd>
        </div>
        <div>
          <dt>Price</dt>
          <dd className="pricing-price" aria-live="polite">
            {price === null ? (
              M.selectDuration
            ) : (
              <>
                {formatRupees(price)} <span className="muted">/ month</span>
              </>
            )}
          </dd>
        </div>
      </dl>

      {active?.expiryDate ? (
        <p className="notice info pricing-note">{activePlanNote(active.selectedPlan, active.expiryDate)}</p>
      ) : (
        <button
          type="button"
          className="button primary pricing-choose"
          onClick={choose}
          disabled={busy || !sessionReady}
        >
          {busy
            ? M.processing
            : renew && hours === renew.hours
              ? renew.label
              : renew
                ? M.renewPlan
                : M.choosePlan}
        </button>
      )}
      <div role="alert" className="form-status">
        {message && <p className="notice error">{message}</p>}
      </div>
    </article>
  );
}
