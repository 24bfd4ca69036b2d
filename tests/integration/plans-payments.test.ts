import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SANDBOX_PAYU_KEY, SANDBOX_PAYU_SALT } from '../../core/config/config.ts';
import { sql } from '../../core/db/pool.ts';
import { findPaymentByTxnid } from '../../core/db/payments.ts';
import { userHasPlan } from '../../core/db/users.ts';
import { financialYear } from '../../core/domain/gst.ts';
import { PLANS, priceFor } from '../../core/domain/plans.ts';
import {
  activePlanBlocksPurchaseMessage,
  daysLeft,
  PLAN_CHOICE_MESSAGES,
} from '../../core/domain/subscription.ts';
import { TRIAL_ALREADY_USED_MESSAGE, trialPhoneUsedMessage } from '../../core/domain/trial.ts';
import { requestHash, responseHash } from '../../core/providers/payu.ts';
import { createUser, newClient } from '../support/accounts.ts';
import { paymentHelpers, type Checkout } from '../support/payments.ts';
import { startTestStack, waitFor } from '../support/stack.ts';

/**
 * Plans, checkout and PayU callbacks end to end: the real API and worker over a fresh
 * database, the sandbox playing PayU (checkout, verify_payment, webhook, replays and forgeries).
 */

const stack = await startTestStack({
  worker: true,
  env: {
    // EDITOR HIGH (g5.4xlarge) has no machines at all; EDITOR LOW (g5.2xlarge) has one.
    CAPACITY_LIMITS: 'g5.4xlarge=0,g5.2xlarge=1',
  },
});
const db = stack.services.db;

const {
  count,
  phone,
  buyer,
  choose,
  startPayment,
  postForm,
  control,
  checkout,
  checkoutPending,
  pay,
  settled,
  paymentStatus,
} = paymentHelpers(stack);

/** What one user's purchases produced: active subscriptions, invoices, provisioning jobs. */
async function effects(userId: string) {
  return {
    active: await count(
      sql.unsafe`SELECT 1 FROM subscriptions WHERE user_id = ${userId} AND status = 'active'`,
    ),
    invoices: await count(sql.unsafe`SELECT 1 FROM invoices WHERE user_id = ${userId}`),
    provisions: await count(
      sql.unsafe`SELECT 1 FROM pgboss.job WHERE name = 'vm-provision' AND data->>'userId' = ${userId}`,
    ),
    receipts: (await stack.mailTo(await emailOf(userId))).filter((m) =>
      m.subject.startsWith('Payment received'),
    ).length,
  };
}

async function emailOf(userId: string): Promise<string> {
  return db.oneFirst(sql.type(z.object({ email: z.string() }))`SELECT email FROM users WHERE id = ${userId}`);
}

describe('the catalogue', () => {
  it('serves every plan of §9 with its prices, storage and machine, and the trial prices', async () => {
    const reply = await stack.api('/api/plans');
    expect(reply.status).toBe(200);
    expect(reply.body.durations).toEqual([30, 45, 65, 90]);
    const byName = Object.fromEntries(reply.body.plans.map((p: any) => [p.name, p]));
    expect(Object.keys(byName)).toEqual([
      'LEGEND',
      'PRO LEGEND',
      'ULTRA LEGEND',
      'EDITOR LOW',
      'EDITOR HIGH',
    ]);
    expect(byName.LEGEND.pricesPaise).toEqual({ 30: 145000, 45: 183000, 65: 268500, 90: 350000 });
    expect(byName['PRO LEGEND'].pricesPaise).toEqual({ 30: 189900, 45: 269900, 65: 369900, 90: 489900 });
    expect(byName['ULTRA LEGEND'].pricesPaise).toEqual({ 30: 229900, 45: 279900, 65: 329900, 90: 429900 });
    expect(byName['EDITOR HIGH'].pricesPaise[90]).toBe(1099900);
    expect([byName.LEGEND.storage, byName['PRO LEGEND'].storage, byName['ULTRA LEGEND'].storage]).toEqual([
      '115 GB',
      '225 GB',
      '225 GB',
    ]);
    expect([
      byName.LEGEND.instanceType,
      byName['PRO LEGEND'].instanceType,
      byName['ULTRA LEGEND'].instanceType,
    ]).toEqual(['g4dn.xlarge', 'g4dn.2xlarge', 'g5.xlarge']);
    expect(reply.body.plans.filter((p: any) => p.offeredInCards).map((p: any) => p.name)).toEqual([
      'LEGEND',
      'PRO LEGEND',
      'ULTRA LEGEND',
    ]);
    expect(reply.body.trial.map((t: any) => [t.plan, t.hours, t.pricePaise])).toEqual([
      ['LEGEND', 1, 4000],
      ['PRO LEGEND', 1, 4500],
      ['ULTRA LEGEND', 1, 5000],
    ]);
  });
});

