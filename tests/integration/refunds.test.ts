import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../core/db/pool.ts';
import { findPaymentByTxnid } from '../../core/db/payments.ts';
import { findSubscription } from '../../core/db/subscriptions.ts';
import { createPayUClient } from '../../core/providers/payu.ts';
import { executeRefund, quote, RefundError } from '../../scripts/lib/refunds.ts';
import { paymentHelpers } from '../support/payments.ts';
import { startTestStack, waitFor } from '../support/stack.ts';
import { sendJob } from '../../core/queue.ts';
import { insertRefund } from '../support/rows.ts';

/**
 * `npm run refund`: quotes from the configured policy and queues a `payment-refund` job, which
 * refunds through (sandbox) PayU's cancel_refund_transaction with a token stored first and
 * follows it with check_action_status; safe to run again.
 */

const stack = await startTestStack({ worker: true, env: { REFUND_STATUS_POLL_SECONDS: '0.5' } });
const db = stack.services.db;
const payu = createPayUClient(stack.config.payu);
const { buyer, checkout, pay, paymentStatus, settled } = paymentHelpers(stack);
const run = promisify(execFile);

async function paidPlan(choice: Record<string, unknown> = { plan: 'LEGEND', duration: 45 }) {
  const { user, client } = await buyer();
  const start = await checkout(client, user.email, choice);
  await pay(start.txnid);
  await paymentStatus(start.txnid, 'success');
  await settled(start.txnid);
  return { user, txnid: start.txnid };
}

async function sandboxRefunds(txnid: string): Promise<Array<{ token: string; amountPaise: number }>> {
  const response = await fetch(`${stack.url}/sandbox/payu/_state?txnid=${txnid}`);
  return ((await response.json()) as { refunds: Array<{ token: string; amountPaise: number }> }).refunds;
}

async function backdate(txnid: string, days: number) {
  await db.query(sql.unsafe`
    UPDATE subscriptions SET purchased_at = now() - make_interval(days => ${days}), expires_at = now() + interval '10 days'
    WHERE id = (SELECT subscription_id FROM payments WHERE txnid = ${txnid})`);
}

function cli(...args: string[]) {
  return run(process.execPath, ['scripts/refund.ts', ...args], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: stack.databaseUrl,
      PORT: String(new URL(stack.url).port),
      LOG_LEVEL: 'silent',
    },
  });
}

describe('refund quotes', () => {
  it('day 1: 70% less the ₹200 charge, by txnid or by invoice number', async () => {
    const { txnid } = await paidPlan();
    const byTxnid = await quote(db, stack.config, txnid);
    expect(byTxnid.quote).toEqual({
      day: 1,
      percent: 70,
      grossPaise: 128100,
      chargePaise: 20000,
      refundPaise: 108100,
    });
    expect(byTxnid.invoiceNumber).toMatch(/^LC\/\d{4}-\d{2}\/\d{6}$/);
    const byInvoice = await quote(db, stack.config, byTxnid.invoiceNumber!);
    expect(byInvoice.quote).toEqual(byTxnid.quote);
  });

  it('follows the policy by day and gives nothing from day 9', async () => {
    const { txnid } = await paidPlan();
    await backdate(txnid, 5); // day 6: 30%
    expect((await quote(db, stack.config, txnid)).quote.percent).toBe(30);
    await backdate(txnid, 8); // day 9
    const late = await quote(db, stack.config, txnid);
    expect(late.quote.refundPaise).toBe(0);
    await expect(executeRefund(db, stack.services.boss, stack.config, txnid)).rejects.toThrow(RefundError);
  });

  it('refuses a payment that was never paid', async () => {
    const { user, client } = await buyer();
    const start = await checkout(client, user.email);
    await expect(quote(db, stack.config, start.txnid)).rejects.toThrow(/nothing was paid/);
  });
});

async function refundRows(txnid: string) {
  return db.any(sql.type(z.object({ status: z.string(), amount_paise: z.number(), source: z.string() }))`
    SELECT status, amount_paise, source FROM refunds
    WHERE payment_id = (SELECT id FROM payments WHERE txnid = ${txnid}) ORDER BY created_at`);
}

