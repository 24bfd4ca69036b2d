import { useEffect } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { ApiError } from '../api/fetcher.ts';
import { useHistoryEmail, useInvoices, type Invoice as InvoiceData } from '../api/plans.ts';
import { useSession } from '../api/session.ts';
import { Page } from '../components/Layout.tsx';
import { formatInvoiceDate, formatInvoiceTotal } from '../components/invoiceFormat.ts';
import { usePageTitle } from '../components/pageTitle.ts';
import { formatRupees } from '../../../core/domain/money.ts';

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
  const invoice = data?.find((candidate) => candidate.invoiceId === invoiceId);
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
  const half = invoice.gstRatePercent / 2;
  return (
    <div className="container page invoice-page">
      <div className="invoice-toolbar no-print">
        <Link href={`/history?invoiceId=${encodeURIComponent(invoice.invoiceId)}`} className="button ghost">
          ‹ Plan history
        </Link>
        <button type="button" className="button primary" onClick={() => window.print()}>
          Print / Save as PDF
        </button>
      </div>
      <article className="invoice-doc" aria-label={`Tax invoice ${invoice.invoiceId}`}>
        <header className="invoice-doc-head">
          <div>
            <p className="invoice-supplier">{invoice.supplier.legalName}</p>
            <p>{invoice.supplier.address}</p>
            <p>GSTIN: {invoice.supplier.gstin}</p>
            <p>State: {invoice.supplier.state}</p>
          </div>
          <div className="invoice-doc-title">
            <h1>Tax Invoice</h1>
            <dl>
              <div>
                <dt>Invoice no.</dt>
                <dd>{invoice.invoiceId}</dd>
              </div>
              <div>
                <dt>Date</dt>
                <dd>{formatInvoiceDate(invoice.issuedAt)}</dd>
              </div>
              <div>
                <dt>Place of supply</dt>
                <dd>{invoice.placeOfSupply}</dd>
              </div>
            </dl>
          </div>
        </header>

        <section className="invoice-doc-party" aria-label="Billed to">
          <h2>Billed to</h2>
          <p>{invoice.customer.name}</p>
          <p>{invoice.customer.email}</p>
          {invoice.customer.phone && <p>{invoice.customer.phone}</p>}
        </section>

        <table className="invoice-lines">
          <thead>
            <tr>
              <th scope="col">Description</th>
              <th scope="col" className="num">
                Amount
              </th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>
                <strong>{invoice.planName}</strong>
                <span className="invoice-line-detail">{invoice.description}</span>
                <span className="invoice-line-detail">
                  {formatInvoiceDate(invoice.purchaseDate)} to {formatInvoiceDate(invoice.expiryDate)}
                </span>
                {invoice.sacCode && <span className="invoice-line-detail">SAC {invoice.sacCode}</span>}
              </td>
              <td className="num">{formatRupees(invoice.taxablePaise)}</td>
            </tr>
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Taxable value</th>
              <td className="num">{formatRupees(invoice.taxablePaise)}</td>
            </tr>
            {invoice.supply === 'intra-state' ? (
              <>
                <tr>
                  <th scope="row">CGST @ {half}%</th>
                  <td className="num">{formatRupees(invoice.cgstPaise)}</td>
                </tr>
                <tr>
                  <th scope="row">SGST @ {half}%</th>
                  <td className="num">{formatRupees(invoice.sgstPaise)}</td>
                </tr>
              </>
            ) : (
              <tr>
                <th scope="row">IGST @ {invoice.gstRatePercent}%</th>
                <td className="num">{formatRupees(invoice.igstPaise)}</td>
              </tr>
            )}
            <tr className="invoice-total">
              <th scope="row">Total (GST inclusive)</th>
              <td className="num">{formatInvoiceTotal(invoice.total)}</td>
            </tr>
          </tfoot>
        </table>

        <footer className="invoice-doc-foot">
          <p>Paid through PayU, transaction {invoice.txnid}.</p>
          <p>This is a computer-generated invoice and needs no signature.</p>
        </footer>
      </article>
    </div>
  );
}
