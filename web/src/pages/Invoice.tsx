import { useEffect } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { ApiError } from '../api/fetcher.ts';
import { useHistoryEmail, useInvoices, type Invoice as InvoiceData } from '../api/plans.ts';
import { useSession } from '../api/session.ts';
import { Page } from '../components/Layout.tsx';
import { formatInvoiceDate, formatInvoiceTotal } from '../components/invoiceFormat.ts';
import { usePageTitle } from '../components/pageTitle.ts';
import { TaxDocument } from '../components/TaxDocument.tsx';

/**
 * Spec §2 /invoice: one invoice, laid out as the GST tax invoice it is and printable (the
 * print stylesheet drops the site's chrome; the browser's print saves a PDF).
 */
export default function Invoice() {
  const session = useSession();
  const [, navigate] = useLocation();
  const invoiceId = new URLSearchParams(useSearch()).get('invoiceId');
  usePageTitle(invoiceId ? `Invoice ${invoiceId}` : 'Invoice');
  const email = useHistoryEmail(session.user?.email ?? null);
  const { data, error, isLoading } = useInvoices(session.status === 'loading' ? null : email);

  useEffect(() => {
    if (error instanceof ApiError && error.status === 401) navigate('/login', { replace: true });
  }, [error, navigate]);

  if (session.status === 'loading' || isLoading)
    return <p className="container page loading">Loading your invoice…</p>;
  const invoice = data?.find(
    (candidate): candidate is InvoiceData =>
      candidate.kind !== 'credit-note' && candidate.invoiceId === invoiceId,
  );
  if (error || !invoice) {
    return (
      <Page title="Invoice">
        <div className="card history-state" role={error ? 'alert' : undefined}>
          <p>{error ? 'Failed to load the invoice.' : 'We could not find that invoice among yours.'}</p>
          <Link href="/history" className="button primary">
            Plan history
          </Link>
        </div>
      </Page>
    );
  }
  return <InvoiceDocument invoice={invoice} />;
}

function InvoiceDocument({ invoice }: { invoice: InvoiceData }) {
  return (
    <TaxDocument
      doc={invoice}
      title="Tax Invoice"
      label={`Tax invoice ${invoice.invoiceId}`}
      number={{ label: 'Invoice no.', value: invoice.invoiceId }}
      facts={[
        { label: 'Date', value: formatInvoiceDate(invoice.issuedAt) },
        { label: 'Place of supply', value: invoice.placeOfSupply },
      ]}
      lineDetail={
        <span className="invoice-line-detail">
          {formatInvoiceDate(invoice.purchaseDate)} to {formatInvoiceDate(invoice.expiryDate)}
        </span>
      }
      totalLabel="Total (GST inclusive)"
      totalText={formatInvoiceTotal(invoice.total)}
      footer={
        <>
          <p>Paid through PayU, transaction {invoice.txnid}.</p>
          <p>This is a computer-generated invoice and needs no signature.</p>
        </>
      }
      back={{ href: `/history?invoiceId=${encodeURIComponent(invoice.invoiceId)}`, label: 'Plan history' }}
    />
  );
}
