import type { Config } from '../config/config.ts';
import {
  abandonPayment,
  findPaymentByTxnid,
  markPaymentPending,
  setPaymentProblem,
  settlePayment,
  type Payment,
} from '../db/payments.ts';
import type { Db } from '../db/pool.ts';
import { raiseAlert } from '../db/operatorAlerts.ts';
import {
  activateSubscription,
  expireLapsedSubscriptions,
  findActiveSubscription,
  findSubscription,
  hasUsedTrial,
  lockTrialPhone,
  lockUserPlans,
  supersedeTrial,
} from '../db/subscriptions.ts';
import { findUserById, type User } from '../db/users.ts';
import { activationOf, notActivatedExplanation, reconcileScheduleOver } from '../domain/payments.ts';
import { planExpiry } from '../domain/plans.ts';
import { trialExpiry } from '../domain/trial.ts';
import { paymentNotActivatedMail, paymentReceiptMail } from '../emails/payments.ts';
import type { Logger } from '../observability/log.ts';
import type { VerifyPaymentResult } from '../providers/payu.ts';
import { sendJob, type Boss } from '../queue.ts';
import { afterActivation, giveWayToRenewal, renewalPeriodEnd, renewalTerms } from './autopay.ts';
import { isSiDebit } from './autopayVerify.ts';
import { issueInvoice } from './invoicing.ts';

/**
 * Acting on PayU's answer about one payment, whoever asked (a callback's `payment-verify` job
 * or the reconciliation sweep): a success activates through this one path, once — the guard is
 * the payment still being open, the transition is conditional, and marking the payment,
 * activating the subscription, issuing the invoice and enqueuing the receipt and provisioning
 * happen in one transaction. Whether it activates is `activationOf` (core/domain/payments.ts).
 */

export type SettlementContext = { db: Db; boss: Boss; config: Config; log: Logger };

export type VerificationOutcome =
  'activated' | 'not-activated' | 'failed' | 'open' | 'abandoned' | 'duplicate';

/** One alert per paid-but-not-activated payment; resolving it stops the automatic refund. */
export function paidNotActivatedAlertKey(txnid: string): string {
  return `paid-not-activated:${txnid}`;
}

/** PayU's reason for a failure, as it wrote it (error_Message, else field9). */
function failureReason(answer: VerifyPaymentResult): string | null {
  const raw = answer.raw as Record<string, unknown> | null;
  const field9 = raw && typeof raw.field9 === 'string' ? raw.field9 : null;
  return answer.errorMessage?.trim() || field9?.trim() || answer.unmappedstatus || null;
}

/**
 * Success activates once; failure is recorded with PayU's reason; anything else leaves the
 * payment open for the sweep's next check, or abandons it when its schedule has run out.
 */
export async function applyVerification(
  ctx: SettlementContext,
  payment: Payment,
  answer: VerifyPaymentResult,
  log: Logger,
): Promise<VerificationOutcome> {
  const { txnid } = payment;
  const verified = { mihpayid: answer.mihpayid, answer: answer.raw, at: new Date() };
  switch (answer.status) {
    case 'success':
      return settleSuccess(ctx, txnid, verified, answer.amountPaise ?? null, log);
    case 'failure': {
      const settled = await settlePayment(ctx.db, txnid, 'failure', {
        ...verified,
        failureReason: failureReason(answer),
      });
      if (!settled) return 'duplicate';
      log.info({ unmappedstatus: answer.unmappedstatus }, 'payment-verify: PayU says the payment failed');
      return 'failed';
    }
    default: {
      // Pending, not found (the customer never reached PayU's page) or unknown: not paid yet.
      if (answer.status === 'pending') await markPaymentPending(ctx.db, txnid);
      const current = await findPaymentByTxnid(ctx.db, txnid);
      if (
        current &&
        reconcileScheduleOver(current.check_count) &&
        (current.status === 'initiated' || current.status === 'pending') &&
        (await abandonPayment(ctx.db, txnid))
      ) {
        log.info(
          { status: answer.status },
          'payment-verify: no final answer from PayU after 72 hours; abandoned',
        );
        return 'abandoned';
      }
      log.debug(
        { status: answer.status, unmappedstatus: answer.unmappedstatus },
        'payment-verify: not final yet',
      );
      return 'open';
    }
  }
}

