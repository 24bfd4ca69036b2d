import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listAlerts, resolveAlert } from '../../core/db/operatorAlerts.ts';
import { sql } from '../../core/db/pool.ts';
import { claimDuePayments, countOpenPaymentsSince, findPaymentByTxnid } from '../../core/db/payments.ts';
import {
  isOpenPayment,
  nextCheckAt,
  PAYMENT_STATES,
  RECONCILE_CHECK_MINUTES,
  reconcileCutoff,
} from '../../core/domain/payments.ts';
import { PHONE_MESSAGE } from '../../core/domain/phone.ts';
import { createPayUClient } from '../../core/providers/payu.ts';
import { reconcilePayments } from '../../worker/jobs/paymentReconcile.ts';
import { googleClient, uniqueEmail, type Client } from '../support/accounts.ts';
import { paymentHelpers } from '../support/payments.ts';
import { startTestStack, waitFor } from '../support/stack.ts';
import { insertRefund } from '../support/rows.ts';

/**
 * Money reconciles itself: the real worker and API over a fresh database, the sandbox playing
 * PayU. The sweep is the real `payment-reconcile` handler; where a test needs minutes or days
 * to pass it runs the handler with a moved clock (`reconcilePayments(deps, payu, later)`),
 * which is how the cron would find the same rows later on.
 */

const stack = await startTestStack({
  worker: true,
  env: { REFUND_STATUS_POLL_SECONDS: '0.5' },
});
const db = stack.services.db;
const deps = stack.worker!.deps;
const payu = createPayUClient(stack.config.payu);
const { count, buyer, choose, checkout, checkoutPending, control, pay, paymentStatus, settled } =
  paymentHelpers(stack);

const MINUTE = 60_000;

/** The sweep as the cron runs it, `minutes` after the payment's checkout. */
async function sweepAt(txnid: string, minutes: number) {
  const payment = await findPaymentByTxnid(db, txnid);
  return reconcilePayments(deps, payu, new Date(payment!.created_at.getTime() + minutes * MINUTE));
}

async function effects(userId: string) {
  return {
    active: await count(
      sql.unsafe`SELECT 1 FROM subscriptions WHERE user_id = ${userId} AND status = 'active'`,
    ),
    invoices: await count(sql.unsafe`SELECT 1 FROM invoices WHERE user_id = ${userId}`),
    provisions: await count(
      sql.unsafe`SELECT 1 FROM pgboss.job WHERE name = 'vm-provision' AND data->>'userId' = ${userId}`,
    ),
  };
}

async function sandboxTxn(txnid: string): Promise<{ verifyCalls: number; serverStatus: string }> {
  const response = await fetch(`${stack.url}/sandbox/payu/_state?txnid=${txnid}`);
  const state = (await response.json()) as {
    transactions: Array<{ verifyCalls: number; serverStatus: string }>;
  };
  return state.transactions[0]!;
}

async function sandboxRefunds(txnid: string): Promise<Array<{ token: string; amountPaise: number }>> {
  const response = await fetch(`${stack.url}/sandbox/payu/_state?txnid=${txnid}`);
  return ((await response.json()) as { refunds: Array<{ token: string; amountPaise: number }> }).refunds;
}

async function history(client: Client) {
  const reply = await client.call('/api/payments');
  expect(reply.status).toBe(200);
  return reply.body.payments as Array<Record<string, any>>;
}

/** Waits until the attempt's refund is done at PayU; answers the attempt as the history shows it. */
function refundedAttempt(client: Client, txnid: string) {
  return waitFor(`the refund of ${txnid} to complete`, async () => {
    const row = (await history(client)).find((p) => p.txnid === txnid);
    return row?.refunds[0]?.status === 'refunded' ? row : null;
  });
}