describe('capacity', () => {
  it('answers ok for a plan with machines to spare, to anyone', async () => {
    const reply = await stack.api('/api/vm/check-capacity?plan=LEGEND');
    expect(reply).toMatchObject({ status: 200, body: { ok: true } });
  });

  it('answers not ok with the spec message when the instance type is full, and select-vm refuses', async () => {
    const reply = await stack.api(`/api/vm/check-capacity?plan=${encodeURIComponent('EDITOR HIGH')}`);
    expect(reply.body).toEqual({ ok: false, message: 'Capacity insufficient try again later.' });
    const { user, client } = await buyer();
    const chosen = await choose(client, user.email, { plan: 'EDITOR HIGH', duration: 30 });
    expect(chosen).toMatchObject({
      status: 409,
      body: { message: 'Capacity insufficient try again later.' },
    });
  });

  it('counts machines in use: the last EDITOR LOW sold leaves none, before any more money is taken', async () => {
    const first = await buyer();
    const second = await buyer();
    // Both choose while a machine is free…
    expect((await choose(first.client, first.user.email, { plan: 'EDITOR LOW', duration: 30 })).status).toBe(
      200,
    );
    expect(
      (await choose(second.client, second.user.email, { plan: 'EDITOR LOW', duration: 30 })).status,
    ).toBe(200);
    // …the first pays…
    const { txnid } = await checkoutPending(first.client, first.user.email);
    await pay(txnid);
    await paymentStatus(txnid, 'success');
    expect((await stack.api('/api/vm/check-capacity?plan=EDITOR%20LOW')).body.ok).toBe(false);
    // …and the second is stopped before PayU.
    const late = await startPayment(second.client, second.user.email);
    expect(late).toMatchObject({ status: 409, body: { message: PLAN_CHOICE_MESSAGES.capacityInsufficient } });
  });

  it('refuses an unknown plan with the spec message', async () => {
    const reply = await stack.api('/api/vm/check-capacity?plan=MEGA');
    expect(reply).toMatchObject({
      status: 400,
      body: { message: 'No price configured for that combination.' },
    });
  });
});

