import { findUserById } from '../../core/db/users.ts';
import {
  abandonPayment,
  checkPaymentBy,
  findPaymentByTxnid,
  markPaymentPending,
  setPaymentProblem,
  settlePayment,
  type Payment,
} from '../../core/db/payments.ts';
import { raiseAlert } from '../../core/db/operatorAlerts.ts';
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
import { notActivatedExplanation, reconcileScheduleOver } from '../../core/domain/payments.ts';
import { planExpiry } from '../../core/domain/plans.ts';
import { trialExpiry } from '../../core/domain/trial.ts';
import { paymentNotActivatedMail, paymentReceiptMail } from '../../core/emails/payments.ts';
import { issueInvoice } from '../../core/commands/invoicing.ts';
import {
  afterActivation,
  giveWayToRenewal,
  renewalPeriodEnd,
  renewalTerms,
} from '../../core/commands/autopay.ts';
import { isSiDebit, verifySiDebit } from '../../core/commands/autopayVerify.ts';
import { createPayUClient, type PayUClient, type VerifyPaymentResult } from '../../core/providers/payu.ts';
import { parsePayload, sendJob, type Job } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';

/**
 * `payment-verify`: asks PayU (verify_payment) what happened to one txnid and acts on that
 * answer only (ARCHITECTURE deviation 1). Sent by every callback with singletonKey = txnid, so
 * a flood of callbacks waits as one job. The reconciliation sweep (paymentReconcile.ts) asks
 * about many txnids in one call and hands each answer to the same `applyVerification`, so a
 * success found either way activates through one path, once: the guard is the payment still
 * being open, the transition is conditional, and marking the payment, activating the
 * subscription, issuing the invoice and enqueuing the receipt and provisioning happen in one
 * transaction. PayU is called outside any transaction.
 */
export function paymentVerify(deps: WorkerDeps, payu: PayUClient = createPayUClient(deps.config.payu)) {
  // A batch's jobs are verified at once and each is settled on its own (the worker registers
  // this queue with `perJobResults`): a burst of callbacks drains at PayU's speed rather than
  // one job per poller per polling interval, and one unreachable answer retries only its job.
  return async (jobs: Job<unknown>[]): Promise<JobResult[]> =>
    Promise.all(
      jobs.map(async (job): Promise<JobResult> => {
        try {
          await verifyPayment(deps, payu, parsePayload('payment-verify', job.data), job.id);
          return { id: job.id, status: 'completed' };
        } catch (error) {
          // Recorded on the job by pg-boss and retried with the queue's backoff.
          const err = error as Error;
          deps.log.warn({ jobId: job.id, err }, 'payment-verify: failed; will retry');
          return { id: job.id, status: 'failed', output: { message: err.message, name: err.name } };
        }
      }),
    );
}

type JobResult = { id: string; status: 'completed' | 'failed'; output?: object };

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
  if (payment.status === 'success' || payment.status === 'failure') {
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
  if (outcome === 'open') await checkPaymentBy(deps.db, txnid, new Date(Date.now() + 60_000));
}

/** PayU's reason for a failure, as it wrote it (error_Message, else field9). */
function failureReason(answer: VerifyPaymentResult): string | null {
  const raw = answer.raw as Record<string, unknown> | null;
  const field9 = raw && typeof raw.field9 === 'string' ? raw.field9 : null;
  return answer.errorMessage?.trim() || field9?.trim() || answer.unmappedstatus || null;
}

/**
 * Acts on PayU's answer about one payment, whoever asked (a callback's job or the sweep).
 * Success activates once; failure is recorded with PayU's reason; anything else leaves the
 * payment open for the sweep's next check, or abandons it when its schedule has run out.
 */
export async function applyVerification(
  deps: WorkerDeps,
  payment: Payment,
  answer: VerifyPaymentResult,
  log: WorkerDeps['log'],
): Promise<'activated' | 'not-activated' | 'failed' | 'open' | 'abandoned' | 'duplicate'> {
  const { txnid } = payment;
  const verified = { mihpayid: answer.mihpayid, answer: answer.raw, at: new Date() };
  switch (answer.status) {
    case 'success': {
      const problem =
        answer.amountPaise === payment.amount_paise
          ? null
          : // Our hash signed the amount, so PayU charging another one means something is badly wrong.
            `PayU reports ${answer.amountPaise ?? 'no'} paise paid, we asked ${payment.amount_paise}`;
      return settleSuccess(deps, txnid, verified, problem, log);
    }
    case 'failure': {
      const settled = await settlePayment(deps.db, txnid, 'failure', {
        ...verified,
        failureReason: failureReason(answer),
      });
      if (settled) {
        log.info({ unmappedstatus: answer.unmappedstatus }, 'payment-verify: PayU says the payment failed');
        return 'failed';
      }
      return 'duplicate';
    }
    default: {
      // Pending, not found (the customer never reached PayU's page) or unknown: not paid yet.
      if (answer.status === 'pending') await markPaymentPending(deps.db, txnid);
      const current = await findPaymentByTxnid(deps.db, txnid);
      if (
        current &&
        reconcileScheduleOver(current.check_count) &&
        (current.status === 'initiated' || current.status === 'pending')
      ) {
        if (await abandonPayment(deps.db, txnid)) {
          log.info(
            { status: answer.status },
            'payment-verify: no final answer from PayU after 72 hours; abandoned',
          );
          return 'abandoned';
        }
      }
      log.debug(
        { status: answer.status, unmappedstatus: answer.unmappedstatus },
        'payment-verify: not final yet',
      );
      return 'open';
    }
  }
}