describe('reconciliation sweep', () => {
  it('browser closed and webhook missed: the sweep finds the success at 2 minutes and activates once', async () => {
    const { user, client } = await buyer();
    const start = await checkout(client, user.email);
    // The customer pays; PayU records it; the browser never comes back and the webhook is lost.
    await control({ action: 'set-webhook', txnid: start.txnid, url: null });
    await control({ action: 'complete', txnid: start.txnid, outcome: 'success' });
    expect((await findPaymentByTxnid(db, start.txnid))?.status).toBe('initiated');

    // Before its first check nothing asks PayU.
    await sweepAt(start.txnid, 1);
    expect((await sandboxTxn(start.txnid)).verifyCalls).toBe(0);

    const first = await sweepAt(start.txnid, 2);
    expect(first.outcomes.activated).toBe(1);
    expect((await findPaymentByTxnid(db, start.txnid))?.status).toBe('success');
    // Later sweeps and a late callback change nothing.
    await sweepAt(start.txnid, 5);
    await control({ action: 'replay', txnid: start.txnid, times: 3, to: 'surl' });
    await settled(start.txnid);
    expect(await effects(user.id)).toEqual({ active: 1, invoices: 1, provisions: 1 });
    expect((await sandboxTxn(start.txnid)).verifyCalls).toBe(1);
    expect((await history(client))[0]).toMatchObject({
      txnid: start.txnid,
      status: 'success',
      statusLabel: 'Paid',
    });
  });

  it('asks about a whole batch in one verify_payment call', async () => {
    const txnids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { user, client } = await buyer();
      const start = await checkout(client, user.email);
      await control({ action: 'set-webhook', txnid: start.txnid, url: null });
      await control({ action: 'complete', txnid: start.txnid, outcome: 'success' });
      txnids.push(start.txnid);
    }
    const last = await findPaymentByTxnid(db, txnids.at(-1)!);
    const result = await reconcilePayments(deps, payu, new Date(last!.created_at.getTime() + 2 * MINUTE));
    expect(result.calls).toBe(1);
    for (const txnid of txnids) expect((await findPaymentByTxnid(db, txnid))?.status).toBe('success');
  });

  it('pending, then success on the third check: pending in between, active after', async () => {
    const { user, client } = await buyer();
    const start = await checkout(client, user.email);
    await control({
      action: 'script-verify',
      txnid: start.txnid,
      statuses: ['pending', 'pending', 'success'],
    });
    await sweepAt(start.txnid, 2);
    expect((await findPaymentByTxnid(db, start.txnid))?.status).toBe('pending');
    expect((await history(client))[0]).toMatchObject({
      status: 'pending',
      statusLabel: 'Waiting for your bank',
    });
    await sweepAt(start.txnid, 5);
    expect((await findPaymentByTxnid(db, start.txnid))?.status).toBe('pending');
    expect(await effects(user.id)).toMatchObject({ active: 0 });
    await sweepAt(start.txnid, 15);
    expect((await findPaymentByTxnid(db, start.txnid))?.status).toBe('success');
    expect((await sandboxTxn(start.txnid)).verifyCalls).toBe(3);
    expect(await effects(user.id)).toEqual({ active: 1, invoices: 1, provisions: 1 });
  });

  it("pending, then failure: recorded as failed with PayU's reason in plain words, shown in history", async () => {
    const { user, client } = await buyer();
    const start = await checkout(client, user.email);
    await control({ action: 'script-verify', txnid: start.txnid, statuses: ['pending', 'failure'] });
    await sweepAt(start.txnid, 2);
    await sweepAt(start.txnid, 5);
    const failed = await findPaymentByTxnid(db, start.txnid);
    expect(failed).toMatchObject({ status: 'failure', next_check_at: null });
    expect(failed?.failure_reason).toBeTruthy();
    expect(await effects(user.id)).toMatchObject({ active: 0, invoices: 0 });
    const [attempt] = await history(client);
    expect(attempt).toMatchObject({ txnid: start.txnid, status: 'failure', statusLabel: 'Payment failed' });
    expect(attempt!.failureReason).toMatch(/PayU|bank|payment/i);
    // The payment-failed page reads the same record by its reference.
    const one = await client.call(`/api/payments/${start.txnid}`);
    expect(one.body).toMatchObject({ txnid: start.txnid, failureReason: attempt!.failureReason });
  });

  it('never finished: checked on the backoff schedule, abandoned after 72 hours, shown in history', async () => {
    const { client, user } = await buyer();
    const start = await checkout(client, user.email);
    for (const minutes of RECONCILE_CHECK_MINUTES) await sweepAt(start.txnid, minutes);
    expect((await sandboxTxn(start.txnid)).verifyCalls).toBe(RECONCILE_CHECK_MINUTES.length);
    expect((await findPaymentByTxnid(db, start.txnid))?.status).toBe('abandoned');
    expect((await history(client))[0]).toMatchObject({ status: 'abandoned', statusLabel: 'Not completed' });
    // Nothing more is asked.
    await sweepAt(start.txnid, 80 * 60);
    expect((await sandboxTxn(start.txnid)).verifyCalls).toBe(RECONCILE_CHECK_MINUTES.length);
  });
});

