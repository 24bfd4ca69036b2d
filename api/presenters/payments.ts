import type { Refund } from '../../core/db/refunds.ts';
import {
  attemptProgress,
  failureReasonOf,
  notActivatedExplanation,
  paidNotActivated,
  plainFailureReason,
  type CheckoutWaitSettings,
} from '../../core/domain/payments.ts';
import type { PaymentAttemptRecord, RefundRecord } from '../../core/domain/planRecords.ts';
import {
  customerRefundMessage,
  refundFailureWords,
  type CustomerRefundRefusal,
  type Quote,
} from '../../core/domain/refund.ts';
import type { RefundTarget } from '../../core/commands/refunds.ts';

/** Payment attempts and refunds → the JSON the history and payment-failed pages read. */

export function refundBody(r: Refund): RefundRecord {
  return {
    amountPaise: r.amount_paise,
    status: r.status,
    source: r.source,
    reference: r.token,
    payuRequestId: r.payu_request_id,
    payuStatus: r.payu_status,
    requestedAt: r.created_at.toISOString(),
    completedAt: r.completed_at?.toISOString() ?? null,
    reason: refundFailureWords({
      status: r.status,
      payuRequestId: r.payu_request_id,
      errorCode: r.error_code,
    }),
    underReview: r.under_review,
  };
}

export function paymentAttemptBody(
  { payment, subscription, invoice }: RefundTarget,
  refunds: readonly Refund[],
  offer: { quote: Quote | null; refusal: CustomerRefundRefusal | null },
  checkout: CheckoutWaitSettings,
  autoPay: PaymentAttemptRecord['autoPay'] = null,
): PaymentAttemptRecord {
  const progress = attemptProgress(
    {
      status: payment.status,
      createdAt: payment.created_at,
      nextCheckAt: payment.next_check_at,
      heardFromPayU: payment.callback_count > 0,
    },
    new Date(),
    checkout,
  );
  // PayU's words for a failure, kept for support; the customer reads them made plain.
  const failure = failureReasonOf(payment.status, payment.failure_reason);
  const hours = payment.auto_refund_at ? (payment.auto_refund_at.getTime() - Date.now()) / 3_600_000 : 0;
  return {
    txnid: payment.txnid,
    status: payment.status,
    statusLabel: progress.label,
    statusDetail: progress.detail,
    nextCheckAt: progress.nextCheckAt?.toISOString() ?? null,
    planName: subscription?.plan_name ?? 'Plan',
    hours: subscription?.hours ?? 0,
    isTrial: subscription?.is_trial ?? false,
    autoPay,
    amountPaise: payment.amount_paise,
    createdAt: payment.created_at.toISOString(),
    failureReason: failure && plainFailureReason(failure),
    payuReason: failure,
    invoiceId: invoice?.invoice_number ?? null,
    notActivated: paidNotActivated(payment.status, payment.problem)
      ? {
          explanation: notActivatedExplanation(Math.max(0, hours)),
          autoRefundAt: payment.auto_refund_at?.toISOString() ?? null,
        }
      : null,
    refunds: refunds.map(refundBody),
    refundOffer: {
      amountPaise: offer.refusal ? null : (offer.quote?.quote.refundPaise ?? null),
      day: offer.quote?.quote.day ?? null,
      percent: offer.quote?.quote.percent ?? null,
      chargePaise: offer.quote?.quote.chargePaise ?? null,
      refusal: offer.refusal
        ? customerRefundMessage(offer.refusal, { nextCheckAt: payment.next_check_at })
        : null,
      refusalKind: offer.refusal,
    },
  };
}
