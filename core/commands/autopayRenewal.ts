import type { Config } from '../config/config.ts';
import {
  claimDebit,
  findMandate,
  finishAttempt,
  insertDebit,
  insertRenewal,
  leaseRenewal,
  listDebitsSettled,
  listDebitsUnanswered,
  listMandatesDue,
  listRenewalsDueDebit,
  listRenewalsNoticing,
  listRevokesOpen,
  markMandateRevoked,
  markMandateRevokedOutside,
  markNoticed,
  markNoticeNotAccepted,
  moveRenewal,
  recordDebitAnswer,
  setMandateSchedule,
  setRenewalAttempt,
  touchMandate,
  type Mandate,
  type Renewal,
} from '../db/autopay.ts';
import { raiseAlert } from '../db/operatorAlerts.ts';
import { findPaymentById, findPaymentByTxnid, insertPayment, settlePayment } from '../db/payments.ts';
import type { DatabasePool, Db } from '../db/pool.ts';
import { findSubscription } from '../db/subscriptions.ts';
import { findUserById } from '../db/users.ts';
import {
  AUTOPAY_BATCH,
  AUTOPAY_LEASE_MS,
  AUTOPAY_MESSAGES,
  AUTOPAY_NOTICE_EARLY_MS,
  AUTOPAY_NOTICE_RETRY_MS,
  AUTOPAY_REDRIVE_AFTER_MS,
  type MandateReading,
  type RenewalState,
  indiaDateString,
  noticedDebitAt,
  readDebitAnswer,
  readMandateStatus,
  readPreDebitAnswer,
  readRevokeAnswer,
} from '../domain/autopay.ts';
import {
  debitDue,
  decideRenewal,
  mandateCheck,
  noticeOutcome,
  renewalToOpen,
  settledDebitOutcome,
} from '../domain/renewal.ts';
import { keptUntil } from '../domain/planTime.ts';
import { isOpenPayment, plainFailureReason } from '../domain/payments.ts';
import { autopayFailedMail, autopayNoticeMail, autopayStoppedMail } from '../emails/autopay.ts';
import type { Logger } from '../observability/log.ts';
import { formatAmount, newTxnId, PayUError } from '../providers/payu.ts';
import type { PayUSiClient } from '../providers/payuSi.ts';
import { sendJob, type Boss } from '../queue.ts';
import { pendingRenewal } from './autopay.ts';
import { verifySiDebit } from './autopayVerify.ts';

/**
 * The renewal run (the `autopay-renewal` sweep, every minute, or a test with a moved clock):
 *
 * 1. mandates whose next debit comes within the notice lead get their renewal row (one per plan
 *    renewed, whichever sweep makes it; a paused mandate's is recorded as skipped);
 * 2. notices: the mandate's state is checked at PayU, then pre_debit_SI, then the customer's mail;
 * 3. debits that fell due (never before the notice lead after PayU accepted the notice): the
 *    attempt is claimed, its payment row and txnid written, then si_transaction, and the payment
 *    handed to `payment-verify`, which follows verify_si_payment and, on success, renews the plan
 *    on the same machine with its invoice (worker/jobs/paymentVerify.ts, the one activation path);
 * 4. debits PayU never answered (a sweep died in the call) are sent again with the same txnid;
 * 5. settled debits that did not renew: the customer is told at once, and the debit is tried
 *    again per the retry rule, or not;
 * 6. revokes whose job was lost are sent again.
 *
 * What a renewal does next is core/domain/renewal.ts's (decideRenewal and the outcomes of PayU's
 * answers), PayU's answers are read by core/domain/autopay.ts; every step is a conditional
 * transition, and PayU is never called inside a database transaction.
 */

export type RenewalDeps = { db: DatabasePool; boss: Boss; config: Config; log: Logger };

export type RenewalReport = {
  renewalsOpened: number;
  skipped: number;
  notices: number;
  debits: number;
  redriven: number;
  retrying: number;
  failed: number;
  revokesResent: number;
  problems: number;
};

const MINUTE_MS = 60_000;