describe('choosing a plan (spec §5)', () => {
  it('asks a visitor to log in, in the spec words', async () => {
    const reply = await newClient(stack).call('/api/vm/select-vm', {
      body: { plan: 'LEGEND', duration: 45 },
    });
    expect(reply).toMatchObject({
      status: 401,
      body: { message: 'Please login or register before purchasing a plan.' },
    });
  });

  it('needs a duration', async () => {
    const { user, client } = await buyer();
    for (const duration of [undefined, null, '']) {
      const reply = await choose(client, user.email, { plan: 'LEGEND', duration });
      expect(reply).toMatchObject({ status: 400, body: { message: 'Please select Duration.' } });
    }
  });

  it('needs a price for the plan and duration', async () => {
    const { user, client } = await buyer();
    for (const body of [
      { plan: 'LEGEND', duration: 50 },
      { plan: 'MEGA LEGEND', duration: 45 },
      { plan: 'LEGEND', duration: 'forty' },
    ]) {
      const reply = await choose(client, user.email, body);
      expect(reply).toMatchObject({
        status: 400,
        body: { message: 'No price configured for that combination.' },
      });
    }
  });

  it("refuses another user's email", async () => {
    const { client } = await buyer();
    const other = await createUser(stack, { phone: phone() });
    expect((await choose(client, other.email)).status).toBe(403);
  });

  it('records a pending subscription priced by the catalogue, whatever price the client sent', async () => {
    const { user, client } = await buyer();
    const reply = await choose(client, user.email, {
      plan: 'pro legend',
      duration: '65',
      price: 1,
      storage: '1 TB',
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      status: 'pending_payment',
      selectedPlan: 'PRO LEGEND',
      selectedDuration: 65,
      selectedStorage: '225 GB',
      selectedPrice: 3699,
      pricePaise: 369900,
      isTrial: false,
    });
    const checkoutReply = await client.call('/api/vm/checkout');
    expect(checkoutReply.body).toMatchObject({ selectedPlan: 'PRO LEGEND', pricePaise: 369900 });
  });

  it('blocks a purchase while a plan is active, with days left rounded up, and allows it after expiry (renewal)', async () => {
    const { user, client } = await buyer();
    const first = await checkout(client, user.email, { plan: 'LEGEND', duration: 45 });
    await pay(first.txnid);
    await paymentStatus(first.txnid, 'success');
    const active = await db.one(sql.type(z.object({ expires_at: z.date() }))`
      SELECT expires_at FROM subscriptions WHERE user_id = ${user.id} AND status = 'active'`);

    const blocked = await choose(client, user.email, { plan: 'ULTRA LEGEND', duration: 90 });
    expect(blocked.status).toBe(409);
    expect(blocked.body.message).toBe(
      activePlanBlocksPurchaseMessage('LEGEND', 45, daysLeft(active.expires_at, new Date())),
    );
    expect(blocked.body.message).toMatch(
      /^Your current plan \(LEGEND, 45h\) has \d+ day\(s\) left\. You can purchase\/extend only after expiry\.$/,
    );
    const current = await client.call('/api/vm/current-plan');
    expect(current.body.plan).toMatchObject({
      selectedPlan: 'LEGEND',
      selectedDuration: 45,
      status: 'active',
    });

    // A month later the plan has lapsed: buying again renews.
    await db.query(sql.unsafe`
      UPDATE subscriptions SET purchased_at = now() - interval '32 days', expires_at = now() - interval '1 day'
      WHERE user_id = ${user.id} AND status = 'active'`);
    const renewal = await checkout(client, user.email, { plan: 'ULTRA LEGEND', duration: 90 });
    await pay(renewal.txnid);
    await paymentStatus(renewal.txnid, 'success');
    const rows = await db.any(sql.type(z.object({ plan_name: z.string(), status: z.string() }))`
      SELECT plan_name, status FROM subscriptions WHERE user_id = ${user.id} AND purchased_at IS NOT NULL ORDER BY purchased_at`);
    expect(rows).toEqual([
      { plan_name: 'LEGEND', status: 'expired' },
      { plan_name: 'ULTRA LEGEND', status: 'active' },
    ]);
  });
});

