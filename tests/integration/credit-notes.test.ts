import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../core/db/pool.ts';
import { findInvoiceByPayment } from '../../core/db/invoices.ts';
import { findPaymentByTxnid } from '../../core/db/payments.ts';
import { findRefund } from '../../core/db/refunds.ts';
import { issueCreditNote } from '../../core/commands/creditNotes.ts';
import { minimiseKeptRecords } from '../../core/commands/accountDeletion.ts';
import { financialYear, splitCreditNote } from '../../core/domain/gst.ts';
import { createPayUClient } from '../../core/providers/payu.ts';
import { executeRefund } from '../../scripts/lib/refunds.ts';
import { handleRefund } from '../../worker/jobs/paymentRefund.ts';
import { paymentHelpers } from '../support/payments.ts';
import { startTestStack, waitFor } from '../support/stack.ts';

/**
 * A refund of an invoiced plan issues a GST credit note (CGST Act s.34) once, when PayU reports
 * the refund done: its own gap-free number series, the invoice it reduces, the tax carved out as
 * the invoice's was, listed beside the invoice in GET /api/invoices/user/:email.
 */

// The first status check waits long enough for a test to run the follow-up itself, twice at once.
const stack = await startTestStack({ worker: true, env: { REFUND_STATUS_POLL_SECONDS: '1' } });
const db = stack.services.db;
const deps = stack.worker!.deps;
const payu = createPayUClient(stack.config.payu);
const { buyer, checkout, pay, paymentStatus, settled } = paymentHelpers(stack);

async function paidPlan(choice: Record<string, unknown> = { plan: 'LEGEND', duration: 45 }) {
  const { user, client } = await buyer({ name: 'Meera Iyer' });
  const start = await checkout(client, user.email, choice);
  await pay(start.txnid);
  await paymentStatus(start.txnid, 'success');
  await settled(start.txnid);
  return { user, client, txnid: start.txnid };
}

const CreditNoteRow = z.object({
  credit_note_number: z.string(),
  sequence: z.number(),
  total_paise: z.number(),
  taxable_paise: z.number(),
  cgst_paise: z.number(),
  sgst_paise: z.number(),
  igst_paise: z.number(),
  invoice_number: z.string(),
});

async function creditNotesOf(txnid: string) {
  return db.any(sql.type(CreditNoteRow)`
    SELECT c.credit_note_number, c.sequence, c.total_paise, c.taxable_paise, c.cgst_paise, c.sgst_paise,
           c.igst_paise, c.invoice_number
    FROM credit_notes c JOIN refunds r ON r.id = c.refund_id JOIN payments p ON p.id = r.payment_id
    WHERE p.txnid = ${txnid}`);
}

async function counter(): Promise<number> {
  return (
    (await db.maybeOneFirst(sql.type(z.object({ last_sequence: z.number() }))`
      SELECT last_sequence FROM credit_note_counters WHERE financial_year = ${financialYear(new Date())}`)) ??
    0
  );
}

async function allCreditNoteSequences(): Promise<number[]> {
  return [
    ...(await db.anyFirst(sql.type(z.object({ sequence: z.number() }))`
      SELECT sequence FROM credit_notes WHERE financial_year = ${financialYear(new Date())} ORDER BY sequence`)),
  ];
}

async function refundedNote(txnid: string) {
  return waitFor(`the credit note of ${txnid}`, async () => (await creditNotesOf(txnid))[0]);
}

