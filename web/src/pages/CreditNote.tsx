import { type CreditNote as CreditNoteData } from '../api/plans.ts';
import { formatInvoiceDate } from '../components/invoiceFormat.ts';
import { MissingTaxDocument, TaxDocument, useOwnTaxDocument } from '../components/TaxDocument.tsx';
import { formatRupees } from '../../../core/domain/money.ts';

/**
 * /credit-note?creditNoteId=…: the GST credit note of a refund (CGST Act s.34), laid out and
 * printable like the invoice it reduces, which it names with its date (CGST Rules 53(1A)).
 */
export default function CreditNote() {
  const found = useOwnTaxDocument(
    'creditNoteId',
    'Credit note',
    (entry, id): entry is CreditNoteData => entry.kind === 'credit-note' && entry.creditNoteId === id,
  );
  if (found.state === 'loading') return <p className="container page loading">Loading your credit note…</p>;
  if (found.state === 'missing') return <MissingTaxDocument title="Credit note" failed={found.failed} />;
  const note = found.doc;
  return (
    <TaxDocument
      doc={note}
      title="Credit Note"
      label={`Credit note ${note.creditNoteId}`}
      number={{ label: 'Credit note no.', value: note.creditNoteId }}
      facts={[
        { label: 'Date', value: formatInvoiceDate(note.issuedAt) },
        { label: 'Against invoice', value: note.invoiceId },
        { label: 'Invoice date', value: formatInvoiceDate(note.invoiceIssuedAt) },
        { label: 'Place of supply', value: note.placeOfSupply },
      ]}
      lineDetail={<span className="invoice-line-detail">Reason: {note.reason}</span>}
      totalLabel="Total credited (GST inclusive)"
      totalText={formatRupees(note.totalPaise)}
      footer={
        <>
          <p>
            Refunded through PayU against transaction {note.txnid}. This credit note reduces invoice{' '}
            {note.invoiceId} by {formatRupees(note.totalPaise)}, of which{' '}
            {formatRupees(note.totalPaise - note.taxablePaise)} is GST.
          </p>
          <p>This is a computer-generated credit note and needs no signature.</p>
        </>
      }
      back={{ href: `/history?invoiceId=${encodeURIComponent(note.invoiceId)}`, label: 'Plan history' }}
    />
  );
}