describe('checkout', () => {
  it('answers the spec payment-start fields, signed with the request hash, amount from the catalogue', async () => {
    const { user, client } = await buyer({ name: 'Asha | Rao' });
    expect((await choose(client, user.email, { plan: 'LEGEND', duration: 45 })).status).toBe(200);
    const reply = await startPayment(client, user.email, {
      amount: 1,
      plan: 'LEGEND',
      duration: 45,
      storage: '115 GB',
    });
    expect(reply.status).toBe(200);
    const start = reply.body as Checkout;
    expect(Object.keys(start).sort()).toEqual(
      [
        'action',
        'key',
        'txnid',
        'amount',
        'productinfo',
        'firstname',
        'email',
        'phone',
        'surl',
        'furl',
        'hash',
        'udf1',
        'udf2',
        'udf3',
        'udf4',
        'udf5',
      ].sort(),
    );
    expect(start).toMatchObject({
      action: `${stack.config.publicUrl}/sandbox/payu/_payment`,
      key: SANDBOX_PAYU_KEY,
      amount: '1830.00',
      firstname: 'Asha   Rao',
      email: user.email,
      phone: user.phone,
      surl: `${stack.config.publicUrl}/api/payu/success`,
      furl: `${stack.config.publicUrl}/api/payu/failure`,
      udf1: 'LEGEND',
      udf2: '45',
      udf3: '115 GB',
    });
    expect(start.txnid).toMatch(/^[a-z0-9]{1,25}$/);
    expect(start.hash).toBe(requestHash(start as never, SANDBOX_PAYU_SALT));
    const payment = await findPaymentByTxnid(db, start.txnid);
    expect(payment).toMatchObject({
      status: 'initiated',
      amount_paise: priceFor('LEGEND', 45),
      amount: '1830.00',
    });

    // A second attempt is a fresh txnid.
    const again = await startPayment(client, user.email);
    expect(again.body.txnid).not.toBe(start.txnid);
  });

  it('refuses to start a payment for nothing chosen, or for a different choice than the pending one', async () => {
    const { user, client } = await buyer();
    expect((await startPayment(client, user.email)).status).toBe(409);
    expect((await choose(client, user.email, { plan: 'LEGEND', duration: 30 })).status).toBe(200);
    const changed = await startPayment(client, user.email, { plan: 'ULTRA LEGEND', duration: 30 });
    expect(changed.status).toBe(409);
    expect((await newClient(stack).call('/api/vm/create-payment', { body: {} })).status).toBe(401);
  });

  it('allows the PayU checkout origin as a form action only when it is not our own', async () => {
    const page = await fetch(`${stack.url}/payment`, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");
  });
});

describe('PayU callbacks', () => {
  it('a paid LEGEND 45 h: one activation, one invoice, one receipt, one vm-provision, and the browser lands on /payment-success', async () => {
    const { user, client } = await buyer();
    const start = await checkout(client, user.email);
    const back = await pay(start.txnid);
    expect(back.status).toBe(303);
    expect(back.location).toBe(`${stack.config.publicUrl}/payment-success?txnid=${start.txnid}`);

    const payment = await paymentStatus(start.txnid, 'success');
    expect(payment.mihpayid).toMatch(/^\d+$/);
    await settled(start.txnid);
    const subscription = await db.one(sql.type(
      z.object({
        plan_name: z.string(),
        hours: z.number(),
        purchased_at: z.date(),
        expires_at: z.date(),
        id: z.string(),
      }),
    )`
      SELECT id, plan_name, hours, purchased_at, expires_at FROM subscriptions WHERE user_id = ${user.id} AND status = 'active'`);
    expect(subscription).toMatchObject({ plan_name: 'LEGEND', hours: 45 });
    expect(subscription.expires_at.getTime() - subscription.purchased_at.getTime()).toBeGreaterThanOrEqual(
      28 * 86_400_000,
    );
    await waitFor('the receipt', async () => (await effects(user.id)).receipts === 1);
    expect(await effects(user.id)).toEqual({ active: 1, invoices: 1, provisions: 1, receipts: 1 });
    const job = await db.one(sql.type(z.object({ data: z.unknown() }))`
      SELECT data FROM pgboss.job WHERE name = 'vm-provision' AND data->>'userId' = ${user.id}`);
    expect(job.data).toEqual({ subscriptionId: subscription.id, userId: user.id });

    const status = await client.call(`/api/vm/payment-status?txnid=${start.txnid}`);
    expect(status.body).toMatchObject({ txnid: start.txnid, status: 'success', needsAttention: false });
    expect(status.body.invoiceId).toMatch(new RegExp(`^LC/${financialYear(new Date())}/\\d{6}$`));
    expect(await userHasPlan(db, user.id)).toBe(true);
    const session = await client.call('/api/auth/login');
    expect(session.body.hasPlan).toBe(true);
  });

  it('replayed callbacks, sequential and 10-way concurrent, to surl and webhook: still one of everything', async () => {
    const { user, client } = await buyer();
    const start = await checkout(client, user.email);
    await pay(start.txnid);
    await control({ action: 'replay', txnid: start.txnid, times: 3, to: 'both' });
    await control({ action: 'replay', txnid: start.txnid, times: 10, to: 'both', concurrent: true });
    await paymentStatus(start.txnid, 'success');
    await settled(start.txnid);
    await waitFor('the receipt', async () => (await effects(user.id)).receipts >= 1);
    expect(await effects(user.id)).toEqual({ active: 1, invoices: 1, provisions: 1, receipts: 1 });
    const payment = await findPaymentByTxnid(db, start.txnid);
    expect(payment?.callback_count).toBeGreaterThanOrEqual(2);
  });

  it('10 concurrent verifications of one paid txnid activate once (the webhook racing the browser, many times over)', async () => {
    const { user, client } = await buyer();
    const start = await checkout(client, user.email);
    const done = await control({ action: 'set-webhook', txnid: start.txnid, url: null }).then(() =>
      control({ action: 'complete', txnid: start.txnid, outcome: 'success' }),
    );
    const fields = done.fields as Record<string, string>;
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        postForm(`${stack.url}/api/payu/${i % 2 === 0 ? 'success' : 'webhook'}`, fields),
      ),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 303, 303, 303, 303, 303]);
    await paymentStatus(start.txnid, 'success');
    await settled(start.txnid);
    await waitFor('the receipt', async () => (await effects(user.id)).receipts >= 1);
    expect(await effects(user.id)).toEqual({ active: 1, invoices: 1, provisions: 1, receipts: 1 });
  });

  it('a forged success (hash not made with our salt) activates nothing and sends the browser to /payment-failure', async () => {
    const { user, client } = await buyer();
    const start = await checkout(client, user.email);
    const forged = await control({ action: 'forge', txnid: start.txnid, status: 'success', to: 'both' });
    expect(forged.deliveries.map((d: any) => d.status)).toEqual([303, 400]);
    const back = await postForm(`${stack.url}/api/payu/success`, forged.fields);
    expect(back.location).toBe(`${stack.config.publicUrl}/payment-failure`);
    await settled(start.txnid);
    expect((await findPaymentByTxnid(db, start.txnid))?.status).toBe('initiated');
    expect((await findPaymentByTxnid(db, start.txnid))?.callback_count).toBe(0);
    expect(await effects(user.id)).toMatchObject({ active: 0, invoices: 0, provisions: 0 });
  });

  it('a tampered amount, rehashed or not, activates nothing', async () => {
    const { user, client } = await buyer();
    const start = await checkout(client, user.email);
    const rehashed = await control({
      action: 'tamper-amount',
      txnid: start.txnid,
      amount: '1.00',
      to: 'both',
    });
    expect(rehashed.deliveries.map((d: any) => d.status)).toEqual([303, 400]);
    const unhashed = await control({
      action: 'tamper-amount',
      txnid: start.txnid,
      amount: '1.00',
      rehash: false,
      to: 'webhook',
    });
    expect(unhashed.deliveries.map((d: any) => d.status)).toEqual([400]);
    await settled(start.txnid);
    expect((await findPaymentByTxnid(db, start.txnid))?.status).toBe('initiated');
    expect(await effects(user.id)).toMatchObject({ active: 0, invoices: 0, provisions: 0 });
  });

  it('a validly hashed callback for a txnid we never issued changes nothing', async () => {
    const txnid = 'lcnosuchtransaction00001';
    const fields: Record<string, string> = {
      key: SANDBOX_PAYU_KEY,
      txnid,
      amount: '1830.00',
      productinfo: 'Legend Cloud LEGEND, 45 hours, one month',
      firstname: 'Mallory',
      email: 'mallory@example.com',
      status: 'success',
      udf1: 'LEGEND',
      udf2: '45',
      udf3: '115 GB',
    };
    fields.hash = responseHash(fields, SANDBOX_PAYU_SALT);
    const before = await count(sql.unsafe`SELECT 1 FROM payments`);
    expect((await postForm(`${stack.url}/api/payu/webhook`, fields)).status).toBe(400);
    const back = await postForm(`${stack.url}/api/payu/success`, fields);
    expect(back.location).toBe(`${stack.config.publicUrl}/payment-failure`);
    expect(await count(sql.unsafe`SELECT 1 FROM payments`)).toBe(before);
    expect(
      await count(
        sql.unsafe`SELECT 1 FROM pgboss.job WHERE name = 'payment-verify' AND data->>'txnid' = ${txnid}`,
      ),
    ).toBe(0);
  });

  it('verify_payment says failure although the browser said success: nothing is activated', async () => {
    const { user, client } = await buyer();
    const start = await checkout(client, user.email);
    await control({ action: 'set-webhook', txnid: start.txnid, url: null });
    const done = await control({ action: 'complete', txnid: start.txnid, outcome: 'success' });
    await control({ action: 'set-status', txnid: start.txnid, status: 'failure' });
    const back = await postForm(done.returnUrl, done.fields);
    // The browser is told what it claimed; the server decides from PayU's own answer.
    expect(back.location).toContain('/payment-success?txnid=');
    await paymentStatus(start.txnid, 'failure');
    expect(await effects(user.id)).toMatchObject({ active: 0, invoices: 0, provisions: 0 });
    const status = await client.call(`/api/vm/payment-status?txnid=${start.txnid}`);
    expect(status.body).toMatchObject({ status: 'failure', invoiceId: null });
  });

  it('a failed payment goes to /payment-failure and is recorded as failed; the choice stays for another try', async () => {
    const { user, client } = await buyer();
    const start = await checkout(client, user.email);
    const back = await pay(start.txnid, 'failure');
    expect(back.status).toBe(303);
    expect(back.location).toBe(`${stack.config.publicUrl}/payment-failure?txnid=${start.txnid}`);
    await paymentStatus(start.txnid, 'failure');
    const retry = await checkoutPending(client, user.email);
    expect(retry.txnid).not.toBe(start.txnid);
    await pay(retry.txnid);
    await paymentStatus(retry.txnid, 'success');
    expect((await effects(user.id)).active).toBe(1);
  });

  it("payment-callback ({order}, status PAID) only asks for a check and answers the server's status", async () => {
    const { user, client } = await buyer();
    const start = await checkout(client, user.email);
    await control({ action: 'set-webhook', txnid: start.txnid, url: null });
    await control({ action: 'complete', txnid: start.txnid, outcome: 'success' });
    const reply = await client.call('/api/vm/payment-callback', {
      body: {
        order: { status: 'PAID', txnid: start.txnid, amount: '1.00', customer: { email: user.email } },
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ txnid: start.txnid });
    await paymentStatus(start.txnid, 'success');

    // PAID for a payment PayU never took: nothing happens.
    const unpaid = await checkout(client, user.email, { plan: 'LEGEND', duration: 30 }).catch(() => null);
    expect(unpaid).toBeNull(); // the plan is active now: no second checkout

    const other = await buyer();
    const foreign = await other.client.call('/api/vm/payment-callback', {
      body: { order: { status: 'PAID', txnid: start.txnid } },
    });
    expect(foreign.status).toBe(404);
    expect(
      (await newClient(stack).call('/api/vm/payment-callback', { body: { order: { txnid: start.txnid } } }))
        .status,
    ).toBe(401);
  });

  it('PAID from the page for an unpaid payment activates nothing', async () => {
    const { user, client } = await buyer();
    const start = await checkout(client, user.email);
    const reply = await client.call('/api/vm/payment-callback', {
      body: { order: { status: 'PAID', txnid: start.txnid } },
    });
    expect(reply.body.status).toBe('initiated');
    // PayU says pending: the payment is marked so and left to the reconciliation sweep; nothing is activated.
    await paymentStatus(start.txnid, 'pending');
    expect(await effects(user.id)).toMatchObject({ active: 0, invoices: 0, provisions: 0 });
  });

  it('a second payment for a plan already active is recorded as paid but flagged for refund, not activated', async () => {
    const { user, client } = await buyer();
    expect((await choose(client, user.email, { plan: 'LEGEND', duration: 30 })).status).toBe(200);
    const first = await checkoutPending(client, user.email);
    const second = await checkoutPending(client, user.email); // another tab, same choice
    await pay(first.txnid);
    await paymentStatus(first.txnid, 'success');
    await pay(second.txnid);
    const flagged = await paymentStatus(second.txnid, 'success');
    await settled(second.txnid);
    expect((await findPaymentByTxnid(db, second.txnid))?.problem).toMatch(/not activated/);
    expect(flagged.txnid).toBe(second.txnid);
    expect(await effects(user.id)).toMatchObject({ active: 1, invoices: 1, provisions: 1 });
  });
});

