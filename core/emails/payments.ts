import { escapeHtml } from '../escape.ts';
import type { Invoice } from '../db/invoices.ts';
import type { Payload } from '../queue.ts';
import { formatRupees } from '../domain/money.ts';
import { formatLongDate } from '../domain/time.ts';

/** The mails of buying a plan: the receipt with its GST invoice. */

type Mail = Payload<'email-send'>;

/** Links to the invoice on /history (highlighted) and its printable page. */
function invoiceLinks(publicUrl: string, invoice: Pick<Invoice, 'invoice_number'>) {
  const id = encodeURIComponent(invoice.invoice_number);
  return {
    history: `${publicUrl}/history?invoiceId=${id}`,
    printable: `${publicUrl}/invoice?invoiceId=${id}`,
  };
}

/** The receipt (with a renewal's, the post-debit alert of an AutoPay debit) and its GST invoice. */
export function paymentReceiptMail(
  invoice: Invoice,
  publicUrl: string,
  options: { renewal?: boolean; autopayDebit?: boolean } = {},
): Mail {
  const links = invoiceLinks(publicUrl, invoice);
  const tax =
    invoice.supply === 'intra-state'
      ? [
          `CGST (${invoice.gst_rate_percent / 2}%): ${formatRupees(invoice.cgst_paise)}`,
          `SGST (${invoice.gst_rate_percent / 2}%): ${formatRupees(invoice.sgst_paise)}`,
        ]
      : [`IGST (${invoice.gst_rate_percent}%): ${formatRupees(invoice.igst_paise)}`];
  const lines = [
    `Hi ${invoice.customer_name},`,
    '',
    options.autopayDebit
      ? `AutoPay debited ${formatRupees(invoice.total_paise)} for ${invoice.plan_name}, as the notice we sent said.`
      : `Thank you: we received your payment of ${formatRupees(invoice.total_paise)} for ${invoice.plan_name}.`,
    options.renewal
      ? 'Your plan is renewed on the same Virtual Computer, with everything on its disk; its hours start again.'
      : 'Your Virtual Computer is being prepared; your dashboard shows it as soon as it is ready.',
    '',
    `Invoice: ${invoice.invoice_number}`,
    `Plan: ${invoice.description}`,
    `Valid: ${formatLongDate(invoice.purchased_at)} to ${formatLongDate(invoice.expires_at)}`,
    `Taxable value: ${formatRupees(invoice.taxable_paise)}`,
    ...tax,
    `Total paid (GST inclusive): ${formatRupees(invoice.total_paise)}`,
    `PayU transaction: ${invoice.txnid}`,
    '',
    `View or print your invoice: ${links.printable}`,
    '',
    `${invoice.supplier_legal_name}, GSTIN ${invoice.supplier_gstin}`,
    invoice.supplier_address,
  ];
  const html = lines
    .filter((line) => line !== '')
    .map((line) =>
      line.startsWith('View or print')
        ? `<p><a href="${escapeHtml(links.printable)}">View or print your invoice ${escapeHtml(invoice.invoice_number)}</a></p>`
        : `<p>${escapeHtml(line)}</p>`,
    )
    .join('\n');
  return {
    kind: 'payment-receipt',
    to: invoice.customer_email,
    subject: options.autopayDebit
      ? `AutoPay debit of ${formatRupees(invoice.total_paise)} done: plan renewed (invoice ${invoice.invoice_number})`
      : `Payment received: invoice ${invoice.invoice_number}`,
    text: lines.join('\n'),
    html,
  };
}

/** A payment PayU took that started nothing: what happened and what happens next. */
export function paymentNotActivatedMail(
  customer: { name: string; email: string },
  payment: { txnid: string; amount_paise: number },
  explanation: string,
  publicUrl: string,
): Mail {
  const lines = [
    `Hi ${customer.name},`,
    '',
    `We received your payment of ${formatRupees(payment.amount_paise)} (PayU transaction ${payment.txnid}).`,
    explanation,
    '',
    `Your payments and refunds: ${publicUrl}/history`,
    'Reply to this email if you have any question; quote the transaction above.',
  ];
  return {
    kind: 'payment-not-activated',
    to: customer.email,
    subject: `We received your payment but could not start your plan (${payment.txnid})`,
    text: lines.join('\n'),
    html: lines
      .filter((line) => line !== '')
      .map((line) => `<p>${escapeHtml(line)}</p>`)
      .join('\n'),
  };
}

/**
 * A refund PayU has accepted or completed, or one it refused (at once, or after accepting it):
 * what happened, and for a refusal why and what happens next.
 */
export function refundMail(
  customer: { name: string; email: string },
  refund: { amount_paise: number; token: string },
  txnid: string,
  stage: 'accepted' | 'refunded' | 'failed' | 'refused',
  publicUrl: string,
  creditNote: { credit_note_number: string; invoice_number: string } | null = null,
  reason: string | null = null,
): Mail {
  const amount = formatRupees(refund.amount_paise);
  const why = reason ? `: ${reason}` : '';
  const headline = {
    accepted: [
      `Your refund of ${amount} is on its way: PayU has accepted it. Banks usually take 5–7 working days to show it.`,
    ],
    refunded: [`Your refund of ${amount} is complete: PayU has returned it to your original payment method.`],
    failed: [
      `Your refund of ${amount} could not be completed by PayU${why}.`,
      'Our team has been told and will contact you.',
    ],
    refused: [
      `PayU refused your refund of ${amount}${why}.`,
      'Nothing was taken back and your plan was not cancelled: it keeps running as before.',
      'Our team has been told and will write to you within 12 hours with what can be done. You do not need to ask again.',
    ],
  }[stage];
  const lines = [
    `Hi ${customer.name},`,
    '',
    ...headline,
    `PayU transaction: ${txnid} · refund reference: ${refund.token}`,
    ...(creditNote
      ? [
          `GST credit note ${creditNote.credit_note_number} against invoice ${creditNote.invoice_number}: ${publicUrl}/credit-note?creditNoteId=${encodeURIComponent(creditNote.credit_note_number)}`,
        ]
      : []),
    '',
    `Your payments and refunds: ${publicUrl}/history`,
  ];
  return {
    kind: `refund-${stage}`,
    to: customer.email,
    subject:
      {
        accepted: 'Refund accepted',
        refunded: 'Refund completed',
        failed: 'Refund problem',
        refused: 'Refund refused by PayU',
      }[stage] + ` (${txnid})`,
    text: lines.join('\n'),
    html: lines
      .filter((line) => line !== '')
      .map((line) => `<p>${escapeHtml(line)}</p>`)
      .join('\n'),
  };
}
