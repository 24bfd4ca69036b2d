import { raiseAlert } from '../../core/db/operatorAlerts.ts';
import { findPaymentById, type Payment } from '../../core/db/payments.ts';
import { findInvoiceByPayment } from '../../core/db/invoices.ts';
import { issueCreditNote } from '../../core/commands/creditNotes.ts';
import type { Db } from '../../core/db/pool.ts';
import { findRefund, recordRefundStatus, settleRefund, type Refund } from '../../core/db/refunds.ts';
import { cancelSubscription } from '../../core/db/subscriptions.ts';
import { findUserById } from '../../core/db/users.ts';
import { refundMail } from '../../core/emails/payments.ts';
import { createPayUClient, PayUError, type PayUClient } from '../../core/providers/payu.ts';
import { parsePayload, sendJob, type Job } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';

/**
 * `payment-refund`: one refund row, taken to its end. Guard → side effect with a key → record:
 * a `requested` refund goes to PayU's cancel_refund_transaction with its token (≤ 23
 * characters, fixed when the row was written), so a retry after a crash or a lost answer is
 * refused by PayU as a repeat (106) instead of refunding twice; an `accepted` one is followed
 * with check_action_status on PayU's request id, the job sending itself again later, until
 * PayU says SUCCESS or FAILURE. Refunded and failed refunds are final: a replay does nothing.
 */
export function paymentRefund(deps: WorkerDeps, payu: PayUClient = createPayUClient(deps.config.payu)) {
  return async (jobs: Job<unknown>[]) => {
    for (const job of jobs) {
      const { refundId } = parsePayload('payment-refund', job.data);
      await handleRefund(deps, payu, refundId);
    }
  };
}

/** Status checks before a refund PayU keeps "in progress" is handed to the operator (about 10 days). */
const MAX_STATUS_CHECKS = 45;
const MAX_FOLLOW_SECONDS = 6 * 3600;

export async function handleRefund(deps: WorkerDeps, payu: PayUClient, refundId: string): Promise<void> {
  const log = deps.log.child({ job: 'payment-refund', refundId });
  const refund = await findRefund(deps.db, refundId);
  if (!refund) {
    log.warn('payment-refund: no such refund; nothing to do');
    return;
  }
  const payment = await findPaymentById(deps.db, refund.payment_id);
  if (!payment) throw new Error(`refund ${refundId} names a payment that does not exist`);
  if (refund.status === 'requested') return send(deps, payu, refund, payment, log);
  if (refund.status === 'accepted') return follow(deps, payu, refund, payment, log);
  log.debug({ status: refund.status }, 'payment-refund: already final');
}

async function send(
  deps: WorkerDeps,
  payu: PayUClient,
  refund: Refund,
  payment: Payment,
  log: WorkerDeps['log'],
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
      // The plan ends with its refund; a payment that never activated anything has no plan to end.
      if (payment.problem === null) await cancelSubscription(trx, payment.subscription_id, new Date());
      if (customer) {
        await sendJob(
          deps.boss,
          'email-send',
          refundMail(customer, row, payment.txnid, 'accepted', deps.config.publicUrl),
          {
            db: trx,
          },
        );
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

async function follow(
  deps: WorkerDeps,
  payu: PayUClient,
  refund: Refund,
  payment: Payment,
  log: WorkerDeps['log'],
): Promise<void> {
  if (!refund.payu_request_id) return;
  const status = await payu.refundStatus(refund.payu_request_id);
  const final = status.progress === 'success' ? 'refunded' : status.progress === 'failure' ? 'failed' : null;
  const customer = await findUserById(deps.db, payment.user_id);
  await deps.db.transaction(async (trx) => {
    const row = await recordRefundStatus(trx, refund.id, { payuStatus: status.payuStatus, final });
    if (!row) return;
    if (final === 'refunded') {
      // The refund reduced an invoiced supply: its credit note is issued with it, once (the
      // conditional status change above lets one transaction through; the note is keyed on the refund).
      const invoice = await findInvoiceByPayment(trx, payment.id);
      const creditNote = invoice
        ? await issueCreditNote(trx, { refund: row, invoice, now: new Date() })
        : null;
      if (customer) {
        await sendJob(
          deps.boss,
          'email-send',
          refundMail(customer, row, payment.txnid, 'refunded', deps.config.publicUrl, creditNote),
          { db: trx },
        );
      }
    } else if (final === 'failed') {
      await alertFailed(trx, row, payment, `PayU reports the refund ${status.payuStatus}`);
      if (customer) {
        await sendJob(
          deps.boss,
          'email-send',
          refundMail(customer, row, payment.txnid, 'failed', deps.config.publicUrl),
          {
            db: trx,
          },
        );
      }
    } else if (row.status_checks >= MAX_STATUS_CHECKS) {
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

/** The next check_action_status: the configured first delay, doubling, at most six hours apart. */
async function scheduleFollowUp(deps: WorkerDeps, refund: Refund, trx: Db) {
  const seconds = Math.min(
    deps.config.refundStatusPollSeconds * 2 ** refund.status_checks,
    MAX_FOLLOW_SECONDS,
  );
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
  deps: WorkerDeps,
  refund: Refund,
  payment: Payment,
  errorCode: number | null,
  message: string,
  log: WorkerDeps['log'],
): Promise<void> {
  await deps.db.transaction(async (trx) => {
    const row = await settleRefund(trx, refund.id, { status: 'failed', requestId: null, errorCode, message });
    if (row) await alertFailed(trx, row, payment, message);
  });
  log.error({ txnid: payment.txnid, errorCode, message }, 'payment-refund: PayU refused the refund');
}

async function alertFailed(db: Db, refund: Refund, payment: Payment, why: string) {
  await raiseAlert(db, {
    kind: 'refund-failed',
    dedupeKey: `refund-failed:${refund.id}`,
    message: `Refund ${refund.token} of ${payment.txnid} (${refund.amount_paise} paise, ${refund.source}) failed: ${why}. Issue it again with npm run refund once the cause is fixed.`,
    details: { txnid: payment.txnid, refundId: refund.id, source: refund.source },
  });
}
