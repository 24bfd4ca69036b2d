import type { Config } from '../config/config.ts';
import { findInvoiceByPayment } from '../db/invoices.ts';
import { raiseAlert } from '../db/operatorAlerts.ts';
import type { Payment } from '../db/payments.ts';
import type { Db } from '../db/pool.ts';
import { recordRefundStatus, refundFailedAlertKey, settleRefund, type Refund } from '../db/refunds.ts';
import { cancelSubscription } from '../db/subscriptions.ts';
import { findUserById } from '../db/users.ts';
import {
  plainRefundRefusal,
  refundCheckDelaySeconds,
  refundFinal,
  refundFollowUp,
} from '../domain/refund.ts';
import { refundMail } from '../emails/payments.ts';
import type { Logger } from '../observability/log.ts';
import { PayUError, type PayUClient } from '../providers/payu.ts';
import { sendJob, type Boss } from '../queue.ts';
import { stopAutoRenewOfRefundedPlan } from './autopay.ts';
import { issueCreditNote } from './creditNotes.ts';

/**
 * A refund row taken towards its end at PayU. Guard → side effect with a key → record: a
 * `requested` refund goes to PayU's cancel_refund_transaction with its token (fixed when the
 * row was written), so a retry after a crash or a lost answer is refused by PayU as a repeat
 * instead of refunding twice; an `accepted` one is followed with check_action_status on PayU's
 * request id until PayU says SUCCESS or FAILURE (`refundFollowUp`, core/domain/refund.ts).
 */

type RefundContext = { db: Db; boss: Boss; config: Config };

export async function sendRefund(
  deps: RefundContext,
  payu: PayUClient,
  refund: Refund,
  payment: Payment,
  log: Logger,
): Promise<void> {
  if (!payment.mihpayid) {
    await fail(deps, refund, payment, null, 'the payment has no PayU id (mihpayid) to refund', log);
    return;
  }
  let answer;
  try {
    // Outside any transaction; the token makes a repeat of this call harmless at PayU.
    answer = await payu.refund({
      mihpayid: payment.mihpayid,
      refundToken: refund.token,
      amountPaise: refund.amount_paise,
    });
  } catch (error) {
    if (error instanceof PayUError && !error.retryable) {
      await fail(deps, refund, payment, null, error.message, log);
      return;
    }
    throw error; // PayU unreachable: retried with backoff, the same token each time.
  }
  if (answer.accepted || answer.duplicateToken) {
    const note = answer.accepted
      ? `PayU queued the refund (request ${answer.requestId ?? '?'})`
      : 'PayU already had this token: an earlier attempt went through';
    const customer = await findUserById(deps.db, payment.user_id);
    const settled = await deps.db.transaction(async (trx) => {
      const row = await settleRefund(trx, refund.id, {
        status: 'accepted',
        requestId: answer.requestId,
        errorCode: answer.errorCode,
        message: note,
      });
      if (!row) return null;
      // The plan ends with its refund, and AutoPay renewing it with it; a payment that never
      // activated anything has no plan to end.
      if (payment.problem === null) {
        const now = new Date();
        await cancelSubscription(trx, payment.subscription_id, now);
        await stopAutoRenewOfRefundedPlan(trx, deps.boss, deps.config, {
          userId: payment.user_id,
          subscriptionId: payment.subscription_id,
          now,
        });
      }
      if (customer) {
        await mailRefund(deps, trx, customer, row, payment, 'accepted');
      }
      if (row.payu_request_id) {
        await scheduleFollowUp(deps, row, trx);
      } else {
        // Without PayU's request id there is nothing to follow: a person confirms it in PayU's dashboard.
        await raiseAlert(trx, {
          kind: 'refund-failed',
          dedupeKey: `refund-unconfirmed:${row.id}`,
          message: `Refund ${row.token} of ${payment.txnid} was accepted earlier but PayU's request id is unknown: confirm it in PayU's dashboard.`,
          details: { txnid: payment.txnid, refundId: row.id },
        });
      }
      return row;
    });
    log.info(
      { txnid: payment.txnid, requestId: settled?.payu_request_id ?? null },
      `payment-refund: ${note}`,
    );
    return;
  }
  await fail(
    deps,
    refund,
    payment,
    answer.errorCode,
    answer.message || `PayU error ${answer.errorCode ?? '?'}`,
    log,
  );
}

