import { Link } from 'wouter';
import type { DashboardRecord } from '../api/vm.ts';
import { formatLongDate, formatMomentInZone } from '../../../core/domain/time.ts';
import './endings.css';

/** The reader's own time zone (the browser's), so "ends at 7:45 pm IST" is their clock. */
function readerTimeZone(): string | undefined {
  return typeof Intl === 'undefined' ? undefined : Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/**
 * The plan's last days and its end, as the record says (core/domain/planEnd.ts decides when it
 * shows and what it holds): the exact end in the customer's time zone, what happens then (the PC
 * stops, its files are kept for the grace days, unused hours lapse), and what they can do.
 */
export function PlanEndBanner({ record }: { record: DashboardRecord }) {
  const end = record.planEnd;
  if (!end || end.phase === 'running') return null;
  const zone = readerTimeZone();
  const at = formatMomentInZone(end.endsAt, zone);
  const kept = formatLongDate(end.filesKeptUntil);
  const plan = `${record.selectedPlan} plan`;

  if (end.phase === 'ended') {
    return (
      <section className="notice warning dashboard-notice plan-end ended" aria-labelledby="plan-end-title">
        <h2 id="plan-end-title" className="plan-end-title">
          {end.refunded ? `Your ${plan} ended with its refund` : `Your ${plan} has ended`}
        </h2>
        <p>
          It ended on <strong data-field="plan-end-at">{at}</strong>.{' '}
          {end.pcKept && (
            <>
              Your PC is stopped and cannot be started until you renew; its files are kept until{' '}
              <strong>{kept}</strong>.{' '}
            </>
          )}
          Unused hours have lapsed.
        </p>
        <div className="plan-end-actions">
          {end.renewOffer ? (
            <Link href="/select-vm" className="button primary">
              {end.renewOffer.label}
            </Link>
          ) : (
            <Link href="/select-vm" className="button primary">
              Choose a plan
            </Link>
          )}
          {end.pcKept && (
            <span className="muted">Renew before {kept} to keep the same PC with all your files.</span>
          )}
        </div>
      </section>
    );
  }

  return (
    <section className="notice info dashboard-notice plan-end ending" aria-labelledby="plan-end-title">
      <h2 id="plan-end-title" className="plan-end-title">
        Your {plan} ends on <span data-field="plan-end-at">{at}</span>
      </h2>
      <ul className="plan-end-facts">
        <li>Your PC stops then.</li>
        <li>
          Its files are kept for {end.graceDays} days, until {kept}.
        </li>
        <li>Unused hours lapse: they do not carry over to a new plan.</li>
      </ul>
      <p className="plan-end-next">
        {end.renewal === 'autopay' ? (
          <>
            <strong>AutoPay renews it</strong>
            {end.nextDebitAt ? ` on ${formatMomentInZone(end.nextDebitAt, zone)}` : ''}, on the same PC, so
            nothing stops. <a href="#autopay">See automatic renewal</a>.
          </>
        ) : end.renewal === 'autopay-paused' ? (
          <>
            <strong>AutoPay is paused</strong>, so it will not renew. Resume it before then to keep your PC
            running. <a href="#autopay">Automatic renewal</a>.
          </>
        ) : (
          <>
            <strong>To keep going, renew after it ends</strong>: a new plan can be bought from the moment this
            one ends, and renewing before {kept} keeps the same PC with all your files.
          </>
        )}
      </p>
    </section>
  );
}
