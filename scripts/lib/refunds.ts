import type { Config } from '../../core/config/config.ts';
import { findInvoiceByNumber, findInvoiceByPayment } from '../../core/db/invoices.ts';
import { findPaymentByTxnid, type Payment } from '../../core/db/payments.ts';
import type { DatabasePool } from '../../core/db/pool.ts';
import { findOpenRefund, listRefundsForPayment, type Refund } from '../../core/db/refunds.ts';
import { findSubscription } from '../../core/db/subscriptions.ts';
import { refundCase, RefundError, requestRefund, type RefundTarget } from '../../core/commands/refunds.ts';
import { quoteFor, type Quote } from '../../core/domain/refund.ts';
import type { Boss } from '../../core/queue.ts';

/**
 * What `npm run refund` does, as functions the tests call too. A quote applies the configured
 * policy to what was paid; executing records the refund and queues its `payment-refund` job
 * (the worker calls PayU and follows the refund to its end), exactly as an automatic or a
 * customer's refund. Running it again finds the refund already there and queues nothing.
 */

export { RefundError, type Quote };

/** The policy's quote of a paid payment; an operator asking about one that paid nothing is told so. */
function quoteOrRefuse(
  target: RefundTarget,
  refunds: readonly Refund[],
  config: Pick<Config, 'refundPolicy'>,
  now: Date,
): Quote {
  const quote = quoteFor(refundCase(target, refunds), config.refundPolicy, now);
  if (!quote)
    throw new RefundError(`payment ${target.payment.txnid} is ${target.payment.status}: nothing was paid`);
  return quote;
}

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

export async function quote(
  db: DatabasePool,
  config: Pick<Config, 'refundPolicy'>,
  reference: string,
  now = new Date(),
): Promise<Quote> {
  const target = await findRefundTarget(db, reference);
  return quoteOrRefuse(target, await listRefundsForPayment(db, target.payment.id), config, now);
}

export type ExecuteResult =
  { kind: 'queued'; refund: Refund; quote: Quote } | { kind: 'already-requested'; refund: Refund };

/**
 * Queues a refund of a payment: the quoted amount, or `amountPaise` when the operator says so
 * (never more than is left of the payment). The plan it paid for is cancelled when PayU accepts.
 */
export async function executeRefund(
  db: DatabasePool,
  boss: Boss,
  config: Pick<Config, 'refundPolicy'>,
  reference: string,
  options: { amountPaise?: number; now?: Date } = {},
): Promise<ExecuteResult> {
  const now = options.now ?? new Date();
  const target = await findRefundTarget(db, reference);
  const { payment } = target;
  const existing = await findOpenRefund(db, payment.id);
  if (existing) return { kind: 'already-requested', refund: existing };
  const current = quoteOrRefuse(target, await listRefundsForPayment(db, payment.id), config, now);
  const amountPaise = options.amountPaise ?? current.quote.refundPaise;
  if (!Number.isSafeInteger(amountPaise) || amountPaise <= 0) {
    throw new RefundError(`nothing to refund: ${current.basis} gives ${amountPaise} paise`);
  }
  const left = payment.amount_paise - current.alreadyRefundedPaise;
  if (amountPaise > left) throw new RefundError(`cannot refund ${amountPaise} paise: only ${left} are left`);
  const { refund, created } = await requestRefund(db, boss, {
    payment,
    amountPaise,
    quote: current.quote,
    source: 'operator',
  });
  return created ? { kind: 'queued', refund, quote: current } : { kind: 'already-requested', refund };
}
