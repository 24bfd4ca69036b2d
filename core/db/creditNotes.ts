import { z } from 'zod';
import { GstDocumentColumns } from './invoices.ts';
import { sql, type Db } from './pool.ts';

/**
 * GST credit notes, one per refund of an invoiced payment, frozen when issued (CGST Act s.34).
 * Numbers come from their own counter row per financial year, taken in the transaction that
 * records the refund's SUCCESS: a rolled-back attempt gives its number back, so the series has
 * no gaps, and `refund_id` is unique, so a refund never has two.
 */

export const CreditNote = GstDocumentColumns.extend({
  id: z.uuid(),
  credit_note_number: z.string(),
  financial_year: z.string(),
  sequence: z.number().int(),
  refund_id: z.uuid(),
  invoice_id: z.uuid(),
  user_id: z.uuid(),
  issued_at: z.date(),
  invoice_number: z.string(),
  invoice_issued_at: z.date(),
  reason: z.string(),
});
export type CreditNote = z.infer<typeof CreditNote>;

const FIELDS = Object.keys(CreditNote.shape);
const COLUMNS = sql.join(
  FIELDS.map((field) => sql.identifier([field])),
  sql.fragment`, `,
);

/** The next credit note number of a financial year; the counter row stays locked until commit. */
export async function takeCreditNoteSequence(db: Db, financialYear: string): Promise<number> {
  return db.oneFirst(sql.type(z.object({ last_sequence: z.number().int() }))`
    INSERT INTO credit_note_counters (financial_year, last_sequence) VALUES (${financialYear}, 1)
    ON CONFLICT (financial_year) DO UPDATE SET last_sequence = credit_note_counters.last_sequence + 1
    RETURNING last_sequence`);
}

export type NewCreditNote = Omit<CreditNote, 'id'>;

/** Inserts a credit note; a second one for the same refund is a unique violation (rolls back). */
export async function insertCreditNote(db: Db, note: NewCreditNote): Promise<CreditNote> {
  const insertFields = FIELDS.filter((field) => field !== 'id') as Array<keyof NewCreditNote>;
  const values = insertFields.map((field) => {
    const value = note[field];
    return value instanceof Date ? value.toISOString() : value;
  });
  return db.one(sql.type(CreditNote)`
    INSERT INTO credit_notes (${sql.join(
      insertFields.map((field) => sql.identifier([field])),
      sql.fragment`, `,
    )})
    VALUES (${sql.join(values, sql.fragment`, `)})
    RETURNING ${COLUMNS}`);
}

export async function findCreditNoteByRefund(db: Db, refundId: string): Promise<CreditNote | null> {
  return db.maybeOne(sql.type(CreditNote)`SELECT ${COLUMNS} FROM credit_notes WHERE refund_id = ${refundId}`);
}

/** What the credit notes against an invoice add up to, in paise. */
export async function creditedPaiseOfInvoice(db: Db, invoiceId: string): Promise<number> {
  return db.oneFirst(sql.type(z.object({ credited: z.number().int() }))`
    SELECT coalesce(sum(total_paise), 0)::int AS credited FROM credit_notes WHERE invoice_id = ${invoiceId}`);
}

/** A user's credit notes, newest first (the history lists them beside their invoices). */
export async function listCreditNotesForUser(
  db: Db,
  userId: string,
  limit = 200,
): Promise<readonly CreditNote[]> {
  return db.any(sql.type(CreditNote)`
    SELECT ${COLUMNS} FROM credit_notes WHERE user_id = ${userId}
    ORDER BY issued_at DESC, sequence DESC LIMIT ${limit}`);
}

/**
 * At account deletion, as for invoices (core/db/invoices.ts `minimiseInvoicesOfUser`): the credit
 * notes stay but stop naming the person, except the name where the invoice's value requires it.
 */
export async function minimiseCreditNotesOfUser(
  db: Db,
  userId: string,
  replacement: { name: string; email: string; nameRequiredFromPaise: number },
): Promise<number> {
  const result = await db.query(sql.unsafe`
    UPDATE credit_notes c SET
      customer_name = CASE WHEN i.taxable_paise >= ${replacement.nameRequiredFromPaise} THEN c.customer_name
                           ELSE ${replacement.name} END,
      customer_email = ${replacement.email},
      customer_phone = NULL
    FROM invoices i
    WHERE c.user_id = ${userId} AND i.id = c.invoice_id`);
  return result.rowCount;
}
