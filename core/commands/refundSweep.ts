import { cancelAutoRefund, listAutoRefundsDue } from '../db/payments.ts';
import type { Db } from '../db/pool.ts';
import { isAlertResolved, raiseAlert } from '../db/operatorAlerts.ts';
import { listStalledRefunds, touchRefund } from '../db/refunds.ts';
import { REFUND_STALLED_MS } from '../domain/refund.ts';
import type { Logger } from '../observability/log.ts';
import { sendJob, type Boss } from '../queue.ts';
import { paidNotActivatedAlertKey } from './paymentSettlement.ts';
import { requestRefund } from './refunds.ts';

/** The reconciliation sweep's refund work: automatic refunds that fell due, and refunds whose job was lost. */

type SweepContext = { db: Db; boss: Boss };

/**
 * Refunds still open that nothing moved for REFUND_STALLED_MS: their payment-refund job died or ran
 * out of retries (PayU unreachable for hours). Each is sent again (the refund's token makes a
 * repeat harmless at PayU) and an operator hears of it; the row is touched so the next look waits.
 */
export async function redriveStalledRefunds(deps: SweepContext, log: Logger): Promise<number> {
  const stalled = await listStalledRefunds(deps.db);
  for (const refund of stalled) {
    await deps.db.transaction(async (trx) => {
      await sendJob(
        deps.boss,
        'payment-refund',
        { refundId: refund.id },
        { db: trx, singletonKey: `refund-redrive-${refund.id}`, singletonSeconds: 3600 },
      );
      await touchRefund(trx, refund.id);
      await raiseAlert(trx, {
        kind: 'refund-failed',
        dedupeKey: `refund-stalled:${refund.id}`,
        message: `Refund ${refund.token} (${refund.status}) had not moved for ${REFUND_STALLED_MS / 3_600_000} hours: its job was lost, so it was sent again. Check it with npm run refund if it stays open.`,
        details: { refundId: refund.id, paymentId: refund.payment_id, status: refund.status },
      });
    });
    log.warn({ refundId: refund.id, status: refund.status }, 'payment-reconcile: stalled refund sent again');
  }
  return stalled.length;
}

/** Full refunds of paid-but-not-activated payments whose delay is over; an operator's resolution wins. */
export async function startDueAutoRefunds(deps: SweepContext, now: Date, log: Logger): Promise<number> {
  let started = 0;
  for (const payment of await listAutoRefundsDue(deps.db, now, 100)) {
    if (await isAlertResolved(deps.db, paidNotActivatedAlertKey(payment.txnid))) {
      await cancelAutoRefund(deps.db, payment.id);
      log.info({ txnid: payment.txnid }, 'payment-reconcile: an operator resolved it; no automatic refund');
      continue;
    }
    const { created } = await requestRefund(deps.db, deps.boss, {
      payment,
      amountPaise: payment.amount_paise,
      quote: {
        day: 1,
        percent: 100,
        grossPaise: payment.amount_paise,
        chargePaise: 0,
        refundPaise: payment.amount_paise,
      },
      source: 'auto',
    });
    if (created) {
      started++;
      log.warn({ txnid: payment.txnid }, 'payment-reconcile: paid but not activated; full refund queued');
    }
  }
  return started;
}
