import { z } from 'zod';
import { sql, type Db } from './pool.ts';

/**
 * GST invoices, one per successful payment, frozen when issued. Numbers come from a counter
 * row per financial year taken inside the activating transaction: concurrent purchases queue
 * on the row lock, and a rolled-back purchase gives its number back, so numbers have no gaps.
 */

/** What every GST document we issue stores (invoices here, credit notes in creditNotes.ts), frozen as issued. */
export const GstDocumentColumns = z.object({
  plan_name: z.string(),
  description: z.string(),
  total_paise: z.number().int(),
  taxable_paise: z.number().int(),
  cgst_paise: z.number().int(),
  sgst_paise: z.number().int(),
  igst_paise: z.number().int(),
  gst_rate_percent: z.coerce.number(),
  supply: z.enum(['intra-state', 'inter-state']),
  place_of_supply: z.string(),
  supplier_legal_name: z.string(),
  supplier_gstin: z.string(),
  supplier_address: z.string(),
  supplier_state: z.string(),
  /** Services Accounting Code printed on the document; null on invoices issued before it was. */
  sac_code: z.string().nullable(),
  customer_name: z.string(),
  customer_email: z.string(),
  customer_phone: z.string().nullable(),
  txnid: z.string(),
});

export const Invoice = GstDocumentColumns.extend({
  id: z.uuid(),
  invoice_number: z.string(),
  financial_year: z.string(),
  sequence: z.number().int(),
  payment_id: z.uuid(),
  subscription_id: z.uuid(),
  user_id: z.uuid(),
  issued_at: z.date(),
  hours: z.number().int(),
  storage_gb: z.number().int(),
  purchased_at: z.date(),
  expires_at: z.date(),
});
export type Invoice = z.infer<typeof Invoice>;

const COLUMNS = sql.fragment`id, invoice_number, financial_year, sequence, payment_id, subscription_id, user_id,
  issued_at, plan_name, description, hours, storage_gb, purchased_at, expires_at, total_paise, taxable_paise,
  cgst_paise, sgst_paise, igst_paise, gst_rate_percent, supply, place_of_supply, supplier_legal_name,
  supplier_gstin, supplier_address, supplier_state, customer_name, customer_email, customer_phone, txnid,
  sac_code`;

/**
 * The next invoice number of a financial year (1, 2, 3…). Must run in the transaction that
 * inserts the invoice: the counter row stays locked until it commits.
 */
export async function takeInvoiceSequence(db: Db, financialYear: string): Promise<number> {
  return db.oneFirst(sql.type(z.object({ last_sequence: z.number().int() }))`
    INSERT INTO invoice_counters (financial_year, last_sequence) VALUES (${financialYear}, 1)
    ON CONFLICT (financial_year) DO UPDATE SET last_sequence = invoice_counters.last_sequence + 1
    RETURNING last_sequence`);
}

export type NewInvoice = Omit<Invoice, 'id' | 'issued_at'> & { issued_at: Date };

export async function insertInvoice(db: Db, i: NewInvoice): Promise<Invoice> {
  return db.one(sql.type(Invoice)`
    INSERT INTO invoices (invoice_number, financial_year, sequence, payment_id, subscription_id, user_id,
      issued_at, plan_name, description, hours, storage_gb, purchased_at, expires_at, total_paise, taxable_paise,
      cgst_paise, sgst_paise, igst_paise, gst_rate_percent, supply, place_of_supply, supplier_legal_name,
      supplier_gstin, supplier_address, supplier_state, customer_name, customer_email, customer_phone, txnid,
      sac_code)
    VALUES (${i.invoice_number}, ${i.financial_year}, ${i.sequence}, ${i.payment_id}, ${i.subscription_id},
      ${i.user_id}, ${i.issued_at.toISOString()}, ${i.plan_name}, ${i.description}, ${i.hours}, ${i.storage_gb},
      ${i.purchased_at.toISOString()}, ${i.expires_at.toISOString()}, ${i.total_paise}, ${i.taxable_paise},
      ${i.cgst_paise}, ${i.sgst_paise}, ${i.igst_paise}, ${i.gst_rate_percent}, ${i.supply}, ${i.place_of_supply},
      ${i.supplier_legal_name}, ${i.supplier_gstin}, ${i.supplier_address}, ${i.supplier_state},
      ${i.customer_name}, ${i.customer_email}, ${i.customer_phone}, ${i.txnid},
      ${i.sac_code})
    RETURNING ${COLUMNS}`);
}

/** A user's invoices, newest first (spec /history). */
export async function listInvoicesForUser(db: Db, userId: string, limit = 200): Promise<readonly Invoice[]> {
  return db.any(sql.type(Invoice)`
    SELECT ${COLUMNS} FROM invoices WHERE user_id = ${userId}
    ORDER BY issued_at DESC, sequence DESC LIMIT ${limit}`);
}

export async function findInvoiceByNumber(db: Db, invoiceNumber: string): Promise<Invoice | null> {
  return db.maybeOne(
    sql.type(Invoice)`SELECT ${COLUMNS} FROM invoices WHERE invoice_number = ${invoiceNumber}`,
  );
}

export async function findInvoiceByPayment(db: Db, paymentId: string): Promise<Invoice | null> {
  return db.maybeOne(sql.type(Invoice)`SELECT ${COLUMNS} FROM invoices WHERE payment_id = ${paymentId}`);
}

/** The invoices of these payments, by payment id (a payment has at most one). */
export async function findInvoicesByPayments(
  db: Db,
  paymentIds: readonly string[],
): Promise<Map<string, Invoice>> {
  if (paymentIds.length === 0) return new Map();
  const rows = await db.any(sql.type(Invoice)`
    SELECT ${COLUMNS} FROM invoices WHERE payment_id = ANY(${sql.array([...paymentIds], 'uuid')})`);
  return new Map(rows.map((row) => [row.payment_id, row]));
}

/** How many invoices a user has (kept after an account deletion). */
export async function countInvoicesOfUser(db: Db, userId: string): Promise<number> {
  return db.oneFirst(
    sql.type(
      z.object({ count: z.number() }),
    )`SELECT count(*)::int AS count FROM invoices WHERE user_id = ${userId}`,
  );
}

/**
 * At account deletion: the invoices stay (tax law) but stop naming the person. Name, email and
 * phone are replaced; the number, dates, plan, amounts, tax split, place of supply and our own
 * details stay. An invoice whose taxable value is at or above `nameRequiredFromPaise` keeps the
 * name the law asks it to show (core/domain/accountDeletion.ts). Answers how many were minimised.
 */
export async function minimiseInvoicesOfUser(
  db: Db,
  userId: string,
  replacement: { name: string; email: string; nameRequiredFromPaise: number },
): Promise<number> {
  const result = await db.query(sql.unsafe`
    UPDATE invoices SET
      customer_name = CASE WHEN taxable_paise >= ${replacement.nameRequiredFromPaise} THEN customer_name
                           ELSE ${replacement.name} END,
      customer_email = ${replacement.email},
      customer_phone = NULL
    WHERE user_id = ${userId}`);
  return result.rowCount;
}
