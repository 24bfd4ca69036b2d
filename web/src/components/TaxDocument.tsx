import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { formatRupees } from '../../../core/domain/money.ts';

/** What a GST document (tax invoice or credit note) prints, from either record. */
export type TaxDocumentData = {
  taxablePaise: number;
  cgstPaise: number;
  sgstPaise: number;
  igstPaise: number;
  gstRatePercent: number;
  supply: 'intra-state' | 'inter-state';
  placeOfSupply: string;
  supplier: { legalName: string; gstin: string; address: string; state: string };
  customer: { name: string; email: string; phone: string | null };
  planName: string;
  description: string;
  sacCode: string | null;
};

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
