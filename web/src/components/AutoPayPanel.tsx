import { useState } from 'react';
import { useLocation } from 'wouter';
import { errorMessage } from '../api/fetcher.ts';
import { cancelAutoRenew, pauseAutoRenew, payRenewalNow, resumeAutoRenew } from '../api/autopay.ts';
import type { DashboardRecord } from '../api/vm.ts';
import { Dialog } from './Dialog.tsx';
import { formatRupees, rupeesToPaise } from '../../../core/domain/money.ts';
import { formatIndiaClock, formatLongDate } from '../../../core/domain/time.ts';
import './autopay.css';

const STATUS_LINES = {
  active: 'On: your plan renews itself every month',
  paused: 'Paused: the next renewal is skipped',
  cancelled: 'Cancelled: your plan will not renew itself',
  failed: 'Could not be set up',
} as const;

const METHOD_NAMES = { upi: 'UPI AutoPay', card: 'Card (standing instruction)' } as const;

type Action = 'cancel' | 'pause' | 'resume' | 'pay';

/**
 * The dashboard's automatic renewal (AutoPay): whether it is on, the next debit with its amount
 * and method, the pre-debit notice once sent, a failed debit with its retry and "Pay now", and
 * Cancel and Pause/Resume. Shown only to a customer who turned it on at checkout.
 */
export function AutoPayPanel({ record }: { record: DashboardRecord }) {
  const autoRenew = record.autoRenew;
  const [busy, setBusy] = useState<Action | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [confirmingCancel, setConfirmingCancel] = useState(false);
  const [, navigate] = useLocation();
  if (!autoRenew) return null;

  async function act(action: Action) {
    setConfirmingCancel(false);
    setBusy(action);
    setProblem(null);
    try {
      if (action === 'cancel') await cancelAutoRenew();
      else if (action === 'pause') await pauseAutoRenew();
      else if (action === 'resume') await resumeAutoRenew();
      else {
        await payRenewalNow();
        navigate('/payment');
      }
    } catch (error) {
      setProblem(errorMessage(error, 'That did not work. Please try again.'));
    } finally {
      setBusy(null);
    }
  }

  const amount = formatRupees(rupeesToPaise(autoRenew.amount));
  const when = (at: string) => `${formatLongDate(at)}, ${formatIndiaClock(at)}`;
  const facts: Array<[string, string]> = [];
  if (autoRenew.nextDebitAt) facts.push(['Next debit', when(autoRenew.nextDebitAt)]);
  facts.push(['Amount', `${amount} a month`]);
  if (autoRenew.method) facts.push(['Paid with', METHOD_NAMES[autoRenew.method]]);
  const live = autoRenew.status === 'active' || autoRenew.status === 'paused';

  return (
    <section className="card autopay-card" id="autopay" aria-labelledby="autopay-title">
      <h2 id="autopay-title">Automatic renewal</h2>
      <p className="autopay-status">
        <span className={`autopay-dot ${autoRenew.status}`} aria-hidden="true" />
        {STATUS_LINES[autoRenew.status]}
      </p>
      {autoRenew.note && <p className="notice info">{autoRenew.note}</p>}
      {autoRenew.status === 'paused' && record.planActive && record.expiryDate && (
        <p className="notice warning autopay-paused-stop" role="status">
          Your PC stops on {when(record.expiryDate)}, when your plan ends, unless you resume before then.
        </p>
      )}
      {autoRenew.noticeSentAt && autoRenew.nextDebitAt && (
        <p className="notice info" role="status">
          Notice sent on {formatLongDate(autoRenew.noticeSentAt)}: {amount} will be debited on{' '}
          {when(autoRenew.nextDebitAt)}. Cancel or pause before then and nothing is debited.
        </p>
      )}
      {autoRenew.debiting && (
        <p className="notice info" role="status">
          Your renewal payment is with your bank; this page updates when it is done.
        </p>
      )}
      {autoRenew.lastFailure && (
        <div className="notice error" role="alert">
          <p>The last renewal debit did not go through. {autoRenew.lastFailure.reason}</p>
          <p>
            {autoRenew.lastFailure.retryAt
              ? `We try again on ${when(autoRenew.lastFailure.retryAt)}, or pay now to renew straight away.`
              : 'Pay now to renew the same PC, with everything on it.'}
          </p>
        </div>
      )}
      <dl className="vm-facts">
        {facts.map(([label, value]) => (
          <div className="vm-fact" key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {live && (
        <div className="autopay-actions">
          {autoRenew.payNow && (
            <button
              type="button"
              className="button primary"
              onClick={() => void act('pay')}
              disabled={busy !== null}
            >
              {busy === 'pay' ? 'Opening…' : `Pay now ${amount}`}
            </button>
          )}
          {autoRenew.status === 'active' ? (
            <button
              type="button"
              className="button"
              onClick={() => void act('pause')}
              disabled={busy !== null}
            >
              {busy === 'pause' ? 'Pausing…' : 'Pause'}
            </button>
          ) : (
            <button
              type="button"
              className="button"
              onClick={() => void act('resume')}
              disabled={busy !== null}
            >
              {busy === 'resume' ? 'Resuming…' : 'Resume'}
            </button>
          )}
          <button
            type="button"
            className="button ghost"
            onClick={() => setConfirmingCancel(true)}
            disabled={busy !== null}
          >
            {busy === 'cancel' ? 'Cancelling…' : 'Cancel automatic renewal'}
          </button>
        </div>
      )}
      {!live && autoRenew.status === 'cancelled' && (
        <p className="autopay-muted">
          Your plan runs to its end as bought. You can turn automatic renewal on again when you next pay.
        </p>
      )}
      {problem && (
        <p className="notice error" role="alert">
          {problem}
        </p>
      )}
      <Dialog
        open={confirmingCancel}
        title="Cancel automatic renewal?"
        onClose={() => setConfirmingCancel(false)}
      >
        <p>
          Nothing more is debited{autoRenew.noticeSentAt ? ', including the debit the notice announced' : ''},
          and the mandate is revoked at PayU. Your plan runs until{' '}
          {record.expiryDate ? formatLongDate(record.expiryDate) : 'its end'}; renew it by hand after that to
          keep the same PC.
        </p>
        <div className="modal-actions">
          <button type="button" className="button" onClick={() => setConfirmingCancel(false)}>
            Keep it on
          </button>
          <button type="button" className="button danger" onClick={() => void act('cancel')}>
            Yes, cancel it
          </button>
        </div>
      </Dialog>
    </section>
  );
}
