import { checkAgainBy } from '../../core/commands/paymentChecks.ts';
import { findPaymentByTxnid } from '../../core/db/payments.ts';
import { applyVerification } from '../../core/commands/paymentSettlement.ts';
import { isSiDebit, verifySiDebit } from '../../core/commands/autopayVerify.ts';
import { paymentSettled } from '../../core/domain/payments.ts';
import { createPayUClient, type PayUClient } from '../../core/providers/payu.ts';
import type { WorkerDeps } from '../deps.ts';
import { eachJobSettled } from '../job.ts';

/**
 * `payment-verify`: asks PayU (verify_payment) what happened to one txnid and acts on that
 * answer only (ARCHITECTURE deviation 1). Sent by every callback with singletonKey = txnid, so
 * a flood of callbacks waits as one job. The reconciliation sweep (paymentReconcile.ts) asks
 * about many txnids in one call and hands each answer to the same `applyVerification`
 * (core/commands/paymentSettlement.ts), so a success found either way activates through one
 * path, once. PayU is called outside any transaction.
 */
export function paymentVerify(deps: WorkerDeps, payu: PayUClient = createPayUClient(deps.config.payu)) {
  // A batch's jobs are verified at once and each is settled on its own (the worker registers
  // this queue with `perJobResults`): a burst of callbacks drains at PayU's speed rather than
  // one job per poller per polling interval, and one unreachable answer retries only its job.
  return eachJobSettled('payment-verify', deps.log, (payload, job) =>
    verifyPayment(deps, payu, payload, job.id),
  );
}

async function verifyPayment(
  deps: WorkerDeps,
  payu: PayUClient,
  { txnid, source }: { txnid: string; source: string },
  jobId: string,
): Promise<void> {
  const log = deps.log.child({ jobId, txnid, source });
  const payment = await findPaymentByTxnid(deps.db, txnid);
  if (!payment) {
    log.warn('payment-verify: no payment with this txnid; nothing to do');
    return;
  }
  if (paymentSettled(payment.status)) {
    log.debug({ status: payment.status }, 'payment-verify: already settled');
    return;
  }
  // Outside any transaction: slonik may retry a transaction, and PayU must not be asked twice for one write.
  // An AutoPay debit is asked about with verify_si_payment.
  const answer = (await isSiDebit(deps.db, payment.id))
    ? await verifySiDebit(deps, payment)
    : await payu.verifyPayment(txnid);
  const outcome = await applyVerification(deps, payment, answer, log);
  // A callback arrived but PayU has not decided: the sweep asks again within a minute or two.
  if (outcome === 'open') await checkAgainBy(deps.db, txnid, new Date(Date.now() + 60_000));
}