export async function runAutopayRenewal(
  deps: RenewalDeps,
  si: PayUSiClient,
  now: Date,
): Promise<RenewalReport> {
  const report: RenewalReport = {
    renewalsOpened: 0,
    skipped: 0,
    notices: 0,
    debits: 0,
    redriven: 0,
    retrying: 0,
    failed: 0,
    revokesResent: 0,
    problems: 0,
  };
  // One step failing (PayU down, a row that cannot be read) does not hold up the others; the run
  // then fails, so the outage is recorded on the job and retried.
  const failures: Error[] = [];
  const steps: Array<[string, () => Promise<void>]> = [
    ['renewals', () => openRenewals(deps, now, report)],
    ['notices', () => sendNotices(deps, si, now, report)],
    ['debits', () => sendDebits(deps, si, now, report)],
    ['resends', () => redriveDebits(deps, si, now, report)],
    ['outcomes', () => settleDebits(deps, now, report)],
    ['revokes', () => resendRevokes(deps, now, report)],
  ];
  for (const [name, step] of steps) {
    try {
      await step();
    } catch (error) {
      deps.log.error({ err: error, step: name }, 'autopay-renewal: a step failed');
      failures.push(error as Error);
    }
  }
  if (Object.values(report).some((n) => n > 0)) deps.log.info(report, 'autopay-renewal: sweep done');
  if (failures.length > 0)
    throw new Error(`autopay-renewal: ${failures.length} step(s) failed: ${failures[0]?.message}`);
  return report;
}

/** Holds a renewal in one of `states` for this sweep while it talks to PayU (AUTOPAY_LEASE_MS). */
function hold(db: Db, id: string, states: readonly RenewalState[], now: Date) {
  return leaseRenewal(db, id, states, now, new Date(now.getTime() + AUTOPAY_LEASE_MS));
}

/** Records something PayU answered that we cannot read (never success), for a person to look at. */
async function alertUnreadable(db: Db, key: string, message: string, details: Record<string, unknown>) {
  await raiseAlert(db, { kind: 'autopay-problem', dedupeKey: key, message, details });
}

/** A renewal row as `decideRenewal` reads it. */
function renewalFacts(renewal: Renewal) {
  return {
    state: renewal.state,
    renewalAt: renewal.renewal_at,
    debitAt: renewal.debit_at,
    noticeSentAt: renewal.notice_sent_at,
    problem: renewal.problem,
  };
}

// ---------------------------------------------------------------------------------------
// 1. Renewals that fall due

async function openRenewals(deps: RenewalDeps, now: Date, report: RenewalReport): Promise<void> {
  const { db, config } = deps;
  // Mandates whose debit is due within the notice lead (and its early margin) of now.
  const cutoff = new Date(now.getTime() + config.autopay.noticeMinutes * MINUTE_MS + AUTOPAY_NOTICE_EARLY_MS);
  const open = async (mandate: Mandate, status: 'active' | 'paused') => {
    const renewed = mandate.current_subscription_id
      ? await findSubscription(db, mandate.current_subscription_id)
      : null;
    const due = renewalToOpen({
      mandateStatus: status,
      method: mandate.method,
      plan: renewed && { status: renewed.status, expiresAt: renewed.expires_at },
      noticeMinutes: config.autopay.noticeMinutes,
      now,
    });
    switch (due.kind) {
      case 'nothing-to-renew':
        // Refunded, or ended unrenewed: the next plan bought is followed.
        await setMandateSchedule(db, mandate.id, { nextDebitAt: null });
        return;
      case 'not-yet':
        return;
      case 'open':
        break;
    }
    // 'open' is only answered for a plan read above; this narrows the type.
    if (!renewed) return;
    const { state } = due;
    const made = await insertRenewal(db, {
      mandateId: mandate.id,
      userId: mandate.user_id,
      renewsSubscriptionId: renewed.id,
      periodKey: due.periodKey,
      renewalAt: due.renewalAt,
      debitAt: due.debitAt,
      amountPaise: mandate.amount_paise,
      state,
      // PayU's request id for this period's notice (≤ 40 characters): the plan renewed, which is
      // the period's identity (a sweep repeating it repeats the same request).
      requestId: `pdn${renewed.id.replaceAll('-', '')}`,
    });
    if (made && state === 'noticing') report.renewalsOpened++;
    if (made && state === 'skipped') report.skipped++;
  };
  for (const mandate of await listMandatesDue(db, 'active', cutoff, AUTOPAY_BATCH))
    await open(mandate, 'active');
  for (const mandate of await listMandatesDue(db, 'paused', cutoff, AUTOPAY_BATCH))
    await open(mandate, 'paused');
}

