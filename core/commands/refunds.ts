import type { Invoice } from '../db/invoices.ts';
import type { Payment } from '../db/payments.ts';
import type { Db } from '../db/pool.ts';
import { insertRefundOnce, type Refund, type RefundSource } from '../db/refunds.ts';
import type { Subscription } from '../db/subscriptions.ts';
import type { RefundCase, RefundQuote } from '../domain/refund.ts';
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

export class RefundError extends Error {
  override name = 'RefundError';
}

/** A payment, its plan, invoice and refunds as the refund rules read them (core/domain/refund.ts). */
export function refundCase(target: RefundTarget, refunds: readonly Refund[]): RefundCase {
  const { payment, subscription, invoice } = target;
  return {
    txnid: payment.txnid,
    status: payment.status,
    paidPaise: payment.amount_paise,
    problem: payment.problem,
    invoiceNumber: invoice?.invoice_number ?? null,
    plan: subscription && {
      status: subscription.status,
      expiresAt: subscription.expires_at,
      hours: subscription.hours,
      cancelledAt: subscription.cancelled_at,
      purchasedAt: subscription.purchased_at,
      isTrial: subscription.is_trial,
    },
    refunds: refunds.map((r) => ({
      status: r.status,
      amountPaise: r.amount_paise,
      underReview: r.under_review,
    })),
  };
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
