import { useEffect, type ReactNode } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { ApiError } from '../api/fetcher.ts';
import { useHistoryEmail, useInvoices, type InvoiceEntry } from '../api/plans.ts';
import { useSession } from '../api/session.ts';
import { Page } from './Layout.tsx';
import { usePageTitle } from './pageTitle.ts';
import { formatRupees } from '../../../core/domain/money.ts';
import type { GstDocumentRecord } from '../../../core/domain/planRecords.ts';
import { loginPathForHere } from '../returnTo.ts';

/** What a GST document (tax invoice or credit note) prints, from either record. */
export type TaxDocumentData = GstDocumentRecord;

/**
 * One GST document laid out for the screen and for print (the print stylesheet drops the site's
 * chrome; the browser's print saves a PDF): supplier, the document's title, number and date,
 * the recipient, one line with its taxable value, the tax split and the total.
 */
export function TaxDocument({
  doc,
  title,
  label,
  number,
  facts,
  lineDetail,
  totalLabel,
  totalText,
  footer,
  back,
}: {
  doc: TaxDocumentData;
  /** "Tax Invoice", "Credit Note": the nature of the document, printed prominently. */
  title: string;
  /** The aria label: "Tax invoice LC/…". */
  label: string;
  number: { label: string; value: string };
  /** More header rows after the number (date, place of supply, the invoice referred to…). */
  facts: Array<{ label: string; value: string }>;
  lineDetail: ReactNode;
  totalLabel: string;
  totalText: string;
  footer: ReactNode;
  back: { href: string; label: string };
}) {
  const half = doc.gstRatePercent / 2;
  return (
    <div className="container page invoice-page">
      <div className="invoice-toolbar no-print">
        <Link href={back.href} className="button ghost">
          ‹ {back.label}
        </Link>
        <button type="button" className="button primary" onClick={() => window.print()}>
          Print / Save as PDF
        </button>
      </div>
      <article className="invoice-doc" aria-label={label}>
        <header className="invoice-doc-head">
          <div>
            <p className="invoice-supplier">{doc.supplier.legalName}</p>
            <p>{doc.supplier.address}</p>
            <p>GSTIN: {doc.supplier.gstin}</p>
            <p>State: {doc.supplier.state}</p>
          </div>
          <div className="invoice-doc-title">
            <h1>{title}</h1>
            <dl>
              {[number, ...facts].map((fact) => (
                <div key={fact.label}>
                  <dt>{fact.label}</dt>
                  <dd>{fact.value}</dd>
                </div>
              ))}
            </dl>
          </div>
        </header>

        <section className="invoice-doc-party" aria-label="Billed to">
          <h2>Billed to</h2>
          <p>{doc.customer.name}</p>
          <p>{doc.customer.email}</p>
          {doc.customer.phone && <p>{doc.customer.phone}</p>}
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
                <strong>{doc.planName}</strong>
                <span className="invoice-line-detail">{doc.description}</span>
                {lineDetail}
                {doc.sacCode && <span className="invoice-line-detail">SAC {doc.sacCode}</span>}
              </td>
              <td className="num">{formatRupees(doc.taxablePaise)}</td>
            </tr>
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Taxable value</th>
              <td className="num">{formatRupees(doc.taxablePaise)}</td>
            </tr>
            {doc.supply === 'intra-state' ? (
              <>
                <tr>
                  <th scope="row">CGST @ {half}%</th>
                  <td className="num">{formatRupees(doc.cgstPaise)}</td>
                </tr>
                <tr>
                  <th scope="row">SGST @ {half}%</th>
                  <td className="num">{formatRupees(doc.sgstPaise)}</td>
                </tr>
              </>
            ) : (
              <tr>
                <th scope="row">IGST @ {doc.gstRatePercent}%</th>
                <td className="num">{formatRupees(doc.igstPaise)}</td>
              </tr>
            )}
            <tr className="invoice-total">
              <th scope="row">{totalLabel}</th>
              <td className="num">{totalText}</td>
            </tr>
          </tfoot>
        </table>

        <footer className="invoice-doc-foot">{footer}</footer>
      </article>
    </div>
  );
}

/**
 * The signed-in customer's invoice list (invoices and credit notes) and the document the URL's
 * `param` names in it, for the printable pages: signed out, to /login. `render` shows the
 * loading line, the document, or why there is none.
 */
export function useOwnTaxDocument<T extends InvoiceEntry>(
  param: string,
  title: string,
  pick: (entry: InvoiceEntry, id: string | null) => entry is T,
): { state: 'loading' } | { state: 'missing'; failed: boolean } | { state: 'found'; doc: T } {
  const session = useSession();
  const [, navigate] = useLocation();
  const id = new URLSearchParams(useSearch()).get(param);
  usePageTitle(id ? `${title} ${id}` : title);
  const email = useHistoryEmail(session.user?.email ?? null);
  const { data, error, isLoading, mutate } = useInvoices(session.status === 'loading' ? null : email);
  useEffect(() => {
    if (!(error instanceof ApiError) || error.status !== 401) return;
    // Signed out: to /login, which comes back here. Signed in again since (the 401 is the one the
    // cache kept from before): ask again, rather than send a signed-in customer to /login.
    if (session.status === 'anonymous') navigate(loginPathForHere(), { replace: true });
    else if (session.status === 'user') void mutate();
  }, [error, navigate, session.status, mutate]);
  if (session.status === 'loading' || isLoading) return { state: 'loading' };
  const doc = data?.find((entry): entry is T => pick(entry, id));
  return doc && !error ? { state: 'found', doc } : { state: 'missing', failed: Boolean(error) };
}

/** No such document among the customer's (or the list failed to load), with the way back. */
export function MissingTaxDocument({ title, failed }: { title: string; failed: boolean }) {
  const what = title.toLowerCase();
  return (
    <Page title={title}>
      <div className="card history-state" role={failed ? 'alert' : undefined}>
        <p>{failed ? `Failed to load the ${what}.` : `We could not find that ${what} among yours.`}</p>
        <Link href="/history" className="button primary">
          Plan history
        </Link>
      </div>
    </Page>
  );
}
