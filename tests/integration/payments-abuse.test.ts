import { describe, expect, it } from 'vitest';
import { sql } from '../../core/db/pool.ts';
import { findPaymentByTxnid } from '../../core/db/payments.ts';
import { OPEN_CHECKOUT_LIMIT, OPEN_CHECKOUT_LIMIT_MESSAGE } from '../../core/domain/payments.ts';
import { paymentHelpers } from '../support/payments.ts';
import { startTestStack } from '../support/stack.ts';

/**
 * Callback abuse is bounded. No worker runs here, so every job a callback queues stays in the
 * queue where the test can count it: a flood must leave one.
 */

const stack = await startTestStack({ worker: false });
const { count, buyer, checkout, checkoutPending, choose, control, postForm, startPayment } =
  paymentHelpers(stack);

async function verifyJobs(txnid: string): Promise<number> {
  return count(
    sql.unsafe`SELECT 1 FROM pgboss.job WHERE name = 'payment-verify' AND data->>'txnid' = ${txnid}`,
  );
}

describe('callback abuse', () => {
  it('a flood of valid callbacks (browser return, webhook, the page) for one txnid queues one job', async () => {
    const { user, client } = await buyer();
    const start = await checkout(client, user.email);
    await control({ action: 'set-webhook', txnid: start.txnid, url: null });
    const done = await control({ action: 'complete', txnid: start.txnid, outcome: 'success' });
    await control({ action: 'set-webhook', txnid: start.txnid, url: `${stack.url}/api/payu/webhook` });
    const replies = await control({
      action: 'replay',
      txnid: start.txnid,
      times: 25,
      to: 'both',
      concurrent: true,
    });
    expect(replies.deliveries).toHaveLength(50);
    for (const delivery of replies.deliveries) expect([200, 303]).toContain(delivery.status);
    await Promise.all(
      Array.from({ length: 10 }, () =>
        client.call('/api/vm/payment-callback', { body: { order: { status: 'PAID', txnid: start.txnid } } }),
      ),
    );
    expect((await postForm(done.returnUrl, done.fields)).status).toBe(303);
    expect(await verifyJobs(start.txnid)).toBe(1);
    const payment = await findPaymentByTxnid(stack.services.db, start.txnid);
    expect(payment?.callback_count).toBe(51);
  });

  it('refuses an oversized callback body with 413 before reading it', async () => {
    const { user, client } = await buyer();
    const start = await checkout(client, user.email);
    await control({ action: 'set-webhook', txnid: start.txnid, url: null });
    const done = await control({ action: 'complete', txnid: start.txnid, outcome: 'success' });
    const big = { ...done.fields, padding: 'x'.repeat(20_000) };
    for (const path of ['/api/payu/webhook', '/api/payu/success', '/api/vm/payment-callback']) {
      expect((await postForm(`${stack.url}${path}`, big)).status).toBe(413);
    }
    expect(await verifyJobs(start.txnid)).toBe(0);
  });

  it(`caps open checkouts at ${OPEN_CHECKOUT_LIMIT} per 15 minutes with a clear message`, async () => {
    const { user, client } = await buyer();
    expect((await choose(client, user.email)).status).toBe(200);
    for (let i = 0; i < OPEN_CHECKOUT_LIMIT; i++) await checkoutPending(client, user.email);
    const refused = await startPayment(client, user.email);
    expect(refused.status).toBe(429);
    expect(refused.body.message).toBe(OPEN_CHECKOUT_LIMIT_MESSAGE);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    // Another customer is not affected.
    const other = await buyer();
    expect((await choose(other.client, other.user.email)).status).toBe(200);
    expect((await startPayment(other.client, other.user.email)).status).toBe(200);
  });
});
