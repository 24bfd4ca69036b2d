import { checkPaymentBy, checkPaymentsAgainSoon, claimDuePayments, type Payment } from '../db/payments.ts';
import type { Db } from '../db/pool.ts';
import { nextCheckAt, RECONCILE_MAX_PER_RUN, reconcileCutoff } from '../domain/payments.ts';

/**
 * When PayU is asked about an open payment (core/domain/payments.ts's schedule): the sweep claims
 * what fell due, moving each to its next check as it does, and a payment PayU could not be asked
 * about (or has not decided yet) is asked again soon.
 */

/** The open payments due by the sweep run at `now`, each moved on to its next check. */
export async function claimDueChecks(db: Db, now: Date): Promise<Payment[]> {
  return claimDuePayments(db, reconcileCutoff(now), RECONCILE_MAX_PER_RUN, (created, checks) =>
    nextCheckAt(created, checks, now),
  );
}

export async function checkAgainSoon(db: Db, paymentIds: string[], at: Date): Promise<void> {
  await checkPaymentsAgainSoon(db, paymentIds, at);
}

/** A callback arrived but PayU has not decided: the sweep asks again by `at`. */
export async function checkAgainBy(db: Db, txnid: string, at: Date): Promise<void> {
  await checkPaymentBy(db, txnid, at);
}
