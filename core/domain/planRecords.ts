/**
 * The plan, payment and invoice records the API sends and the SPA reads (api/presenters/plans.ts
 * builds them; web/src/api/plans.ts types its hooks with them). Declared here so both sides share
 * one shape; nothing here may import core/db, which the SPA cannot bundle.
 */

/** The lifecycle of a plan choice; the same list as core/db/subscriptions.ts's SUBSCRIPTION_STATUSES. */
export type SubscriptionStatus = 'pending_payment' | 'active' | 'expired' | 'cancelled';

/** The same list as core/db/payments.ts's PAYMENT_STATUSES. */
export type PaymentStatusName = 'initiated' | 'success' | 'failure';

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

export type PaymentStatusRecord = {
  txnid: string;
  status: PaymentStatusName;
  /** Paid but not activated: support will refund. */
  needsAttention: boolean;
  subscription: SubscriptionRecord | null;
  invoiceId: string | null;
};