type Settled =
  | { kind: 'duplicate' }
  | { kind: 'not-activated'; problem: string }
  | { kind: 'activated'; subscriptionId: string; invoiceNumber: string };

async function settleSuccess(
  ctx: SettlementContext,
  txnid: string,
  verified: { mihpayid: string | null; answer: unknown; at: Date },
  paidPaise: number | null,
  log: Logger,
): Promise<'activated' | 'not-activated' | 'duplicate'> {
  const { config, boss } = ctx;
  const outcome = await ctx.db.transaction(async (trx): Promise<Settled> => {
    const paid = await settlePayment(trx, txnid, 'success', verified);
    if (!paid) return { kind: 'duplicate' };
    await lockUserPlans(trx, paid.user_id);
    const now = new Date();
    const subscription = await findSubscription(trx, paid.subscription_id);
    const customer = await findUserById(trx, paid.user_id);
    if (subscription?.is_trial && subscription.trial_phone)
      await lockTrialPhone(trx, subscription.trial_phone);
    // An AutoPay debit or a renewal's "Pay now" renews the active plan on its machine.
    const renewal = subscription ? await renewalTerms(trx, subscription.id) : null;
    await expireLapsedSubscriptions(trx, paid.user_id, now);
    const active = await findActiveSubscription(trx, paid.user_id, now);
    const activation = activationOf({
      paidPaise,
      askedPaise: paid.amount_paise,
      subscription: subscription && { status: subscription.status, isTrial: subscription.is_trial },
      customerExists: customer !== null,
      active: active && {
        isTrial: active.is_trial,
        planName: active.plan_name,
        renewed: renewal?.renews_subscription_id === active.id,
      },
      trialUsed:
        !!subscription?.is_trial && (await hasUsedTrial(trx, paid.user_id, subscription.trial_phone)),
    });
    if (activation.kind === 'refuse') return refuse(ctx, trx, paid, customer, activation.problem, now);
    if (activation.givesWay === 'trial' && active) await supersedeTrial(trx, active.id);
    if (activation.givesWay === 'renewed-plan' && active) await giveWayToRenewal(trx, active.id, now);
    const sub = subscription!;
    const expiresAt = sub.is_trial
      ? trialExpiry(now)
      : renewal
        ? renewalPeriodEnd(renewal, now)
        : planExpiry(now);
    const activated = await activateSubscription(trx, sub.id, now, expiresAt);
    if (!activated?.purchased_at || !activated.expires_at || !customer)
      return refuse(ctx, trx, paid, customer, 'the subscription could not be activated', now);
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
      paymentReceiptMail(invoice, config.publicUrl, {
        renewal: renewal !== null,
        autopayDebit: renewal !== null && (await isSiDebit(trx, paid.id)),
      }),
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
    return { kind: 'activated', subscriptionId: activated.id, invoiceNumber: invoice.invoice_number };
  });
  switch (outcome.kind) {
    case 'activated':
      log.info(
        { subscriptionId: outcome.subscriptionId, invoice: outcome.invoiceNumber },
        'payment-verify: paid; plan activated, invoice issued, provisioning queued',
      );
      break;
    case 'not-activated':
      log.error(
        { problem: outcome.problem },
        'payment-verify: paid but NOT activated; customer told, operator alerted, automatic refund scheduled',
      );
      break;
    case 'duplicate':
      log.debug('payment-verify: another job settled this payment first');
      break;
  }
  return outcome.kind;
}

/**
 * Never silent: the problem is recorded with its automatic refund, the operator alerted and the
 * customer told, all with the payment's settlement.
 */
async function refuse(
  ctx: SettlementContext,
  trx: Db,
  paid: Payment,
  customer: User | null,
  problem: string,
  now: Date,
): Promise<Settled> {
  const { config, boss } = ctx;
  const autoRefundAt = new Date(now.getTime() + config.autoRefundHours * 3_600_000);
  await setPaymentProblem(trx, paid.id, `${problem}: paid but not activated`, autoRefundAt);
  await raiseAlert(trx, {
    kind: 'paid-not-activated',
    dedupeKey: paidNotActivatedAlertKey(paid.txnid),
    message: `PayU took ${paid.amount} for ${paid.txnid} but nothing was activated (${problem}). Refunded in full automatically at ${autoRefundAt.toISOString()} unless this alert is resolved first.`,
    details: {
      txnid: paid.txnid,
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
  return { kind: 'not-activated', problem };
}
