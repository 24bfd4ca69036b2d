import { useEffect, useState } from 'react';
import { useSite } from '../api/site.ts';
import type { DashboardRecord } from '../api/vm.ts';
import {
  setupEstimate,
  SETUP_PHASE_LABELS,
  SETUP_STEPS,
  type SetupPhase,
} from '../../../core/domain/setupProgress.ts';
import './endings.css';

const CHECKING_PAYMENT = 'Checking your payment with PayU…';

/** Re-renders every `ms` (the estimate counts down between polls). */
function useNow(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), ms);
    return () => window.clearInterval(timer);
  }, [ms]);
  return now;
}

/**
 * The new PC's way to ready: the steps (payment checked, machine being prepared, starting,
 * checking Remote Desktop) with the current one marked, and how long it usually takes from here,
 * estimated from the recorded provisions the landing page's figure comes from. The same on the
 * payment-success page and the dashboard. `phase` overrides the record's (the payment not yet
 * checked has no record).
 */
export function SetupProgress({
  setup,
  phase,
}: {
  setup: DashboardRecord['setup'] | null;
  phase?: SetupPhase;
}) {
  const site = useSite();
  const now = useNow(5_000);
  const current = phase ?? setup?.phase ?? 'payment';
  const at = SETUP_STEPS.indexOf(current);
  // A claimed spare only starts, a launch is prepared (first boot): a step the machine skips is not shown as waiting.
  const skipped: SetupPhase | null =
    setup?.source === 'pool' ? 'preparing' : setup?.source === 'launch' ? 'starting' : null;
  const estimate = setupEstimate({
    distribution: site?.setupTimes ?? null,
    source: setup?.source ?? null,
    requestedAt: setup?.requestedAt ?? null,
    now,
  });
  return (
    <div className="setup-progress" data-phase={current}>
      <ol className="progress-steps setup-steps">
        {SETUP_STEPS.filter((step) => step !== skipped).map((step) => {
          const index = SETUP_STEPS.indexOf(step);
          const state = index < at || current === 'ready' ? 'is-done' : index === at ? 'is-current' : '';
          return (
            <li key={step} className={state} aria-current={state === 'is-current' ? 'step' : undefined}>
              {step === 'payment' && current === 'payment' ? CHECKING_PAYMENT : SETUP_PHASE_LABELS[step]}
            </li>
          );
        })}
      </ol>
      {current !== 'payment' && (
        <p className="setup-estimate" role="status" data-measured={estimate.measured}>
          {estimate.text}
        </p>
      )}
    </div>
  );
}
