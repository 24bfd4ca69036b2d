import { useEffect } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { ApiError } from '../api/fetcher.ts';
import { useHistoryEmail, useInvoices, type CreditNote as CreditNoteData } from '../api/plans.ts';
import { useSession } from '../api/session.ts';
import { Page } from '../components/Layout.tsx';
import { formatInvoiceDate } from '../components/invoiceFormat.ts';
import { usePageTitle } from '../components/pageTitle.ts';
import { TaxDocument } from '../components/TaxDocument.tsx';
import { formatRupees } from '../../../core/domain/money.ts';

/**
 * /credit-note?creditNoteId=…: the GST credit note of a refund (CGST Act s.34), laid out and
 * printable like the invoice it reduces, which it names with its date (CGST Rules 53(1A)).
 */
export default function CreditNote() {
  const session = useSession();
  const [, navigate] = useLocation();
  const creditNoteId = new URLSearchParams(useSearch()).get('creditNoteId');
  usePageTitle(creditNoteId ? `Credit note ${creditNoteId}` : 'Credit note');
  const email = useHistoryEmail(session.user?.email ?? null);
  const { data, error, isLoading } = useInvoices(session.status === 'loading' ? null : email);

  useEffect(() => {
    if (error instanceof ApiError && error.status === 401) navigate('/login', { replace: true });
  }, [error, navigate]);

  if (session.status === 'loading' || isLoading)
    return <p className="container page loading">Loading your credit note…</p>;
  const note = data?.find(
    (entry): entry is CreditNoteData => entry.kind === 'credit-note' && entry.creditNoteId === creditNoteId,
  );
  if (error || !note) {
    return (
      <Page title="Credit note">
        <div className="card history-state" role={error ? 'alert' : undefined}>
          <p>
            {error ? 'Failed to load the credit note.' : 'We could not find that credit note among yours.'}
          </p>
          <Link href="/history" className="button primary">
            Plan history
          </Link>
        </div>
      </Page>
    );
  }
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