describe('the last check', () => {
  it('lost after its claim (the sweep died), is made again within the hour: never open for ever', async () => {
    const { user, client } = await buyer();
    const start = await checkout(client, user.email);
    const last = RECONCILE_CHECK_MINUTES.at(-1)!;
    for (const minutes of RECONCILE_CHECK_MINUTES.slice(0, -1)) await sweepAt(start.txnid, minutes);
    // The sweep making the last check claims it and dies before PayU's answer is applied.
    const created = (await findPaymentByTxnid(db, start.txnid))!.created_at;
    const at = new Date(created.getTime() + last * MINUTE);
    const claimed = await claimDuePayments(db, reconcileCutoff(at), 1000, (c, n) => nextCheckAt(c, n, at));
    expect(claimed.map((p) => p.txnid)).toContain(start.txnid);
    expect(isOpenPayment((await findPaymentByTxnid(db, start.txnid))!.status)).toBe(true);
    // Within the hour it is due again; the answer, still not final, abandons it.
    await sweepAt(start.txnid, last + 30);
    expect((await findPaymentByTxnid(db, start.txnid))?.status).not.toBe('abandoned');
    await sweepAt(start.txnid, last + 61);
    expect(await findPaymentByTxnid(db, start.txnid)).toMatchObject({
      status: 'abandoned',
      next_check_at: null,
    });
  });
});

describe('one rule, SQL and core/domain', () => {
  it("the sweep's claim and the checkout cap count as open exactly what isOpenPayment calls open", async () => {
    const { user, client } = await buyer();
    const start = await checkout(client, user.email);
    const payment = (await findPaymentByTxnid(db, start.txnid))!;
    for (const status of PAYMENT_STATES) {
      await db.query(sql.unsafe`
        UPDATE payments SET status = ${status}, next_check_at = now() + interval '5 days' WHERE id = ${payment.id}`);
      const open = await countOpenPaymentsSince(db, user.id, new Date(0));
      // Due only to a sweep 6 days ahead, so the worker's own cron (running now) never takes it.
      const later = new Date(Date.now() + 6 * 24 * 3600_000);
      const claimed = await claimDuePayments(
        db,
        later,
        1000,
        () => new Date(Date.now() + 10 * 24 * 3600_000),
      );
      expect([status, open === 1, claimed.some((p) => p.id === payment.id)]).toEqual([
        status,
        isOpenPayment(status),
        isOpenPayment(status),
      ]);
    }
  });
});