// ---------------------------------------------------------------------------------------
// 2. Notices

/**
 * Asks PayU whether the mandate is still active (the customer may have revoked or paused it in
 * their UPI app or bank). 'go' when it is; otherwise the renewal has been moved on.
 */
async function mandateStillActive(
  deps: RenewalDeps,
  si: PayUSiClient,
  mandate: Mandate,
  renewal: Renewal,
  report: RenewalReport,
): Promise<'go' | 'stopped' | 'later'> {
  const { db } = deps;
  let body: unknown = null;
  let reading: MandateReading | 'unreachable' = 'unreachable';
  // Without its method and PayU's id there is nothing to ask about yet.
  if (mandate.method && mandate.authpayuid) {
    try {
      body = await si.mandateStatus(mandate.method, {
        authpayuid: mandate.authpayuid,
        requestId: `st${Date.now().toString(36)}${renewal.id.replaceAll('-', '').slice(0, 16)}`,
      });
      reading = readMandateStatus(body);
    } catch (error) {
      deps.log.warn({ err: error, renewalId: renewal.id }, 'autopay: mandate status unreachable; later');
    }
  }
  const check = mandateCheck(reading);
  switch (check.kind) {
    case 'go':
      return 'go';
    case 'later':
      if (check.alert) {
        report.problems++;
        await alertUnreadable(
          db,
          `autopay-mandate-status:${mandate.id}`,
          `PayU's mandate status for ${mandate.authpayuid} cannot be read; renewal ${renewal.period_key} waits.`,
          { mandateId: mandate.id, answer: body as never },
        );
      }
      return 'later';
    case 'paused':
      await moveRenewal(db, renewal.id, ['noticing', 'noticed', 'retrying'], 'skipped');
      report.skipped++;
      return 'stopped';
    case 'revoked':
      break;
  }
  // Revoked from the UPI app or the bank (or PayU no longer knows it): nothing can be debited.
  await db.transaction(async (trx) => {
    if (!(await markMandateRevokedOutside(trx, mandate.id, AUTOPAY_MESSAGES.revokedOutside))) return;
    await moveRenewal(trx, renewal.id, ['noticing', 'noticed', 'retrying'], 'cancelled');
    const customer = await findUserById(trx, mandate.user_id);
    if (customer) {
      await sendJob(
        deps.boss,
        'email-send',
        autopayStoppedMail(customer, AUTOPAY_MESSAGES.revokedOutside, deps.config.publicUrl),
        { db: trx },
      );
    }
  });
  return 'stopped';
}

async function sendNotices(
  deps: RenewalDeps,
  si: PayUSiClient,
  now: Date,
  report: RenewalReport,
): Promise<void> {
  const { db, config } = deps;
  for (const candidate of await listRenewalsNoticing(db, now, AUTOPAY_BATCH)) {
    const renewal = await hold(db, candidate.id, ['noticing'], now);
    if (!renewal) continue;
    const mandate = await findMandate(db, renewal.mandate_id);
    const step = decideRenewal({
      renewal: renewalFacts(renewal),
      mandate: mandate && { status: mandate.status, registered: Boolean(mandate.authpayuid) },
      plan: null,
      noticeMinutes: config.autopay.noticeMinutes,
      now,
    });
    if (step.kind === 'move') {
      await moveRenewal(db, renewal.id, ['noticing'], step.to);
      continue;
    }
    // The plan ended without a notice PayU accepted: no debit may go for it.
    if (step.kind === 'fail-without-debit' && mandate) {
      await failWithoutDebit(deps, renewal, mandate, step.reason, now);
      report.failed++;
      continue;
    }
    if (step.kind !== 'send-notice' || !mandate?.authpayuid) continue;
    if ((await mandateStillActive(deps, si, mandate, renewal, report)) !== 'go') continue;

    const debitAt = noticedDebitAt(renewal.debit_at, now, config.autopay.noticeMinutes);
    const retryLater = new Date(now.getTime() + AUTOPAY_NOTICE_RETRY_MS);
    let body: unknown;
    try {
      body = await si.preDebit({
        authpayuid: mandate.authpayuid,
        requestId: renewal.request_id,
        debitDate: indiaDateString(debitAt),
        amountPaise: renewal.amount_paise,
      });
    } catch (error) {
      await markNoticeNotAccepted(db, renewal.id, {
        retryAt: retryLater,
        answer: { error: (error as Error).message },
        problem: `pre_debit_SI: ${(error as Error).message}`,
      });
      deps.log.warn(
        { err: error, renewalId: renewal.id },
        'autopay: pre_debit_SI failed; asking again later',
      );
      continue;
    }
    const outcome = noticeOutcome(readPreDebitAnswer(body), renewal.notice_attempts);
    if (outcome.kind === 'not-accepted') {
      const { problem } = outcome;
      await markNoticeNotAccepted(db, renewal.id, { retryAt: retryLater, answer: body, problem });
      if (outcome.alert) {
        report.problems++;
        await alertUnreadable(
          db,
          `autopay-notice:${renewal.id}`,
          `Renewal ${renewal.period_key} of mandate ${mandate.authpayuid}: ${problem}.`,
          {
            renewalId: renewal.id,
            answer: body,
          },
        );
      }
      continue;
    }
    await db.transaction(async (trx) => {
      const noticed = await markNoticed(trx, renewal.id, { at: now, debitAt, answer: body });
      if (!noticed) return;
      await setMandateSchedule(trx, mandate.id, { nextDebitAt: debitAt });
      const customer = await findUserById(trx, mandate.user_id);
      if (customer) {
        await sendJob(
          deps.boss,
          'email-send',
          autopayNoticeMail(
            customer,
            {
              planName: mandate.plan_name,
              hours: mandate.hours,
              amountPaise: renewal.amount_paise,
              debitAt,
              method: mandate.method,
            },
            config.invoice.legalName,
            config.publicUrl,
          ),
          { db: trx },
        );
      }
      report.notices++;
    });
  }
}