describe('credit note of a refund', () => {
  it('a customer refund issues one credit note against the invoice, listed beside it, with the tax carved as the invoice did', async () => {
    const { user, client, txnid } = await paidPlan();
    const offer = (await client.call(`/api/payments/${txnid}`)).body.refundOffer;
    expect(offer.amountPaise).toBe(108_100);
    const asked = await client.call(`/api/payments/${txnid}/refund`, {
      body: { confirmAmountPaise: offer.amountPaise },
    });
    expect(asked.status).toBe(202);

    const note = await refundedNote(txnid);
    const payment = (await findPaymentByTxnid(db, txnid))!;
    const invoice = (await findInvoiceByPayment(db, payment.id))!;
    expect(note.credit_note_number).toMatch(/^CN\/\d{2}-\d{2}\/\d{6}$/);
    expect(note.credit_note_number.length).toBeLessThanOrEqual(16);
    expect(note.invoice_number).toBe(invoice.invoice_number);
    expect(note.total_paise).toBe(108_100);
    const expected = splitCreditNote(108_100, {
      ratePercent: invoice.gst_rate_percent,
      supply: invoice.supply,
      placeOfSupply: invoice.place_of_supply,
    });
    expect(note).toMatchObject({
      taxable_paise: expected.taxablePaise,
      cgst_paise: expected.cgstPaise,
      sgst_paise: expected.sgstPaise,
      igst_paise: 0,
    });

    const list = await client.call(`/api/invoices/user/${encodeURIComponent(user.email)}`);
    expect(list.status).toBe(200);
    expect(list.body.map((e: { kind: string }) => e.kind)).toEqual(['invoice', 'credit-note']);
    const [invoiceEntry, noteEntry] = list.body;
    // The invoice keeps the spec's fields; the credit note names the invoice it reduces.
    expect(invoiceEntry).toMatchObject({
      invoiceId: invoice.invoice_number,
      planName: 'LEGEND',
      total: 1830,
      purchaseDate: expect.any(String),
      expiryDate: expect.any(String),
    });
    expect(noteEntry).toMatchObject({
      kind: 'credit-note',
      creditNoteId: note.credit_note_number,
      invoiceId: invoice.invoice_number,
      invoiceIssuedAt: invoice.issued_at.toISOString(),
      total: 1081,
      totalPaise: 108_100,
      taxablePaise: expected.taxablePaise,
      supply: 'intra-state',
      placeOfSupply: invoice.place_of_supply,
      supplier: { gstin: invoice.supplier_gstin, legalName: invoice.supplier_legal_name },
      customer: { name: 'Meera Iyer', email: user.email },
      reason: expect.stringMatching(/^Plan cancelled by the customer on day 1: 70% of the price refunded/),
    });
    const mail = await waitFor('the refund-completed mail', async () =>
      (await stack.mailTo(user.email)).find((m) => m.subject.startsWith('Refund completed')),
    );
    expect(mail.text).toContain(
      `GST credit note ${note.credit_note_number} against invoice ${invoice.invoice_number}`,
    );

    // Nobody else sees it.
    const other = await buyer();
    expect((await other.client.call(`/api/invoices/user/${encodeURIComponent(user.email)}`)).status).toBe(
      403,
    );
  });

  it('a full refund credits exactly the tax the invoice charged', async () => {
    const { txnid } = await paidPlan({ plan: 'PRO LEGEND', duration: 45 });
    await executeRefund(db, stack.services.boss, stack.config, txnid, { amountPaise: 269_900 });
    const note = await refundedNote(txnid);
    const payment = (await findPaymentByTxnid(db, txnid))!;
    const invoice = (await findInvoiceByPayment(db, payment.id))!;
    expect(note).toMatchObject({
      total_paise: invoice.total_paise,
      taxable_paise: invoice.taxable_paise,
      cgst_paise: invoice.cgst_paise,
      sgst_paise: invoice.sgst_paise,
      igst_paise: invoice.igst_paise,
    });
  });

  it('follow-ups running twice at once, and again later, issue it once; the series has no gaps', async () => {
    const { txnid } = await paidPlan();
    const queued = await executeRefund(db, stack.services.boss, stack.config, txnid, { amountPaise: 50_000 });
    await waitFor('PayU to accept the refund', async () => {
      const row = await findRefund(db, queued.refund.id);
      return row?.status === 'accepted' ? row : null;
    });
    // Two follow-ups race the worker's own: one status change gets through, one credit note.
    await Promise.all([
      handleRefund(deps, payu, queued.refund.id),
      handleRefund(deps, payu, queued.refund.id),
    ]);
    await refundedNote(txnid);
    await handleRefund(deps, payu, queued.refund.id);
    expect(await creditNotesOf(txnid)).toHaveLength(1);
    const sequences = await allCreditNoteSequences();
    expect(sequences).toEqual(sequences.map((_, i) => i + 1));
    expect(await counter()).toBe(sequences.length);
  });

  it('a credit note issued in a transaction that rolls back gives its number back', async () => {
    const { txnid } = await paidPlan();
    await executeRefund(db, stack.services.boss, stack.config, txnid, { amountPaise: 10_000 });
    await refundedNote(txnid);
    // Another invoiced payment, refunded by hand inside a transaction that then fails.
    const second = await paidPlan();
    const payment = (await findPaymentByTxnid(db, second.txnid))!;
    const invoice = (await findInvoiceByPayment(db, payment.id))!;
    const before = await counter();
    const refund = (
      await executeRefund(db, stack.services.boss, stack.config, second.txnid, { amountPaise: 10_000 })
    ).refund;
    await expect(
      db.transaction(async (trx) => {
        const issued = await issueCreditNote(trx, { refund, invoice, now: new Date() });
        expect(issued?.sequence).toBe(before + 1);
        throw new Error('the refund could not be recorded');
      }),
    ).rejects.toThrow('the refund could not be recorded');
    await refundedNote(second.txnid);
    const sequences = await allCreditNoteSequences();
    expect(sequences).toEqual(sequences.map((_, i) => i + 1));
  });

  it('refuses to credit more than the invoice, and tells an operator', async () => {
    const { txnid } = await paidPlan();
    const payment = (await findPaymentByTxnid(db, txnid))!;
    const invoice = (await findInvoiceByPayment(db, payment.id))!;
    const refund = (
      await executeRefund(db, stack.services.boss, stack.config, txnid, { amountPaise: 180_000 })
    ).refund;
    await refundedNote(txnid);
    const before = await counter();
    // Pretend a second refund of 1,000 rupees went through: more than is left on the invoice.
    const issued = await db.transaction((trx) =>
      issueCreditNote(trx, {
        refund: { ...refund, id: crypto.randomUUID(), amount_paise: 100_000 },
        invoice,
        now: new Date(),
      }),
    );
    expect(issued).toBeNull();
    expect(await counter()).toBe(before);
    const alerts = await db.anyFirst(sql.type(z.object({ kind: z.string() }))`
      SELECT kind FROM operator_alerts WHERE kind = 'credit-note-not-issued' AND message LIKE ${`%${invoice.invoice_number}%`}`);
    expect(alerts).toHaveLength(1);
  });

  it('an account deletion keeps the credit notes without the person', async () => {
    const { user, txnid } = await paidPlan();
    await executeRefund(db, stack.services.boss, stack.config, txnid, { amountPaise: 20_000 });
    await refundedNote(txnid);
    const result = await db.transaction((trx) => minimiseKeptRecords(trx, user.id));
    expect(result.creditNotes).toBe(1);
    const row = await db.one(
      sql.type(
        z.object({
          customer_email: z.string(),
          customer_phone: z.string().nullable(),
          total_paise: z.number(),
        }),
      )`SELECT customer_email, customer_phone, total_paise FROM credit_notes WHERE user_id = ${user.id}`,
    );
    expect(row.customer_email).not.toBe(user.email);
    expect(row.customer_phone).toBeNull();
    expect(row.total_paise).toBe(20_000);
  });
});