async function settleSuccess(
  deps: WorkerDeps,
  txnid: string,
  verified: { mihpayid: string | null; answer: unknown; at: Date },
  amountProblem: string | null,
  log: WorkerDeps['log'],
): Promise<'activated' | 'not-activated' | 'duplicate'> {
  const { config, boss } = deps;
  const outcome = await deps.db.transaction(async (trx) => {
    const paid = await settlePayment(trx, txnid, 'success', verified);
    if (!paid) return { kind: 'duplicate' as const };
    await lockUserPlans(trx, paid.user_id);
    const now = new Date();
    const subscription = await findSubscription(trx, paid.subscription_id);
    const customer = await findUserById(trx, paid.user_id);
    // Never silent: the problem is recorded with its automatic refund, the operator alerted and
    // the customer told, all with the payment's settlement.
    const refuse = async (problem: string) => {
      const autoRefundAt = new Date(now.getTime() + config.autoRefundHours * 3_600_000);
      await setPaymentProblem(trx, paid.id, `${problem}: paid but not activated`, autoRefundAt);
      await raiseAlert(trx, {
        kind: 'paid-not-activated',
        dedupeKey: paidNotActivatedAlertKey(txnid),
        message: `PayU took ${paid.amount} for ${txnid} but nothing was activated (${problem}). Refunded in full automatically at ${autoRefundAt.toISOString()} unless this alert is resolved first.`,
        details: {
          txnid,
          userId: paid.user_id,
          amountPaise: paid.amount_paise,
          autoRefundAt: autoRefundAt.toISOString(),
        },
      });
      if (customer) {
        await sendJob(
          boss,
          'email-send',
          paymentNotActivatedMail(
            customer,
            paid,
            notActivatedExplanation(config.autoRefundHours),
            config.publicUrl,
          ),
          { db: trx },
        );
      }
      return { kind: 'not-activated' as const, problem };
    };
    if (amountProblem) return refuse(amountProblem);
    if (!subscription || subscription.status !== 'pending_payment') {
      return refuse(`subscription ${subscription?.status ?? 'missing'}`);
    }
    if (!customer) return refuse('the account was deleted');
    if (subscription.is_trial && subscription.trial_phone)
      await lockTrialPhone(trx, subscription.trial_phone);

    // An AutoPay debit or a renewal's "Pay now" renews the active plan on its machine.
    const renewal = await renewalTerms(trx, subscription.id);
    await expireLapsedSubscriptions(trx, paid.user_id, now);
    const active = await findActiveSubscription(trx, paid.user_id, now);
    if (active) {
      // A running trial gives way to a bought plan, the renewed plan to its renewal; anything
      // else means this purchase overlaps one.
      if (active.is_trial && !subscription.is_trial) await supersedeTrial(trx, active.id);
      else if (renewal?.renews_subscription_id === active.id) await giveWayToRenewal(trx, active.id, now);
      else return refuse(`another plan (${active.plan_name}) is active`);
    }
    if (subscription.is_trial && (await hasUsedTrial(trx, paid.user_id, subscription.trial_phone))) {
      return refuse('a trial was already used by this account or phone number');
    }

    const expiresAt = subscription.is_trial
      ? trialExpiry(now)
      : renewal
        ? renewalPeriodEnd(renewal, now)
        : planExpiry(now);
    const activated = await activateSubscription(trx, subscription.id, now, expiresAt);
    if (!activated?.purchased_at || !activated.expires_at)
      return refuse('the subscription could not be activated');
    const invoice = await issueInvoice(trx, config, {
      payment: paid,
      subscription: { ...activated, purchased_at: activated.purchased_at, expires_at: activated.expires_at },
      customer: { name: customer.name, email: customer.email, phone: customer.phone },
      now,
    });
    await afterActivation(trx, boss, config, {
      payment: paid,
      answer: verified.answer,
      subscription: activated,
      now,
    });
    await sendJob(
      boss,
      'email-send',
      paymentReceiptMail(invoice, config.publicUrl, { renewal: renewal !== null }),
      {
        db: trx,
      },
    );
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
      'payment-verify: paid but NOT activated; customer told, operator alerted, automatic refund scheduled',
    );
  } else {
    log.debug('payment-verify: another job settled this payment first');
  }
  return outcome.kind;
}

/** One alert per paid-but-not-activated payment; resolving it stops the automatic refund. */
export function paidNotActivatedAlertKey(txnid: string): string {
  return `paid-not-activated:${txnid}`;
}