// ---------------------------------------------------------------------------------------
// 3–4. Debits

async function sendDebits(
  deps: RenewalDeps,
  si: PayUSiClient,
  now: Date,
  report: RenewalReport,
): Promise<void> {
  const { db, config } = deps;
  for (const due of await listRenewalsDueDebit(db, now, AUTOPAY_BATCH)) {
    // Checked before the hold: holding one not due yet would put it off by the lease.
    if (!debitDue(renewalFacts(due), config.autopay.noticeMinutes, now)) continue;
    const renewal = await hold(db, due.id, ['noticed', 'retrying'], now);
    if (!renewal) continue;
    const renewed = await findSubscription(db, renewal.renews_subscription_id);
    const mandate = await findMandate(db, renewal.mandate_id);
    const step = decideRenewal({
      renewal: renewalFacts(renewal),
      mandate: mandate && { status: mandate.status, registered: Boolean(mandate.authpayuid) },
      plan: renewed && { status: renewed.status },
      noticeMinutes: config.autopay.noticeMinutes,
      now,
    });
    if (step.kind === 'move') {
      await moveRenewal(db, renewal.id, ['noticed', 'retrying'], step.to);
      continue;
    }
    if (step.kind !== 'debit' || !mandate) continue;
    if ((await mandateStillActive(deps, si, mandate, renewal, report)) !== 'go') continue;

    const attempt = await db.transaction(async (trx) => {
      const claimed = await claimDebit(trx, renewal.id);
      if (!claimed) return null;
      const subscriptionId = claimed.subscription_id ?? (await pendingRenewal(trx, mandate, claimed)).id;
      // The attempt's txnid is written before PayU hears of it: the idempotency key of this debit.
      const payment = await insertPayment(
        trx,
        {
          txnid: newTxnId(),
          userId: mandate.user_id,
          subscriptionId,
          amountPaise: claimed.amount_paise,
          amount: formatAmount(claimed.amount_paise),
          productinfo: `Legend Cloud ${mandate.plan_name}, ${mandate.hours} hours, one month (AutoPay renewal)`,
        },
        now,
      );
      await insertDebit(trx, { paymentId: payment.id, renewalId: claimed.id, attempt: claimed.attempts });
      await setRenewalAttempt(trx, claimed.id, { subscriptionId, paymentId: payment.id });
      return { renewal: claimed, payment };
    });
    if (!attempt) continue;
    report.debits++;
    await debit(deps, si, mandate, attempt.renewal, attempt.payment.txnid, report);
  }
}