async function refundStatus(txnid: string, status: string) {
  return waitFor(`a ${status} refund of ${txnid}`, async () => {
    const rows = await refundRows(txnid);
    return rows.some((r) => r.status === status) ? rows : null;
  });
}

describe('refund execution (queued as a payment-refund job)', () => {
  it('refunds the quote through PayU once, follows it to SUCCESS, cancels the plan; a second run does nothing', async () => {
    const { txnid } = await paidPlan();
    const first = await executeRefund(db, stack.services.boss, stack.config, txnid);
    expect(first.kind).toBe('queued');
    expect(first.refund).toMatchObject({ status: 'requested', amount_paise: 108100, source: 'operator' });
    expect(first.refund.token.length).toBeLessThanOrEqual(23);
    await refundStatus(txnid, 'refunded');
    const [row] = await db.any(sql.type(
      z.object({ payu_request_id: z.string().nullable(), payu_status: z.string().nullable() }),
    )`
      SELECT payu_request_id, payu_status FROM refunds WHERE id = ${first.refund.id}`);
    expect(row?.payu_request_id).toMatch(/^\d+$/);
    expect(row?.payu_status).toBe('SUCCESS');
    const payment = await findPaymentByTxnid(db, txnid);
    expect((await findSubscription(db, payment!.subscription_id))?.status).toBe('cancelled');

    const second = await executeRefund(db, stack.services.boss, stack.config, txnid);
    expect(second.kind).toBe('already-requested');
    expect(await sandboxRefunds(txnid)).toEqual([
      expect.objectContaining({ token: first.refund.token, amountPaise: 108100 }),
    ]);
  });

  it('after a crash once PayU accepted, the job retries with the same token; PayU answers 106 and refunds once', async () => {
    const { txnid } = await paidPlan();
    const payment = (await findPaymentByTxnid(db, txnid))!;
    // A run wrote its row and reached PayU, then died before recording the answer.
    const stored = await insertRefund(db, { paymentId: payment.id, amountPaise: 50000, quote: {} });
    expect(
      (await payu.refund({ mihpayid: payment.mihpayid!, refundToken: stored.token, amountPaise: 50000 }))
        .accepted,
    ).toBe(true);
    const repeat = await payu.refund({
      mihpayid: payment.mihpayid!,
      refundToken: stored.token,
      amountPaise: 50000,
    });
    expect(repeat).toMatchObject({ accepted: false, duplicateToken: true, errorCode: 106 });
    await sendJob(stack.services.boss, 'payment-refund', { refundId: stored.id });
    await refundStatus(txnid, 'accepted');
    expect(await sandboxRefunds(txnid)).toHaveLength(1);
  });

  it('takes an operator amount, never more than was paid', async () => {
    const { txnid } = await paidPlan({ plan: 'LEGEND', duration: 30 });
    await expect(
      executeRefund(db, stack.services.boss, stack.config, txnid, { amountPaise: 145001 }),
    ).rejects.toThrow(/only 145000/);
    const full = await executeRefund(db, stack.services.boss, stack.config, txnid, { amountPaise: 145000 });
    expect(full.kind).toBe('queued');
    await refundStatus(txnid, 'refunded');
  });

  it('runs as npm run refund -- quote / execute, which queues the job instead of calling PayU', async () => {
    const { txnid } = await paidPlan({ plan: 'PRO LEGEND', duration: 30 });
    const quoted = await cli('quote', txnid);
    expect(quoted.stdout).toContain('refund            ₹1,129.30');
    const executed = await cli('execute', txnid, '--amount', '100');
    expect(executed.stdout).toMatch(/^queued a refund of ₹100\.00 of /);
    const again = await cli('execute', txnid);
    expect(again.stdout).toContain('already requested');
    expect(await refundStatus(txnid, 'refunded')).toEqual([
      { status: 'refunded', amount_paise: 10000, source: 'operator' },
    ]);
    expect(await sandboxRefunds(txnid)).toHaveLength(1);
    await expect(cli('execute', 'nosuchtxn')).rejects.toMatchObject({
      stderr: expect.stringContaining('no payment nosuchtxn'),
    });
  });
});