describe('paid but not activated', () => {
  async function paidTwice() {
    const { user, client } = await buyer();
    expect((await choose(client, user.email, { plan: 'LEGEND', duration: 30 })).status).toBe(200);
    const first = await checkoutPending(client, user.email);
    const second = await checkoutPending(client, user.email); // another tab, same choice
    await pay(first.txnid);
    await paymentStatus(first.txnid, 'success');
    await settled(first.txnid);
    await pay(second.txnid);
    await paymentStatus(second.txnid, 'success');
    await settled(second.txnid);
    return { user, client, txnid: second.txnid };
  }

  async function alertOf(txnid: string) {
    return db.maybeOne(sql.type(
      z.object({ id: z.uuid(), kind: z.string(), resolved_at: z.date().nullable() }),
    )`
      SELECT id, kind, resolved_at FROM operator_alerts WHERE dedupe_key = ${`paid-not-activated:${txnid}`}`);
  }

  it('mails the customer, alerts the operator, shows a notice, and refunds in full after the delay', async () => {
    const { user, client, txnid } = await paidTwice();
    expect(await effects(user.id)).toMatchObject({ active: 1, invoices: 1 });
    const payment = (await findPaymentByTxnid(db, txnid))!;
    expect(payment.problem).toMatch(/not activated/);
    expect(payment.auto_refund_at!.getTime() - payment.problem_at!.getTime()).toBeCloseTo(24 * 3600_000, -4);
    expect((await alertOf(txnid))?.kind).toBe('paid-not-activated');
    const mail = await waitFor('the not-activated mail', async () =>
      (await stack.mailTo(user.email)).find((m) =>
        m.subject.startsWith('We received your payment but could not'),
      ),
    );
    expect(mail.text).toContain(txnid);
    const [attempt] = (await history(client)).filter((p) => p.txnid === txnid);
    expect(attempt!.notActivated.explanation).toMatch(/refund the full amount/);

    // Not before the delay; then a full refund, once, followed to PayU's SUCCESS.
    await sweepAt(txnid, 23 * 60);
    expect(await sandboxRefunds(txnid)).toHaveLength(0);
    await sweepAt(txnid, 24 * 60 + 1);
    await sweepAt(txnid, 24 * 60 + 2);
    const refunded = await refundedAttempt(client, txnid);
    expect(refunded!.refunds).toEqual([
      expect.objectContaining({ source: 'auto', amountPaise: payment.amount_paise, payuStatus: 'SUCCESS' }),
    ]);
    expect(await sandboxRefunds(txnid)).toEqual([
      expect.objectContaining({ amountPaise: payment.amount_paise }),
    ]);
    // The plan the first payment bought is untouched.
    expect(await effects(user.id)).toMatchObject({ active: 1 });
  });

  it('an operator who resolves the alert first stops the automatic refund', async () => {
    const { txnid } = await paidTwice();
    const alert = await alertOf(txnid);
    await resolveAlert(db, alert!.id);
    await sweepAt(txnid, 25 * 60);
    expect(await sandboxRefunds(txnid)).toHaveLength(0);
    expect((await findPaymentByTxnid(db, txnid))?.auto_refund_at).toBeNull();
  });
});