/** si_transaction for one attempt (a first send or a resend of the same txnid), then the verification. */
async function debit(
  deps: RenewalDeps,
  si: PayUSiClient,
  mandate: Mandate,
  renewal: Renewal,
  txnid: string,
  report: RenewalReport,
): Promise<void> {
  const { db } = deps;
  const customer = await findUserById(db, mandate.user_id);
  if (!mandate.authpayuid || !customer) return;
  let body: unknown;
  try {
    body = await si.debit({
      authpayuid: mandate.authpayuid,
      txnid,
      amountPaise: renewal.amount_paise,
      email: customer.email,
      phone: customer.phone ?? '',
      firstname: customer.name.replaceAll('|', ' ').slice(0, 60) || 'Customer',
    });
  } catch (error) {
    // No answer: the payment stays open; the resend (same txnid) and the reconciliation find out.
    deps.log.warn({ err: error, txnid }, 'autopay: si_transaction failed; sent again later');
    return;
  }
  const reading = readDebitAnswer(body, txnid);
  await recordDebitAnswer(
    db,
    renewal.id,
    body,
    reading.kind === 'unknown'
      ? 'PayU answered the debit unreadably'
      : reading.kind === 'refused'
        ? reading.message
        : null,
  );
  if (reading.kind === 'unknown') {
    report.problems++;
    await alertUnreadable(
      db,
      `autopay-debit:${txnid}`,
      `si_transaction for ${txnid} answered something we cannot read; verify_si_payment decides.`,
      {
        txnid,
        answer: body,
      },
    );
  }
  if (reading.kind === 'refused') {
    // Refused outright (mandate inactive, no notice…) unless PayU does know the txnid (a resend).
    let known: boolean;
    try {
      known = (await verifySiDebit(deps, { txnid })).found;
    } catch (error) {
      deps.log.warn({ err: error, txnid }, 'autopay: verify after a refusal failed; the reconciliation asks');
      return;
    }
    if (!known) {
      await settlePayment(db, txnid, 'failure', {
        mihpayid: null,
        answer: body,
        at: new Date(),
        failureReason: reading.message,
      });
      return;
    }
  }
  // The verification (verify_si_payment) settles it; one job per txnid however often asked.
  await sendJob(deps.boss, 'payment-verify', { txnid, source: 'autopay' }, { singletonKey: txnid });
}

async function redriveDebits(
  deps: RenewalDeps,
  si: PayUSiClient,
  now: Date,
  report: RenewalReport,
): Promise<void> {
  const { db } = deps;
  const before = new Date(now.getTime() - AUTOPAY_REDRIVE_AFTER_MS);
  for (const stuck of await listDebitsUnanswered(db, before, now, AUTOPAY_BATCH)) {
    const renewal = await hold(db, stuck.id, ['debiting'], now);
    if (!renewal?.payment_id) continue;
    const payment = await findPaymentById(db, renewal.payment_id);
    const mandate = await findMandate(db, renewal.mandate_id);
    if (!payment || !mandate || !isOpenPayment(payment.status)) continue;
    report.redriven++;
    await debit(deps, si, mandate, renewal, payment.txnid, report);
  }
}

// ---------------------------------------------------------------------------------------
// 5. Outcomes

/**
 * After a renewal's debit failed (or can no longer go): the next debit (a retry, or none) on the
 * mandate, and the customer told at once, in the caller's transaction.
 */
async function tellFailure(
  trx: Db,
  deps: RenewalDeps,
  mandate: Mandate,
  failure: { amountPaise: number; reason: string | null; retryAt: Date | null; planEndsAt: Date; now: Date },
) {
  await setMandateSchedule(trx, mandate.id, { nextDebitAt: failure.retryAt });
  const customer = await findUserById(trx, mandate.user_id);
  if (!customer) return;
  await sendJob(
    deps.boss,
    'email-send',
    autopayFailedMail(
      customer,
      { ...failure, planName: mandate.plan_name, reason: plainFailureReason(failure.reason) },
      deps.config.publicUrl,
    ),
    { db: trx },
  );
}

/** A renewal that cannot be debited any more: the customer hears at once; the plan ends as usual. */
async function failWithoutDebit(
  deps: RenewalDeps,
  renewal: Renewal,
  mandate: Mandate,
  reason: string,
  now: Date,
) {
  await deps.db.transaction(async (trx) => {
    if (!(await moveRenewal(trx, renewal.id, ['noticing'], 'failed'))) return;
    await tellFailure(trx, deps, mandate, {
      amountPaise: renewal.amount_paise,
      reason,
      retryAt: null,
      planEndsAt: renewal.renewal_at,
      now,
    });
  });
}

