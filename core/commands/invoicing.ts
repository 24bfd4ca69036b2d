import type { Config } from '../config/config.ts';
import type { Db } from '../db/pool.ts';
import { insertInvoice, takeInvoiceSequence, type Invoice } from '../db/invoices.ts';
import type { Payment } from '../db/payments.ts';
import type { Subscription } from '../db/subscriptions.ts';
import {
  financialYear,
  findIndianState,
  formatInvoiceNumber,
  splitGst,
  type GstBreakdown,
} from '../domain/gst.ts';
import { getPlan } from '../domain/plans.ts';
import { TRIAL_LABEL } from '../domain/trial.ts';

/**
 * Issues the GST invoice of a successful payment. Call inside the transaction that marks the
 * payment successful and activates the subscription: the invoice number is taken from the
 * financial year's counter row there, so a rollback returns it and numbers stay gapless.
 */
export async function issueInvoice(
  trx: Db,
  config: Pick<Config, 'invoice'>,
  input: {
    payment: Payment;
    subscription: Subscription & { purchased_at: Date; expires_at: Date };
    customer: { name: string; email: string; phone: string | null; state?: string | null };
    now: Date;
  },
): Promise<Invoice> {
  const { payment, subscription, customer, now } = input;
  const settings = config.invoice;
  const gst = splitGst({
    totalPaise: payment.amount_paise,
    ratePercent: settings.gstRatePercent,
    supplierState: settings.supplierState,
    customerState: customer.state ?? null,
    fallbackCustomerState: settings.defaultCustomerState,
  });
  const year = financialYear(now);
  const sequence = await takeInvoiceSequence(trx, year);
  return insertInvoice(trx, {
    invoice_number: formatInvoiceNumber(year, sequence),
    financial_year: year,
    sequence,
    payment_id: payment.id,
    subscription_id: subscription.id,
    user_id: subscription.user_id,
    issued_at: now,
    plan_name: subscription.plan_name,
    description: invoiceDescription(subscription),
    hours: subscription.hours,
    storage_gb: subscription.storage_gb,
    purchased_at: subscription.purchased_at,
    expires_at: subscription.expires_at,
    ...gstColumns(gst),
    place_of_supply: stateLabel(gst.placeOfSupply),
    supplier_legal_name: settings.legalName,
    supplier_gstin: settings.gstin,
    supplier_address: settings.address,
    sac_code: settings.sacCode,
    supplier_state: stateLabel(settings.supplierState),
    customer_name: customer.name,
    customer_email: customer.email,
    customer_phone: customer.phone,
    txnid: payment.txnid,
  });
}

/** "LEGEND cloud PC, 45 hours, 115 GB storage, valid one month" (or the trial's hour). */
function invoiceDescription(
  subscription: Pick<Subscription, 'plan_id' | 'is_trial' | 'hours' | 'storage_gb'>,
): string {
  const plan = getPlan(subscription.plan_id);
  return subscription.is_trial
    ? `${plan.displayName} cloud PC trial, ${TRIAL_LABEL}, ${subscription.storage_gb} GB storage`
    : `${plan.displayName} cloud PC, ${subscription.hours} hours, ${subscription.storage_gb} GB storage, valid one month`;
}

/** "29-Karnataka", as GST invoices print a state; text we cannot place is kept as written. */
function stateLabel(codeOrName: string): string {
  const state = findIndianState(codeOrName);
  return state ? `${state.code}-${state.name}` : codeOrName;
}

/** A tax split as a GST document's row stores it (invoices and credit notes). */
export function gstColumns(gst: GstBreakdown) {
  return {
    total_paise: gst.totalPaise,
    taxable_paise: gst.taxablePaise,
    cgst_paise: gst.cgstPaise,
    sgst_paise: gst.sgstPaise,
    igst_paise: gst.igstPaise,
    gst_rate_percent: gst.ratePercent,
    supply: gst.supply,
  };
}
