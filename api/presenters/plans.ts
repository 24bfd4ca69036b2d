import type { CreditNote } from '../../core/db/creditNotes.ts';
import type { Invoice } from '../../core/db/invoices.ts';
import type { Payment } from '../../core/db/payments.ts';
import type { Subscription } from '../../core/db/subscriptions.ts';
import type {
  CreditNoteRecord,
  InvoiceListEntry,
  InvoiceRecord,
  PaymentStatusRecord,
  SubscriptionRecord,
} from '../../core/domain/planRecords.ts';
import { DURATIONS, PLANS, getPlan, type Plan } from '../../core/domain/plans.ts';
import { TRIAL_OFFERS } from '../../core/domain/trial.ts';

/** Rows and catalogue entries → the JSON the SPA reads. Fields are listed, never spread. */

export type CatalogueBody = {
  durations: readonly number[];
  plans: Array<{
    id: string;
    name: string;
    description: string;
    storage: string;
    storageGb: number;
    ramGb: number;
    gpu: string;
    instanceType: string;
    offeredInCards: boolean;
    /** Monthly price in paise by duration in hours. */
    pricesPaise: Record<string, number>;
  }>;
  trial: Array<{ plan: string; hours: number; pricePaise: number; storageGb: number; instanceType: string }>;
};

function planBody(plan: Plan): CatalogueBody['plans'][number] {
  return {
    id: plan.id,
    name: plan.displayName,
    description: plan.description,
    storage: `${plan.storageGb} GB`,
    storageGb: plan.storageGb,
    ramGb: plan.ramGb,
    gpu: plan.gpu,
    instanceType: plan.instanceType,
    offeredInCards: plan.offeredInCards,
    pricesPaise: Object.fromEntries(DURATIONS.map((hours) => [String(hours), plan.pricesPaise[hours]])),
  };
}

/** Spec §3 "Plan catalogue" (name, description, storage size), with prices and hardware. */
export function catalogueBody(): CatalogueBody {
  return {
    durations: DURATIONS,
    plans: PLANS.map(planBody),
    trial: TRIAL_OFFERS.map((offer) => ({
      plan: offer.plan.displayName,
      hours: offer.hours,
      pricePaise: offer.pricePaise,
      storageGb: offer.storageGb,
      instanceType: offer.instanceType,
    })),
  };
}

/** A plan choice (pending) or a bought plan: the record both sides share (core/domain/planRecords.ts). */
export type SubscriptionBody = SubscriptionRecord;

export function subscriptionBody(s: Subscription): SubscriptionBody {
  return {
    subscriptionId: s.id,
    status: s.status,
    selectedPlan: s.plan_name,
    selectedDuration: s.hours,
    selectedStorage: `${s.storage_gb} GB`,
    selectedPrice: s.price_paise / 100,
    pricePaise: s.price_paise,
    isTrial: s.is_trial,
    machinePlan: getPlan(s.plan_id).displayName,
    purchaseDate: s.purchased_at?.toISOString() ?? null,
    expiryDate: s.expires_at?.toISOString() ?? null,
  };
}

export type PaymentStatusBody = PaymentStatusRecord;

export function paymentStatusBody(
  payment: Payment,
  subscription: Subscription | null,
  invoice: Invoice | null,
): PaymentStatusBody {
  return {
    txnid: payment.txnid,
    status: payment.status,
    needsAttention: payment.problem !== null,
    subscription: subscription ? subscriptionBody(subscription) : null,
    invoiceId: invoice?.invoice_number ?? null,
  };
}

/** What an invoice answers: the record both sides share (core/domain/planRecords.ts). */
export type InvoiceBody = InvoiceRecord;

export function invoiceBody(i: Invoice): InvoiceBody {
  return {
    kind: 'invoice',
    invoiceId: i.invoice_number,
    planName: i.plan_name,
    purchaseDate: i.purchased_at.toISOString(),
    expiryDate: i.expires_at.toISOString(),
    total: i.total_paise / 100,
    totalPaise: i.total_paise,
    issuedAt: i.issued_at.toISOString(),
    description: i.description,
    hours: i.hours,
    storageGb: i.storage_gb,
    taxablePaise: i.taxable_paise,
    cgstPaise: i.cgst_paise,
    sgstPaise: i.sgst_paise,
    igstPaise: i.igst_paise,
    gstRatePercent: i.gst_rate_percent,
    supply: i.supply,
    placeOfSupply: i.place_of_supply,
    supplier: {
      legalName: i.supplier_legal_name,
      gstin: i.supplier_gstin,
      address: i.supplier_address,
      state: i.supplier_state,
    },
    customer: { name: i.customer_name, email: i.customer_email, phone: i.customer_phone },
    txnid: i.txnid,
    sacCode: i.sac_code,
  };
}

/** A credit note as the history and its printable page read it (core/domain/planRecords.ts). */
export function creditNoteBody(c: CreditNote): CreditNoteRecord {
  return {
    kind: 'credit-note',
    creditNoteId: c.credit_note_number,
    invoiceId: c.invoice_number,
    invoiceIssuedAt: c.invoice_issued_at.toISOString(),
    issuedAt: c.issued_at.toISOString(),
    reason: c.reason,
    planName: c.plan_name,
    description: c.description,
    total: c.total_paise / 100,
    totalPaise: c.total_paise,
    taxablePaise: c.taxable_paise,
    cgstPaise: c.cgst_paise,
    sgstPaise: c.sgst_paise,
    igstPaise: c.igst_paise,
    gstRatePercent: c.gst_rate_percent,
    supply: c.supply,
    placeOfSupply: c.place_of_supply,
    supplier: {
      legalName: c.supplier_legal_name,
      gstin: c.supplier_gstin,
      address: c.supplier_address,
      state: c.supplier_state,
    },
    customer: { name: c.customer_name, email: c.customer_email, phone: c.customer_phone },
    txnid: c.txnid,
    sacCode: c.sac_code,
  };
}

/**
 * The invoice list: invoices newest first, each followed by its credit notes (oldest first), so a
 * credit note stands beside the invoice it reduces. A credit note whose invoice is not in the list
 * (past its length) comes last.
 */
export function invoiceListBody(
  invoices: readonly Invoice[],
  creditNotes: readonly CreditNote[],
): InvoiceListEntry[] {
  const byInvoice = new Map<string, CreditNote[]>();
  for (const note of [...creditNotes].sort(
    (a, b) => a.sequence - b.sequence || +a.issued_at - +b.issued_at,
  )) {
    byInvoice.set(note.invoice_id, [...(byInvoice.get(note.invoice_id) ?? []), note]);
  }
  const entries: InvoiceListEntry[] = [];
  for (const invoice of invoices) {
    entries.push(invoiceBody(invoice));
    for (const note of byInvoice.get(invoice.id) ?? []) entries.push(creditNoteBody(note));
    byInvoice.delete(invoice.id);
  }
  for (const notes of byInvoice.values()) entries.push(...notes.map(creditNoteBody));
  return entries;
}
