import type { Config } from '../config/config.ts';
import { siDebitPaymentIds } from '../db/autopay.ts';
import { raiseAlert } from '../db/operatorAlerts.ts';
import type { Payment } from '../db/payments.ts';
import type { Db } from '../db/pool.ts';
import type { Logger } from '../observability/log.ts';
import { PayUError, type VerifyPaymentResult } from '../providers/payu.ts';
import { createPayUSiClient, type PayUSiClient } from '../providers/payuSi.ts';

/**
 * AutoPay debits are payments like checkouts, settled by the same verification
 * (worker/jobs/paymentVerify.ts, the reconciliation sweep); only the question differs: PayU is
 * asked with verify_si_payment. An answer of a shape we cannot read is recorded and alerted, and
 * the payment stays open (never success) for the next check.
 */

export async function isSiDebit(db: Db, paymentId: string): Promise<boolean> {
  return (await siDebitPaymentIds(db, [paymentId])).has(paymentId);
}

export { siDebitPaymentIds };

export async function verifySiDebit(
  deps: { db: Db; config: Config; log: Logger },
  payment: Pick<Payment, 'txnid'>,
  si: PayUSiClient = createPayUSiClient(deps.config.payu),
): Promise<VerifyPaymentResult> {
  try {
    return await si.verifyDebit(payment.txnid);
  } catch (error) {
    if (error instanceof PayUError && error.kind === 'protocol') {
      await raiseAlert(deps.db, {
        kind: 'autopay-problem',
        dedupeKey: `autopay-verify:${payment.txnid}`,
        message: `verify_si_payment answered something we cannot read for AutoPay debit ${payment.txnid} (${error.message}); it stays open and is asked again.`,
        details: { txnid: payment.txnid, error: error.message },
      });
      deps.log.error({ txnid: payment.txnid, err: error }, 'autopay: verify_si_payment answer unreadable');
    }
    throw error;
  }
}