describe('customer refunds', () => {
  it('shows the amount the policy gives; two requests make one PayU refund', async () => {
    const { user, client } = await buyer();
    const start = await checkout(client, user.email, { plan: 'LEGEND', duration: 45 });
    await pay(start.txnid);
    await paymentStatus(start.txnid, 'success');
    await settled(start.txnid);
    const [attempt] = await history(client);
    // Day 1: 70% of ₹1,830 less the ₹200 charge.
    expect(attempt!.refundOffer).toMatchObject({ amountPaise: 108100, day: 1, percent: 70, refusal: null });

    const wrong = await client.call(`/api/payments/${start.txnid}/refund`, {
      body: { confirmAmountPaise: 1 },
    });
    expect(wrong.status).toBe(409);
    const [a, b] = await Promise.all([
      client.call(`/api/payments/${start.txnid}/refund`, { body: { confirmAmountPaise: 108100 } }),
      client.call(`/api/payments/${start.txnid}/refund`, { body: { confirmAmountPaise: 108100 } }),
    ]);
    expect([a.status, b.status].sort()).toEqual(expect.arrayContaining([202]));
    const done = await refundedAttempt(client, start.txnid);
    expect(done.refunds).toHaveLength(1);
    expect(done.refunds[0]).toMatchObject({ source: 'customer', amountPaise: 108100 });
    expect(done.refunds[0].payuRequestId).toMatch(/^\d+$/);
    expect(done.refundOffer.refusal).toMatch(/already been requested/);
    // The list (a few batched reads for every attempt) and one attempt's own view agree.
    expect((await client.call(`/api/payments/${start.txnid}`)).body).toEqual(done);
    expect(done.invoiceId).toMatch(/^LC\//);
    expect(await sandboxRefunds(start.txnid)).toHaveLength(1);
    const again = await client.call(`/api/payments/${start.txnid}/refund`, {
      body: { confirmAmountPaise: 108100 },
    });
    expect(again.status).toBe(409);
    expect(await sandboxRefunds(start.txnid)).toHaveLength(1);
  });

  it('a refund whose job was lost is sent again after seven quiet hours, and an operator hears of it', async () => {
    const { user, client } = await buyer();
    const start = await checkout(client, user.email, { plan: 'LEGEND', duration: 30 });
    await pay(start.txnid);
    await paymentStatus(start.txnid, 'success');
    await settled(start.txnid);
    const payment = (await findPaymentByTxnid(db, start.txnid))!;
    // Requested eight hours ago; its job died with a worker, so PayU never heard of it.
    const refund = await insertRefund(db, { paymentId: payment.id, amountPaise: 100_000, quote: {} });
    await db.query(
      sql.unsafe`UPDATE refunds SET updated_at = now() - interval '8 hours' WHERE id = ${refund.id}`,
    );

    await reconcilePayments(deps, payu, new Date());
    const alert = (await listAlerts(db)).find((a) => a.dedupe_key === `refund-stalled:${refund.id}`);
    expect(alert).toMatchObject({ kind: 'refund-failed' });
    expect(alert!.message).toContain('sent again');
    // The job sent again does what the lost one should have: PayU refunds it, once.
    await refundedAttempt(client, start.txnid);
    expect(await sandboxRefunds(start.txnid)).toHaveLength(1);
    // Moving again, it is not stalled: the next sweep leaves it alone.
    expect((await reconcilePayments(deps, payu, new Date())).refundsRedriven).toBe(0);
  });

  it("answers another customer's payment as not found", async () => {
    const owner = await buyer();
    const start = await checkout(owner.client, owner.user.email);
    const other = await buyer();
    expect((await other.client.call(`/api/payments/${start.txnid}`)).status).toBe(404);
    expect(
      (await other.client.call(`/api/payments/${start.txnid}/refund`, { body: { confirmAmountPaise: 100 } }))
        .status,
    ).toBe(404);
  });

  it('serves the refund policy table the Terms page prints', async () => {
    const reply = await stack.api('/api/refund-policy');
    expect(reply.status).toBe(200);
    expect(reply.body.rows[0]).toEqual({ days: 'Days 1–2', percent: 70 });
    expect(reply.body.rows.at(-1)).toEqual({ days: 'Day 9 onwards', percent: 0 });
    expect(reply.body.cancellationChargePaise).toBe(20000);
  });
});

describe('every customer can pay', () => {
  it('a Google customer is asked for a phone (400 naming it), adds a valid one, and pays', async () => {
    const email = uniqueEmail('google-pay');
    const client = await googleClient(stack, email, 'Meera Google');
    expect((await client.call('/api/auth/login')).body?.phone ?? null).toBeNull();
    expect((await choose(client, email, { plan: 'LEGEND', duration: 30 })).status).toBe(200);
    const refused = await client.call('/api/vm/create-payment', {
      body: { customerEmail: email, amount: 1 },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/phone/i);

    const bad = await client.call('/api/user/profile', { method: 'PUT', body: { email, phone: '12345' } });
    expect(bad).toMatchObject({ status: 400, body: { message: PHONE_MESSAGE } });
    const saved = await client.call('/api/user/profile', {
      method: 'PUT',
      body: { email, phone: '9876501234' },
    });
    expect(saved).toMatchObject({ status: 200, body: { phone: '9876501234', name: 'Meera Google' } });

    const start = await checkoutPending(client, email);
    expect(start.phone).toBe('9876501234');
    await pay(start.txnid);
    await paymentStatus(start.txnid, 'success');
  });
});
