import { findPaymentById } from '../../core/db/payments.ts';
import { findRefund } from '../../core/db/refunds.ts';
import { followRefund, sendRefund } from '../../core/commands/refundProgress.ts';
import { refundStep } from '../../core/domain/refund.ts';
import { createPayUClient, type PayUClient } from '../../core/providers/payu.ts';
import type { WorkerDeps } from '../deps.ts';
import { eachJob } from '../job.ts';

/**
 * `payment-refund`: one refund row, taken to its end. Guard → side effect with a key → record:
 * a `requested` refund goes to PayU's cancel_refund_transaction with its token (≤ 23
 * characters, fixed when the row was written), so a retry after a crash or a lost answer is
 * refused by PayU as a repeat (106) instead of refunding twice; an `accepted` one is followed
 * with check_action_status on PayU's request id, the job sending itself again later, until
 * PayU says SUCCESS or FAILURE. Refunded and failed refunds are final: a replay does nothing.
 */
export function paymentRefund(deps: WorkerDeps, payu: PayUClient = createPayUClient(deps.config.payu)) {
  return eachJob('payment-refund', ({ refundId }) => handleRefund(deps, payu, refundId));
}

export async function handleRefund(deps: WorkerDeps, payu: PayUClient, refundId: string): Promise<void> {
  const log = deps.log.child({ job: 'payment-refund', refundId });
  const refund = await findRefund(deps.db, refundId);
  if (!refund) {
    log.warn('payment-refund: no such refund; nothing to do');
    return;
  }
  const payment = await findPaymentById(deps.db, refund.payment_id);
  if (!payment) throw new Error(`refund ${refundId} names a payment that does not exist`);
  switch (refundStep(refund.status)) {
    case 'send':
      return sendRefund(deps, payu, refund, payment, log);
    case 'follow':
      return followRefund(deps, payu, refund, payment, log);
    case 'final':
      log.debug({ status: refund.status }, 'payment-refund: already final');
  }
}
