import { describe, expect, it } from 'vitest';
import { findSubscription } from '../../core/db/subscriptions.ts';
import { startTestStack, waitFor } from '../support/stack.ts';
import { paymentHelpers } from '../support/payments.ts';
import { newClient } from '../support/accounts.ts';

/**
 * `GET /api/user/deletion`: what the delete-account dialog lists before the confirmation, from
 * the facts the deletion itself reads. The machine is named by the plan it was made for, so it
 * is named after a refund ended the plan too (it once read "Terminates your cloud PC (, stopped)").
 */

const stack = await startTestStack({ worker: true });
const { buyer, checkout, pay, settled } = paymentHelpers(stack);

describe('GET /api/user/deletion', () => {
  it('names the machine and the plan, and still names the machine once a refund ended the plan', async () => {
    const { user, client } = await buyer();
    const start = await checkout(client, user.email, { plan: 'PRO LEGEND', duration: 30 });
    await pay(start.txnid);
    const payment = await settled(start.txnid);

    const before = await waitFor('the machine to exist', async () => {
      const reply = await client.call('/api/user/deletion');
      return reply.body.hasMachine ? reply : null;
    });
    expect(before.status).toBe(200);
    expect(before.body.machine).toMatch(
      /^Terminates your cloud PC \(PRO LEGEND, (being set up|starting|running)\)\.$/,
    );
    expect(before.body.plan).toMatchObject({ name: 'PRO LEGEND', hoursLeft: expect.stringMatching(/h/) });
    expect(before.body.invoices).toBe(1);

    const [attempt] = (await client.call('/api/payments')).body.payments as Array<Record<string, any>>;
    const refunded = await client.call(`/api/payments/${start.txnid}/refund`, {
      body: { confirmAmountPaise: attempt!.refundOffer.amountPaise },
    });
    expect(refunded.status).toBe(202);
    await waitFor('the refunded plan to end', async () => {
      const subscription = await findSubscription(stack.services.db, payment!.subscription_id);
      return subscription?.status === 'cancelled';
    });

    const after = await client.call('/api/user/deletion');
    expect(after.body.plan).toBeNull();
    expect(after.body.hasMachine).toBe(true);
    expect(after.body.machine).toMatch(/^Terminates your cloud PC \(PRO LEGEND, [a-z ]+\)\.$/);
    expect(after.body.machine).not.toContain('(,');
  });

  it('names a trial as the trial of its machine, and a customer without a machine as having none', async () => {
    const { user, client } = await buyer();
    expect((await client.call('/api/user/deletion')).body).toEqual({
      machine: 'You have no cloud PC, so there is no machine or disk to delete.',
      hasMachine: false,
      plan: null,
      invoices: 0,
      trialPhoneKept: false,
    });
    const start = await checkout(client, user.email, {
      plan: 'Trial',
      duration: 1,
      isTrial: true,
      trialPlan: 'ULTRA LEGEND',
    });
    await pay(start.txnid);
    await settled(start.txnid);
    const reply = await waitFor('the trial machine to exist', async () => {
      const body = (await client.call('/api/user/deletion')).body;
      return body.hasMachine ? body : null;
    });
    expect(reply.machine).toMatch(/^Terminates your cloud PC \(ULTRA LEGEND trial, [a-z ]+\)\.$/);
    expect(reply.plan.name).toBe('ULTRA LEGEND trial');
    expect(reply.trialPhoneKept).toBe(true);
  });

  it('answers 401 without a session', async () => {
    expect((await newClient(stack).call('/api/user/deletion')).status).toBe(401);
  });
});