describe('invoices', () => {
  it('are numbered without gaps under concurrent purchases', async () => {
    const buyers = await Promise.all(Array.from({ length: 8 }, () => buyer()));
    const starts = await Promise.all(
      buyers.map(({ user, client }) => checkout(client, user.email, { plan: 'LEGEND', duration: 30 })),
    );
    await Promise.all(starts.map((s) => pay(s.txnid)));
    await Promise.all(starts.map((s) => paymentStatus(s.txnid, 'success')));
    const year = financialYear(new Date());
    const rows = await db.any(sql.type(z.object({ sequence: z.number(), invoice_number: z.string() }))`
      SELECT sequence, invoice_number FROM invoices WHERE financial_year = ${year} ORDER BY sequence`);
    expect(rows.length).toBeGreaterThanOrEqual(8);
    expect(rows.map((r) => r.sequence)).toEqual(rows.map((_, i) => i + 1));
    expect(rows.at(-1)?.invoice_number).toBe(`LC/${year}/${String(rows.length).padStart(6, '0')}`);
    const counter = await db.oneFirst(sql.type(z.object({ last_sequence: z.number() }))`
      SELECT last_sequence FROM invoice_counters WHERE financial_year = ${year}`);
    expect(counter).toBe(rows.length);
  });

  it('lists the owner their invoices with the GST split, and answers 403 for anyone else', async () => {
    const { user, client } = await buyer({ name: 'Ravi Kumar' });
    const start = await checkout(client, user.email, { plan: 'PRO LEGEND', duration: 45 });
    await pay(start.txnid);
    await paymentStatus(start.txnid, 'success');
    const list = await client.call(`/api/invoices/user/${encodeURIComponent(user.email.toUpperCase())}`);
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    const invoice = list.body[0];
    expect(invoice).toMatchObject({
      planName: 'PRO LEGEND',
      total: 2699,
      totalPaise: 269900,
      hours: 45,
      storageGb: 225,
      gstRatePercent: 18,
      supply: 'intra-state',
      placeOfSupply: '29-Karnataka',
      igstPaise: 0,
      customer: { name: 'Ravi Kumar', email: user.email, phone: user.phone },
      supplier: { gstin: stack.config.invoice.gstin, state: '29-Karnataka' },
      txnid: start.txnid,
    });
    // Prices are GST-inclusive: 2699 / 1.18 = 2287.29 taxable, 411.71 tax split in halves.
    expect(invoice.taxablePaise).toBe(228729);
    expect(invoice.cgstPaise + invoice.sgstPaise).toBe(41171);
    expect(invoice.taxablePaise + invoice.cgstPaise + invoice.sgstPaise).toBe(269900);
    expect(new Date(invoice.expiryDate).getTime()).toBeGreaterThan(new Date(invoice.purchaseDate).getTime());

    const other = await buyer();
    const forbidden = await other.client.call(`/api/invoices/user/${encodeURIComponent(user.email)}`);
    expect(forbidden.status).toBe(403);
    expect(JSON.stringify(forbidden.body)).not.toContain(invoice.invoiceId);
    expect((await newClient(stack).call(`/api/invoices/user/${encodeURIComponent(user.email)}`)).status).toBe(
      401,
    );
    expect(
      (await other.client.call(`/api/invoices/user/${encodeURIComponent(other.user.email)}`)).body,
    ).toEqual([]);
  });
});

