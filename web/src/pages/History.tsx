import { useEffect, useRef } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { ApiError } from '../api/fetcher.ts';
import { useHistoryEmail, useInvoices, type Invoice } from '../api/plans.ts';
import { useSession } from '../api/session.ts';
import { Page } from '../components/Layout.tsx';
import { usePageTitle } from '../components/pageTitle.ts';
import { formatInvoiceDate, formatInvoiceTotal } from '../components/invoiceFormat.ts';

/** Spec §2 History: invoice cards; loading, email not detected, error and empty states; the named invoice highlighted. */
export default function History() {
  usePageTitle('History');
  const session = useSession();
  const [, navigate] = useLocation();
  const highlighted = new URLSearchParams(useSearch()).get('invoiceId');
  const email = useHistoryEmail(session.user?.email ?? null);
  const { data, error, isLoading } = useInvoices(session.status === 'loading' ? null : email);

  useEffect(() => {
    // Not logged in (or the session ended): the guard's answer, /login.
    if (error instanceof ApiError && error.status === 401) navigate('/login', { replace: true });
  }, [error, navigate]);

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
        <Link href="/select-vm" className="button primary">
          See plans
        </Link>
      </div>
    );
  } else {
    body = (
      <ul className="history-list">
        {data.map((invoice) => (
          <li key={invoice.invoiceId}>
            <InvoiceCard invoice={invoice} highlighted={invoice.invoiceId === highlighted} />
          </li>
        ))}
      </ul>
    );
  }

  return (
    <Page title="Plan history" lead="Every plan you bought, with its GST invoice.">
      {body}
    </Page>
  );
}

function InvoiceCard({ invoice, highlighted }: { invoice: Invoice; highlighted: boolean }) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    if (highlighted) ref.current?.scrollIntoView({ block: 'center', behavior: 'smooth' });
  }, [highlighted]);
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
        <div>
          <dt>Expires</dt>
          <dd>{formatInvoiceDate(invoice.expiryDate)}</dd>
        </div>
      </dl>
      <Link href={`/invoice?invoiceId=${encodeURIComponent(invoice.invoiceId)}`} className="button ghost">
        View invoice
      </Link>
    </article>
  );
}
