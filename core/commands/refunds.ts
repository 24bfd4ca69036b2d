import type { Config } from '../config/config.ts';
import type { Invoice } from '../db/invoices.ts';
import type { Payment } from '../db/payments.ts';
import type { Db } from '../db/pool.ts';
import { insertRefundOnce, type Refund, type RefundSource } from '../db/refunds.ts';
import type { Subscription } from '../db/subscriptions.ts';
import { customerRefundRefusal, quoteRefund, type RefundQuote } from '../domain/refund.ts';
import { sendJob, type Boss } from '../queue.ts';

/**
 * Refunds, whoever asks (the worker for a paid-but-not-activated payment, the customer from
 * their history, the operator with `npm run refund`): the policy's quote, and one
 * `payment-refund` job per payment. The refund row (with its PayU token) and its job are
 * written in one transaction; a second request for the same payment finds the first.
 */

export type RefundTarget = {
  payment: Payment;
  subscription: Subscription | null;
  invoice: Invoice | null;
};

export type Quote = {
  txnid: string;
  invoiceNumber: string | null;
  paidPaise: number;
  alreadyRefundedPaise: number;
  /** The policy's answer, or a full refund for a payment that never activated anything. */
  quote: RefundQuote;
  /** Why the quote is what it is. */
  basis: string;
  /** The payment activated nothing: the whole amount goes back, no charge. */
  neverActivated: boolean;
};

export class RefundError extends Error {
  override name = 'RefundError';
}

/** What the policy gives back of a payment at `now`, less what was already refunded. */
export function quoteFor(
  target: RefundTarget,
  refunds: readonly Refund[],
  config: Pick<Config, 'refundPolicy'>,
  now: Date,
): Quote {
  const { payment, subscription, invoice } = target;
  if (payment.status !== 'success')
    throw new RefundError(`payment ${payment.txnid} is ${payment.status}: nothing was paid`);
  const alreadyRefundedPaise = refunds
    .filter((r) => r.status === 'accepted' || r.status === 'refunded')
    .reduce((sum, r) => sum + r.amount_paise, 0);
  const purchasedAt = payment.problem === null ? (subscription?.purchased_at ?? null) : null;
  const quote: RefundQuote = purchasedAt
    ? quoteRefund(payment.amount_paise, purchasedAt, now, config.refundPolicy)
    : {
        day: 1,
        percent: 100,
        grossPaise: payment.amount_paise,
        chargePaise: 0,
        refundPaise: payment.amount_paise,
      };
  const limited = Math.max(0, Math.min(quote.refundPaise, payment.amount_paise - alreadyRefundedPaise));
  return {
    txnid: payment.txnid,
    invoiceNumber: invoice?.invoice_number ?? null,
    paidPaise: payment.amount_paise,
    alreadyRefundedPaise,
    quote: { ...quote, refundPaise: limited },
    basis: purchasedAt
      ? `day ${quote.day} of the plan: ${quote.percent}% less the cancellation charge`
      : `never activated (${payment.problem ?? 'no active plan'}): full refund`,
    neverActivated: purchasedAt === null,
  };
}

/** Whether the customer may ask for this refund now; the reason when not (core/domain/refund.ts). */
export function customerRefundCheck(
  target: RefundTarget,
  quote: Quote | null,
  refunds: readonly Pick<Refund, 'status' | 'under_review'>[],
  now: Date,
) {
  return customerRefundRefusal({
    paid: target.payment.status === 'success',
    settling: target.payment.status === 'initiated' || target.payment.status === 'pending',
    notActivated: target.payment.problem !== null,
    isTrial: target.subscription?.is_trial ?? false,
    planActive:
      target.subscription?.status === 'active' &&
      (target.subscription.expires_at?.getTime() ?? 0) > now.getTime(),
    refundPaise: quote?.quote.refundPaise ?? 0,
    hasRefund: refunds.some((r) => r.status !== 'failed'),
    refusedUnderReview: refunds.some((r) => r.status === 'failed' && r.under_review),
  });
}

/**
 * Records a refund of `amountPaise` and queues its job, in one transaction. Idempotent per
 * payment: when one is already requested, accepted or done, that one is answered and nothing
 * new is queued.
 */
export async function requestRefund(
  db: Db,
  boss: Boss,
  input: { payment: Payment; amountPaise: number; quote: RefundQuote; source: RefundSource },
): Promise<{ refund: Refund; created: boolean }> {
  const { payment, amountPaise } = input;
  if (!payment.mihpayid)
    throw new RefundError(`payment ${payment.txnid} has no PayU id (mihpayid) to refund`);
  if (!Number.isSafeInteger(amountPaise) || amountPaise <= 0 || amountPaise > payment.amount_paise) {
    throw new RefundError(`cannot refund ${amountPaise} paise of a payment of ${payment.amount_paise}`);
  }
  return db.transaction(async (trx) => {
    const result = await insertRefundOnce(trx, {
      paymentId: payment.id,
      amountPaise,
      quote: { day: input.quote.day, percent: input.quote.percent, chargePaise: input.quote.chargePaise },
      source: input.source,
    });
    if (result.created) {
      await sendJob(
        boss,
        'payment-refund',
        { refundId: result.refund.id },
        { db: trx, singletonKey: `refund-${payment.id}` },
      );
    }
    return result;
  });
}
