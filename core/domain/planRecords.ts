/**
 * The plan, payment and invoice records the API sends and the SPA reads (api/presenters/plans.ts
 * builds them; web/src/api/plans.ts types its hooks with them). Declared here so both sides share
 * one shape; nothing here may import core/db, which the SPA cannot bundle.
 */
import type { PaymentState } from './payments.ts';
import type { AutoRenewOffer } from './autopay.ts';
import type { CustomerRefundRefusal } from './refund.ts';

/** The lifecycle of a plan choice; the same list as core/db/subscriptions.ts's SUBSCRIPTION_STATUSES. */
export type SubscriptionStatus = 'pending_payment' | 'active' | 'expired' | 'cancelled';

/** A plan choice (pending) or a bought plan, in the spec's selected* words (§3). */
export type SubscriptionRecord = {
  subscriptionId: string;
  status: SubscriptionStatus;
  selectedPlan: string;
  selectedDuration: number;
  selectedStorage: string;
  /** Rupees, as the spec's selectedPrice. */
  selectedPrice: number;
  pricePaise: number;
  isTrial: boolean;
  /** The plan whose machine a trial runs on ("LEGEND"); the plan itself otherwise. */
  machinePlan: string;
  purchaseDate: string | null;
  expiryDate: string | null;
};

/** The checkout: the plan waiting for payment, and what it means for the customer's machine. */
export type CheckoutRecord = SubscriptionRecord & {
  /** A sentence about the machine and files the plan comes with; null for a first machine. */
  machineNote: string | null;
  /** "Renew automatically every month": what it would charge and when; null when not offered (trial, renewal, no SI). */
  autoRenew: AutoRenewOffer | null;
  /**
   * Why paying for this choice would be refused now (a plan bought since it was made, capacity
   * gone, a used trial): the page says so instead of offering Pay. Null when it can be paid.
   */
  refusal: string | null;
};

export type PaymentStatusRecord = {
  txnid: string;
  status: PaymentState;
  /** Paid but not activated: support will refund. */
  needsAttention: boolean;
  subscription: SubscriptionRecord | null;
  invoiceId: string | null;
};

/** A refund as the history page shows it. */
export type RefundRecord = {
  amountPaise: number;
  status: 'requested' | 'accepted' | 'refunded' | 'failed';
  /** Who asked: the automatic refund of a payment that started nothing, the customer, or support. */
  source: 'auto' | 'customer' | 'operator';
  /** Our refund reference (the token PayU knows it by). */
  reference: string;
  payuRequestId: string | null;
  payuStatus: string | null;
  requestedAt: string;
  completedAt: string | null;
  /** For a refund PayU refused or failed: why, in plain words; null otherwise. */
  reason: string | null;
  /** Refused, and our team has not finished looking at it: not offered again until they have. */
  underReview: boolean;
};

/** One PayU payment attempt in the customer's history, whatever its outcome. */
export type PaymentAttemptRecord = {
  txnid: string;
  status: PaymentState;
  statusLabel: string;
  /**
   * Under the label: for a checkout PayU has not answered, when we ask again; past the configured
   * wait (or abandoned), that no money was taken and when a bank returns a debit. Null otherwise.
   */
  statusDetail: string | null;
  /** When the reconcile sweep next asks PayU about a checkout still waiting; null otherwise. */
  nextCheckAt: string | null;
  planName: string;
  hours: number;
  isTrial: boolean;
  /**
   * AutoPay: `debit` for a renewal PayU debited from the standing instruction, `setup` for the
   * checkout that set it up; null for an ordinary checkout.
   */
  autoPay: 'debit' | 'setup' | null;
  amountPaise: number;
  createdAt: string;
  /** For a failed attempt: PayU's reason in plain words, and as PayU wrote it. */
  failureReason: string | null;
  payuReason: string | null;
  invoiceId: string | null;
  /** Paid but not activated: what happened and what happens next. */
  notActivated: { explanation: string; autoRefundAt: string | null } | null;
  refunds: RefundRecord[];
  /** What the customer may ask back today (policy quote), or why not. */
  refundOffer: {
    amountPaise: number | null;
    day: number | null;
    percent: number | null;
    chargePaise: number | null;
    refusal: string | null;
    /** Which refusal (`customerRefundRefusal`): the history says some of them where the button would be. */
    refusalKind: CustomerRefundRefusal | null;
  };
};

/** What every GST document we issue prints (invoice or credit note): the line, the tax split, the parties. */
export type GstDocumentRecord = {
  planName: string;
  description: string;
  /** Rupees, as the spec's invoice total. */
  total: number;
  totalPaise: number;
  issuedAt: string;
  taxablePaise: number;
  cgstPaise: number;
  sgstPaise: number;
  igstPaise: number;
  gstRatePercent: number;
  supply: 'intra-state' | 'inter-state';
  placeOfSupply: string;
  supplier: { legalName: string; gstin: string; address: string; state: string };
  customer: { name: string; email: string; phone: string | null };
  txnid: string;
  /** The SAC code printed on it (null on invoices issued before it was recorded). */
  sacCode: string | null;
};

/** Spec §3 "Invoice" (invoiceId, planName, purchaseDate, expiryDate, total) plus what a GST invoice prints. */
export type InvoiceRecord = GstDocumentRecord & {
  /** Beside credit notes in the same list (`GET /invoices/user/{email}`): which document this is. */
  kind: 'invoice';
  invoiceId: string;
  purchaseDate: string;
  expiryDate: string;
  hours: number;
  storageGb: number;
};

/**
 * A GST credit note (CGST Act s.34) for a refund of an invoiced plan, listed beside its invoice in
 * `GET /invoices/user/{email}`: its own number (`creditNoteId`), the invoice it reduces
 * (`invoiceId`, `invoiceIssuedAt`), the refunded amount (`total`, rupees, as the spec's invoices
 * say it) and the tax in it, split as the invoice's was.
 */
export type CreditNoteRecord = GstDocumentRecord & {
  kind: 'credit-note';
  creditNoteId: string;
  invoiceId: string;
  invoiceIssuedAt: string;
  reason: string;
};

/** An entry of the invoice list: an invoice, or a credit note beside the invoice it reduces. */
export type InvoiceListEntry = InvoiceRecord | CreditNoteRecord;
