import {
  creditedPaiseOfInvoice,
  findCreditNoteByRefund,
  insertCreditNote,
  takeCreditNoteSequence,
  type CreditNote,
} from '../db/creditNotes.ts';
import type { Invoice } from '../db/invoices.ts';
import { raiseAlert } from '../db/operatorAlerts.ts';
import type { Db } from '../db/pool.ts';
import type { Refund } from '../db/refunds.ts';
import { financialYear, formatCreditNoteNumber, splitCreditNote } from '../domain/gst.ts';
import { creditNoteReason } from '../domain/creditNote.ts';
import { gstColumns } from './invoicing.ts';

/**
 * Issues the GST credit note of a completed refund (CGST Act s.34): the refunded amount against
 * the payment's invoice, its tax carved out as the invoice's was. Call inside the transaction
 * that records the refund as done: the number is taken from the financial year's credit-note
 * counter there, so a rollback returns it. Idempotent: a refund that already has its credit note
 * gets that one back, and nothing is numbered twice.
 */
export async function issueCreditNote(
  trx: Db,
  input: { refund: Refund; invoice: Invoice; now: Date },
): Promise<CreditNote | null> {
  const { refund, invoice, now } = input;
  const existing = await findCreditNoteByRefund(trx, refund.id);
  if (existing) return existing;
  const credited = await creditedPaiseOfInvoice(trx, invoice.id);
  if (credited + refund.amount_paise > invoice.total_paise) {
    // Refunds never exceed what was paid (core/commands/refunds.ts), so this is a fault to look at, not to paper over.
    await raiseAlert(trx, {
      kind: 'credit-note-not-issued',
      dedupeKey: `credit-note-not-issued:${refund.id}`,
      message: `No credit note for refund ${refund.token}: ${refund.amount_paise} paise on top of ${credited} already credited would exceed invoice ${invoice.invoice_number} (${invoice.total_paise} paise). Issue it by hand after checking.`,
      details: { refundId: refund.id, invoiceNumber: invoice.invoice_number },
    });
    return null;
  }
  const gst = splitCreditNote(refund.amount_paise, {
    ratePercent: invoice.gst_rate_percent,
    supply: invoice.supply,
    placeOfSupply: invoice.place_of_supply,
  });
  const year = financialYear(now);
  const sequence = await takeCreditNoteSequence(trx, year);
  return insertCreditNote(trx, {
    credit_note_number: formatCreditNoteNumber(year, sequence),
    financial_year: year,
    sequence,
    refund_id: refund.id,
    invoice_id: invoice.id,
    user_id: invoice.user_id,
    issued_at: now,
    invoice_number: invoice.invoice_number,
    invoice_issued_at: invoice.issued_at,
    reason: creditNoteReason(refund.source, refund.quote),
    plan_name: invoice.plan_name,
    description: invoice.description,
    ...gstColumns(gst),
    place_of_supply: invoice.place_of_supply,
    supplier_legal_name: invoice.supplier_legal_name,
    supplier_gstin: invoice.supplier_gstin,
    supplier_address: invoice.supplier_address,
    supplier_state: invoice.supplier_state,
    sac_code: invoice.sac_code,
    customer_name: invoice.customer_name,
    customer_email: invoice.customer_email,
    customer_phone: invoice.customer_phone,
    txnid: invoice.txnid,
  });
}