async function settleDebits(deps: RenewalDeps, now: Date, report: RenewalReport): Promise<void> {
  const { db, config } = deps;
  for (const settled of await listDebitsSettled(db, AUTOPAY_BATCH)) {
    const payment = await findPaymentByTxnid(db, settled.txnid);
    const mandate = await findMandate(db, settled.mandate_id);
    const renewed = await findSubscription(db, settled.renews_subscription_id);
    if (!payment || !mandate || !renewed) continue;
    const outcome = settledDebitOutcome({
      payment: { status: payment.status, problem: payment.problem, failureReason: payment.failure_reason },
      mandate: { status: mandate.status, method: mandate.method },
      attemptsDone: settled.attempts,
      keptUntil: keptUntil(
        {
          status: renewed.status,
          expiresAt: renewed.expires_at,
          hours: renewed.hours,
          cancelledAt: renewed.cancelled_at,
        },
        config.vm.graceDays,
      ),
      now,
    });
    if (outcome.kind === 'paid-not-activated') {
      // Paid, yet the activation refused it (another plan took over, the account was deleted):
      // that payment is already alerted and refunded automatically (paymentVerify.ts).
      await finishAttempt(db, settled.id, payment.id, 'failed', { problem: outcome.problem });
      report.failed++;
      continue;
    }
    const next = outcome.kind === 'retry' ? outcome.at : null;
    const { reason } = outcome;
    await db.transaction(async (trx) => {
      const moved = await finishAttempt(trx, settled.id, payment.id, next ? 'retrying' : 'failed', {
        nextAttemptAt: next,
        failureReason: reason ?? 'the bank declined the debit',
      });
      if (!moved) return;
      await tellFailure(trx, deps, mandate, {
        amountPaise: settled.amount_paise,
        reason,
        retryAt: next,
        planEndsAt: renewed.expires_at ?? settled.renewal_at,
        now,
      });
      if (next) report.retrying++;
      else report.failed++;
    });
  }
}

// ---------------------------------------------------------------------------------------
// 6. Revokes

async function resendRevokes(deps: RenewalDeps, now: Date, report: RenewalReport): Promise<void> {
  const { db, boss } = deps;
  for (const mandate of await listRevokesOpen(db, new Date(now.getTime() - 10 * MINUTE_MS), AUTOPAY_BATCH)) {
    await db.transaction(async (trx) => {
      await sendJob(boss, 'autopay-revoke', { mandateId: mandate.id }, { db: trx, singletonKey: mandate.id });
      await touchMandate(trx, mandate.id);
    });
    report.revokesResent++;
  }
}

/**
 * `autopay-revoke`: upi_mandate_revoke or mandate_revoke for a cancelled mandate. PayU's "not
 * active" counts as done (nothing left to revoke); a refusal or an unreadable answer throws so the
 * job retries (the unreadable one alerted).
 */
export async function revokeMandate(
  deps: RenewalDeps,
  si: PayUSiClient,
  mandateId: string,
): Promise<'revoked' | 'not-needed'> {
  const { db } = deps;
  const mandate = await findMandate(db, mandateId);
  if (!mandate || mandate.revoked_at || !mandate.revoke_requested_at) return 'not-needed';
  if (!mandate.authpayuid || !mandate.method) {
    await markMandateRevoked(db, mandate.id, { note: 'never registered at PayU' });
    return 'not-needed';
  }
  const body = await si.revoke(mandate.method, {
    authpayuid: mandate.authpayuid,
    requestId: `rv${Date.now().toString(36)}${mandate.id.replaceAll('-', '').slice(0, 16)}`,
  });
  const reading = readRevokeAnswer(body);
  if (reading === 'revoked' || reading === 'already-inactive') {
    await markMandateRevoked(db, mandate.id, body);
    return 'revoked';
  }
  if (reading === 'unknown') {
    await alertUnreadable(
      db,
      `autopay-revoke:${mandate.id}`,
      `PayU's answer to revoking mandate ${mandate.authpayuid} cannot be read; asking again.`,
      {
        mandateId: mandate.id,
        answer: body,
      },
    );
  }
  throw new PayUError(
    'rejected',
    `revoke of mandate ${mandate.authpayuid}: ${JSON.stringify(body).slice(0, 200)}`,
  );
}
