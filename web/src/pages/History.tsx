import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { ApiError } from '../api/fetcher.ts';
import { useHistoryEmail, useInvoices, type CreditNote, type Invoice } from '../api/plans.ts';
import { useSession } from '../api/session.ts';
import { Page } from '../components/Layout.tsx';
import { usePageTitle } from '../components/pageTitle.ts';
import { formatInvoiceDate, formatInvoiceTotal } from '../components/invoiceFormat.ts';
import { requestRefund, usePayments, type PaymentAttempt } from '../api/payments.ts';
import { errorMessage } from '../api/fetcher.ts';
import { formatRupees } from '../../../core/domain/money.ts';
import { refundEndsPlan, refundLine } from '../../../core/domain/refund.ts';
import '../components/endings.css';
import { loginPathForHere } from '../returnTo.ts';

/** Spec §2 History: invoice cards; loading, email not detected, error and empty states; the named invoice highlighted. */
export default function History() {
  usePageTitle('History');
  const session = useSession();
  const [, navigate] = useLocation();
  const highlighted = new URLSearchParams(useSearch()).get('invoiceId');
  const email = useHistoryEmail(session.user?.email ?? null);
  const { data, error, isLoading, mutate } = useInvoices(session.status === 'loading' ? null : email);
  // The refunds of each invoiced payment, so an invoice whose plan was refunded says so.
  const { data: payments } = usePayments(session.status === 'user');
  const refundsByInvoice = new Map(
    (payments?.payments ?? []).flatMap((p) => (p.invoiceId ? [[p.invoiceId, p.refunds] as const] : [])),
  );

  useEffect(() => {
    // Not logged in (or the session ended): the guard's answer, /login.
    if (!(error instanceof ApiError) || error.status !== 401) return;
    // Signed out: to /login, which comes back here. Signed in again since (the 401 is the one the
    // cache kept from before): ask again, rather than send a signed-in customer to /login.
    if (session.status === 'anonymous') navigate(loginPathForHere(), { replace: true });
    else if (session.status === 'user') void mutate();
  }, [error, navigate, session.status, mutate]);

  let body;
  if (session.status === 'loading' || isLoading) {
    body = <p className="loading">Loading your plan history…</p>;
  } else if (!email) {
    body = (
      <div className="card history-state">
        <h2>Email not detected</h2>
        <p>
          We could not tell whose history to show. Please <Link href="/login">log in</Link> again.
        </p>
      </div>
    );
  } else if (error) {
    body = (
      <div className="card history-state" role="alert">
        <h2>Something went wrong</h2>
        <p>Failed to load history.</p>
      </div>
    );
  } else if (!data || data.length === 0) {
    body = (
      <div className="card history-state">
        <p>No past plans found.</p>
        {/* Attempts that bought nothing (failed, abandoned) are listed below. */}
        <Link href="/select-vm" className="button primary">
          See plans
        </Link>
      </div>
    );
  } else {
    body = (
      <ul className="history-list">
        {data.map((entry) =>
          entry.kind === 'credit-note' ? (
            <li key={entry.creditNoteId}>
              <CreditNoteCard note={entry} />
            </li>
          ) : (
            <li key={entry.invoiceId}>
              <InvoiceCard
                invoice={entry}
                refunds={refundsByInvoice.get(entry.invoiceId) ?? []}
                highlighted={entry.invoiceId === highlighted}
              />
            </li>
          ),
        )}
      </ul>
    );
  }

  return (
    <Page title="Plan history" lead="Every plan you bought, with its GST invoice, and every payment attempt.">
      {body}
      {session.status === 'user' && <PaymentAttempts />}
    </Page>
  );
}

const REFUND_SOURCES: Record<PaymentAttempt['refunds'][number]['source'], string> = {
  auto: 'Refunded automatically: the payment started no plan.',
  customer: 'You asked for it.',
  operator: 'Issued by our support team.',
};

const AUTOPAY_MARKS: Record<NonNullable<PaymentAttempt['autoPay']>, string> = {
  debit: 'AutoPay debit',
  setup: 'AutoPay set up',
};