describe('the trial', () => {
  it('is 1 hour of the chosen plan at its trial price, paid through the same checkout', async () => {
    const { user, client } = await buyer();
    const chosen = await choose(client, user.email, {
      plan: 'Trial',
      duration: 1,
      isTrial: true,
      trialPlan: 'PRO LEGEND',
      price: 0,
    });
    expect(chosen.status).toBe(200);
    expect(chosen.body).toMatchObject({
      selectedPlan: 'Trial',
      selectedDuration: 1,
      selectedStorage: '225 GB',
      pricePaise: 4500,
      isTrial: true,
      machinePlan: 'PRO LEGEND',
    });
    const start = await checkoutPending(client, user.email);
    expect(start).toMatchObject({ amount: '45.00', udf1: 'Trial', udf2: '1', udf3: '225 GB' });
    await pay(start.txnid);
    await paymentStatus(start.txnid, 'success');
    const trial = await db.one(sql.type(
      z.object({ is_trial: z.boolean(), instance_type: z.string(), hours: z.number() }),
    )`
      SELECT is_trial, instance_type, hours FROM subscriptions WHERE user_id = ${user.id} AND status = 'active'`);
    expect(trial).toEqual({ is_trial: true, instance_type: 'g4dn.2xlarge', hours: 1 });

    // One trial per user…
    const again = await choose(client, user.email, {
      plan: 'Trial',
      duration: 1,
      isTrial: true,
      trialPlan: 'LEGEND',
    });
    expect(again).toMatchObject({ status: 409, body: { message: TRIAL_ALREADY_USED_MESSAGE } });
    // …and per phone number: the refusal names the number, not the person.
    const samePhone = await buyer({ phone: user.phone });
    const other = await choose(samePhone.client, samePhone.user.email, {
      plan: 'Trial',
      duration: 1,
      isTrial: true,
    });
    expect(other).toMatchObject({ status: 409, body: { message: trialPhoneUsedMessage(user.phone!) } });
    expect(other.body.message).toContain(`+91 ${user.phone!.slice(0, 5)} ${user.phone!.slice(5)}`);

    // A running trial never blocks buying a plan; the plan replaces it.
    const plan = await checkout(client, user.email, { plan: 'LEGEND', duration: 30 });
    await pay(plan.txnid);
    await paymentStatus(plan.txnid, 'success');
    const rows = await db.any(sql.type(z.object({ plan_name: z.string(), status: z.string() }))`
      SELECT plan_name, status FROM subscriptions WHERE user_id = ${user.id} AND purchased_at IS NOT NULL ORDER BY purchased_at`);
    expect(rows).toEqual([
      { plan_name: 'Trial', status: 'expired' },
      { plan_name: 'LEGEND', status: 'active' },
    ]);
  });

  it('two trials paid at once by one phone number activate only one', async () => {
    const shared = phone();
    const a = await buyer({ phone: shared });
    const b = await buyer({ phone: shared });
    const trial = { plan: 'Trial', duration: 1, isTrial: true, trialPlan: 'LEGEND' };
    const [startA, startB] = await Promise.all([
      checkout(a.client, a.user.email, trial),
      checkout(b.client, b.user.email, trial),
    ]);
    await Promise.all([pay(startA.txnid), pay(startB.txnid)]);
    await Promise.all([paymentStatus(startA.txnid, 'success'), paymentStatus(startB.txnid, 'success')]);
    await Promise.all([settled(startA.txnid), settled(startB.txnid)]);
    const activeTrials = await count(sql.unsafe`
      SELECT 1 FROM subscriptions WHERE trial_phone = ${shared} AND is_trial AND purchased_at IS NOT NULL`);
    expect(activeTrials).toBe(1);
  });

  it('needs a phone number on the account', async () => {
    const { user, client } = await buyer({ phone: null });
    const reply = await choose(client, user.email, { plan: 'Trial', duration: 1, isTrial: true });
    expect(reply.status).toBe(400);
  });

  it('knows only the three card plans and one hour', async () => {
    const { user, client } = await buyer();
    expect((await choose(client, user.email, { plan: 'Trial', duration: 2, isTrial: true })).status).toBe(
      400,
    );
    expect(
      (
        await choose(client, user.email, {
          plan: 'Trial',
          duration: 1,
          isTrial: true,
          trialPlan: 'EDITOR LOW',
        })
      ).status,
    ).toBe(400);
  });
});

it('every card plan can be chosen at every duration at the catalogue price', async () => {
  const { user, client } = await buyer();
  for (const plan of PLANS.filter((p) => p.offeredInCards)) {
    for (const duration of [30, 45, 65, 90]) {
      const reply = await choose(client, user.email, { plan: plan.displayName, duration });
      expect(reply.body.pricePaise).toBe(priceFor(plan.id, duration));
    }
  }
});
