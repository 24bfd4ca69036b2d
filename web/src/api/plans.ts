import { useEffect } from 'react';
import { mutate } from 'swr';
import { useApi } from './swr.ts';
import { useSearch } from 'wouter';
import { readStored, writeStored } from '../storage.ts';
import { api, ApiError } from './fetcher.ts';
import { TIMERS_MS } from '../../../core/domain/constants.ts';
import type {
  CheckoutRecord,
  CreditNoteRecord,
  InvoiceListEntry,
  InvoiceRecord,
  PaymentStatusRecord,
  SubscriptionRecord,
} from '../../../core/domain/planRecords.ts';
import { isOpenPayment } from '../../../core/domain/payments.ts';

/** Typed hooks and calls for plans, checkout, payments and invoices (spec §7). */

/** A plan choice or a bought plan, in the spec's selected* words (core/domain/planRecords.ts). */
export type PlanChoice = SubscriptionRecord;

/** Spec §3 "Payment-start response": the SPA posts all but `action` as a form to `action`. */
export type PaymentStart = Record<string, string> & { action: string; txnid: string; amount: string };

/** What an invoice answers (declared once, in core/domain/planRecords.ts). */
export type Invoice = InvoiceRecord;
/** A GST credit note, listed beside its invoice. */
export type CreditNote = CreditNoteRecord;
/** An entry of the invoice list: an invoice or a credit note (`kind`). */
export type InvoiceEntry = InvoiceListEntry;

export type SelectVmPayload = {
  email: string;
  plan: string;
  duration: number;
  storage: string;
  price: number;
  isTrial: boolean;
  trialPlan?: string;
};

export const CHECKOUT_KEY = '/vm/checkout';
const CURRENT_PLAN_KEY = '/vm/current-plan';

/** The user's plan (bought; active or lapsed), or null; only asked for a logged-in user. */
export function useCurrentPlan(enabled: boolean) {
  return useApi<{ plan: PlanChoice | null }>(enabled ? CURRENT_PLAN_KEY : null);
}

/** A plan choice just saved, put in the cache so the payment page shows it without asking. */
export function rememberCheckout(choice: PlanChoice) {
  return mutate(CHECKOUT_KEY, choice, { revalidate: false });
}

/** After a payment the plan is asked for again. */
export function refreshCurrentPlan() {
  return mutate(CURRENT_PLAN_KEY);
}

/** The plan choice waiting for payment (404 when there is none). */
export function useCheckout() {
  return useApi<CheckoutRecord>(CHECKOUT_KEY, {
    shouldRetryOnError: false,
    revalidateOnFocus: false,
  });
}

export function checkCapacity(plan: string, trialPlan?: string) {
  const query = new URLSearchParams({ plan, ...(trialPlan ? { trialPlan } : {}) });
  return api<{ ok: boolean; message: string }>(`/vm/check-capacity?${query}`);
}

export function selectVm(payload: SelectVmPayload) {
  return api<PlanChoice>('/vm/select-vm', { body: payload });
}

export function createPayment(body: {
  amount: number;
  customerEmail: string;
  plan: string;
  duration: number;
  storage: string;
  /** "Renew automatically every month" (AutoPay through PayU); the amount must be the one shown. */
  autoRenew?: boolean;
}) {
  return api<PaymentStart>('/vm/create-payment', { body });
}

/** Spec §4: the success page's callback. Its status is always PAID; the server checks with PayU itself. */
export function paymentCallback(order: {
  txnid: string;
  customer: { email: string };
  notes: Record<string, string>;
}) {
  return api<PaymentStatusRecord>('/vm/payment-callback', { body: { order: { status: 'PAID', ...order } } });
}

/** Polled every 3 s while the payment is being verified. */
export function usePaymentStatus(txnid: string | null) {
  return useApi<PaymentStatusRecord>(txnid ? `/vm/payment-status?txnid=${encodeURIComponent(txnid)}` : null, {
    refreshInterval: (latest) => (latest && !isOpenPayment(latest.status) ? 0 : TIMERS_MS.paymentPoll),
    revalidateOnFocus: false,
  });
}

function invoicesKey(email: string | null): string | null {
  return email ? `/invoices/user/${encodeURIComponent(email)}` : null;
}

export function useInvoices(email: string | null) {
  return useApi<InvoiceEntry[]>(invoicesKey(email), { shouldRetryOnError: false });
}

export function isNotFound(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}

/**
 * Spec §5 History: the email comes from the URL or storage (lower-cased); one in the URL is
 * saved to storage. The session's own email fills in when both are missing. The server still
 * answers only the session user's invoices (403 otherwise).
 */
export function useHistoryEmail(sessionEmail: string | null): string | null {
  const urlEmail = new URLSearchParams(useSearch()).get('email')?.trim().toLowerCase() || null;
  useEffect(() => {
    if (urlEmail) writeStored({ email: urlEmail });
  }, [urlEmail]);
  return urlEmail ?? (readStored('email')?.trim().toLowerCase() || null) ?? sessionEmail;
}