/** What follows a refused refund: our team is on it, or (once they have looked) it can be asked again. */
function refusedNext(refund: PaymentAttempt['refunds'][number]): string {
  return refund.underReview
    ? 'Your plan keeps running. Our team is looking into it and will write to you.'
    : 'Our team has looked into it; you can ask for a refund again.';
}

/** Every PayU attempt, failed and abandoned ones too, with refunds and the refund the policy offers. */
function PaymentAttempts() {
  const { data, error } = usePayments();
  if (error) {
    return (
      <p className="notice error" role="alert">
        Failed to load your payments.
      </p>
    );
  }
  if (!data || data.payments.length === 0) return null;
  return (
    <section className="payment-attempts" aria-labelledby="payments-heading">
      <h2 id="payments-heading">Payments and refunds</h2>
      <ul className="history-list">
        {data.payments.map((attempt) => (
          <li key={attempt.txnid}>
            <AttemptCard attempt={attempt} />
          </li>
        ))}
      </ul>
    </section>
  );
}

function AttemptCard({ attempt }: { attempt: PaymentAttempt }) {
  const plan = attempt.isTrial
    ? `${attempt.planName} (1 hour)`
    : `${attempt.planName}, ${attempt.hours} hours`;
  return (
    <article
      className={`card attempt-card attempt-${attempt.status}`}
      aria-label={`Payment ${attempt.txnid}`}
    >
      <header className="invoice-card-head">
        <h3>
          {plan}
          {attempt.autoPay && (
            <span className={`attempt-mark attempt-mark-${attempt.autoPay}`}>
              {AUTOPAY_MARKS[attempt.autoPay]}
            </span>
          )}
        </h3>
        <p className="invoice-card-total">{formatRupees(attempt.amountPaise)}</p>
      </header>
      <dl className="invoice-card-facts">
        <div>
          <dt>Status</dt>
          <dd className="attempt-status">{attempt.statusLabel}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{formatInvoiceDate(attempt.createdAt)}</dd>
        </div>
        <div>
          <dt>Reference</dt>
          <dd>
            <code>{attempt.txnid}</code>
          </dd>
        </div>
        {attempt.invoiceId && (
          <div>
            <dt>Invoice</dt>
            <dd>{attempt.invoiceId}</dd>
          </div>
        )}
      </dl>
      {attempt.statusDetail && (
        <p className={attempt.nextCheckAt ? 'attempt-detail muted' : 'attempt-detail notice info'}>
          {attempt.statusDetail}
        </p>
      )}
      {attempt.failureReason && <p className="muted">{attempt.failureReason}</p>}
      {attempt.notActivated && <p className="notice warning">{attempt.notActivated.explanation}</p>}
      {attempt.refunds.map((refund) => (
        <p
          key={refund.reference}
          className={`notice ${refund.status === 'failed' ? 'error' : refund.status === 'refunded' ? 'success' : 'info'} refund-line`}
        >
          <strong>{refundLine(refund)}.</strong>{' '}
          {refund.status === 'failed' ? refusedNext(refund) : REFUND_SOURCES[refund.source]} Refund reference{' '}
          <code>{refund.reference}</code>.
        </p>
      ))}
      {attempt.refundOffer.amountPaise !== null && <RefundRequest attempt={attempt} />}
      {/* An AutoPay debit still with the bank: when asking for its refund can work. */}
      {attempt.autoPay === 'debit' && attempt.refundOffer.refusalKind === 'not-settled' && (
        <p className="muted refund-wait">{attempt.refundOffer.refusal}</p>
      )}
    </article>
  );
}

