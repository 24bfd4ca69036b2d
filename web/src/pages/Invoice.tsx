import { type Invoice as InvoiceData } from '../api/plans.ts';
import { formatInvoiceDate, formatInvoiceTotal } from '../components/invoiceFormat.ts';
import { MissingTaxDocument, TaxDocument, useOwnTaxDocument } from '../components/TaxDocument.tsx';

/**
 * Spec §2 /invoice: one invoice, laid out as the GST tax invoice it is and printable (the
 * print stylesheet drops the site's chrome; the browser's print saves a PDF).
 */
export default function Invoice() {
  const found = useOwnTaxDocument(
    'invoiceId',
    'Invoice',
    (entry, id): entry is InvoiceData => entry.kind !== 'credit-note' && entry.invoiceId === id,
  );
  if (found.state === 'loading') return <p className="container page loading">Loading your invoice…</p>;
  if (found.state === 'missing') return <MissingTaxDocument title="Invoice" failed={found.failed} />;
  return <InvoiceDocument invoice={found.doc} />;
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
