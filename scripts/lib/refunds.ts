import type { Config } from '../../core/config.ts';
import { findInvoiceByNumber, findInvoiceByPayment, type Invoice } from '../../core/db/invoices.ts';
import { findPaymentByTxnid, type Payment } from '../../core/db/payments.ts';
import type { DatabasePool } from '../../core/db/pool.ts';
import {
  findOpenRefund,
  insertRefund,
  listRefundsForPayment,
  settleRefund,
  type Refund,
} from '../../core/db/refunds.ts';
import { cancelSubscription, findSubscription, type Subscription } from '../../core/db/subscriptions.ts';
import { quoteRefund, type RefundQuote } from '../../core/domain/refund.ts';
import type { PayUClient } from '../../core/providers/payu.ts';
import { UniqueIntegrityConstraintViolationError } from 'slonik';

/**
 * What `npm run refund` does, as functions the tests call too. A quote applies the configured
 * policy to what was paid; executing writes the refund row (and its token) first, then asks
 * PayU outside any transaction, then records the answer. Running it again is safe: an accepted
 * refund is reported, an interrupted one is retried with the same token.
 */

export class RefundError extends Error {
  override name = 'RefundError';
}

export type RefundTarget = {
  payment: Payment;
  subscription: Subscription | null;
  invoice: Invoice | null;
};

/** A payment by txnid or by invoice number (LC/2026-27/000001). */
async function findRefundTarget(db: DatabasePool, reference: string): Promise<RefundTarget> {
  const ref = reference.trim();
  let payment: Payment | null;
  if (ref.includes('/')) {
    const invoice = await findInvoiceByNumber(db, ref);
    if (!invoice) throw new RefundError(`no invoice ${ref}`);
    payment = await findPaymentByTxnid(db, invoice.txnid);
  } else {
    payment = await findPaymentByTxnid(db, ref);
  }
  if (!payment) throw new RefundError(`no payment ${ref}`);
  const [subscription, invoice] = await Promise.all([
    findSubscription(db, payment.subscription_id),
    findInvoiceByPayment(db, payment.id),
  ]);
  return { payment, subscription, invoice };
}

export type Quote = {
  txnid: string;
  invoiceNumber: string | null;
  paidPaise: number;
  alreadyRefundedPaise: number;
  /** The policy's answer, or a full refund for a payment that never activated anything. */
  quote: RefundQuote;
  /** Why the quote is what it is, for the operator. */
  basis: string;
};

function quoteFor(
  target: RefundTarget,
  refunds: readonly Refund[],
  config: Pick<Config, 'refundPolicy'>,
  now: Date,
): Quote {
  const { payment, subscription, invoice } = target;
  if (payment.status !== 'success')
    throw new RefundError(`payment ${payment.txnid} is ${payment.status}: nothing was paid`);
  const alreadyRefundedPaise = refunds
    .filter((r) => r.status === 'accepted')
    .reduce((sum, r) => sum + r.amount_paise, 0);
  const purchasedAt = payment.problem === null ? (subscription?.purchased_at ?? null) : null;
  const quote: RefundQuote = purchasedAt
    ? quoteRefund(payment.amount_paise, purchasedAt, now, config.refundPolicy)
    : // Paid but never activated (flagged by payment-verify): the whole amount goes back, no charge.
      {
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
  };
}

export async function quote(
  db: DatabasePool,
  config: Pick<Config, 'refundPolicy'>,
  reference: string,
  now = new Date(),
): Promise<Quote> {
  const target = await findRefundTarget(db, reference);
  return quoteFor(target, await listRefundsForPayment(db, target.payment.id), config, now);
}

export type ExecuteResult =
  | { kind: 'accepted'; refund: Refund; quote: Quote; note: string }
  | { kind: 'already-refunded'; refund: Refund }
  | { kind: 'failed'; refund: Refund; message: string };

/**
 * Refunds a payment through PayU: the quoted amount, or `amountPaise` when the operator says
 * so (never more than is left of the payment). Cancels the plan it paid for when accepted.
 */
export async function executeRefund(
  db: DatabasePool,
  payu: PayUClient,
  config: Pick<Config, 'refundPolicy'>,
  txnid: string,
  options: { amountPaise?: number; now?: Date } = {},
): Promise<ExecuteResult> {
  const now = options.now ?? new Date();
  const target = await findRefundTarget(db, txnid);
  const { payment } = target;
  const current = quoteFor(target, await listRefundsForPayment(db, payment.id), config, now);
  if (!payment.mihpayid)
    throw new RefundError(`payment ${payment.txnid} has no PayU id (mihpayid) to refund`);

  let refund = await findOpenRefund(db, payment.id);
  if (refund?.status === 'accepted') return { kind: 'already-refunded', refund };
  if (!refund) {
    const amountPaise = options.amountPaise ?? current.quote.refundPaise;
    if (!Number.isSafeInteger(amountPaise) || amountPaise <= 0) {
      throw new RefundError(`nothing to refund: ${current.basis} gives ${amountPaise} paise`);
    }
    if (amountPaise > payment.amount_paise - current.alreadyRefundedPaise) {
      throw new RefundError(
        `cannot refund ${amountPaise} paise: only ${payment.amount_paise - current.alreadyRefundedPaise} are left`,
      );
    }
    try {
      refund = await insertRefund(db, {
        paymentId: payment.id,
        amountPaise,
        quote: {
          day: current.quote.day,
          percent: current.quote.percent,
          chargePaise: current.quote.chargePaise,
        },
      });
    } catch (error) {
      // Another operator (or run) got there first: carry on with theirs.
      if (!(error instanceof UniqueIntegrityConstraintViolationError)) throw error;
      refund = await findOpenRefund(db, payment.id);
      if (!refund) throw error;
      if (refund.status === 'accepted') return { kind: 'already-refunded', refund };
    }
  }

  // Outside any transaction; the token makes a repeat of this call harmless at PayU.
  const answer = await payu.refund({
    mihpayid: payment.mihpayid,
    refundToken: refund.token,
    amountPaise: refund.amount_paise,
  });
  if (answer.accepted || answer.duplicateToken) {
    const note = answer.accepted
      ? `PayU queued the refund (request ${answer.requestId ?? '?'})`
      : 'PayU already had this token: an earlier attempt went through';
    const settled = await db.transaction(async (trx) => {
      const row = await settleRefund(trx, refund.id, {
        status: 'accepted',
        requestId: answer.requestId,
        errorCode: answer.errorCode,
        message: note,
      });
      // The plan ends with its refund; a payment that never activated anything has no plan to end.
      if (payment.problem === null) await cancelSubscription(trx, payment.subscription_id, now);
      return row;
    });
    return { kind: 'accepted', refund: settled ?? refund, quote: current, note };
  }
  const failed = await settleRefund(db, refund.id, {
    status: 'failed',
    requestId: null,
    errorCode: answer.errorCode,
    message: answer.message || 'PayU refused the refund',
  });
  return {
    kind: 'failed',
    refund: failed ?? refund,
    message: answer.message || `PayU error ${answer.errorCode ?? '?'}`,
  };
}