/** Shows the amount the policy gives today and asks for it only after the customer confirms it. */
function RefundRequest({ attempt }: { attempt: PaymentAttempt }) {
  const offer = attempt.refundOffer;
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const amount = offer.amountPaise ?? 0;

  async function confirm() {
    setBusy(true);
    setMessage(null);
    try {
      await requestRefund(attempt.txnid, amount);
      setConfirming(false);
    } catch (failure) {
      setMessage(errorMessage(failure, 'Could not request the refund. Please try again.'));
    } finally {
      setBusy(false);
    }
  }

  if (!confirming) {
    return (
      <button type="button" className="button ghost" onClick={() => setConfirming(true)}>
        Cancel plan and request refund
      </button>
    );
  }
  return (
    <div className="refund-confirm" role="group" aria-label="Confirm refund">
      <p>
        Today is day {offer.day} of your plan: the policy refunds {offer.percent}% of the price, less the
        cancellation charge of {formatRupees(offer.chargePaise ?? 0)}. You will get back{' '}
        <strong className="refund-amount">{formatRupees(amount)}</strong> to your original payment method.
      </p>
      <p className="muted">
        Your plan ends and your cloud PC stops when PayU accepts the refund. See the{' '}
        <Link href="/terms-of-service#refunds">refund policy</Link>.
      </p>
      {message && (
        <p className="notice error" role="alert">
          {message}
        </p>
      )}
      <div className="checkout-actions">
        <button type="button" className="button primary" onClick={confirm} disabled={busy}>
          Confirm refund of {formatRupees(amount)}
        </button>
        <button type="button" className="button ghost" onClick={() => setConfirming(false)} disabled={busy}>
          Keep my plan
        </button>
      </div>
    </div>
  );
}

function InvoiceCard({
  invoice,
  refunds,
  highlighted,
}: {
  invoice: Invoice;
  refunds: PaymentAttempt['refunds'];
  highlighted: boolean;
}) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    if (highlighted) ref.current?.scrollIntoView({ block: 'center', behavior: 'smooth' });
  }, [highlighted]);
  // A refund PayU took on ended the plan: its expiry no longer holds.
  const ending = refunds.find(refundEndsPlan);
  return (
    <article
      ref={ref}
      className={`card invoice-card ${highlighted ? 'is-highlighted' : ''}`}
      aria-current={highlighted ? 'true' : undefined}
      aria-label={`Invoice ${invoice.invoiceId}`}
    >
      <header className="invoice-card-head">
        <h2>{invoice.planName}</h2>
        <p className="invoice-card-total">{formatInvoiceTotal(invoice.total)}</p>
      </header>
      <dl className="invoice-card-facts">
        <div>
          <dt>Invoice</dt>
          <dd>{invoice.invoiceId}</dd>
        </div>
        <div>
          <dt>Purchased</dt>
          <dd>{formatInvoiceDate(invoice.purchaseDate)}</dd>
        </div>
        {ending ? (
          <div>
            <dt>Plan</dt>
            <dd>Refunded and ended</dd>
          </div>
        ) : (
          <div>
            <dt>Expires</dt>
            <dd>{formatInvoiceDate(invoice.expiryDate)}</dd>
          </div>
        )}
      </dl>
      {ending && <p className="notice success refund-line">{refundLine(ending)}</p>}
      <Link href={`/invoice?invoiceId=${encodeURIComponent(invoice.invoiceId)}`} className="button ghost">
        View invoice
      </Link>
    </article>
  );
}

/** A GST credit note, beside the invoice it reduces. */
function CreditNoteCard({ note }: { note: CreditNote }) {
  return (
    <article className="card invoice-card credit-note-card" aria-label={`Credit note ${note.creditNoteId}`}>
      <header className="invoice-card-head">
        <h2>Credit note</h2>
        <p className="invoice-card-total">−{formatRupees(note.totalPaise)}</p>
      </header>
      <dl className="invoice-card-facts">
        <div>
          <dt>Credit note</dt>
          <dd>{note.creditNoteId}</dd>
        </div>
        <div>
          <dt>Against invoice</dt>
          <dd>{note.invoiceId}</dd>
        </div>
        <div>
          <dt>Issued</dt>
          <dd>{formatInvoiceDate(note.issuedAt)}</dd>
        </div>
      </dl>
      <Link
        href={`/credit-note?creditNoteId=${encodeURIComponent(note.creditNoteId)}`}
        className="button ghost"
      >
        View credit note
      </Link>
    </article>
  );
}