export async function followRefund(
  deps: RefundContext,
  payu: PayUClient,
  refund: Refund,
  payment: Payment,
  log: Logger,
): Promise<void> {
  if (!refund.payu_request_id) return;
  const status = await payu.refundStatus(refund.payu_request_id);
  const final = refundFinal(status.progress);
  const customer = await findUserById(deps.db, payment.user_id);
  await deps.db.transaction(async (trx) => {
    const row = await recordRefundStatus(trx, refund.id, { payuStatus: status.payuStatus, final });
    if (!row) return;
    const next = refundFollowUp(status.progress, row.status_checks, deps.config.refundStatusPollSeconds);
    if (next.kind === 'refunded') {
      // The refund reduced an invoiced supply: its credit note is issued with it, once (the
      // conditional status change above lets one transaction through; the note is keyed on the refund).
      const invoice = await findInvoiceByPayment(trx, payment.id);
      const creditNote = invoice
        ? await issueCreditNote(trx, { refund: row, invoice, now: new Date() })
        : null;
      if (customer) await mailRefund(deps, trx, customer, row, payment, 'refunded', creditNote);
    } else if (next.kind === 'failed') {
      await alertFailed(trx, row, payment, `PayU reports the refund ${status.payuStatus}`);
      if (customer) {
        await mailRefund(deps, trx, customer, row, payment, 'failed', null, plainRefundRefusal(null));
      }
    } else if (next.kind === 'stalled') {
      await raiseAlert(trx, {
        kind: 'refund-failed',
        dedupeKey: `refund-stalled:${row.id}`,
        message: `Refund ${row.token} of ${payment.txnid} is still ${status.payuStatus} at PayU after ${row.status_checks} checks: follow it up with PayU.`,
        details: { txnid: payment.txnid, refundId: row.id, requestId: row.payu_request_id },
      });
    } else {
      await scheduleFollowUp(deps, row, trx);
    }
  });
  log.info({ txnid: payment.txnid, payuStatus: status.payuStatus, final }, 'payment-refund: status checked');
}

/** The next check_action_status, as `refundCheckDelaySeconds` spaces them. */
async function scheduleFollowUp(deps: RefundContext, refund: Refund, trx: Db) {
  const seconds = refundCheckDelaySeconds(refund.status_checks, deps.config.refundStatusPollSeconds);
  await sendJob(
    deps.boss,
    'payment-refund',
    { refundId: refund.id },
    {
      db: trx,
      startAfter: new Date(Date.now() + seconds * 1000),
      singletonKey: `refund-follow-${refund.id}-${refund.status_checks}`,
    },
  );
}

async function fail(
  deps: RefundContext,
  refund: Refund,
  payment: Payment,
  errorCode: number | null,
  message: string,
  log: Logger,
): Promise<void> {
  const customer = await findUserById(deps.db, payment.user_id);
  await deps.db.transaction(async (trx) => {
    const row = await settleRefund(trx, refund.id, { status: 'failed', requestId: null, errorCode, message });
    if (!row) return;
    await alertFailed(trx, row, payment, message);
    // The customer hears it from us, with the reason; their history shows it and does not offer
    // the refund again until an operator has resolved the alert.
    if (customer)
      await mailRefund(deps, trx, customer, row, payment, 'refused', null, plainRefundRefusal(errorCode));
  });
  log.error({ txnid: payment.txnid, errorCode, message }, 'payment-refund: PayU refused the refund');
}

async function alertFailed(db: Db, refund: Refund, payment: Payment, why: string) {
  await raiseAlert(db, {
    kind: 'refund-failed',
    dedupeKey: refundFailedAlertKey(refund.id),
    message: `Refund ${refund.token} of ${payment.txnid} (${refund.amount_paise} paise, ${refund.source}) failed: ${why}. The customer was mailed. Issue it again with npm run refund once the cause is fixed; resolving this alert lets the customer ask for it again from their history.`,
    details: { txnid: payment.txnid, refundId: refund.id, source: refund.source },
  });
}

async function mailRefund(
  deps: RefundContext,
  trx: Db,
  customer: { name: string; email: string },
  refund: Refund,
  payment: Payment,
  kind: Parameters<typeof refundMail>[3],
  creditNote: Parameters<typeof refundMail>[5] = null,
  reason: string | null = null,
): Promise<void> {
  await sendJob(
    deps.boss,
    'email-send',
    refundMail(customer, refund, payment.txnid, kind, deps.config.publicUrl, creditNote, reason),
    { db: trx },
  );
}
