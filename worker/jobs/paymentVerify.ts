import { findUserById } from '../../core/db/users.ts';
import { findPaymentByTxnid, setPaymentProblem, settlePayment } from '../../core/db/payments.ts';
import {
  activateSubscription,
  expireLapsedSubscriptions,
  findActiveSubscription,
  findSubscription,
  hasUsedTrial,
  lockTrialPhone,
  lockUserPlans,
  supersedeTrial,
} from '../../core/db/subscriptions.ts';
import { planExpiry } from '../../core/domain/plans.ts';
import { trialExpiry } from '../../core/domain/trial.ts';
import { paymentReceiptMail } from '../../core/emails/payments.ts';
import { issueInvoice } from '../../core/invoicing.ts';
import { createPayUClient, type PayUClient, type VerifyPaymentResult } from '../../core/providers/payu.ts';
import { parsePayload, sendJob, type Job, type Payload } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';

/**
 * `payment-verify`: asks PayU (verify_payment) what happened to one txnid and acts on that
 * answer only (ARCHITECTURE deviation 1). Keyed on the txnid: the guard is the payment still
 * being `initiated`, the transition is conditional, so replays, a webhook racing the browser's
 * return and concurrent duplicates activate once. PayU is called outside any transaction;
 * marking the payment, activating the subscription, issuing the invoice and enqueuing the
 * receipt and provisioning happen in one.
 */
export function paymentVerify(deps: WorkerDeps, payu: PayUClient = createPayUClient(deps.config.payu)) {
  return async (jobs: Job<unknown>[]) => {
    for (const job of jobs) {
      const payload = parsePayload('payment-verify', job.data);
      await verifyPayment(deps, payu, payload, job.id);
    }
  };
}

export class PaymentPendingError extends Error {
  override name = 'PaymentPendingError';
}

async function verifyPayment(
  deps: WorkerDeps,
  payu: PayUClient,
  { txnid, source }: Payload<'payment-verify'>,
  jobId: string,
): Promise<void> {
  const log = deps.log.child({ jobId, txnid, source });
  const payment = await findPaymentByTxnid(deps.db, txnid);
  if (!payment) {
    log.warn('payment-verify: no payment with this txnid; nothing to do');
    return;
  }
  if (payment.status !== 'initiated') {
    log.debug({ status: payment.status }, 'payment-verify: already settled');
    return;
  }

  // Outside any transaction: slonik may retry a transaction, and PayU must not be asked twice for one write.
  const answer = await payu.verifyPayment(txnid);
  const verified = { mihpayid: answer.mihpayid, answer: answer.raw, at: new Date() };

  switch (answer.status) {
    case 'success':
      if (answer.amountPaise !== payment.amount_paise) {
        // Our hash signed the amount, so PayU charging another one means something is badly wrong.
        await setPaymentProblem(
          deps.db,
          payment.id,
          `PayU reports ${answer.amountPaise ?? 'no'} paise paid, we asked ${payment.amount_paise}: not activated`,
        );
        log.error(
          { asked: payment.amount_paise, paid: answer.amountPaise },
          'payment-verify: amount differs from ours; nothing activated',
        );
        return;
      }
      await settleSuccess(deps, txnid, verified, log);
      return;
    case 'failure':
      if (await settlePayment(deps.db, txnid, 'failure', verified)) {
        log.info({ unmappedstatus: answer.unmappedstatus }, 'payment-verify: PayU says the payment failed');
      }
      return;
    case 'not-found':
      // A hash-checked callback for a transaction PayU does not know: nothing can be paid.
      log.warn('payment-verify: PayU has no such transaction; nothing activated');
      return;
    default:
      // Pending (or a status we do not know): not paid yet. Throwing retries with backoff.
      throw new PaymentPendingError(pendingMessage(answer));
  }
}

function pendingMessage(answer: VerifyPaymentResult): string {
  return `PayU says ${answer.txnid} is ${answer.status} (${answer.unmappedstatus ?? 'no detail'}); checking again later`;
}

async function settleSuccess(
  deps: WorkerDeps,
  txnid: string,
  verified: { mihpayid: string | null; answer: unknown; at: Date },
  log: WorkerDeps['log'],
): Promise<void> {
  const { config, boss } = deps;
  const outcome = await deps.db.transaction(async (trx) => {
    const paid = await settlePayment(trx, txnid, 'success', verified);
    if (!paid) return { kind: 'duplicate' as const };
    await lockUserPlans(trx, paid.user_id);
    const now = new Date();
    const subscription = await findSubscription(trx, paid.subscription_id);
    const customer = await findUserById(trx, paid.user_id);
    const refuse = async (problem: string) => {
      await setPaymentProblem(trx, paid.id, `${problem}: paid but not activated, refund it`);
      return { kind: 'not-activated' as const, problem };
    };
    if (!subscription || subscription.status !== 'pending_payment') {
      return refuse(`subscription ${subscription?.status ?? 'missing'}`);
    }
    if (!customer) return refuse('the account was deleted');
    if (subscription.is_trial && subscription.trial_phone)
      await lockTrialPhone(trx, subscription.trial_phone);

    await expireLapsedSubscriptions(trx, paid.user_id, now);
    const active = await findActiveSubscription(trx, paid.user_id, now);
    if (active) {
      // A running trial gives way to a bought plan; anything else means this purchase overlaps one.
      if (active.is_trial && !subscription.is_trial) await supersedeTrial(trx, active.id);
      else return refuse(`another plan (${active.plan_name}) is active`);
    }
    if (subscription.is_trial && (await hasUsedTrial(trx, paid.user_id, subscription.trial_phone))) {
      return refuse('a trial was already used by this account or phone number');
    }

    const expiresAt = subscription.is_trial ? trialExpiry(now) : planExpiry(now);
    const activated = await activateSubscription(trx, subscription.id, now, expiresAt);
    if (!activated?.purchased_at || !activated.expires_at)
      return refuse('the subscription could not be activated');
    const invoice = await issueInvoice(trx, config, {
      payment: paid,
      subscription: { ...activated, purchased_at: activated.purchased_at, expires_at: activated.expires_at },
      customer: { name: customer.name, email: customer.email, phone: customer.phone },
      now,
    });
    await sendJob(boss, 'email-send', paymentReceiptMail(invoice, config.publicUrl), { db: trx });
    await sendJob(
      boss,
      'vm-provision',
      { subscriptionId: activated.id, userId: activated.user_id },
      { db: trx },
    );
    return {
      kind: 'activated' as const,
      subscriptionId: activated.id,
      invoiceNumber: invoice.invoice_number,
    };
  });

  if (outcome.kind === 'activated') {
    log.info(
      { subscriptionId: outcome.subscriptionId, invoice: outcome.invoiceNumber },
      'payment-verify: paid; plan activated, invoice issued, provisioning queued',
    );
  } else if (outcome.kind === 'not-activated') {
    log.error(
      { problem: outcome.problem },
      'payment-verify: paid but NOT activated; refund with npm run refund',
    );
  } else {
    log.debug('payment-verify: another job settled this payment first');
  }
}
