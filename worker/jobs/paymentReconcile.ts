import { checkAgainSoon, claimDueChecks } from '../../core/commands/paymentChecks.ts';
import { RECONCILE_BATCH_SIZE } from '../../core/domain/payments.ts';
import { applyVerification } from '../../core/commands/paymentSettlement.ts';
import { redriveStalledRefunds, startDueAutoRefunds } from '../../core/commands/refundSweep.ts';
import { createPayUClient, type PayUClient } from '../../core/providers/payu.ts';
import { createPayUSiClient, type PayUSiClient } from '../../core/providers/payuSi.ts';
import { siDebitPaymentIds, verifySiDebit } from '../../core/commands/autopayVerify.ts';
import type { WorkerDeps } from '../deps.ts';
import { sweepJob } from '../job.ts';

/**
 * `payment-reconcile` (cron, every minute): the callback and the webhook are hints; this sweep
 * is what makes a lost one cost minutes, not money. It claims every open payment due on its
 * backoff schedule (core/domain/payments.ts), asks PayU about them in batches of
 * `RECONCILE_BATCH_SIZE` txnids per verify_payment call, and hands each answer to the same
 * `applyVerification` the callbacks' jobs use. Then it starts the automatic refunds of
 * paid-but-not-activated payments that fell due, unless an operator resolved their alert.
 */
export function paymentReconcile(deps: WorkerDeps, payu: PayUClient = createPayUClient(deps.config.payu)) {
  return sweepJob('payment-reconcile', () => reconcilePayments(deps, payu, new Date()));
}

export type ReconcileResult = {
  checked: number;
  calls: number;
  outcomes: Record<string, number>;
  refundsStarted: number;
  /** Open refunds whose job was lost, sent again (with an alert). */
  refundsRedriven: number;
};

/** One sweep at `now` (the bench and tests pass a moved clock; the cron passes the real one). */
export async function reconcilePayments(
  deps: WorkerDeps,
  payu: PayUClient,
  now: Date,
  si: PayUSiClient = createPayUSiClient(deps.config.payu),
): Promise<ReconcileResult> {
  const log = deps.log.child({ job: 'payment-reconcile' });
  const claimed = await claimDueChecks(deps.db, now);
  const result: ReconcileResult = {
    checked: 0,
    calls: 0,
    outcomes: {},
    refundsStarted: 0,
    refundsRedriven: 0,
  };
  const failures: Error[] = [];
  const soon = new Date(now.getTime() + 60_000);
  // AutoPay debits are asked about one by one with verify_si_payment; checkouts in batches.
  const siDebits = await siDebitPaymentIds(
    deps.db,
    claimed.map((p) => p.id),
  );
  for (const payment of claimed.filter((p) => siDebits.has(p.id))) {
    let answer;
    try {
      result.calls++;
      answer = await verifySiDebit(deps, payment, si);
    } catch (error) {
      await checkAgainSoon(deps.db, [payment.id], soon);
      log.error(
        { err: error, txnid: payment.txnid },
        'payment-reconcile: verify_si_payment failed; checking again soon',
      );
      failures.push(error as Error);
      continue;
    }
    const outcome = await applyVerification(deps, payment, answer, log.child({ txnid: payment.txnid }));
    result.checked++;
    result.outcomes[outcome] = (result.outcomes[outcome] ?? 0) + 1;
  }
  const checkouts = claimed.filter((p) => !siDebits.has(p.id));
  for (let i = 0; i < checkouts.length; i += RECONCILE_BATCH_SIZE) {
    const batch = checkouts.slice(i, i + RECONCILE_BATCH_SIZE);
    let answers;
    try {
      result.calls++;
      // Outside any transaction; one call for the whole batch.
      answers = await payu.verifyPayments(batch.map((p) => p.txnid));
    } catch (error) {
      // PayU unreachable: these are asked again within a minute rather than at their next step.
      await checkAgainSoon(
        deps.db,
        batch.map((p) => p.id),
        soon,
      );
      log.error(
        { err: error, count: batch.length },
        'payment-reconcile: verify_payment failed; checking again soon',
      );
      failures.push(error as Error);
      continue;
    }
    for (const [index, payment] of batch.entries()) {
      const answer = answers[index];
      if (!answer) continue;
      const outcome = await applyVerification(deps, payment, answer, log.child({ txnid: payment.txnid }));
      result.checked++;
      result.outcomes[outcome] = (result.outcomes[outcome] ?? 0) + 1;
    }
  }
  result.refundsStarted = await startDueAutoRefunds(deps, now, log);
  result.refundsRedriven = await redriveStalledRefunds(deps, log);
  if (result.checked > 0 || result.refundsStarted > 0 || result.refundsRedriven > 0) {
    log.info(result, 'payment-reconcile: sweep done');
  }
  // Failing the job records the outage (retried once, then the dead letter) after the rest was done.
  if (failures.length > 0)
    throw new Error(`verify_payment failed for ${failures.length} batch(es): ${failures[0]?.message}`);
  return result;
}
